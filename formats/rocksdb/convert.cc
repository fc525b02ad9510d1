// The RocksDB family's conversions: a full filter whose trailer already is the target's kind,
// an SST's full filter copied out, and an SST's filter rewritten from its own keys.
#include <algorithm>
#include <optional>
#include <string>

#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/options.h"
#include "formats/rocksdb/family.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"

namespace bloomcodec::rocksdb {
namespace {

using engine::ConvertCall;
using engine::OneFile;

std::optional<FullFilterKind> KindOf(const FormatCodec* format) {
  if (format == Codec(FormatId::kBloomLegacy)) return FullFilterKind::kLegacyBloom;
  if (format == Codec(FormatId::kBloom)) return FullFilterKind::kFastLocalBloom;
  if (format == Codec(FormatId::kRibbon)) return FullFilterKind::kRibbon;
  return std::nullopt;
}

// RocksDB reads a full filter by its trailer, not by its policy: a filter whose trailer already
// is the target's kind (say a Ribbon policy's small FastLocalBloom filter, to rocksdb-bloom) is
// that format as it stands.
Result<std::optional<Conversion>> KindAlreadyMatches(const ConvertCall& call) {
  const std::optional<FullFilterKind> wanted = KindOf(call.options.to);
  Result<FullFilterReader> f = FullFilterReader::Parse(call.bytes, call.input.source);
  if (!wanted || !f.ok() || f->kind() != *wanted) return std::optional<Conversion>();
  return std::make_optional(
      OneFile(ConversionKind::kLossless, ByteVector(call.bytes.begin(), call.bytes.end())));
}

// The full filter block is a raw filter as it stands (its trailer says its kind).
Result<std::optional<Conversion>> FullFilterOfSst(const ConvertCall& call) {
  BLOOMCODEC_ASSIGN_OR_RETURN(SstReader sst, SstReader::Open(call.bytes, call.input.source));
  if (!sst.filter() || sst.filter()->placement != FilterPlacement::kFull) {
    return Status::Refused(call.input.source + ": " +
                           (!sst.filter() ? "no filter"
                            : sst.filter()->placement == FilterPlacement::kPartitioned
                                ? "a partitioned filter (one filter per partition)"
                                : "a block-based filter (one filter per 2 KiB of data blocks)") +
                           " to carry over; rebuild one with --from-table and --bits-per-key");
  }
  const ByteSpan f = sst.filter()->contents.bytes();
  return std::make_optional(OneFile(ConversionKind::kLossless, ByteVector(f.begin(), f.end())));
}

// An SST's full filter rebuilt from its own user keys (or removed); everything else carried over.
// The result is read back with every checksum verified and every key answered "may contain". Not
// a rewrite (nullopt) unless --bits-per-key or --no-filter asks for one.
Result<std::optional<Conversion>> RewriteSst(const ConvertCall& call) {
  const ConvertOptions& options = call.options;
  const std::string& source = call.input.source;
  const bool no_filter = options.family.Get<RocksDbOptions>().no_filter;
  if (!no_filter && !options.params.bits_per_key) return std::optional<Conversion>();
  if (options.keys) {
    return Status::InvalidArgument(
        "an SST's filter is rebuilt from the SST's own keys; "
        "--keys / --index do not apply");
  }
  if (options.params.fp_chance || options.params.buckets_per_element ||
      options.params.expected_keys) {
    return Status::InvalidArgument("rocksdb-sst takes only --bits-per-key B (or --no-filter)");
  }
  std::optional<double> bits_per_key;
  if (!no_filter) bits_per_key = *options.params.bits_per_key;
  BLOOMCODEC_ASSIGN_OR_RETURN(SstReader sst, SstReader::Open(call.bytes, source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector out, RewriteSstFilter(sst, bits_per_key));
  SstOpenOptions check_options;
  check_options.verify_checksums = true;
  BLOOMCODEC_ASSIGN_OR_RETURN(SstReader check,
                              SstReader::Open(out, source + " (rewritten)", check_options));
  std::uint64_t keys = 0;
  ByteVector last;
  BLOOMCODEC_RETURN_IF_ERROR(
      check.ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) -> Status {
        const ByteSpan user = UserKeyOf(key);
        if (keys > 0 && std::equal(user.begin(), user.end(), last.begin(), last.end())) {
          return Status();
        }
        last.assign(user.begin(), user.end());
        ++keys;
        BLOOMCODEC_ASSIGN_OR_RETURN(bool maybe, check.MayContain(user));
        if (!maybe) {
          return Status::Internal(
                     "the rewritten filter misses a stored key (a bug: please "
                     "report)")
              .WithFile(source + " (rewritten)");
        }
        return Status();
      }));
  Conversion c = OneFile(ConversionKind::kRewritten, std::move(out));
  c.keys_used = keys;
  return std::make_optional(std::move(c));
}

}  // namespace

// The user keys of an SST, each once, in file order.
Result<KeyList> TableKeys(const FormatCodec*, ByteSpan bytes, std::string_view source,
                          const FamilyOptions&) {
  BLOOMCODEC_ASSIGN_OR_RETURN(SstReader sst, SstReader::Open(bytes, std::string(source)));
  KeyList keys;
  ByteVector last;
  bool any = false;
  BLOOMCODEC_RETURN_IF_ERROR(
      sst.ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) {
        const ByteSpan user = UserKeyOf(key);
        if (any && std::equal(user.begin(), user.end(), last.begin(), last.end())) return Status();
        keys.Add(user);
        last.assign(user.begin(), user.end());
        any = true;
        return Status();
      }));
  return keys;
}

std::span<const engine::ConversionRule> ConversionRules() {
  using engine::When;
  const FormatCodec* legacy = Codec(FormatId::kBloomLegacy);
  const FormatCodec* bloom = Codec(FormatId::kBloom);
  const FormatCodec* ribbon = Codec(FormatId::kRibbon);
  const FormatCodec* sst = Codec(FormatId::kSst);
  constexpr ConversionKind kLossless = ConversionKind::kLossless;
  constexpr std::string_view kSameKind = "when its trailer already is the target's kind";
  constexpr std::string_view kCopied = "its full filter copied out (a partitioned one is refused)";
  static const engine::ConversionRule rules[] = {
      {legacy, bloom, kLossless, When::kBitsCarryOver, KindAlreadyMatches, kSameKind},
      {legacy, ribbon, kLossless, When::kBitsCarryOver, KindAlreadyMatches, kSameKind},
      {bloom, legacy, kLossless, When::kBitsCarryOver, KindAlreadyMatches, kSameKind},
      {bloom, ribbon, kLossless, When::kBitsCarryOver, KindAlreadyMatches, kSameKind},
      {ribbon, legacy, kLossless, When::kBitsCarryOver, KindAlreadyMatches, kSameKind},
      {ribbon, bloom, kLossless, When::kBitsCarryOver, KindAlreadyMatches, kSameKind},
      // An SST's bytes are tried as a full filter first, as they always were.
      {sst, legacy, kLossless, When::kBitsCarryOver, KindAlreadyMatches, {}},
      {sst, bloom, kLossless, When::kBitsCarryOver, KindAlreadyMatches, {}},
      {sst, ribbon, kLossless, When::kBitsCarryOver, KindAlreadyMatches, {}},
      {sst, legacy, kLossless, When::kBitsCarryOver, FullFilterOfSst, kCopied},
      {sst, bloom, kLossless, When::kBitsCarryOver, FullFilterOfSst, kCopied},
      {sst, ribbon, kLossless, When::kBitsCarryOver, FullFilterOfSst, kCopied},
      {sst, sst, ConversionKind::kRewritten, When::kTableRewrite, RewriteSst,
       "--bits-per-key B or --no-filter: the filter rebuilt from the SST's keys or removed"},
  };
  return rules;
}

}  // namespace bloomcodec::rocksdb

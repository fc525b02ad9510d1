// The Pebble family's conversions: a table's Bloom filter block copied out as `pebble-bloom`, and a
// row table's filter rewritten from its own keys (table/table_writer.h).
#include <optional>
#include <string>

#include "formats/pebble/family.h"
#include "pebble/format_codecs.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/table_writer.h"

namespace bloomcodec::pebble {
namespace {

using engine::ConvertCall;
using engine::OneFile;

// The filter block as it stands: Pebble's Bloom filter is pebble-bloom's bytes.
Result<std::optional<Conversion>> BloomOfTable(const ConvertCall& call) {
  BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTable t, PebbleTable::Open(call.bytes, call.input.source));
  if (!t.filter().bloom) {
    return Status::Refused(call.input.source + ": " +
                           (t.filter().kind == PebbleFilterKind::kBinaryFuse
                                ? "a binary fuse filter (pebble-binaryfuse), not a Bloom filter,"
                                : "no filter") +
                           " to carry over; rebuild one with --bits-per-key");
  }
  const ByteSpan f = t.filter().bloom->bytes();
  return std::make_optional(OneFile(ConversionKind::kLossless, ByteVector(f.begin(), f.end())));
}

// A row table's filter rebuilt from its own keys; read back with every checksum verified and
// every filter key answered "may contain". Not a rewrite (nullopt) without --bits-per-key.
Result<std::optional<Conversion>> RewriteTable(const ConvertCall& call) {
  const ConvertOptions& options = call.options;
  const std::string& source = call.input.source;
  if (!options.params.bits_per_key) return std::optional<Conversion>();
  if (options.keys) {
    return Status::InvalidArgument(
        "a Pebble table's filter is rebuilt from the table's own keys; --keys / --index do not "
        "apply");
  }
  if (options.params.expected_keys) {
    return Status::InvalidArgument(
        "pebble-table takes only --bits-per-key N (the filter is sized from the table's keys)");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t bits, WholeBits(options.params, "bits per key"));
  BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTable t, PebbleTable::Open(call.bytes, source));
  if (t.columnar()) {
    return Status::Unsupported(source + ": " + PebbleFormatName(t.version()) +
                               " is columnar: a filter is rewritten in row tables (Pebblev1..v4)");
  }
  std::uint64_t data_end = 0;
  BLOOMCODEC_ASSIGN_OR_RETURN(KeyList keys, PebbleFilterKeys(t, &data_end));
  BLOOMCODEC_ASSIGN_OR_RETURN(
      PebbleRewrite rewrite,
      RewritePebbleFilter(t, PolicyForRewrite(t, keys, bits), {keys, data_end}));
  BLOOMCODEC_RETURN_IF_ERROR(CheckRewrittenFilter(rewrite.bytes, source + " (rewritten)", keys));
  std::uint64_t distinct = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const ByteSpan k = keys[i];
    distinct += i == 0 || !std::equal(k.begin(), k.end(), keys[i - 1].begin(), keys[i - 1].end());
  }
  Conversion c = OneFile(ConversionKind::kRewritten, std::move(rewrite.bytes));
  c.keys_used = distinct;
  return std::make_optional(std::move(c));
}

}  // namespace

std::span<const engine::ConversionRule> ConversionRules() {
  using engine::When;
  const FormatCodec* table = Codec(FormatId::kTable);
  static const engine::ConversionRule rules[] = {
      {table, Codec(FormatId::kBloom), ConversionKind::kLossless, When::kBitsCarryOver,
       BloomOfTable, "its Bloom filter block copied out"},
      {table, table, ConversionKind::kRewritten, When::kTableRewrite, RewriteTable,
       "--bits-per-key N: a row table's filter (Pebblev1..v4) rebuilt from its keys"},
  };
  return rules;
}

}  // namespace bloomcodec::pebble

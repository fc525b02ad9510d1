// The cassandra-legacy codec: the legacy era's Filter.db (versions c .. e) as the command line
// sees it (docs/cli.md).
#include <string>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "cassandra/era_table.h"
#include "cassandra/format_codecs.h"
#include "cassandra/legacy/inspect.h"

namespace bloomcodec::cassandra {
namespace {

Result<LegacyFilterSpec> LegacySpec(std::int64_t n, const FilterParams& params) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckOverload(params));
  if (params.fp_chance) return LegacySizeForFpChance(n, *params.fp_chance);
  return LegacySizeForBucketsPerElement(n, static_cast<std::int32_t>(*params.buckets_per_element));
}

class LegacyFormat final : public FormatCodec {
 public:
  explicit LegacyFormat(Era era) : facts_(Facts(era)) {}

  std::string_view name() const override { return facts_.name; }
  std::string_view summary() const override { return facts_.summary; }
  std::string_view params_help() const override {
    return "--fp-chance P | --buckets-per-element N";
  }
  bool Claims(std::string_view path, ByteSpan) const override {
    return ClaimsEra(path, facts_.era);
  }
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilterSpec spec,
                                LegacySpec(ElementCount(keys.size(), params), params));
    return BuildLegacyFilter(keys, spec);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilterSpec spec, LegacySpec(ElementCount(0, params), params));
    if (spec.nbits < 0) {
      // java.util.BitSet(int nbits) throws for a negative size.
      return Status::Refused("NegativeArraySizeException: nbits < 0: " +
                             std::to_string(spec.nbits));
    }
    SizeInfo info;
    info.hash_count = spec.hash_count;
    info.buckets_per_element = spec.buckets_per_element;
    info.words = spec.word_count;
    // BitSet.size() is an int: 64 * 2^25 words wraps negative in Java.
    info.bits = std::int64_t{spec.word_count} * 64;
    info.file_bytes =
        static_cast<std::int64_t>(LegacyFilter::kOverheadBytes) + std::int64_t{spec.word_count} * 8;
    if (!spec.warning.empty()) info.warnings.push_back(spec.warning);
    if (spec.word_count > LegacyFilter::kMaxWordCount) {
      info.warnings.push_back(
          "64 * words overflows Java's int BitSet.size(): the original's "
          "lookups on this filter fail");
    }
    return info;
  }
  Status Hash(ByteSpan key, std::string& line) const override {
    const KeyHashes32 h = HashKey32(key);
    line = HashLine(h.h1, h.h2);
    return {};
  }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter filter, LegacyFilter::Parse(file, source));
    filter.MayContainBatch(keys, answers);
    return {};
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectLegacyFilter(file, source, facts_.era);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpLegacyFilter(file, source, facts_.era);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpLegacyFilter(dump, source, facts_.era);
  }

 private:
  const EraFacts& facts_;
};

}  // namespace

std::unique_ptr<FormatCodec> MakeLegacyCodec(Era era) {
  return std::make_unique<LegacyFormat>(era);
}

}  // namespace bloomcodec::cassandra

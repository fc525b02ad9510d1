// The cassandra-0.6 codec: the 0.6 era's Filter.db (SSTable versions before c, Cassandra 0.4 -
// 0.7 beta) as the command line sees it (docs/cli.md). The bytes are the legacy era's filter's
// (i32 hash count + a Java-serialized java.util.BitSet, 32-bit MurmurHash2 buckets), read and
// written by legacy/; what differs is the key: the filter was given a Java String and hashed
// String.getBytes("UTF-16") (java_string.h). Keys given here are UTF-8 text.
#include <string>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/java_string.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "cassandra/era_table.h"
#include "cassandra/format_codecs.h"
#include "cassandra/legacy/inspect.h"

namespace bloomcodec::cassandra {
namespace {

Result<LegacyFilterSpec> StringSpec(std::int64_t n, const FilterParams& params) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckOverload(params));
  if (params.fp_chance) return StringFilterSizeForFpChance(n, *params.fp_chance);
  return StringFilterSizeForBucketsPerElement(
      n, static_cast<std::int32_t>(*params.buckets_per_element));
}

class StringFormat final : public FormatCodec {
 public:
  explicit StringFormat(Era era) : facts_(Facts(era)) {}

  std::string_view name() const override { return facts_.name; }
  std::string_view summary() const override { return facts_.summary; }
  std::string_view params_help() const override {
    return "--fp-chance P | --buckets-per-element N (Cassandra's writer: 15); keys are UTF-8 text";
  }
  bool Claims(std::string_view path, ByteSpan) const override {
    return ClaimsEra(path, facts_.era);
  }
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilterSpec spec,
                                StringSpec(ElementCount(keys.size(), params), params));
    BLOOMCODEC_ASSIGN_OR_RETURN(KeyList strings, JavaStringKeysFromUtf8(keys, "keys"));
    return BuildLegacyFilter(strings, spec);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilterSpec spec, StringSpec(ElementCount(0, params), params));
    SizeInfo info;
    info.hash_count = spec.hash_count;
    info.buckets_per_element = spec.buckets_per_element;
    info.words = spec.word_count;
    info.bits = std::int64_t{spec.word_count} * 64;
    info.file_bytes =
        static_cast<std::int64_t>(LegacyFilter::kOverheadBytes) + std::int64_t{spec.word_count} * 8;
    if (!spec.warning.empty()) info.warnings.push_back(spec.warning);
    return info;
  }
  Status Hash(ByteSpan key, std::string& line) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::u16string text, DecodeUtf8Text(key, "the key"));
    const KeyHashes32 h = HashKey32(JavaUtf16Bytes(text));
    line = HashLine(h.h1, h.h2);
    return {};
  }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter filter, LegacyFilter::Parse(file, source));
    BLOOMCODEC_ASSIGN_OR_RETURN(KeyList strings, JavaStringKeysFromUtf8(keys, "keys"));
    filter.MayContainBatch(strings, answers);
    return {};
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Document doc, InspectLegacyFilter(file, source, facts_.era));
    doc["key_encoding"] = "String.getBytes(\"UTF-16\")";
    return doc;
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

std::unique_ptr<FormatCodec> MakeV06Codec(Era era) { return std::make_unique<StringFormat>(era); }

}  // namespace bloomcodec::cassandra

// The cassandra-1.0 codec: the 1.0 era's Filter.db (versions f .. hf) as the command line sees
// it (docs/cli.md).
#include <string>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "cassandra/era_table.h"
#include "cassandra/format_codecs.h"
#include "cassandra/v10/inspect.h"

namespace bloomcodec::cassandra {
namespace {

Result<FilterSpec> V10Spec(std::int64_t n, const FilterParams& params) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckOverload(params));
  if (params.fp_chance) return SizeForFpChance(n, *params.fp_chance);
  return SizeForBucketsPerElement(n, static_cast<std::int32_t>(*params.buckets_per_element));
}

class V10Format final : public FormatCodec {
 private:
  static Result<FilterSpec> BuildSpec(std::uint64_t keys, const FilterParams& params) {
    const std::int64_t n = ElementCount(keys, params);
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec, V10Spec(n, params));
    const std::int64_t wanted = TrueRequestedBits(n, spec.buckets_per_element);
    if (wanted > kMaxBits) {
      // Java would truncate the word count to an int and write a filter of the wrong size.
      return Status::Refused("getFilter(" + std::to_string(n) + ") needs " +
                             std::to_string(wanted) + " bits, more than a Filter.db holds (" +
                             std::to_string(kMaxBits) +
                             "); the original's int truncation "
                             "would give " +
                             std::to_string(spec.word_count) + " words");
    }
    return spec;
  }

 public:
  explicit V10Format(Era era) : facts_(Facts(era)) {}

  std::string_view name() const override { return facts_.name; }
  std::string_view summary() const override { return facts_.summary; }
  std::string_view params_help() const override {
    return "--fp-chance P | --buckets-per-element N (Cassandra's writer: 15)";
  }
  bool Claims(std::string_view path, ByteSpan) const override {
    return ClaimsEra(path, facts_.era);
  }
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec, BuildSpec(keys.size(), params));
    return BuildV10Filter(keys, spec);
  }
  Result<std::unique_ptr<FilterBuilder>> StartBuild(std::uint64_t key_count,
                                                    const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec, BuildSpec(key_count, params));
    BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter filter, V10Filter::Create(spec));
    return StartAdding(std::move(filter), key_count);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    const std::int64_t n = ElementCount(0, params);
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec, V10Spec(n, params));
    return V10SizeInfo(n, spec);
  }
  Status Hash(ByteSpan key, std::string& line) const override {
    const KeyHashes64 h = HashKey64(key);
    line = HashLine(h.h1, h.h2);
    return {};
  }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter filter, V10Filter::Parse(file, source));
    filter.MayContainBatch(keys, answers);
    return {};
  }
  Result<std::unique_ptr<FileProbe>> OpenProbe(ByteSpan file, std::string_view source,
                                               const ProbeOptions&) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter filter, V10Filter::Parse(file, source));
    return ProbeThrough(std::make_unique<V10Filter>(std::move(filter)));
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectV10Filter(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpV10Filter(file, source);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpV10Filter(dump, source);
  }

 private:
  const EraFacts& facts_;
};

}  // namespace

std::unique_ptr<FormatCodec> MakeV10Codec(Era era) { return std::make_unique<V10Format>(era); }

}  // namespace bloomcodec::cassandra

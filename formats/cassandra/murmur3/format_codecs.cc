// The codecs of the Murmur3 eras (Cassandra 1.2 - 5.0) as the command line sees them
// (docs/cli.md): cassandra-1.2, cassandra-3.0, cassandra-4.0, one class whose era's facts (the
// era table) say how it reads and writes.
#include <string>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "cassandra/era_table.h"
#include "cassandra/format_codecs.h"
#include "cassandra/murmur3/inspect.h"

namespace bloomcodec::cassandra {
namespace {

Result<Murmur3FilterSpec> SpecFor(std::int64_t n, const FilterParams& params) {
  if (params.buckets_per_element || params.bits_per_key) {
    return Status::InvalidArgument(
        "Cassandra 1.2 - 5.0 filters take --fp-chance P only (FilterFactory.getFilter(n, fp); "
        "the table's bloom_filter_fp_chance, default 0.01)");
  }
  if (!params.fp_chance) return Status::InvalidArgument("--fp-chance P is required");
  return SizeMurmur3Filter(n, *params.fp_chance);
}

// What fp chance 1.0 means for an era's writers.
std::string AlwaysPresentText(const EraFacts& era) {
  if (era.layout == Layout::kRawBytes) {
    return "fp chance 1.0: the always-present filter; Cassandra 5.0 serializes it as a 0-byte "
           "Filter.db (4.0 and 4.1 write no Filter.db; their deserializer expects the 8-byte "
           "header)";
  }
  return std::string(
             "fp chance 1.0: Cassandra uses its always-present filter and writes no "
             "Filter.db for ") +
         (era.order == IndexOrder::kNew
              ? "3.x sstables (the writer adds the FILTER component only when fp chance < 1.0)"
              : "this sstable (1.2 - 2.2 writers are believed to skip it as 3.x does; not "
                "checked in their source)");
}

class Murmur3Format final : public FormatCodec {
 public:
  explicit Murmur3Format(Era era) : facts_(Facts(era)) {}

  std::string_view name() const override { return facts_.name; }
  std::string_view summary() const override { return facts_.summary; }
  std::string_view params_help() const override {
    return "--fp-chance P (Cassandra's default bloom_filter_fp_chance: 0.01; 0.1 for LCS tables)";
  }
  bool Claims(std::string_view path, ByteSpan) const override {
    return ClaimsEra(path, facts_.era);
  }
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3FilterSpec spec,
                                SpecFor(ElementCount(keys.size(), params), params));
    if (spec.always_present) {
      if (facts_.layout == Layout::kRawBytes) return ByteVector();
      return Status::Refused(AlwaysPresentText(facts_) + "; there are no bytes to write");
    }
    return BuildMurmur3Filter(keys, spec.hash_count, spec.word_count, facts_.era);
  }
  Result<std::unique_ptr<FilterBuilder>> StartBuild(std::uint64_t key_count,
                                                    const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3FilterSpec spec,
                                SpecFor(ElementCount(key_count, params), params));
    if (spec.always_present) {
      if (facts_.layout == Layout::kRawBytes) {
        return StartAdding(Murmur3Filter::AlwaysPresent(), key_count);
      }
      return Status::Refused(AlwaysPresentText(facts_) + "; there are no bytes to write");
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(
        Murmur3Filter filter, Murmur3Filter::Create(spec.hash_count, spec.word_count, facts_.era));
    return StartAdding(std::move(filter), key_count);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3FilterSpec spec, SpecFor(ElementCount(0, params), params));
    SizeInfo info;
    if (spec.always_present) {
      info.always_present = true;
      info.words = 0;
      info.writes_filter_file = facts_.layout == Layout::kRawBytes;
      info.warnings.push_back(AlwaysPresentText(facts_));
      return info;
    }
    info.hash_count = spec.hash_count;
    info.buckets_per_element = spec.buckets_per_element;
    info.bits = spec.capacity_bits();
    info.words = spec.word_count;
    info.file_bytes = spec.file_bytes();
    return info;
  }
  Status Hash(ByteSpan key, std::string& line) const override {
    const Murmur3Hash h = CassandraMurmur3(key);
    line = HashLine(h.h0, h.h1);
    return {};
  }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f, Murmur3Filter::Parse(file, source, facts_.era));
    BLOOMCODEC_RETURN_IF_ERROR(f.CheckLookups(source));
    f.MayContainBatch(keys, answers);
    return {};
  }
  Result<std::unique_ptr<FileProbe>> OpenProbe(ByteSpan file, std::string_view source,
                                               const ProbeOptions&) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f, Murmur3Filter::Parse(file, source, facts_.era));
    BLOOMCODEC_RETURN_IF_ERROR(f.CheckLookups(source));
    return ProbeThrough(std::make_unique<Murmur3Filter>(std::move(f)));
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectMurmur3Filter(file, source, facts_.era);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpMurmur3Filter(file, source, facts_.era);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpMurmur3Filter(dump, source, facts_.era);
  }

 private:
  const EraFacts& facts_;
};

}  // namespace

std::unique_ptr<FormatCodec> MakeMurmur3Codec(Era era) {
  return std::make_unique<Murmur3Format>(era);
}

}  // namespace bloomcodec::cassandra

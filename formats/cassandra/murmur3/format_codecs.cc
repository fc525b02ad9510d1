// The Cassandra 1.2 - 5.0 filter formats as the command line sees them (docs/cli.md):
// cassandra-1.2, cassandra-3.0, cassandra-4.0.
#include <string>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "cassandra/descriptor.h"
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

// What fp chance 1.0 means for a format's writers.
std::string AlwaysPresentText(Murmur3Layout layout) {
  if (layout == Murmur3Layout::kRawBytes) {
    return "fp chance 1.0: the always-present filter; Cassandra 5.0 serializes it as a 0-byte "
           "Filter.db (4.0 and 4.1 write no Filter.db; their deserializer expects the 8-byte "
           "header)";
  }
  return std::string(
             "fp chance 1.0: Cassandra uses its always-present filter and writes no "
             "Filter.db for ") +
         (layout == Murmur3Layout::kNewOrderLongs
              ? "3.x sstables (the writer adds the FILTER component only when fp chance < 1.0)"
              : "this sstable (1.2 - 2.2 writers are believed to skip it as 3.x does; not "
                "checked in their source)");
}

class Murmur3Format final : public FormatCodec {
 public:
  Murmur3Format(Murmur3Layout layout, std::string_view summary)
      : layout_(layout), summary_(summary) {}

  std::string_view name() const override { return LayoutFormatName(layout_); }
  std::string_view summary() const override { return summary_; }
  std::string_view params_help() const override {
    return "--fp-chance P (Cassandra's default bloom_filter_fp_chance: 0.01; 0.1 for LCS tables)";
  }
  bool Claims(std::string_view path, ByteSpan) const override {
    Result<Descriptor> d = ParseDescriptor(path);
    return d.ok() && d->component == "Filter.db" && d->murmur3_layout() == layout_;
  }
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3FilterSpec spec,
                                SpecFor(ElementCount(keys.size(), params), params));
    if (spec.always_present) {
      if (layout_ == Murmur3Layout::kRawBytes) return ByteVector();
      return Status::Refused(AlwaysPresentText(layout_) + "; there are no bytes to write");
    }
    return BuildMurmur3Filter(keys, spec.hash_count, spec.word_count, layout_);
  }
  Result<std::unique_ptr<FilterBuilder>> StartBuild(std::uint64_t key_count,
                                                    const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3FilterSpec spec,
                                SpecFor(ElementCount(key_count, params), params));
    if (spec.always_present) {
      if (layout_ == Murmur3Layout::kRawBytes) {
        return StartAdding(Murmur3Filter::AlwaysPresent(), key_count);
      }
      return Status::Refused(AlwaysPresentText(layout_) + "; there are no bytes to write");
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter filter,
                                Murmur3Filter::Create(spec.hash_count, spec.word_count, layout_));
    return StartAdding(std::move(filter), key_count);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3FilterSpec spec, SpecFor(ElementCount(0, params), params));
    SizeInfo info;
    if (spec.always_present) {
      info.always_present = true;
      info.words = 0;
      info.writes_filter_file = layout_ == Murmur3Layout::kRawBytes;
      info.warnings.push_back(AlwaysPresentText(layout_));
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
    line = std::to_string(h.h0) + "\t" + std::to_string(h.h1);
    return {};
  }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f, Murmur3Filter::Parse(file, source, layout_));
    BLOOMCODEC_RETURN_IF_ERROR(f.CheckLookups(source));
    f.MayContainBatch(keys, answers);
    return {};
  }
  Result<std::unique_ptr<FileProbe>> OpenProbe(ByteSpan file, std::string_view source,
                                               const ProbeOptions&) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f, Murmur3Filter::Parse(file, source, layout_));
    BLOOMCODEC_RETURN_IF_ERROR(f.CheckLookups(source));
    return ProbeThrough(std::make_unique<Murmur3Filter>(std::move(f)));
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectMurmur3Filter(file, source, layout_);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpMurmur3Filter(file, source, layout_);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpMurmur3Filter(dump, source, layout_);
  }

 private:
  Murmur3Layout layout_;
  std::string_view summary_;
};

}  // namespace

const FormatCodec* Murmur3Codec(Murmur3Layout layout) {
  static const Murmur3Format v12(Murmur3Layout::kOldOrderLongs,
                                 "Cassandra Filter.db of versions ia .. lb (1.2 - 2.2): Murmur3, "
                                 "old index order, BE i64 words");
  static const Murmur3Format v30(Murmur3Layout::kNewOrderLongs,
                                 "versions ma .. me (3.x): Murmur3, new index order, BE i64 words");
  static const Murmur3Format v40(Murmur3Layout::kRawBytes,
                                 "versions na .. oa and BTI da (4.0 - 5.0): Murmur3, new index "
                                 "order, the bit set's raw bytes");
  switch (layout) {
    case Murmur3Layout::kOldOrderLongs: return &v12;
    case Murmur3Layout::kNewOrderLongs: return &v30;
    case Murmur3Layout::kRawBytes: return &v40;
  }
  return nullptr;
}

}  // namespace bloomcodec::cassandra

// The cassandra-1.0-row codec: the column-name filter at the start of a 1.0 Data.db row as the
// command line sees it (docs/cli.md).
#include <string>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "cassandra/era_table.h"
#include "cassandra/format_codecs.h"
#include "cassandra/v10_row/inspect.h"

namespace bloomcodec::cassandra {
namespace {

class RowFormat final : public FormatCodec {
 public:
  explicit RowFormat(Era era) : facts_(Facts(era)) {}

  std::string_view name() const override { return facts_.name; }
  std::string_view summary() const override { return facts_.summary; }
  std::string_view params_help() const override {
    return "(none: sized as Cassandra sizes a row's column filter; --expected-keys N for the "
           "estimated column count)";
  }
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    BLOOMCODEC_RETURN_IF_ERROR(CheckNoParams(params));
    const std::int64_t n = ElementCount(keys.size(), params);
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec,
                                SizeForBucketsPerElement(n, kRowFilterBucketsPerElement));
    if (TrueRequestedBits(n, spec.buckets_per_element) > kMaxBits) {
      return Status::Refused("a row filter for " + std::to_string(n) +
                             " columns needs more bits than a filter holds");
    }
    return BuildRowFilter(keys, n);
  }
  Result<SizeInfo> Size(const FilterParams& params) const override {
    BLOOMCODEC_RETURN_IF_ERROR(CheckNoParams(params));
    const std::int64_t n = ElementCount(0, params);
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec,
                                SizeForBucketsPerElement(n, kRowFilterBucketsPerElement));
    BLOOMCODEC_ASSIGN_OR_RETURN(SizeInfo info, V10SizeInfo(n, spec));
    info.file_bytes += 4;  // the length prefix
    return info;
  }
  Status Hash(ByteSpan key, std::string& line) const override {
    const KeyHashes64 h = HashKey64(key);
    line = HashLine(h.h1, h.h2);
    return {};
  }
  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(RowFilter row, RowFilter::Parse(file, source));
    row.filter().MayContainBatch(keys, answers);
    return {};
  }
  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectRowFilter(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpRowFilter(file, source);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpRowFilter(dump, source);
  }

 private:
  const EraFacts& facts_;

  static Status CheckNoParams(const FilterParams& params) {
    if (params.fp_chance || params.buckets_per_element || params.bits_per_key) {
      return Status::InvalidArgument(
          "cassandra-1.0-row takes no sizing parameter: Cassandra sizes a row's column filter "
          "as getFilter(columns, 4); use --expected-keys N for an estimated column count");
    }
    return {};
  }
};

}  // namespace

std::unique_ptr<FormatCodec> MakeV10RowCodec(Era era) { return std::make_unique<RowFormat>(era); }

}  // namespace bloomcodec::cassandra

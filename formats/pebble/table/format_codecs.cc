// The `pebble-table` format of the command line: a Pebble table (Pebblev1..v8), probed
// through its filter as Pebble's read path asks it, inspected block by block.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "pebble/format_codecs.h"
#include "pebble/table/inspect.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/table_writer.h"

namespace bloomcodec::pebble {

namespace {

class TableFormat final : public FormatCodec {
 public:
  std::string_view name() const override { return kTableFormatName; }
  std::string_view summary() const override {
    return "a Pebble table (formats Pebblev1..v4, row blocks; Pebblev5..v8, columnar blocks); its "
           "filter is found through the "
           "metaindex";
  }
  std::string_view params_help() const override {
    return "--bits-per-key N (`build`; `convert` to itself)";
  }

  // Pebble's magic, whatever the version: a columnar table is still Pebble's, and verify says
  // what it cannot read of it.
  bool Claims(std::string_view, ByteSpan contents) const override {
    return HasPebbleTableMagic(contents);
  }

  // A Pebblev4 table of the keys sorted bytewise with duplicates dropped, SETs with empty values,
  // and the Bloom filter Pebble's writer adds for them (table_writer.h).
  Result<ByteVector> Build(const KeyList& keys, const FilterParams& params) const override {
    if (params.expected_keys) {
      return Status::InvalidArgument(
          "pebble-table takes only --bits-per-key N (the filter is sized from the table's keys)");
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t bits, WholeBits(params, "bits per key"));
    std::vector<std::size_t> order(keys.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto less = [&](std::size_t x, std::size_t y) {
      const ByteSpan a = keys[x], b = keys[y];
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    };
    std::stable_sort(order.begin(), order.end(), less);
    KeyList sorted;
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (i > 0 && !less(order[i - 1], order[i])) continue;
      sorted.Add(keys[order[i]]);
    }
    PebbleWriteOptions options;
    options.filter.bits_per_key = bits;
    return WritePebbleTable(sorted, options);
  }
  Result<SizeInfo> Size(const FilterParams&) const override {
    return Status::Unsupported(
        "size is not defined for pebble-table: use --format pebble-bloom or pebble-binaryfuse");
  }
  Status Hash(ByteSpan, std::string&) const override {
    return Status::Unsupported(
        "hash is not defined for pebble-table: use --format pebble-bloom or pebble-binaryfuse");
  }

  Status Probe(ByteSpan file, std::string_view source, const KeyList& keys, const ProbeOptions&,
               std::span<std::uint8_t> answers) const override {
    BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTable t, PebbleTable::Open(file, std::string(source)));
    t.MayContainBatch(keys, answers);
    return Status();
  }

  Result<Document> Inspect(ByteSpan file, std::string_view source) const override {
    return InspectPebbleTable(file, source);
  }
  Result<Document> Dump(ByteSpan file, std::string_view source) const override {
    return DumpPebbleTable(file, source);
  }
  Result<ByteVector> Undump(const Document& dump, std::string_view source) const override {
    return UndumpPebbleTable(dump, source);
  }
};

}  // namespace

const FormatCodec* TableCodec() {
  static const TableFormat codec;
  return &codec;
}

}  // namespace bloomcodec::pebble

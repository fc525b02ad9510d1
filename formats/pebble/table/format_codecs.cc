// The `pebble-table` format of the command line: a Pebble table (Pebblev1..v8), probed
// through its filter as Pebble's read path asks it, inspected block by block.
#include <string>

#include "bloomcodec/format.h"
#include "pebble/table/inspect.h"
#include "pebble/table/table_reader.h"

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
  std::string_view params_help() const override { return "(none: read only)"; }

  // Pebble's magic, whatever the version: a columnar table is still Pebble's, and verify says
  // what it cannot read of it.
  bool Claims(std::string_view, ByteSpan contents) const override {
    return HasPebbleTableMagic(contents);
  }

  Result<ByteVector> Build(const KeyList&, const FilterParams&) const override {
    return Status::Unsupported(
        "build is not defined for pebble-table: use --format pebble-bloom or pebble-binaryfuse "
        "for the filter block a Pebble table holds");
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
};

}  // namespace

const FormatCodec* TableCodec() {
  static const TableFormat codec;
  return &codec;
}

}  // namespace bloomcodec::pebble

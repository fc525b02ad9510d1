// Test helper: Pebble columnar tables (Pebblev5..v8) built from the facts of
// formats/pebble/FORMAT.md §2, §3, §6 with our columnar encoders (formats/pebble/colblk), our
// Pebble Bloom builder and footer, so that tests (and fuzz seeds) make their own tables.
//
//   std::vector<PebbleEntry> entries = {{"apple", 7, kSet, "red"}, {"pear", 3, kDel, ""}};
//   ColumnarTableSpec spec;
//   spec.version = 7;  // key-value metaindex and properties, footer attributes
//   ByteVector table = BuildColumnarTable(entries, spec);
//
// Entries must be in Pebble's order under the schema's comparer (the encoder refuses others); a
// key shadowed by the one before carries kObsoleteBit in its kind, as Pebble marks it.
// File order as Pebble's columnar writer: data blocks, index (partitions, top level), filter,
// range deletions, properties, metaindex, footer. Index separators are each block's last user
// key (a valid Separator).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "blocktable/block_builder.h"
#include "blocktable/trailer.h"
#include "bloomcodec/bytes.h"
#include "codec/byte_writer.h"
#include "pebble/bloom.h"
#include "pebble/colblk/data_block_encoder.h"
#include "pebble/colblk/index_block.h"
#include "pebble/colblk/keyspan.h"
#include "pebble/colblk/kv_block.h"
#include "pebble/table/table_reader.h"
#include "table_builder.h"

namespace bloomcodec::pebble::testing {

// How data blocks are stored with compression type 8 (MinLZ).
enum class MinLz {
  kOff,         // the spec's compression
  kLiteral,     // 0x00, uncompressed length 0, the block as is
  kSnappy,      // the Snappy block Pebble's MinLZ compressor falls back to
  kCompressed,  // 0x00, the length, then bytes standing for an LZ stream (undecodable here)
};

struct ColumnarTableSpec {
  std::uint32_t version = 5;
  blocktable::ChecksumType checksum = blocktable::ChecksumType::kCrc32c;
  blocktable::BlockCompression compression = blocktable::BlockCompression::kNone;
  MinLz minlz = MinLz::kOff;  // data blocks
  bool minlz_index = false;   // index blocks too
  std::size_t block_size = 1024;
  bool filter = true;
  std::uint32_t bits_per_key = 10;
  bool two_level = false;
  std::size_t index_block_size = 128;
  std::string key_schema = "DefaultKeySchema(leveldb.BytewiseComparator,16)";
  std::string comparer = "leveldb.BytewiseComparator";
  std::vector<std::pair<std::string, std::string>> range_dels;  // [start, end), seq 1
  // Text properties written besides the common ones (e.g. pebble.compression_stats).
  std::map<std::string, std::string> extra_properties;
};

class ColumnarTableWriter {
 public:
  explicit ColumnarTableWriter(const ColumnarTableSpec& spec) : spec_(spec) {}

  enum class Role { kData, kIndex, kOther };
  blocktable::BlockHandle WriteBlock(ByteSpan raw, bool compress, Role role = Role::kOther) {
    ByteVector stored_bytes;
    std::uint8_t type = 0;
    if (spec_.minlz != MinLz::kOff &&
        (role == Role::kData || (role == Role::kIndex && spec_.minlz_index))) {
      type = 8;
      if (spec_.minlz == MinLz::kSnappy) {
        blocktable::CompressBlock(blocktable::BlockCompression::kSnappy, raw, stored_bytes);
      } else {
        stored_bytes.push_back(0);
        ByteWriter(stored_bytes).PutVarint64(spec_.minlz == MinLz::kLiteral ? 0 : raw.size());
        stored_bytes.insert(stored_bytes.end(), raw.begin(), raw.end());
      }
    } else if (compress) {
      type = CompressIfSmaller(spec_.compression, raw, stored_bytes);
    }
    return AppendBlockWithTrailer(out_, type == 0 ? raw : ByteSpan(stored_bytes), type,
                                  spec_.checksum);
  }

  ByteVector Build(const std::vector<PebbleEntry>& entries);

 private:
  void WriteDataBlocks(const std::vector<PebbleEntry>& entries);
  blocktable::BlockHandle WriteIndex();
  ByteVector PropertiesBlock(const std::vector<PebbleEntry>& entries,
                             std::optional<std::size_t> filter) const;

  ColumnarTableSpec spec_;
  ByteVector out_;
  std::vector<std::pair<std::string, blocktable::BlockHandle>> index_;  // separator, data block
};

inline void ColumnarTableWriter::WriteDataBlocks(const std::vector<PebbleEntry>& entries) {
  const colblk::KeySchema schema = colblk::FindKeySchema(spec_.key_schema).value();
  colblk::DataBlockEncoder enc =
      colblk::DataBlockEncoder::Make(schema, spec_.version >= kTieringFormat).value();
  std::string last;
  bool any = false;
  auto flush = [&] {
    const ByteVector block = enc.Finish(enc.rows()).value();
    index_.emplace_back(last, WriteBlock(block, true, Role::kData));
    enc.Reset();
  };
  for (const PebbleEntry& e : entries) {
    colblk::DataBlockRow row;
    row.user_key = AsBytes(e.user_key);
    // The obsolete mark (0x40 in a row table's kind) goes to its own column.
    row.trailer = e.seq << 8 | (e.kind & ~kObsoleteBit);
    row.obsolete = (e.kind & kObsoleteBit) != 0;
    // A block's first key compares its prefix with the table's previous key, as Pebble's writer.
    if (any && enc.rows() == 0) {
      const ByteSpan k = AsBytes(e.user_key), p = AsBytes(last);
      const std::size_t n = colblk::SplitUserKey(schema.comparer, k);
      const std::size_t m = colblk::SplitUserKey(schema.comparer, p);
      row.first_prefix_changed = n != m || !std::equal(k.begin(), k.begin() + n, p.begin());
    }
    any = true;
    row.value = AsBytes(e.value);
    if (!enc.Add(row).ok()) std::abort();  // a test's entries out of order
    last = e.user_key;
    if (enc.Size(enc.rows()) >= spec_.block_size) flush();
  }
  if (enc.rows() > 0) flush();
}

inline blocktable::BlockHandle ColumnarTableWriter::WriteIndex() {
  colblk::IndexBlockWriter partition;
  if (!spec_.two_level) {
    for (const auto& [sep, h] : index_)
      partition.AddBlockHandle(AsBytes(sep), h.offset, h.size, {});
    return WriteBlock(partition.Finish(partition.rows()).value(), true, Role::kIndex);
  }
  colblk::IndexBlockWriter top;
  std::string last;
  auto flush = [&] {
    const blocktable::BlockHandle h =
        WriteBlock(partition.Finish(partition.rows()).value(), true, Role::kIndex);
    top.AddBlockHandle(AsBytes(last), h.offset, h.size, {});
    partition.Reset();
  };
  for (const auto& [sep, h] : index_) {
    partition.AddBlockHandle(AsBytes(sep), h.offset, h.size, {});
    last = sep;
    if (partition.Size(partition.rows()) >= spec_.index_block_size) flush();
  }
  if (partition.rows() > 0) flush();
  return WriteBlock(top.Finish(top.rows()).value(), true, Role::kIndex);
}

inline ByteVector ColumnarTableWriter::PropertiesBlock(const std::vector<PebbleEntry>& entries,
                                                       std::optional<std::size_t> filter) const {
  TableShape shape;
  shape.range_dels = spec_.range_dels.size();
  shape.data_blocks = index_.size();
  shape.two_level = spec_.two_level;
  shape.comparer = spec_.comparer;
  shape.filter_bytes = filter;
  PropertyMap props = CommonProperties(entries, shape);
  props.Text("pebble.colblk.schema", spec_.key_schema);
  props.Number("pebble.num.deletions.sized", SizedDeletions(entries));
  for (const auto& [name, text] : spec_.extra_properties) props.Text(name, text);
  if (spec_.version >= kAttributesFormat) {
    colblk::KeyValueBlockWriter kv;
    for (const auto& [name, value] : props.entries) kv.Add(AsBytes(name), value);
    return kv.Finish(kv.rows()).value();
  }
  return NamedRowBlock(props.entries, 0x7fffffff);
}

inline ByteVector ColumnarTableWriter::Build(const std::vector<PebbleEntry>& entries) {
  WriteDataBlocks(entries);
  const blocktable::BlockHandle index = WriteIndex();
  std::map<std::string, ByteVector> meta;  // metaindex: name -> handle
  const colblk::KeySchema schema = colblk::FindKeySchema(spec_.key_schema).value();
  std::optional<std::size_t> filter_bytes;
  if (spec_.filter) {
    const ByteVector bytes = BloomFilterBlock(entries, schema.comparer, spec_.bits_per_key);
    filter_bytes = bytes.size();
    meta[std::string(kBloomFilterBlockName)] = HandleValue(WriteBlock(bytes, false));
  }
  if (!spec_.range_dels.empty()) {
    colblk::KeyspanBlockWriter rd(schema.comparer);
    for (const auto& [start, end] : spec_.range_dels) {
      rd.AddSpan(AsBytes(start), AsBytes(end), {colblk::KeyspanKey{1 << 8 | kRangeDel, {}, {}}});
    }
    meta[std::string(kRangeDelBlockName)] = HandleValue(WriteBlock(rd.Finish().value(), false));
  }
  meta["rocksdb.properties"] = HandleValue(
      WriteBlock(PropertiesBlock(entries, filter_bytes), spec_.version >= kAttributesFormat));
  ByteVector metaindex;
  if (spec_.version >= kFooterChecksumFormat) {
    colblk::KeyValueBlockWriter kv;
    for (const auto& [name, value] : meta) kv.Add(AsBytes(name), value);
    metaindex = kv.Finish(kv.rows()).value();
  } else {
    metaindex = NamedRowBlock(meta, 1);
  }
  PebbleFooter footer;
  footer.version = spec_.version;
  footer.footer.checksum = spec_.checksum;
  footer.footer.metaindex_handle = WriteBlock(metaindex, false);
  footer.footer.index_handle = index;
  // Properties.toAttributes: range deletions 16, two-level index 32, point keys 128.
  footer.attributes =
      (spec_.range_dels.empty() ? 0 : 16) | (spec_.two_level ? 32 : 0) | (index_.empty() ? 0 : 128);
  AppendPebbleFooter(footer, out_);
  return std::move(out_);
}

inline ByteVector BuildColumnarTable(const std::vector<PebbleEntry>& entries,
                                     const ColumnarTableSpec& spec) {
  return ColumnarTableWriter(spec).Build(entries);
}

}  // namespace bloomcodec::pebble::testing

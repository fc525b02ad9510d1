// Test helper: Pebble row-based tables (Pebblev1..v4) built from the facts of
// formats/pebble/FORMAT.md §2 - §5 with our own block builder, Pebble Bloom builder and footer,
// so that tests (and fuzz seeds) make their own tables instead of copying Pebble's.
//
//   std::vector<PebbleEntry> entries = {{"apple", 7, kSet, "red"}, {"pear", 3, kDel, ""}};
//   PebbleTableSpec spec;
//   spec.version = 3;  // values of SETs get the value prefix byte
//   ByteVector table = BuildPebbleTable(entries, spec);
//
// Entries must be in Pebble's order (user keys ascending, sequence numbers descending). Index
// separators are each block's last key (what Pebble writes when shortening does not help).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "blocktable/block_builder.h"
#include "blocktable/trailer.h"
#include "bloomcodec/bytes.h"
#include "codec/byte_writer.h"
#include "pebble/bloom.h"
#include "pebble/table/table_reader.h"
#include "table_builder_common.h"

namespace bloomcodec::pebble::testing {

struct PebbleTableSpec {
  std::uint32_t version = 1;
  blocktable::ChecksumType checksum = blocktable::ChecksumType::kCrc32c;
  blocktable::BlockCompression compression = blocktable::BlockCompression::kNone;
  std::size_t block_size = 2048;
  bool filter = true;
  std::uint32_t bits_per_key = 10;
  bool two_level = false;
  std::size_t index_block_size = 128;
  bool block_properties = false;  // one block property (short ID 0) after each index handle
  std::vector<std::pair<std::string, std::string>> range_dels;  // [start, end), seq 1
  // Values stored as given, without v3's prefix byte (to write damaged or handle prefixes).
  bool raw_values = false;
  // The filter built from these user keys instead of the table's (a filter for other keys).
  std::vector<std::string> filter_keys_override;
  // RocksDBv2 as Pebble writes it (format major versions 1 to 4): RocksDB's block-based magic
  // and footer version 2, values without Pebblev3's prefix, and the range deletions named under
  // both rocksdb.range_del and rocksdb.range_del2 (Pebble v1's writer).
  bool rocksdb_v2 = false;
  // With rocksdb_v2: TableFormatLevelDB instead, LevelDB's 48-byte footer (CRC-32C).
  bool leveldb_footer = false;
  // The properties Pebble's writer records for a comparer with a Split [P1 sstable/writer.go]:
  // rocksdb.prefix.extractor.name = the comparer's name, prefix filtering on, whole-key off.
  bool split_properties = false;
  // rocksdb.comparator; the filter holds key[:Split(key)] of cockroach_comparator's keys.
  std::string comparer = std::string(colblk::kBytewiseComparatorName);
  // Pebblev3+: value blocks (their stored bytes, uncompressed) written after the range
  // deletions, and the value index naming them (FORMAT.md §5.3), as Pebble orders them.
  std::vector<std::string> value_blocks;
  std::string value_index_raw;  // the value index's bytes instead of its rows (damaged ones)
};

inline void PutTrailer(ByteVector& key, std::uint64_t seq, std::uint8_t kind) {
  const std::uint64_t t = seq << 8 | kind;
  for (int i = 0; i < 8; ++i) key.push_back(static_cast<std::uint8_t>(t >> (8 * i)));
}

inline ByteVector InternalKey(const std::string& user, std::uint64_t seq, std::uint8_t kind) {
  ByteVector k(user.begin(), user.end());
  PutTrailer(k, seq, kind);
  return k;
}

class PebbleTableWriter {
 public:
  explicit PebbleTableWriter(const PebbleTableSpec& spec) : spec_(spec) {}

  // Writes a block with its trailer; compressed when asked and smaller by an eighth.
  blocktable::BlockHandle WriteBlock(ByteSpan raw, bool compress) {
    ByteVector compressed;
    const std::uint8_t type =
        compress ? CompressIfSmaller(spec_.compression, raw, compressed) : std::uint8_t{0};
    return AppendBlockWithTrailer(out_, type == 0 ? raw : ByteSpan(compressed), type,
                                  spec_.checksum);
  }

  ByteVector IndexValue(const blocktable::BlockHandle& h) const {
    ByteVector v;
    blocktable::AppendBlockHandle(h, v);
    if (spec_.block_properties) v.insert(v.end(), {0x00, 0x01, 0x2a});
    return v;
  }

  ByteVector Build(const std::vector<PebbleEntry>& entries);

 private:
  void WriteDataBlocks(const std::vector<PebbleEntry>& entries);
  blocktable::BlockHandle WriteIndex();
  void WriteValueBlocks(std::map<std::string, ByteVector>& meta);

  PebbleTableSpec spec_;
  ByteVector out_;
  std::vector<std::pair<ByteVector, blocktable::BlockHandle>> index_;  // last key, data block
};

inline void PebbleTableWriter::WriteDataBlocks(const std::vector<PebbleEntry>& entries) {
  blocktable::BlockBuilder block(16);
  ByteVector last;
  auto flush = [&] {
    index_.emplace_back(last, WriteBlock(block.Finish(), true));
    block.Reset();
  };
  for (const PebbleEntry& e : entries) {
    ByteVector key = InternalKey(e.user_key, e.seq, e.kind);
    ByteVector value;
    if (!spec_.raw_values && !spec_.rocksdb_v2 && spec_.version >= kValuePrefixFormat &&
        (e.kind & ~kObsoleteBit) == kSet) {
      value.push_back(0x00);  // in place
    }
    value.insert(value.end(), e.value.begin(), e.value.end());
    block.Add(key, value);
    last = std::move(key);
    if (block.SizeEstimate() >= spec_.block_size) flush();
  }
  // No point key: Pebble still writes one (empty) data block; its index key is an empty user key
  // with the separator trailer its index keys carry ((2^56 - 1) << 8 | 17, FORMAT.md §9).
  if (entries.empty()) last = InternalKey("", (std::uint64_t{1} << 56) - 1, kSeparator);
  if (!block.empty() || index_.empty()) flush();
}

inline blocktable::BlockHandle PebbleTableWriter::WriteIndex() {
  if (!spec_.two_level) {
    blocktable::BlockBuilder index(1);
    for (const auto& [key, h] : index_) index.Add(key, IndexValue(h));
    return WriteBlock(index.Finish(), true);
  }
  blocktable::BlockBuilder partition(1);
  blocktable::BlockBuilder top(1);
  ByteVector last;
  auto flush = [&] {
    top.Add(last, IndexValue(WriteBlock(partition.Finish(), true)));
    partition.Reset();
  };
  for (const auto& [key, h] : index_) {
    partition.Add(key, IndexValue(h));
    last = key;
    if (partition.SizeEstimate() >= spec_.index_block_size) flush();
  }
  if (!partition.empty()) flush();
  return WriteBlock(top.Finish(), true);
}

inline void PebbleTableWriter::WriteValueBlocks(std::map<std::string, ByteVector>& meta) {
  if (spec_.value_blocks.empty()) return;
  std::vector<blocktable::BlockHandle> blocks;
  for (const std::string& b : spec_.value_blocks) blocks.push_back(WriteBlock(AsBytes(b), false));
  // Each width the bytes of its largest value, at least 1 (lenLittleEndian).
  auto width = [](std::uint64_t v) {
    std::uint8_t n = 1;
    while (n < 8 && (v >> (8 * n)) != 0) ++n;
    return n;
  };
  std::uint64_t longest = 0;
  for (const auto& h : blocks) longest = std::max(longest, h.size);
  const std::uint8_t w[3] = {width(blocks.size() - 1), width(blocks.back().offset), width(longest)};
  ByteVector index;
  auto put = [&](std::uint64_t v, std::uint8_t n) {
    for (std::uint8_t i = 0; i < n; ++i) index.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    put(i, w[0]);
    put(blocks[i].offset, w[1]);
    put(blocks[i].size, w[2]);
  }
  if (!spec_.value_index_raw.empty())
    index.assign(spec_.value_index_raw.begin(), spec_.value_index_raw.end());
  ByteVector value = HandleValue(WriteBlock(index, false));
  value.insert(value.end(), w, w + 3);
  meta[std::string(kValueIndexBlockName)] = value;
}

inline ByteVector PebbleTableWriter::Build(const std::vector<PebbleEntry>& entries) {
  WriteDataBlocks(entries);
  std::map<std::string, ByteVector> meta;  // metaindex: name -> handle
  std::optional<std::size_t> filter_bytes;
  if (spec_.filter) {
    const colblk::KeyComparer comparer = spec_.comparer == colblk::kCockroachComparatorName
                                             ? colblk::KeyComparer::kCockroach
                                             : colblk::KeyComparer::kBytewise;
    const ByteVector bytes =
        BloomFilterBlock(entries, comparer, spec_.bits_per_key, spec_.filter_keys_override);
    filter_bytes = bytes.size();
    meta[std::string(kBloomFilterBlockName)] = HandleValue(WriteBlock(bytes, false));
  }
  const blocktable::BlockHandle index = WriteIndex();
  if (!spec_.range_dels.empty()) {
    blocktable::BlockBuilder rd(1);
    for (const auto& [start, end] : spec_.range_dels) {
      rd.Add(InternalKey(start, 1, kRangeDel), AsBytes(end));
    }
    const ByteVector h = HandleValue(WriteBlock(rd.Finish(), false));
    meta[std::string(kRangeDelBlockName)] = h;
    if (spec_.rocksdb_v2) meta["rocksdb.range_del"] = h;
  }
  const std::uint64_t value_blocks_start = out_.size();
  WriteValueBlocks(meta);
  TableShape shape;
  shape.range_dels = spec_.range_dels.size();
  shape.data_blocks = index_.size();
  shape.two_level = spec_.two_level;
  shape.filter_bytes = filter_bytes;
  shape.comparer = spec_.comparer;
  PropertyMap props = CommonProperties(entries, shape);
  if (!spec_.value_blocks.empty()) {
    props.Number("pebble.num.value-blocks", spec_.value_blocks.size());
    props.Number("pebble.value-blocks.size", out_.size() - value_blocks_start);
  }
  if (spec_.split_properties) {
    props.Text("rocksdb.prefix.extractor.name", "leveldb.BytewiseComparator");
    props.Text("rocksdb.block.based.table.prefix.filtering", "1");
    props.Text("rocksdb.block.based.table.whole.key.filtering", "0");
  }
  if (spec_.version >= kObsoleteBitFormat && !spec_.rocksdb_v2) {
    props.Number("pebble.num.deletions.sized", SizedDeletions(entries));
  }
  meta["rocksdb.properties"] =
      HandleValue(WriteBlock(NamedRowBlock(props.entries, 0x7fffffff), false));
  PebbleFooter footer;
  footer.version = spec_.version;
  footer.footer.checksum = spec_.checksum;
  footer.footer.metaindex_handle = WriteBlock(NamedRowBlock(meta, 1), false);
  footer.footer.index_handle = index;
  if (spec_.rocksdb_v2) {
    footer.footer.magic =
        spec_.leveldb_footer ? blocktable::kLevelDbTableMagic : blocktable::kBlockBasedTableMagic;
    footer.footer.format_version = spec_.leveldb_footer ? 0 : 2;
    blocktable::AppendFooter(footer.footer, out_);
  } else {
    AppendPebbleFooter(footer, out_);
  }
  return std::move(out_);
}

inline ByteVector BuildPebbleTable(const std::vector<PebbleEntry>& entries,
                                   const PebbleTableSpec& spec) {
  return PebbleTableWriter(spec).Build(entries);
}

}  // namespace bloomcodec::pebble::testing

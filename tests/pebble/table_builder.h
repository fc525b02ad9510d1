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

namespace bloomcodec::pebble::testing {

inline constexpr std::uint8_t kDel = 0, kSet = 1, kMerge = 2, kSingleDel = 7, kRangeDel = 15,
                              kSeparator = 17, kSetWithDel = 18, kDelSized = 23;

struct PebbleEntry {
  std::string user_key;
  std::uint64_t seq = 0;
  std::uint8_t kind = kSet;  // may carry the obsolete bit (0x40) in Pebblev4
  std::string value;         // as the user gave it (the builder adds v3's prefix byte)
};

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
  // The properties Pebble's writer records for a comparer with a Split [P1 sstable/writer.go]:
  // rocksdb.prefix.extractor.name = the comparer's name, prefix filtering on, whole-key off.
  bool split_properties = false;
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
    std::uint8_t type = 0;
    ByteSpan stored = raw;
    if (compress && spec_.compression != blocktable::BlockCompression::kNone &&
        blocktable::CompressBlock(spec_.compression, raw, compressed) &&
        compressed.size() < raw.size() - raw.size() / 8) {
      type = static_cast<std::uint8_t>(spec_.compression);
      stored = compressed;
    }
    const blocktable::BlockHandle h{out_.size(), stored.size()};
    out_.insert(out_.end(), stored.begin(), stored.end());
    out_.push_back(type);
    const std::uint32_t c = blocktable::BlockChecksum(spec_.checksum, stored, type);
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<std::uint8_t>(c >> (8 * i)));
    return h;
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

inline ByteVector PebbleTableWriter::Build(const std::vector<PebbleEntry>& entries) {
  WriteDataBlocks(entries);
  std::map<std::string, ByteVector> meta;  // metaindex: name -> handle
  auto handle_value = [](const blocktable::BlockHandle& h) {
    ByteVector v;
    blocktable::AppendBlockHandle(h, v);
    return v;
  };
  if (spec_.filter) {
    KeyList keys;
    if (spec_.filter_keys_override.empty()) {
      for (const PebbleEntry& e : entries) keys.Add(e.user_key);
    } else {
      for (const std::string& k : spec_.filter_keys_override) keys.Add(k);
    }
    BloomPolicy policy;
    policy.bits_per_key = spec_.bits_per_key;
    std::optional<ByteVector> f = BuildBloom(policy, keys).value();
    const ByteVector bytes = f ? *f : ByteVector();
    meta[std::string(kBloomFilterBlockName)] = handle_value(WriteBlock(bytes, false));
  }
  const blocktable::BlockHandle index = WriteIndex();
  if (!spec_.range_dels.empty()) {
    blocktable::BlockBuilder rd(1);
    for (const auto& [start, end] : spec_.range_dels) {
      rd.Add(InternalKey(start, 1, kRangeDel), AsBytes(end));
    }
    const ByteVector h = handle_value(WriteBlock(rd.Finish(), false));
    meta[std::string(kRangeDelBlockName)] = h;
    if (spec_.rocksdb_v2) meta["rocksdb.range_del"] = h;
  }
  std::uint64_t deletions = 0, merges = 0, sized = 0;
  for (const PebbleEntry& e : entries) {
    const std::uint8_t k = e.kind & ~kObsoleteBit;
    deletions += k == kDel || k == kSingleDel || k == kDelSized;
    merges += k == kMerge;
    sized += k == kDelSized;
  }
  const std::uint64_t rd = spec_.range_dels.size();
  std::map<std::string, ByteVector> props;
  auto number = [&](const std::string& name, std::uint64_t v) {
    ByteVector b;
    ByteWriter(b).PutVarint64(v);
    props[name] = b;
  };
  auto text = [&](const std::string& name, const std::string& v) {
    props[name] = ByteVector(v.begin(), v.end());
  };
  props["rocksdb.block.based.table.index.type"] = {
      spec_.two_level ? std::uint8_t{2} : std::uint8_t{0}, 0, 0, 0};
  text("rocksdb.comparator", "leveldb.BytewiseComparator");
  number("rocksdb.num.entries", entries.size() + rd);
  number("rocksdb.deleted.keys", deletions + rd);
  number("rocksdb.num.range-deletions", rd);
  number("rocksdb.merge.operands", merges);
  number("rocksdb.num.data.blocks", index_.size());
  text("rocksdb.merge.operator", "pebble.concatenate");
  text("rocksdb.property.collectors", "[]");
  if (spec_.filter) text("rocksdb.filter.policy", "rocksdb.BuiltinBloomFilter");
  if (spec_.split_properties) {
    text("rocksdb.prefix.extractor.name", "leveldb.BytewiseComparator");
    text("rocksdb.block.based.table.prefix.filtering", "1");
    text("rocksdb.block.based.table.whole.key.filtering", "0");
  }
  if (spec_.version >= kObsoleteBitFormat && !spec_.rocksdb_v2) {
    number("pebble.num.deletions.sized", sized);
  }
  blocktable::BlockBuilder pb(0x7fffffff);
  for (const auto& [name, value] : props) pb.Add(AsBytes(name), value);
  meta["rocksdb.properties"] = handle_value(WriteBlock(pb.Finish(), false));
  blocktable::BlockBuilder mb(1);
  for (const auto& [name, value] : meta) mb.Add(AsBytes(name), value);
  PebbleFooter footer;
  footer.version = spec_.version;
  footer.footer.checksum = spec_.checksum;
  footer.footer.metaindex_handle = WriteBlock(mb.Finish(), false);
  footer.footer.index_handle = index;
  if (spec_.rocksdb_v2) {
    footer.footer.magic = blocktable::kBlockBasedTableMagic;
    footer.footer.format_version = 2;
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

// Test helper: what the row (table_builder.h) and columnar (columnar_table_builder.h) Pebble test
// table builders share: the entries, a block's trailer (FORMAT.md §3), handles as metaindex and
// index values, the properties every Pebble table carries (§5.6), the Bloom filter block of the
// entries' Split prefixes (§7.1) and row blocks of raw names (§5.5). Written from FORMAT.md, not
// from the library's writers (formats/pebble/table/table_writer.h), which these tables check.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "blocktable/block_builder.h"
#include "blocktable/trailer.h"
#include "bloomcodec/bytes.h"
#include "codec/byte_writer.h"
#include "pebble/bloom.h"
#include "pebble/colblk/key_schema.h"
#include "pebble/table/table_reader.h"

namespace bloomcodec::pebble::testing {

inline constexpr std::uint8_t kDel = 0, kSet = 1, kMerge = 2, kSingleDel = 7, kRangeDel = 15,
                              kSeparator = 17, kSetWithDel = 18, kDelSized = 23;

struct PebbleEntry {
  std::string user_key;
  std::uint64_t seq = 0;
  std::uint8_t kind = kSet;  // may carry the obsolete bit (0x40) in Pebblev4
  std::string value;         // as the user gave it (the row builder adds v3's prefix byte)
};

// Appends `stored` (already compressed when `type` says so) and its 5-byte trailer: the type
// byte and the checksum over both, LE.
inline blocktable::BlockHandle AppendBlockWithTrailer(ByteVector& out, ByteSpan stored,
                                                      std::uint8_t type,
                                                      blocktable::ChecksumType checksum) {
  const blocktable::BlockHandle h{out.size(), stored.size()};
  out.insert(out.end(), stored.begin(), stored.end());
  out.push_back(type);
  const std::uint32_t c = blocktable::BlockChecksum(checksum, stored, type);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(c >> (8 * i)));
  return h;
}

// Pebble's rule: a block is stored compressed when that saves at least an eighth. Returns the
// type byte; `stored` holds the compressed bytes when it is not 0.
inline std::uint8_t CompressIfSmaller(blocktable::BlockCompression compression, ByteSpan raw,
                                      ByteVector& stored) {
  if (compression != blocktable::BlockCompression::kNone &&
      blocktable::CompressBlock(compression, raw, stored) &&
      stored.size() < raw.size() - raw.size() / 8) {
    return static_cast<std::uint8_t>(compression);
  }
  return 0;
}

inline ByteVector HandleValue(const blocktable::BlockHandle& h) {
  ByteVector v;
  blocktable::AppendBlockHandle(h, v);
  return v;
}

// A row block of raw names in bytewise order (metaindex: restart 1; properties: 2^31 - 1).
inline ByteVector NamedRowBlock(const std::map<std::string, ByteVector>& entries, int restart) {
  blocktable::BlockBuilder b(restart);
  for (const auto& [name, value] : entries) b.Add(AsBytes(name), value);
  const ByteSpan bytes = b.Finish();
  return ByteVector(bytes.begin(), bytes.end());
}

// The properties block's entries, by name.
struct PropertyMap {
  std::map<std::string, ByteVector> entries;
  void Number(const std::string& name, std::uint64_t v) {
    ByteVector b;
    ByteWriter(b).PutVarint64(v);
    entries[name] = b;
  }
  void Text(const std::string& name, const std::string& v) {
    entries[name] = ByteVector(v.begin(), v.end());
  }
};

struct TableShape {
  std::size_t range_dels = 0;
  std::size_t data_blocks = 0;
  bool two_level = false;
  std::string comparer = "leveldb.BytewiseComparator";
  std::optional<std::size_t> filter_bytes;  // with a Bloom filter block of this many bytes
};

// The properties both builders write: counts of the entries' kinds, the index type, names.
inline PropertyMap CommonProperties(const std::vector<PebbleEntry>& entries,
                                    const TableShape& shape) {
  std::uint64_t deletions = 0, merges = 0;
  for (const PebbleEntry& e : entries) {
    const std::uint8_t k = e.kind & ~kObsoleteBit;
    deletions += k == kDel || k == kSingleDel || k == kDelSized;
    merges += k == kMerge;
  }
  PropertyMap p;
  p.entries["rocksdb.block.based.table.index.type"] = {
      shape.two_level ? std::uint8_t{2} : std::uint8_t{0}, 0, 0, 0};
  p.Text("rocksdb.comparator", shape.comparer);
  p.Number("rocksdb.num.entries", entries.size() + shape.range_dels);
  p.Number("rocksdb.deleted.keys", deletions + shape.range_dels);
  p.Number("rocksdb.num.range-deletions", shape.range_dels);
  p.Number("rocksdb.merge.operands", merges);
  p.Number("rocksdb.num.data.blocks", shape.data_blocks);
  p.Text("rocksdb.merge.operator", "pebble.concatenate");
  p.Text("rocksdb.property.collectors", "[]");
  if (shape.filter_bytes) {
    p.Text("rocksdb.filter.policy", "rocksdb.BuiltinBloomFilter");
    p.Number("rocksdb.filter.size", *shape.filter_bytes);
  }
  return p;
}

inline std::uint64_t SizedDeletions(const std::vector<PebbleEntry>& entries) {
  std::uint64_t n = 0;
  for (const PebbleEntry& e : entries) n += (e.kind & ~kObsoleteBit) == kDelSized;
  return n;
}

// The filter block Pebble writes: key[:Split(key)] of every point entry, or `override_keys`
// when given (a filter for other keys); 0 bytes when no key was added (Pebble v1, v2).
inline ByteVector BloomFilterBlock(const std::vector<PebbleEntry>& entries,
                                   colblk::KeyComparer comparer, std::uint32_t bits_per_key,
                                   const std::vector<std::string>& override_keys = {}) {
  KeyList keys;
  if (override_keys.empty()) {
    for (const PebbleEntry& e : entries) {
      const ByteSpan k = AsBytes(e.user_key);
      keys.Add(k.first(colblk::SplitUserKey(comparer, k)));
    }
  } else {
    for (const std::string& k : override_keys) keys.Add(k);
  }
  BloomPolicy policy;
  policy.bits_per_key = bits_per_key;
  std::optional<ByteVector> f = BuildBloom(policy, keys).value();
  return f ? *f : ByteVector();
}

}  // namespace bloomcodec::pebble::testing

// RocksDB's built-in prefix extractors (SliceTransform), as a table's properties name them
// (rocksdb.prefix.extractor.name) or as the command line gives one (--prefix-extractor).
//
//   using namespace bloomcodec::rocksdb;
//   std::optional<PrefixExtractor> p = PrefixExtractor::FromPropertyName("rocksdb.FixedPrefix.4");
//   if (p && p->InDomain(key)) ByteSpan prefix = p->Transform(key);  // the first 4 bytes
//
// Compatibility contract (RocksDB's util/slice.cc, 7.8 to 10.5):
// * "rocksdb.FixedPrefix.N": keys of at least N bytes are in the domain; the prefix is the first
//   N bytes. Shorter keys add no prefix to the filter.
// * "rocksdb.CappedPrefix.N": every key is in the domain; the prefix is the first min(N, size)
//   bytes.
// * "rocksdb.Noop": every key is in the domain; the prefix is the key itself.
// * TiKV's two (tikv/tikv components/engine_rocks/src/util.rs, configured by name in
//   components/engine_rocks config: the write column family's "FixedSuffixSliceTransform" with
//   a suffix of 8, the lock and raft families' "NoopSliceTransform"; rust-rocksdb passes the
//   name through as the SliceTransform's Name(), which the table records):
//   "FixedSuffixSliceTransform": keys of at least 8 bytes are in the domain; the prefix is the
//   key without its last 8 bytes (TiKV's MVCC timestamp), empty for an 8-byte key.
//   "NoopSliceTransform": as rocksdb.Noop.
// * "nullptr" (or no property): no extractor. Any other name is a custom extractor whose
//   prefixes cannot be computed here.
// RocksDB's full and partitioned filter builders add, for each key in order, its prefix (when in
// the domain and not equal to the previous key's prefix) and the whole key (with whole-key
// filtering), both hashed like keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::rocksdb {

struct PrefixExtractor {
  enum class Kind { kFixed, kCapped, kNoop, kFixedSuffix };
  Kind kind = Kind::kNoop;
  std::uint32_t length = 0;  // N of kFixed and kCapped; the suffix dropped by kFixedSuffix

  // The name a table records ("rocksdb.FixedPrefix.4"); nullopt for "nullptr", "" and custom
  // names.
  static std::optional<PrefixExtractor> FromPropertyName(std::string_view name);
  // The command line's spelling: fixed:N, capped:N (N in 1..2^31-1) or noop.
  static Result<PrefixExtractor> FromSpec(std::string_view spec);

  bool InDomain(ByteSpan key) const {
    return (kind != Kind::kFixed && kind != Kind::kFixedSuffix) || key.size() >= length;
  }
  // Defined for keys in the domain.
  ByteSpan Transform(ByteSpan key) const {
    if (kind == Kind::kNoop) return key;
    if (kind == Kind::kFixedSuffix) return key.first(key.size() - length);
    return key.first(std::min<std::size_t>(key.size(), length));
  }
  // The name a table records for the extractor ("rocksdb.CappedPrefix.8",
  // "FixedSuffixSliceTransform").
  std::string Name() const;
};

}  // namespace bloomcodec::rocksdb

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
  enum class Kind { kFixed, kCapped, kNoop };
  Kind kind = Kind::kNoop;
  std::uint32_t length = 0;  // N of kFixed and kCapped

  // The name a table records ("rocksdb.FixedPrefix.4"); nullopt for "nullptr", "" and custom
  // names.
  static std::optional<PrefixExtractor> FromPropertyName(std::string_view name);
  // The command line's spelling: fixed:N, capped:N (N in 1..2^31-1) or noop.
  static Result<PrefixExtractor> FromSpec(std::string_view spec);

  bool InDomain(ByteSpan key) const { return kind != Kind::kFixed || key.size() >= length; }
  ByteSpan Transform(ByteSpan key) const {
    if (kind == Kind::kNoop) return key;
    return key.first(std::min<std::size_t>(key.size(), length));
  }
  // RocksDB's name of the extractor ("rocksdb.CappedPrefix.8").
  std::string Name() const;
};

}  // namespace bloomcodec::rocksdb

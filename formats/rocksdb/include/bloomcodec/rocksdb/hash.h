// The two hashes RocksDB 7.8's built-in filters use.
//
//   std::uint64_t h = bloomcodec::rocksdb::Hash64(AsBytes("user:42"));       // FastLocalBloom, Ribbon
//   std::uint32_t l = bloomcodec::rocksdb::LegacyBloomHash(AsBytes("user:42")); // legacy Bloom
//
// Compatibility contract: Hash64 equals RocksDB's GetSliceHash64 / Hash64(data, n) - the 64-bit
// XXH3 *preview* (xxHash 0.7.2, vendored by RocksDB as "XXPH3") with seed 0 and RocksDB's own
// answer for the empty input. It is NOT released XXH3 (libxxhash): every input gives a different
// value. LegacyBloomHash equals RocksDB's BloomHash: LevelDB's 32-bit hash with seed 0xbc9f1d34
// and sign-extended tail bytes, on every platform.
#pragma once

#include <cstdint>

#include "bloomcodec/bytes.h"

namespace bloomcodec::rocksdb {

std::uint64_t Hash64(ByteSpan data);
std::uint32_t LegacyBloomHash(ByteSpan key);

}  // namespace bloomcodec::rocksdb

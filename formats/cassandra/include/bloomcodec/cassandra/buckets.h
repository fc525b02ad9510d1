// Bucket indices of a key, as BloomFilter.getHashBuckets / LegacyBloomFilter.getHashBuckets
// compute them in Cassandra 1.0.
//
//   std::array<std::int64_t, 20> buckets;
//   bloomcodec::cassandra::HashBuckets(key, hash_count, 64 * word_count, buckets);
//
// Compatibility contract: out[i] = | (h1 + i*h2) rem max | with Java's wrapping long (legacy: int)
// arithmetic and truncating remainder, where h1, h2 are the filter's two hashes of the key.
// `max` is the modulus the original uses: the bit set's capacity, 64 * word count.
#pragma once

#include <cstdint>
#include <span>

#include "bloomcodec/bytes.h"

namespace bloomcodec::cassandra {

// The two hashes a 1.0 filter uses: h1 = MurmurHash64(key, 0), h2 = MurmurHash64(key, h1).
struct KeyHashes64 {
  std::int64_t h1;
  std::int64_t h2;
};
KeyHashes64 HashKey64(ByteSpan key);

// The i-th bucket of a key with hashes `h` for modulus `max` (> 0); i >= 0.
std::int64_t BucketIndex(KeyHashes64 h, std::int32_t i, std::int64_t max);

// out.size() >= hash_count; fills out[0 .. hash_count). max > 0. hash_count <= 0 fills nothing.
void HashBuckets(ByteSpan key, std::int32_t hash_count, std::int64_t max,
                 std::span<std::int64_t> out);

struct KeyHashes32 {
  std::int32_t h1;
  std::int32_t h2;
};
KeyHashes32 HashKey32(ByteSpan key);
std::int32_t LegacyBucketIndex(KeyHashes32 h, std::int32_t i, std::int32_t max);

// The legacy filter's buckets (32-bit arithmetic). out.size() >= hash_count; max > 0.
void LegacyHashBuckets(ByteSpan key, std::int32_t hash_count, std::int32_t max,
                       std::span<std::int32_t> out);

// Above this hash count (no original sizing comes near; 1.0 writers use K <= 20) a filter is
// checked once for every bit set, in the 1.0 and the legacy filter alike: then every bucket
// of every key is set and the answer is 1 without the K loop, which for a damaged K = 2^31 - 1
// would take seconds per key.
inline constexpr std::int32_t kAllBitsCheckAboveK = 64;

}  // namespace bloomcodec::cassandra

#include "bloomcodec/cassandra/buckets.h"

#include "bloomcodec/cassandra/murmur_hash.h"

namespace bloomcodec::cassandra {

KeyHashes64 HashKey64(ByteSpan key) {
  const std::int64_t h1 = MurmurHash64(key, 0);
  // Trap (section 10.2): hash2 is seeded with hash1, of which hash64 keeps the low 32 bits.
  return {h1, MurmurHash64(key, h1)};
}

std::int64_t BucketIndex(KeyHashes64 h, std::int32_t i, std::int64_t max) {
  // Trap (section 10.5): Java computes `hash1 + i * hash2` in long and lets it wrap. Signed
  // overflow is undefined in C++, so the sum is formed on u64 and read back as i64.
  const std::uint64_t x =
      static_cast<std::uint64_t>(h.h1) +
      static_cast<std::uint64_t>(static_cast<std::int64_t>(i)) * static_cast<std::uint64_t>(h.h2);
  // Java's `Math.abs(x % max)`: `%` truncates toward zero (the remainder carries x's sign) and
  // abs drops the sign, so the result is |x| mod max. |x| is taken on u64 (0 - x), which is
  // exact even for Long.MIN_VALUE; the remainder is below max so abs never meets MIN_VALUE.
  const bool negative = static_cast<std::int64_t>(x) < 0;
  const std::uint64_t magnitude = negative ? 0 - x : x;
  return static_cast<std::int64_t>(magnitude % static_cast<std::uint64_t>(max));
}

void HashBuckets(ByteSpan key, std::int32_t hash_count, std::int64_t max,
                 std::span<std::int64_t> out) {
  const KeyHashes64 h = HashKey64(key);
  for (std::int32_t i = 0; i < hash_count; ++i)
    out[static_cast<std::size_t>(i)] = BucketIndex(h, i, max);
}

KeyHashes32 HashKey32(ByteSpan key) {
  const std::int32_t h1 = MurmurHash32(key, 0);
  return {h1, MurmurHash32(key, h1)};
}

std::int32_t LegacyBucketIndex(KeyHashes32 h, std::int32_t i, std::int32_t max) {
  // Trap (section 10.5, legacy): the same formula in Java int arithmetic (wraps at 32 bits).
  const std::uint32_t x = static_cast<std::uint32_t>(h.h1) +
                          static_cast<std::uint32_t>(i) * static_cast<std::uint32_t>(h.h2);
  const bool negative = static_cast<std::int32_t>(x) < 0;
  const std::uint32_t magnitude = negative ? 0 - x : x;
  return static_cast<std::int32_t>(magnitude % static_cast<std::uint32_t>(max));
}

void LegacyHashBuckets(ByteSpan key, std::int32_t hash_count, std::int32_t max,
                       std::span<std::int32_t> out) {
  const KeyHashes32 h = HashKey32(key);
  for (std::int32_t i = 0; i < hash_count; ++i) {
    out[static_cast<std::size_t>(i)] = LegacyBucketIndex(h, i, max);
  }
}

}  // namespace bloomcodec::cassandra

// The legacy era's hash (Filter.db versions c .. e; the 0.6 filter hashes its Java Strings'
// bytes with it too): MurmurHash2 32-bit as Java computes it (murmur_hash.h), and the two hashes
// and buckets of a key in Java int arithmetic (buckets.h).
// Written on unsigned integers so that every wraparound Java performs on its signed int is well
// defined here; the result is converted back to the signed type only at the end (a modular
// conversion in C++20).
#include "bloomcodec/cassandra/murmur_hash.h"

#include "bloomcodec/cassandra/buckets.h"

namespace bloomcodec::cassandra {
namespace {

// Java's `byte` is signed: `(int) buffer.get(i)` sign-extends. 0x80..0xff become
// 0xffffff80..0xffffffff.
inline std::uint32_t SignExtendedByte32(std::uint8_t b) {
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(b)));
}

}  // namespace

std::int32_t MurmurHash32(ByteSpan key, std::int32_t seed) {
  constexpr std::uint32_t m = 0x5bd1e995U;
  constexpr int r = 24;
  const std::size_t length = key.size();
  const std::uint8_t* data = key.data();

  // The whole 32-bit seed is used here (unlike hash64).
  std::uint32_t h = static_cast<std::uint32_t>(seed) ^ static_cast<std::uint32_t>(length);

  const std::size_t blocks = length / 4;
  for (std::size_t i = 0; i < blocks; ++i) {
    const std::uint8_t* p = data + i * 4;
    // The Java code sign-extends the top byte, but `<< 24` pushes the extension out of the int:
    // the block is effectively the unsigned little-endian value.
    std::uint32_t k = static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
                      (static_cast<std::uint32_t>(p[2]) << 16) |
                      (static_cast<std::uint32_t>(p[3]) << 24);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }

  const std::size_t tail = length & 3;
  if (tail != 0) {
    // Trap (section 10.4): the Java tail reads the byte at len-3 into bits 16.., len-2 into 8..
    // and len-1 unshifted - the REVERSE of C MurmurHash2's order - and each byte is
    // sign-extended to 32 bits before the XOR.
    if (tail >= 3) h ^= SignExtendedByte32(data[length - 3]) << 16;
    if (tail >= 2) h ^= SignExtendedByte32(data[length - 2]) << 8;
    h ^= SignExtendedByte32(data[length - 1]);
    h *= m;
  }

  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<std::int32_t>(h);
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

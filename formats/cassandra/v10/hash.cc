// The 1.0 era's hash (Filter.db versions f .. hf and the row filter): MurmurHash64A as Java
// computes it (murmur_hash.h), and the two hashes and buckets of a key (buckets.h).
// Written on unsigned integers so that every wraparound Java performs on its signed long is well
// defined here; the result is converted back to the signed type only at the end (a modular
// conversion in C++20).
#include "bloomcodec/cassandra/murmur_hash.h"

#include "bloomcodec/cassandra/buckets.h"

#include <boost/endian/conversion.hpp>
#include <cstring>

namespace bloomcodec::cassandra {
namespace {

// Java's `byte` is signed: `(long) buffer.get(i)` sign-extends. 0x80..0xff become
// 0xffffffffffffff80..0xffffffffffffffff.
inline std::uint64_t SignExtendedByte64(std::uint8_t b) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(b)));
}

}  // namespace

std::int64_t MurmurHash64Resume(std::uint64_t state, ByteSpan rest) {
  constexpr std::uint64_t m = kMurmur64Multiplier;
  std::uint64_t h = state;
  const std::size_t blocks = rest.size() / 8;
  const std::uint8_t* data = rest.data();
  for (std::size_t i = 0; i < blocks; ++i) {
    // Block bytes are masked with `& 0xff` in the Java code: unsigned, little-endian (one load;
    // assembled byte by byte, the compiler kept eight loads, shifts and ors).
    std::uint64_t k;
    std::memcpy(&k, data + i * 8, 8);
    h = MurmurHash64Block(h, boost::endian::little_to_native(k));
  }

  const std::size_t tail = rest.size() & 7;
  if (tail != 0) {
    h ^= MurmurHash64TailBits(rest.subspan(blocks * 8));
    h *= m;
  }

  return MurmurHash64Final(h);
}

std::uint64_t MurmurHash64TailBits(ByteSpan tail) {
  // Trap (section 10.3): the tail bytes are NOT masked in the Java code; `(long) get(i) << s`
  // sign-extends a byte >= 0x80, flipping every bit above it as well. The Java code XORs them
  // into the state one by one; XOR is associative, so their XOR alone is the same.
  std::uint64_t bits = 0;
  for (std::size_t j = 0; j < tail.size(); ++j) bits ^= SignExtendedByte64(tail[j]) << (8 * j);
  return bits;
}

std::int64_t MurmurHash64(ByteSpan key, std::int64_t seed) {
  return MurmurHash64Resume(MurmurHash64Start(key.size(), seed), key);
}

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

}  // namespace bloomcodec::cassandra

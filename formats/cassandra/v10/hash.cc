// Both hashes are written on unsigned integers so that every wraparound Java performs on its
// signed long/int is well defined here; the result is converted back to the signed type only at
// the end (a modular conversion in C++20).
#include "bloomcodec/cassandra/murmur_hash.h"

#include <boost/endian/conversion.hpp>
#include <cstring>

namespace bloomcodec::cassandra {
namespace {

// Java's `byte` is signed: `(long) buffer.get(i)` sign-extends. 0x80..0xff become
// 0xffffffffffffff80..0xffffffffffffffff.
inline std::uint64_t SignExtendedByte64(std::uint8_t b) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(b)));
}
inline std::uint32_t SignExtendedByte32(std::uint8_t b) {
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(b)));
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

}  // namespace bloomcodec::cassandra

// The two MurmurHash2 variants of Cassandra 0.7 - 1.1 (org.apache.cassandra.utils.MurmurHash),
// with the Java semantics that make them differ from the reference C code.
//
//   std::int64_t h1 = bloomcodec::cassandra::MurmurHash64(key, 0);
//   std::int64_t h2 = bloomcodec::cassandra::MurmurHash64(key, h1);  // seed: low 32 bits of h1
//
// Compatibility contract: for every byte string and seed, the result equals what Cassandra 1.0's
// Java `MurmurHash.hash64(ByteBuffer, position, length, seed)` resp. `hash32(...)` returns,
// bit for bit (checked against 3981 vectors each produced by the original class).
#pragma once

#include <cstddef>
#include <cstdint>

#include "bloomcodec/bytes.h"

namespace bloomcodec::cassandra {

// MurmurHash64A as Java computes it: only the low 32 bits of `seed` are used, and tail bytes
// (len % 8) are sign-extended before they are mixed in. Used by Filter.db versions f .. hf.
std::int64_t MurmurHash64(ByteSpan key, std::int64_t seed);

// MurmurHash64 in steps, for callers that interleave several keys' block loops (the batch paths
// of V10Filter): MurmurHash64(key, seed) == MurmurHash64Resume(h, key.subspan(8 * b)) where h is
// MurmurHash64Start(key.size(), seed) advanced over the first b whole 8-byte blocks (read
// little-endian, unsigned) with MurmurHash64Block.
inline constexpr std::uint64_t kMurmur64Multiplier = 0xc6a4a7935bd1e995ULL;
inline std::uint64_t MurmurHash64Start(std::size_t length, std::int64_t seed) {
  // Trap (section 10.2): `seed & 0xffffffffL` - only the low 32 bits of the seed take part, so
  // the second hash, seeded with the first, sees just its low half. Java multiplies by the int
  // length widened to long; u64 wraps the same way.
  return (static_cast<std::uint64_t>(seed) & 0xffffffffULL) ^
         (kMurmur64Multiplier * static_cast<std::uint64_t>(static_cast<std::uint32_t>(length)));
}
inline std::uint64_t MurmurHash64Block(std::uint64_t state, std::uint64_t little_endian_block) {
  std::uint64_t k = little_endian_block * kMurmur64Multiplier;
  k ^= k >> 47;  // Java `>>>`: logical shift, as on u64.
  k *= kMurmur64Multiplier;
  return (state ^ k) * kMurmur64Multiplier;
}
// The remaining whole blocks, the sign-extended tail and the final mix.
std::int64_t MurmurHash64Resume(std::uint64_t state, ByteSpan rest);
// What the tail (tail.size() < 8 bytes after the last whole block) XORs into the state before
// its multiplication: MurmurHash64Resume(h, tail) == MurmurHash64Final((h ^ T) * multiplier)
// for a non-empty tail, MurmurHash64Final(h) for an empty one.
std::uint64_t MurmurHash64TailBits(ByteSpan tail);
// The final mix alone: MurmurHash64Resume(state, {}) (a key of whole blocks only).
inline std::int64_t MurmurHash64Final(std::uint64_t state) {
  state ^= state >> 47;  // Java `>>>`: logical shift, as on u64.
  state *= kMurmur64Multiplier;
  state ^= state >> 47;
  return static_cast<std::int64_t>(state);
}

// MurmurHash2 (32-bit) as Java computes it: tail bytes sign-extended and in reversed order
// compared with the C code. Used by the legacy filter (versions c .. e) and the 0.6 one.
std::int32_t MurmurHash32(ByteSpan key, std::int32_t seed);

}  // namespace bloomcodec::cassandra

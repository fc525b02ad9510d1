// The arithmetic that Pebble's binary fuse reader and xorfilter's construction share: the seeded
// mix of a key's hash, its fingerprint and its three slots. Internal to formats/pebble.
#pragma once

#include <cstdint>

namespace bloomcodec::pebble::fuse {

__extension__ using U128 = unsigned __int128;  // GCC/Clang; -Wpedantic knows it is an extension

// MurmurHash3's 64-bit finalizer (xorfilter's murmur64), applied to hash + seed (wrapping).
inline std::uint64_t Mix(std::uint64_t hash, std::uint64_t seed) {
  std::uint64_t h = hash + seed;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// The fingerprint before truncation to the stored width.
inline std::uint64_t Fingerprint(std::uint64_t mixed) { return mixed ^ (mixed >> 32); }

struct Slots {
  std::uint32_t s[3];
};

// The three slots of a mixed hash: the first from the high half of mixed * (C * L), the others
// one and two segments on, each with low bits of the hash folded in. The caller guarantees
// (C + 2) * L <= 2^32, so no step wraps.
inline Slots SlotsOf(std::uint64_t mixed, std::uint64_t segment_count_length,
                     std::uint32_t segment_length) {
  const auto h0 =
      static_cast<std::uint32_t>((static_cast<U128>(mixed) * segment_count_length) >> 64);
  std::uint32_t h1 = h0 + segment_length;
  std::uint32_t h2 = h1 + segment_length;
  const std::uint32_t mask = segment_length - 1;
  h1 ^= static_cast<std::uint32_t>(mixed >> 18) & mask;
  h2 ^= static_cast<std::uint32_t>(mixed) & mask;
  return {{h0, h1, h2}};
}

// xorfilter's seed generator (splitmix64), state starting at 1.
inline std::uint64_t NextSeed(std::uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace bloomcodec::pebble::fuse

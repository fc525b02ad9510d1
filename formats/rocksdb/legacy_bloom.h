// RocksDB's legacy cache-local Bloom filter with 64-byte lines (LegacyLocalityBloomImpl), the part
// that Pebble's `rocksdb.BuiltinBloomFilter` shares byte for byte: how a key's 32-bit hash picks
// its line and its bits, and the filter bytes for a given line and probe count. The sizing
// (how many lines, how many probes) is each writer's own: RocksDB's is in full_filter_build.cc,
// Pebble's in formats/pebble/bloom.cc. Internal to the library.
#pragma once

#include <cstdint>
#include <span>

#include "bloomcodec/bytes.h"

namespace bloomcodec::rocksdb {

inline constexpr std::uint32_t kLegacyLineBytes = 64;

// The second hash of the double hashing: the key's hash rotated right by 17 bits.
inline std::uint32_t LegacyProbeDelta(std::uint32_t h) { return (h >> 17) | (h << 15); }

// Sets the `num_probes` bits of hash `h` in its line (the line is the caller's `h % num_lines`).
inline void LegacyLineAdd(std::uint8_t* line, std::uint32_t h, std::uint32_t num_probes) {
  const std::uint32_t delta = LegacyProbeDelta(h);
  for (std::uint32_t i = 0; i < num_probes; ++i) {
    line[(h >> 3) & (kLegacyLineBytes - 1)] |= static_cast<std::uint8_t>(1U << (h & 7));
    h += delta;
  }
}

// Whether every one of those bits is set (0 probes: true, as both originals answer).
inline bool LegacyLineMayMatch(const std::uint8_t* line, std::uint32_t h,
                               std::uint32_t num_probes) {
  const std::uint32_t delta = LegacyProbeDelta(h);
  for (std::uint32_t i = 0; i < num_probes; ++i) {
    if (((line[(h >> 3) & (kLegacyLineBytes - 1)] >> (h & 7)) & 1U) == 0) return false;
    h += delta;
  }
  return true;
}

// The whole filter: num_lines * 64 bytes of bits, then the probe count byte and num_lines as a
// little-endian u32. `hashes` hold 32-bit hashes (the low half of each value); with
// num_lines == 0 only the trailer is written and `hashes` must be empty.
ByteVector BuildLegacyBloom(std::uint32_t num_lines, std::uint32_t num_probes,
                            std::span<const std::uint64_t> hashes);

}  // namespace bloomcodec::rocksdb

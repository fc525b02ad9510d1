// Internal: a round of keys against the bits of a word filter (1.0's V10Filter, 1.2 - 5.0's
// Murmur3Filter), once the keys are hashed: where the memory accesses are prefetched, and in
// what order the bits are tested or set. Both filters' batch paths run their keys through these
// two functions, a round (at most kRoundKeys keys) at a time.
//
//   RoundKeys round;
//   round.Set(keys, start, n, keys.size());  // then hash round.p / round.len (filter_kernels.h)
//   WordShape shape{filter_bytes, swizzle, mod, k};
//   ProbeRound(BestFilterKernel(), bits, shape, base, step, n, answers);  // answers[j] is 0 or 1
//   SetRound(BestFilterKernel(), bits, shape, base, step, n);
//
// Bit index i of key j is |base[j] + i * step[j]| mod m (FastMod64::AbsMod), for i < k; bit b is
// bit b & 7 of byte (b >> 3) ^ swizzle (7 for big-endian longs, 0 for raw bytes).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "bloomcodec/bytes.h"

#include "fast_mod.h"
#include "filter_kernels.h"

namespace bloomcodec::cassandra {

// Keys per round. In a filter larger than the L2 cache a round's bytes are prefetched before
// they are used, and the round must be long enough for the misses to arrive: 128 keys did
// better than 16, 32 and 64 in bench/run's 1M and 10M key rows, 256 no better than 128.
inline constexpr std::size_t kRoundKeys = 128;
// Above this many bytes of bits (about the L2 cache) every access of a round is prefetched
// before the first is made, so that the misses overlap; below it the prefetches cost more than
// the misses they would hide. (The 1.0 filter's key-at-a-time lookup uses the same size.)
inline constexpr std::size_t kPrefetchAbove = std::size_t{1} << 20;
// The most bit indexes per key a round stages (1.0 writers use K <= 20, 1.2+ lookups K <= 21).
inline constexpr std::uint32_t kMaxRoundIndexes = 32;

// The keys of a round: where each starts and how long it is (what the kernels read).
struct RoundKeys {
  std::array<const std::uint8_t*, kRoundKeys> p;
  std::array<std::size_t, kRoundKeys> len;

  // Keys [start, start + n) of keys[0 .. total), n <= kRoundKeys.
  template <typename Keys>
  void Set(const Keys& keys, std::size_t start, std::size_t n, std::size_t total) {
    for (std::size_t j = 0; j < n; ++j) {
      const ByteSpan key = keys[start + j];
      p[j] = key.data();
      len[j] = key.size();
    }
    // The next round's keys are fetched while this round waits on the filter: the key bytes
    // are read in order, but the filter's random lines crowd them out of the caches (in the
    // benchmark's 1M-key batch of misses this took 11.2 to 10.4 ns per key).
    const std::size_t next_end = std::min(total, start + n + kRoundKeys);
    for (std::size_t j = start + n; j < next_end; ++j) __builtin_prefetch(keys[j].data());
  }
};

struct WordShape {
  std::size_t bytes;      // of the bits: above kPrefetchAbove, every access is prefetched
  std::uint64_t swizzle;  // bit b is in byte (b >> 3) ^ swizzle
  FastMod64 mod;          // m, the number of bits
  std::uint32_t k;        // indexes per key, 1 <= k <= kMaxRoundIndexes
};

// answers[j] = 1 if all k bits of key j are set, else 0, for j < n <= kRoundKeys.
void ProbeRound(FilterKernel kernel, const std::uint8_t* bits, const WordShape& shape,
                const std::uint64_t* base, const std::uint64_t* step, std::size_t n,
                std::uint8_t* answers);

// Sets the k bits of each key j < n <= kRoundKeys (k may be 0 here: nothing to set).
void SetRound(FilterKernel kernel, std::uint8_t* bits, const WordShape& shape,
              const std::uint64_t* base, const std::uint64_t* step, std::size_t n);

}  // namespace bloomcodec::cassandra

// Internal: the batch paths' hash of a chunk of keys (bloom.cc), eight keys in lockstep: the
// hash of one key is a chain of dependent multiplications, so interleaving independent keys
// keeps the multiplier busy.
//
//   std::array<std::uint32_t, kChunk> hashes;
//   HashChunk(BestLaneKernel(), flavor, [&](std::size_t i) { return keys[i]; }, n, hashes.data());
//   // hashes[i] == BloomHash(keys[i], flavor) for i < n <= kChunk
//
// Two kernels compute the lanes: kPortable is plain C++; kAvx2 runs a group's eight lanes in one
// register (vpmulld instead of eight imuls) and reads 16 bytes of each key at a time, transposed
// so that a register holds the same block of the eight keys. The build targets portable x86-64;
// BestLaneKernel picks AVX2 where the CPU has it (as the function multiversioning that did this
// before). Tests run every kernel the CPU supports against BloomHash.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "bloomcodec/leveldb/hash.h"

namespace bloomcodec::leveldb {

// Keys handled per round of the batch paths: hashed together, their first probe prefetched,
// then probed. Small enough for the hashes to stay in registers / L1.
constexpr std::size_t kChunk = 32;

enum class LaneKernel { kPortable, kAvx2 };
inline constexpr LaneKernel kAllLaneKernels[] = {LaneKernel::kPortable, LaneKernel::kAvx2};

// Whether this CPU runs `kernel`; kPortable always.
bool LaneKernelSupported(LaneKernel kernel);
// The fastest supported kernel (AVX2 where the CPU has it), decided once per process.
LaneKernel BestLaneKernel();

// Keys hashed in lockstep by HashChunk.
constexpr std::size_t kLanes = 8;
static_assert(kChunk % kLanes == 0);

// Lanes of keys hashed together: where each key starts and how long it is (the caller fills
// these), and what the kernel returns: the state after the blocks all the group's keys have
// (`common` bytes, a multiple of 4, per group of kLanes).
struct LaneKeys {
  std::array<const std::uint8_t*, kChunk> p;
  std::array<std::uint32_t, kChunk> len;  // lengths mod 2^32: what HashStart reads
  std::array<std::size_t, kChunk> full_len;
  std::array<std::uint32_t, kChunk> h;
  std::array<std::size_t, kChunk / kLanes> common;
  std::array<bool, kChunk / kLanes> tails;  // some key of the group is longer than `common`
};

// For each of the `groups` groups of kLanes keys: h = HashStart(len), then HashBlock over the
// 4-byte blocks every key of the group has. `kernel` must be supported.
void HashGroups(LaneKernel kernel, LaneKeys& lanes, std::size_t groups);

// Hashes keys[0 .. n) (n <= kChunk) into out[0 .. n), kLanes keys in lockstep: the hash of one
// key is a chain of dependent multiplications, so interleaving independent keys keeps the
// multiplier busy. The steps are hash.h's HashStart / HashBlock / HashResume: one
// implementation of the hash.
template <typename KeyAt>
void HashChunk(LaneKernel kernel, HashFlavor flavor, KeyAt key_at, std::size_t n,
               std::uint32_t* out) {
  LaneKeys lanes;
  const std::size_t groups = n / kLanes;
  const std::size_t grouped = groups * kLanes;
  for (std::size_t i = 0; i < grouped; ++i) {
    const ByteSpan k = key_at(i);
    lanes.p[i] = k.data();
    lanes.full_len[i] = k.size();
    lanes.len[i] = static_cast<std::uint32_t>(k.size());
  }
  HashGroups(kernel, lanes, groups);
  std::copy_n(lanes.h.begin(), grouped, out);
  for (std::size_t g = 0; g < groups; ++g) {
    // Keys that end exactly at `common` (no block, no tail left) need no further mixing; a
    // group of keys of one length, a multiple of 4, has none that does.
    if (!lanes.tails[g]) continue;
    const std::size_t common = lanes.common[g];
    for (std::size_t i = g * kLanes; i < (g + 1) * kLanes; ++i) {
      if (lanes.full_len[i] == common) continue;
      out[i] =
          HashResume(lanes.h[i], ByteSpan(lanes.p[i] + common, lanes.full_len[i] - common), flavor);
    }
  }
  for (std::size_t i = grouped; i < n; ++i) out[i] = BloomHash(key_at(i), flavor);
}

}  // namespace bloomcodec::leveldb

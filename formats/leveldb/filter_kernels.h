// Internal to formats/leveldb: the kernels of the bloom filter's paths (bloom.cc), apart from
// the policy, the filter layout and the batch paths' staging: the probe positions' double hashing
// and bit position (h % bits without a division), the probes themselves, and the hashing of a
// chunk of keys in lockstep (eight lanes, in one of the LaneKernel implementations: kPortable is plain
// C++, kAvx2 runs a group's lanes in one register; BestLaneKernel picks AVX2 where the CPU has it,
// and tests walk kAllLaneKernels).
//
//   std::uint32_t hashes[kChunk];
//   HashChunk(BestLaneKernel(), flavor, [&](std::size_t i) { return keys[i]; }, n, hashes);
//   bool hit = ProbeAll(hashes[0], Delta(hashes[0]), array, FastMod32(bits), k);
//
// Everything here but HashGroups is inline: the batch paths' loops are built around these steps
// and must keep them inlined (one call per probe would cost more than the probe).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <boost/endian/conversion.hpp>

#include "bloomcodec/leveldb/hash.h"

namespace bloomcodec::leveldb {

// Probe positions start at h and step by h rotated right by 17 (the original's double hashing).
inline std::uint32_t Delta(std::uint32_t h) { return (h >> 17) | (h << 15); }

// h % bits, the original's bit position, computed without a division when bits < 2^32 (every
// filter below 512 MiB): with M = floor((2^64 - 1) / d) + 1, h mod d = ((M * h mod 2^64) * d) >> 64
// exactly for every 32-bit h and d (Lemire, Kaser, Kurz, "Faster remainder by direct
// computation", 2019). One division per filter or per key instead of one per probe.
class FastMod32 {
  __extension__ using U128 = unsigned __int128;  // GCC/Clang; -Wpedantic knows it is an extension

 public:
  explicit FastMod32(std::uint64_t d) : FastMod32(d, MultiplierFor(d)) {}
  FastMod32(std::uint64_t d, std::uint64_t m) : d_(d), m_(m) {}
  static std::uint64_t MultiplierFor(std::uint64_t d) { return ~std::uint64_t{0} / d + 1; }
  std::uint64_t operator()(std::uint32_t h) const {
    const std::uint64_t low = m_ * h;
    return static_cast<std::uint64_t>((static_cast<U128>(low) * d_) >> 64);
  }

 private:
  std::uint64_t d_;
  std::uint64_t m_;
};

// The plain remainder, for the (>= 512 MiB) filters FastMod32 does not cover.
class PlainMod {
 public:
  explicit PlainMod(std::uint64_t d) : d_(d) {}
  std::uint64_t operator()(std::uint32_t h) const { return h % d_; }

 private:
  std::uint64_t d_;
};

inline bool FitsFastMod(std::uint64_t bits) { return bits < (std::uint64_t{1} << 32); }

// BloomHash, with the whole 4-byte blocks inlined here (hash.h's HashStart / HashBlock, the same
// steps as the batch paths' interleaved hash); only a tail goes through HashResume.
inline std::uint32_t InlineBloomHash(ByteSpan key, HashFlavor flavor) {
  const std::uint8_t* p = key.data();
  const std::size_t n = key.size();
  std::uint32_t h = HashStart(n, kBloomHashSeed);
  const auto block = [p](std::size_t off) {
    std::uint32_t w;
    std::memcpy(&w, p + off, 4);
    return boost::endian::little_to_native(w);
  };
  std::size_t off = 0;
  // Four blocks per round: the chain of multiplications is as long as ever, but a long key's
  // loop has fewer instructions in flight, so more of the next key's hash overlaps it.
  for (; off + 16 <= n; off += 16) {
    h = HashBlock(h, block(off));
    h = HashBlock(h, block(off + 4));
    h = HashBlock(h, block(off + 8));
    h = HashBlock(h, block(off + 12));
  }
  for (; off + 4 <= n; off += 4) h = HashBlock(h, block(off));
  return off == n ? h : HashResume(h, ByteSpan(p + off, n - off), flavor);
}

// Probes k positions starting at h and stepping by delta.
template <typename Mod>
inline bool ProbeAll(std::uint32_t h, std::uint32_t delta, const std::uint8_t* array,
                     const Mod& mod, int k) {
  // Trap: k = 0 makes no probe and answers true. The modulus is size_t in the original; h is
  // 32-bit, so the sum h + delta wraps at 2^32 exactly as the original's uint32_t does.
  for (int left = k; left > 0; --left) {
    const std::uint64_t pos = mod(h);
    if (((array[pos >> 3] >> (pos & 7)) & 1u) == 0) return false;
    h += delta;
  }
  return true;
}

template <typename Mod>
inline void SetProbes(std::uint32_t h, std::uint8_t* array, const Mod& mod, int k) {
  const std::uint32_t delta = Delta(h);
  for (int j = 0; j < k; ++j) {
    const std::uint64_t pos = mod(h);
    array[pos >> 3] |= static_cast<std::uint8_t>(1u << (pos & 7));
    h += delta;
  }
}

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

// Internal: the arithmetic of the word filters' batch paths (1.0's V10Filter and 1.2 - 5.0's
// Murmur3Filter), apart from the filters' bits: the hashes of a round of keys, and the bit
// indexes |base + i * step| mod m both filters derive from two hashes.
//
//   const FilterKernel kernel = BestFilterKernel();
//   CassandraMurmur3Keys(kernel, p, len, n, hashes);  // 1.2+: hashes[j] of key j
//   MurmurHash64Keys(kernel, p, len, n, h1, h2);      // 1.0: h1[j], h2[j] of key j
//   AbsModIndices(kernel, base, step, n, 0, k, mod, out, stride);  // index i of key j:
//                                                                   // out[i * stride + j]
//
// Every kernel computes exactly the same values (CassandraMurmur3, HashKey64,
// FastMod64::AbsMod); they differ only in the instructions used. kPortable is plain C++;
// kAvx512 runs eight keys in the lanes of one register: the hashes' 64-bit multiplications
// become vpmullq (Murmur3's rotations vprolq), and the reduction (fast_mod.h) builds the high
// half of a 64 x 64-bit product from four 32 x 32-bit ones. Tests walk every kernel the CPU
// supports (FilterKernelSupported) against the scalar reference.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bloomcodec/cassandra/murmur3.h"
#include "fast_mod.h"

namespace bloomcodec::cassandra {

enum class FilterKernel { kPortable, kAvx512 };
inline constexpr FilterKernel kAllFilterKernels[] = {FilterKernel::kPortable,
                                                     FilterKernel::kAvx512};

// Whether this CPU (and OS) runs `kernel`; kPortable always.
bool FilterKernelSupported(FilterKernel kernel);
// The fastest supported kernel, decided once per process.
FilterKernel BestFilterKernel();

// The 1.2 - 5.0 filters' hash: out[j] = CassandraMurmur3(key j) for j < n, where key j is
// p[j][0 .. len[j]). `kernel` must be supported.
void CassandraMurmur3Keys(FilterKernel kernel, const std::uint8_t* const* p, const std::size_t* len,
                          std::size_t n, Murmur3Hash* out);

// The 1.0 filter's hashes (HashKey64, as u64): h1[j] = MurmurHash64(key j, 0),
// h2[j] = MurmurHash64(key j, h1[j]) for j < n, where key j is p[j][0 .. len[j]). `kernel` must
// be supported.
void MurmurHash64Keys(FilterKernel kernel, const std::uint8_t* const* p, const std::size_t* len,
                      std::size_t n, std::uint64_t* h1, std::uint64_t* h2);

// out[(i - first) * stride + j] = mod.AbsMod(base[j], step[j], i): bit index i of key j, for
// first <= i < first + count and j < n (stride >= n); nothing else of `out` is written.
// `kernel` must be supported.
void AbsModIndices(FilterKernel kernel, const std::uint64_t* base, const std::uint64_t* step,
                   std::size_t n, std::uint32_t first, std::uint32_t count, const FastMod64& mod,
                   std::uint64_t* out, std::size_t stride);

}  // namespace bloomcodec::cassandra

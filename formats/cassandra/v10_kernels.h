// Internal: the arithmetic of the 1.0 filter's batch paths (V10Filter::AddAll, MayContainBatch),
// apart from the filter's bits: the two hashes of a round of keys, and their bucket indices.
//
//   const V10Kernel kernel = BestV10Kernel();
//   HashKeys64(kernel, p, len, n, h1, h2);                       // h1[j], h2[j] of key j
//   BucketIndices64(kernel, h1, h2, n, 0, k, mod, out, stride);  // out[i * stride + j]
//
// Every kernel computes exactly the same values (HashKey64 and BucketIndex of buckets.h); they
// differ only in the instructions used. kPortable is plain C++ (eight keys interleaved for the
// scalar multiplier); kAvx512 runs eight keys in the lanes of one register: the hash's 64-bit
// multiplications become vpmullq, and the bucket reduction (fast_mod.h) needs the high half of a
// 64 x 64-bit product, which AVX-512 builds from four 32 x 32-bit ones. Tests walk every kernel
// the CPU supports (V10KernelSupported) against the scalar reference.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fast_mod.h"

namespace bloomcodec::cassandra {

enum class V10Kernel { kPortable, kAvx512 };
inline constexpr V10Kernel kAllV10Kernels[] = {V10Kernel::kPortable, V10Kernel::kAvx512};

// Whether this CPU (and OS) runs `kernel`; kPortable always.
bool V10KernelSupported(V10Kernel kernel);
// The fastest supported kernel, decided once per process.
V10Kernel BestV10Kernel();

// h1[j] = MurmurHash64(key j, 0), h2[j] = MurmurHash64(key j, h1[j]) (as u64) for j < n, where
// key j is p[j][0 .. len[j]). `kernel` must be supported.
void HashKeys64(V10Kernel kernel, const std::uint8_t* const* p, const std::size_t* len,
                std::size_t n, std::uint64_t* h1, std::uint64_t* h2);

// out[(i - first) * stride + j] = mod.AbsMod(h1[j], h2[j], i): bucket i of key j, for
// first <= i < first + count and j < n (stride >= n). `kernel` must be supported.
void BucketIndices64(V10Kernel kernel, const std::uint64_t* h1, const std::uint64_t* h2,
                     std::size_t n, std::uint32_t first, std::uint32_t count, const FastMod64& mod,
                     std::uint64_t* out, std::size_t stride);

}  // namespace bloomcodec::cassandra

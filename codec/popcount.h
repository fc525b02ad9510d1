// Set bits of a byte string, a word at a time with the CPU's popcount instruction when it has
// one. The portable build has no POPCNT, so std::popcount becomes a libgcc call per value: per
// byte of a filter, that call costs more than the rest of a verify's fill statistics.
//
//   const std::uint64_t set = PopCountBytes(filter_bits);
//
// Internal. The word loop exists in three versions (PopCountKernel) and PopCountBytes runs the
// one BestPopCountKernel picks; tests run every version the CPU supports.
#pragma once

#include <cstdint>

#include "bloomcodec/bytes.h"

namespace bloomcodec {

std::uint64_t PopCountBytes(ByteSpan bytes);

// kIcelake: AVX-512 VPOPCNTQ, compiled for an Ice Lake server; kPopcnt: the POPCNT
// instruction; kPortable: plain x86-64.
enum class PopCountKernel { kPortable, kPopcnt, kIcelake };
inline constexpr PopCountKernel kAllPopCountKernels[] = {
    PopCountKernel::kPortable, PopCountKernel::kPopcnt, PopCountKernel::kIcelake};

// Whether this CPU runs `kernel`'s instructions; kPortable always.
bool PopCountKernelSupported(PopCountKernel kernel);
// The version PopCountBytes runs, decided once per process as GCC's target_clones resolver
// decided it: kIcelake on an Ice Lake server CPU model only (not on other CPUs that would run
// it), else kPopcnt where the CPU has POPCNT, else kPortable.
PopCountKernel BestPopCountKernel();
// PopCountBytes with the given version; `kernel` must be supported.
std::uint64_t PopCountBytesWith(PopCountKernel kernel, ByteSpan bytes);

}  // namespace bloomcodec

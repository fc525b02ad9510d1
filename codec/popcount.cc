#include "codec/popcount.h"

#include <bit>
#include <cstring>

namespace bloomcodec {

namespace {

// The word loop, stamped out once per version so that each is compiled for its own
// instructions (the Ice Lake version vectorizes it with VPOPCNTQ). A shared always_inline
// function will not do: GCC refuses to inline across a change of arch=. For the same reason the
// load is __builtin_memcpy: with _FORTIFY_SOURCE, std::memcpy is glibc's always_inline wrapper,
// compiled for the baseline target, which GCC then cannot inline here.
#define BLOOMCODEC_COUNT_WORDS(p, words)                          \
  std::uint64_t count = 0;                                        \
  for (std::size_t i = 0; i < (words); ++i) {                     \
    std::uint64_t w;                                              \
    __builtin_memcpy(&w, (p) + i * 8, 8);                         \
    count += static_cast<std::uint64_t>(__builtin_popcountll(w)); \
  }                                                               \
  return count

#if defined(__x86_64__)
__attribute__((target("arch=icelake-server"))) std::uint64_t CountWordsIcelake(
    const std::uint8_t* p, std::size_t words) {
  BLOOMCODEC_COUNT_WORDS(p, words);
}

__attribute__((target("popcnt"))) std::uint64_t CountWordsPopcnt(const std::uint8_t* p,
                                                                 std::size_t words) {
  BLOOMCODEC_COUNT_WORDS(p, words);
}
#endif

std::uint64_t CountWordsPortable(const std::uint8_t* p, std::size_t words) {
  BLOOMCODEC_COUNT_WORDS(p, words);
}
#undef BLOOMCODEC_COUNT_WORDS

std::uint64_t CountWordsWith(PopCountKernel kernel, const std::uint8_t* p, std::size_t words) {
#if defined(__x86_64__)
  if (kernel == PopCountKernel::kIcelake) return CountWordsIcelake(p, words);
  if (kernel == PopCountKernel::kPopcnt) return CountWordsPopcnt(p, words);
#endif
  return CountWordsPortable(p, words);
}

}  // namespace

bool PopCountKernelSupported(PopCountKernel kernel) {
#if defined(__x86_64__)
  __builtin_cpu_init();  // safe from any constructor, as FilterKernelSupported
  switch (kernel) {
    case PopCountKernel::kPortable: return true;
    case PopCountKernel::kPopcnt: return __builtin_cpu_supports("popcnt");
    case PopCountKernel::kIcelake:
      // The Ice Lake server model, or a CPU with the extensions of that model a compiler can use
      // in this loop (the AVX-512 family with VPOPCNTQ, AVX2, BMI, POPCNT); libgcc reports
      // AVX-512 features only if the OS saves the zmm state. (AES, MOVBE and ADX are left out:
      // clang cannot ask for them here, and a popcount has no use for them.)
      return __builtin_cpu_is("icelake-server") ||
             (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
              __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
              __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vpopcntdq") &&
              __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2") &&
              __builtin_cpu_supports("avx512bitalg") && __builtin_cpu_supports("avx512vnni") &&
              __builtin_cpu_supports("avx512ifma") && __builtin_cpu_supports("gfni") &&
              __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx2") &&
              __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
              __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt"));
  }
  return false;
#else
  return kernel == PopCountKernel::kPortable;
#endif
}

PopCountKernel BestPopCountKernel() {
#if defined(__x86_64__)
  static const PopCountKernel best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_is("icelake-server")) return PopCountKernel::kIcelake;
    if (__builtin_cpu_supports("popcnt")) return PopCountKernel::kPopcnt;
    return PopCountKernel::kPortable;
  }();
  return best;
#else
  return PopCountKernel::kPortable;
#endif
}

std::uint64_t PopCountBytesWith(PopCountKernel kernel, ByteSpan bytes) {
  const std::size_t words = bytes.size() / 8;
  std::uint64_t count = words > 0 ? CountWordsWith(kernel, bytes.data(), words) : 0;
  for (std::size_t i = words * 8; i < bytes.size(); ++i) {
    count += static_cast<std::uint64_t>(std::popcount(bytes[i]));
  }
  return count;
}

std::uint64_t PopCountBytes(ByteSpan bytes) {
  return PopCountBytesWith(BestPopCountKernel(), bytes);
}

}  // namespace bloomcodec

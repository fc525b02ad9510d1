// The lockstep hashing of groups of kLanes keys (filter_kernels.h): the portable and AVX2 kernels,
// and the choice between them.
#include "filter_kernels.h"

#include <cstring>

#include <boost/endian/conversion.hpp>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace bloomcodec::leveldb {

namespace {

void HashGroupsPortable(LaneKeys& lanes, std::size_t groups) {
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t first = g * kLanes;
    std::size_t common = lanes.full_len[first];
    std::size_t longest = 0;
    for (std::size_t j = first; j < first + kLanes; ++j) {
      lanes.h[j] = HashStart(lanes.full_len[j], kBloomHashSeed);
      common = std::min(common, lanes.full_len[j]);
      longest = std::max(longest, lanes.full_len[j]);
    }
    common &= ~std::size_t{3};
    lanes.common[g] = common;
    lanes.tails[g] = longest != common;
    for (std::size_t off = 0; off < common; off += 4) {
      for (std::size_t j = first; j < first + kLanes; ++j) {
        std::uint32_t w;
        std::memcpy(&w, lanes.p[j] + off, 4);
        lanes.h[j] = HashBlock(lanes.h[j], boost::endian::little_to_native(w));
      }
    }
  }
}

#if defined(__x86_64__)
// HashBlock in each of the eight lanes.
__attribute__((target("avx2"))) inline __m256i HashBlock8(__m256i v, __m256i w,
                                                          __m256i multiplier) {
  v = _mm256_mullo_epi32(_mm256_add_epi32(v, w), multiplier);
  return _mm256_xor_si256(v, _mm256_srli_epi32(v, 16));
}

// 16 bytes of key j (low half) and key j + 4 (high half) from offset off.
__attribute__((target("avx2"))) inline __m256i Row(const std::uint8_t* const* p, std::size_t j,
                                                   std::size_t off) {
  return _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p[j + 4] + off),
                             reinterpret_cast<const __m128i*>(p[j] + off));
}

__attribute__((target("avx2"))) void HashGroupsAvx2(LaneKeys& lanes, std::size_t groups) {
  static_assert(kLanes == 8);
  const __m256i multiplier = _mm256_set1_epi32(static_cast<std::int32_t>(kHashMultiplier));
  for (std::size_t g = 0; g < groups; ++g) {
    const std::uint8_t* const* p = lanes.p.data() + g * kLanes;
    std::size_t common = ~std::size_t{0};
    std::size_t longest = 0;
    for (std::size_t j = 0; j < kLanes; ++j) {
      common = std::min(common, lanes.full_len[g * kLanes + j]);
      longest = std::max(longest, lanes.full_len[g * kLanes + j]);
    }
    common &= ~std::size_t{3};
    lanes.common[g] = common;
    lanes.tails[g] = longest != common;
    const __m256i len =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lanes.len.data() + g * kLanes));
    __m256i v = _mm256_xor_si256(_mm256_set1_epi32(static_cast<std::int32_t>(kBloomHashSeed)),
                                 _mm256_mullo_epi32(len, multiplier));
    std::size_t off = 0;
    // Rows: the 16 bytes of keys j (low half) and j + 4 (high half); the 4 x 4 transposes in
    // each half turn them into columns: block b of keys 0 .. 7 in lane order.
    for (; off + 16 <= common; off += 16) {
      const __m256i r0 = Row(p, 0, off), r1 = Row(p, 1, off);
      const __m256i r2 = Row(p, 2, off), r3 = Row(p, 3, off);
      const __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);
      const __m256i t2 = _mm256_unpacklo_epi32(r2, r3), t3 = _mm256_unpackhi_epi32(r2, r3);
      v = HashBlock8(v, _mm256_unpacklo_epi64(t0, t2), multiplier);
      v = HashBlock8(v, _mm256_unpackhi_epi64(t0, t2), multiplier);
      v = HashBlock8(v, _mm256_unpacklo_epi64(t1, t3), multiplier);
      v = HashBlock8(v, _mm256_unpackhi_epi64(t1, t3), multiplier);
    }
    const auto word = [&](std::size_t j) {
      std::int32_t w;  // x86 is little-endian: the block as the hash reads it
      std::memcpy(&w, p[j] + off, 4);
      return w;
    };
    for (; off < common; off += 4) {
      v = HashBlock8(
          v,
          _mm256_setr_epi32(word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7)),
          multiplier);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes.h.data() + g * kLanes), v);
  }
}
#endif

}  // namespace

bool LaneKernelSupported(LaneKernel kernel) {
  switch (kernel) {
    case LaneKernel::kPortable: return true;
    case LaneKernel::kAvx2:
#if defined(__x86_64__)
      __builtin_cpu_init();  // safe from any constructor
      return __builtin_cpu_supports("avx2");
#else
      return false;
#endif
  }
  return false;
}

LaneKernel BestLaneKernel() {
  static const LaneKernel best =
      LaneKernelSupported(LaneKernel::kAvx2) ? LaneKernel::kAvx2 : LaneKernel::kPortable;
  return best;
}

void HashGroups(LaneKernel kernel, LaneKeys& lanes, std::size_t groups) {
#if defined(__x86_64__)
  if (kernel == LaneKernel::kAvx2) return HashGroupsAvx2(lanes, groups);
#endif
  HashGroupsPortable(lanes, groups);
}

}  // namespace bloomcodec::leveldb

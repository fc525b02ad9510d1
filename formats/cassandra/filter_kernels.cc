#include "filter_kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include <boost/endian/conversion.hpp>

#if defined(__x86_64__)
// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_epi32() and then warn
// that it "may be used uninitialized" (GCC bug 105593, fixed in GCC 13); the warning points
// into the header, where this pragma covers it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/murmur_hash.h"
#include "cassandra/murmur3/hash_inline.h"

namespace bloomcodec::cassandra {
namespace {

// Keys hashed in lockstep: each hash is a chain of dependent multiplications, so interleaving
// independent keys keeps the multiplier busy.
constexpr std::size_t kLanes = 8;

void MurmurHash64KeysPortable(const std::uint8_t* const* p, const std::size_t* len, std::size_t n,
                              std::uint64_t* h1, std::uint64_t* h2) {
  std::size_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    std::size_t common = ~std::size_t{0};
    for (std::size_t l = 0; l < kLanes; ++l) common = std::min(common, len[j + l]);
    common &= ~std::size_t{7};
    // Pass 0 computes h1 (seed 0); pass 1 computes h2, seeded with h1 (Trap, section 10.2: of
    // which only the low 32 bits count, as MurmurHash64Start applies).
    for (int pass = 0; pass < 2; ++pass) {
      std::uint64_t h[kLanes];
      for (std::size_t l = 0; l < kLanes; ++l) {
        h[l] = MurmurHash64Start(len[j + l], pass == 0 ? 0 : static_cast<std::int64_t>(h1[j + l]));
      }
      for (std::size_t off = 0; off < common; off += 8) {
        for (std::size_t l = 0; l < kLanes; ++l) {
          std::uint64_t block;
          std::memcpy(&block, p[j + l] + off, 8);
          h[l] = MurmurHash64Block(h[l], boost::endian::little_to_native(block));
        }
      }
      for (std::size_t l = 0; l < kLanes; ++l) {
        // A key of whole blocks only has just the final mix left, inline.
        const std::uint64_t v = static_cast<std::uint64_t>(
            len[j + l] == common
                ? MurmurHash64Final(h[l])
                : MurmurHash64Resume(h[l], ByteSpan(p[j + l] + common, len[j + l] - common)));
        (pass == 0 ? h1 : h2)[j + l] = v;
      }
    }
  }
  for (; j < n; ++j) {
    const KeyHashes64 h = HashKey64(ByteSpan(p[j], len[j]));
    h1[j] = static_cast<std::uint64_t>(h.h1);
    h2[j] = static_cast<std::uint64_t>(h.h2);
  }
}

void CassandraMurmur3KeysPortable(const std::uint8_t* const* p, const std::size_t* len,
                                  std::size_t n, Murmur3Hash* out) {
  for (std::size_t j = 0; j < n; ++j) out[j] = InlineCassandraMurmur3(ByteSpan(p[j], len[j]));
}

void AbsModIndicesPortable(const std::uint64_t* base, const std::uint64_t* step, std::size_t n,
                           std::uint32_t first, std::uint32_t count, const FastMod64& mod,
                           std::uint64_t* out, std::size_t stride) {
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint64_t* row = out + i * stride;
    for (std::size_t j = 0; j < n; ++j) row[j] = mod.AbsMod(base[j], step[j], first + i);
  }
}

#if defined(__x86_64__)
#define BLOOMCODEC_AVX512 __attribute__((target("avx512f,avx512dq")))

BLOOMCODEC_AVX512 inline __m512i MurmurBlock8(__m512i h, __m512i block, __m512i m) {
  __m512i k = _mm512_mullo_epi64(block, m);
  k = _mm512_xor_si512(k, _mm512_srli_epi64(k, 47));
  k = _mm512_mullo_epi64(k, m);
  return _mm512_mullo_epi64(_mm512_xor_si512(h, k), m);
}

BLOOMCODEC_AVX512 inline __m512i MurmurFinal8(__m512i h, __m512i m) {
  h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 47));
  h = _mm512_mullo_epi64(h, m);
  return _mm512_xor_si512(h, _mm512_srli_epi64(h, 47));
}

// One pass of the hash over eight keys with the same number of whole blocks (`blocks`), one
// per lane: p[0 .. 8) the keys, `state` their MurmurHash64Start (the seed's low 32 bits XOR
// the length times the multiplier), `tail` their MurmurHash64TailBits, `has_tail` the lanes
// whose key has a tail.
BLOOMCODEC_AVX512 inline __m512i MurmurPass8(__m512i state, const std::uint8_t* const* p,
                                             std::size_t blocks, __m512i tail, __mmask8 has_tail,
                                             __m512i m) {
  for (std::size_t b = 0; b < blocks; ++b) {
    // Eight scalar loads: a gather (vpgatherqq) cost more on AMD Zen 5. x86 is little-endian:
    // the loaded block is the one the hash reads.
    const auto at = [&](std::size_t l) {
      long long v;
      std::memcpy(&v, p[l] + 8 * b, 8);
      return v;
    };
    const __m512i block = _mm512_set_epi64(at(7), at(6), at(5), at(4), at(3), at(2), at(1), at(0));
    state = MurmurBlock8(state, block, m);
  }
  state = _mm512_xor_si512(state, tail);  // tail bits are 0 in lanes without a tail
  state = _mm512_mask_mullo_epi64(state, has_tail, state, m);
  return MurmurFinal8(state, m);
}

BLOOMCODEC_AVX512 void MurmurHash64KeysAvx512(const std::uint8_t* const* p, const std::size_t* len,
                                              std::size_t n, std::uint64_t* h1, std::uint64_t* h2) {
  static_assert(sizeof(std::size_t) == 8 && sizeof(const std::uint8_t*) == 8);
  const __m512i m = _mm512_set1_epi64(static_cast<long long>(kMurmur64Multiplier));
  const __m512i low32 = _mm512_set1_epi64(0xffffffffLL);
  std::size_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const std::size_t blocks = len[j] / 8;
    bool same_blocks = true;
    alignas(64) std::uint64_t tail[kLanes];
    __mmask8 has_tail = 0;
    for (std::size_t l = 0; l < kLanes; ++l) {
      same_blocks &= len[j + l] / 8 == blocks;
      const std::size_t t = len[j + l] & 7;
      tail[l] = t == 0 || len[j + l] / 8 != blocks
                    ? 0
                    : MurmurHash64TailBits(ByteSpan(p[j + l] + 8 * blocks, t));
      has_tail = static_cast<__mmask8>(has_tail | (t != 0 ? 1u << l : 0u));
    }
    if (!same_blocks) {
      // Keys whose block counts differ: the portable kernel, one key after another.
      MurmurHash64KeysPortable(p + j, len + j, kLanes, h1 + j, h2 + j);
      continue;
    }
    const __m512i lengths = _mm512_loadu_si512(len + j);
    const __m512i tails = _mm512_load_si512(tail);
    // MurmurHash64Start: the length as Java's int, widened, times the multiplier.
    const __m512i start = _mm512_mullo_epi64(_mm512_and_si512(lengths, low32), m);
    const __m512i a = MurmurPass8(start, p + j, blocks, tails, has_tail, m);
    // Trap (section 10.2): the second hash is seeded with the low 32 bits of the first.
    const __m512i b = MurmurPass8(_mm512_xor_si512(start, _mm512_and_si512(a, low32)), p + j,
                                  blocks, tails, has_tail, m);
    _mm512_storeu_si512(h1 + j, a);
    _mm512_storeu_si512(h2 + j, b);
  }
  MurmurHash64KeysPortable(p + j, len + j, n - j, h1 + j, h2 + j);
}

// Murmur3's mix of one lane word: k * a, rotated left by r, times b.
template <int r>
BLOOMCODEC_AVX512 inline __m512i Murmur3Mix8(__m512i k, __m512i a, __m512i b) {
  return _mm512_mullo_epi64(_mm512_rol_epi64(_mm512_mullo_epi64(k, a), r), b);
}

BLOOMCODEC_AVX512 inline __m512i Murmur3Fmix8(__m512i k) {
  k = _mm512_xor_si512(k, _mm512_srli_epi64(k, 33));
  k = _mm512_mullo_epi64(k, _mm512_set1_epi64(static_cast<long long>(murmur3_detail::kFmix1)));
  k = _mm512_xor_si512(k, _mm512_srli_epi64(k, 33));
  k = _mm512_mullo_epi64(k, _mm512_set1_epi64(static_cast<long long>(murmur3_detail::kFmix2)));
  return _mm512_xor_si512(k, _mm512_srli_epi64(k, 33));
}

// h * 5 + c.
BLOOMCODEC_AVX512 inline __m512i TimesFivePlus(__m512i h, long long c) {
  return _mm512_add_epi64(_mm512_add_epi64(_mm512_slli_epi64(h, 2), h), _mm512_set1_epi64(c));
}

BLOOMCODEC_AVX512 void CassandraMurmur3KeysAvx512(const std::uint8_t* const* p,
                                                  const std::size_t* len, std::size_t n,
                                                  Murmur3Hash* out) {
  using murmur3_detail::kC1;
  using murmur3_detail::kC2;
  // The stores below write each key's {h0, h1} as two adjacent 64-bit lanes.
  static_assert(sizeof(Murmur3Hash) == 16 && offsetof(Murmur3Hash, h1) == 8);
  const __m512i c1 = _mm512_set1_epi64(static_cast<long long>(kC1));
  const __m512i c2 = _mm512_set1_epi64(static_cast<long long>(kC2));
  // Lane l of h1 and of h2 side by side: the result's {h0, h1} pairs of keys 0 - 3, then 4 - 7.
  const __m512i pairs_low = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
  const __m512i pairs_high = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
  std::size_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const std::size_t blocks = len[j] / 16;
    bool same_blocks = true;
    for (std::size_t l = 0; l < kLanes; ++l) same_blocks &= len[j + l] / 16 == blocks;
    if (!same_blocks) {
      // Keys whose block counts differ: the portable kernel, one key after another.
      CassandraMurmur3KeysPortable(p + j, len + j, kLanes, out + j);
      continue;
    }
    alignas(64) std::uint64_t tail1[kLanes], tail2[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
      murmur3_detail::TailWords(p[j + l] + 16 * blocks, len[j + l] & 15, true, tail1[l], tail2[l]);
    }
    __m512i h1 = _mm512_setzero_si512();  // seed 0
    __m512i h2 = _mm512_setzero_si512();
    for (std::size_t b = 0; b < blocks; ++b) {
      // Eight scalar loads per word (see MurmurPass8); body bytes are little-endian words.
      const auto at = [&](std::size_t l, std::size_t off) {
        long long v;
        std::memcpy(&v, p[j + l] + 16 * b + off, 8);
        return v;
      };
      const __m512i k1 = _mm512_set_epi64(at(7, 0), at(6, 0), at(5, 0), at(4, 0), at(3, 0),
                                          at(2, 0), at(1, 0), at(0, 0));
      const __m512i k2 = _mm512_set_epi64(at(7, 8), at(6, 8), at(5, 8), at(4, 8), at(3, 8),
                                          at(2, 8), at(1, 8), at(0, 8));
      h1 = _mm512_xor_si512(h1, Murmur3Mix8<31>(k1, c1, c2));
      h1 = _mm512_add_epi64(_mm512_rol_epi64(h1, 27), h2);
      h1 = TimesFivePlus(h1, 0x52dce729);
      h2 = _mm512_xor_si512(h2, Murmur3Mix8<33>(k2, c2, c1));
      h2 = _mm512_add_epi64(_mm512_rol_epi64(h2, 31), h1);
      h2 = TimesFivePlus(h2, 0x38495ab5);
    }
    // A lane word the tail does not reach is 0 and mixes to 0: no lane needs a mask.
    h2 = _mm512_xor_si512(h2, Murmur3Mix8<33>(_mm512_load_si512(tail2), c2, c1));
    h1 = _mm512_xor_si512(h1, Murmur3Mix8<31>(_mm512_load_si512(tail1), c1, c2));
    const __m512i length = _mm512_loadu_si512(len + j);
    h1 = _mm512_xor_si512(h1, length);
    h2 = _mm512_xor_si512(h2, length);
    h1 = _mm512_add_epi64(h1, h2);
    h2 = _mm512_add_epi64(h2, h1);
    h1 = Murmur3Fmix8(h1);
    h2 = Murmur3Fmix8(h2);
    h1 = _mm512_add_epi64(h1, h2);
    h2 = _mm512_add_epi64(h2, h1);
    _mm512_storeu_si512(out + j, _mm512_permutex2var_epi64(h1, pairs_low, h2));
    _mm512_storeu_si512(out + j + 4, _mm512_permutex2var_epi64(h1, pairs_high, h2));
  }
  CassandraMurmur3KeysPortable(p + j, len + j, n - j, out + j);
}

// The high 64 bits of n * r in each lane, r = r_high:r_low (32-bit halves, broadcast), from four
// 32 x 32 -> 64-bit products; no intermediate sum overflows 64 bits.
BLOOMCODEC_AVX512 inline __m512i MulHigh64(__m512i n, __m512i r_low, __m512i r_high) {
  const __m512i n_high = _mm512_srli_epi64(n, 32);
  const __m512i ll = _mm512_mul_epu32(n, r_low);
  const __m512i lh = _mm512_mul_epu32(n, r_high);
  const __m512i hl = _mm512_mul_epu32(n_high, r_low);
  const __m512i hh = _mm512_mul_epu32(n_high, r_high);
  const __m512i t = _mm512_add_epi64(lh, _mm512_srli_epi64(ll, 32));
  const __m512i u = _mm512_add_epi64(hl, _mm512_and_si512(t, _mm512_set1_epi64(0xffffffffLL)));
  return _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(t, 32)), _mm512_srli_epi64(u, 32));
}

BLOOMCODEC_AVX512 void AbsModIndicesAvx512(const std::uint64_t* base, const std::uint64_t* step,
                                           std::size_t n, std::uint32_t first, std::uint32_t count,
                                           const FastMod64& mod, std::uint64_t* out,
                                           std::size_t stride) {
  const __m512i m = _mm512_set1_epi64(static_cast<long long>(mod.modulus()));
  const __m512i r_low = _mm512_set1_epi64(static_cast<long long>(mod.reciprocal() & 0xffffffff));
  const __m512i r_high = _mm512_set1_epi64(static_cast<long long>(mod.reciprocal() >> 32));
  for (std::size_t j = 0; j < n; j += kLanes) {
    const __mmask8 lanes =
        n - j >= kLanes ? __mmask8{0xff} : static_cast<__mmask8>((1u << (n - j)) - 1);
    const __m512i delta = _mm512_maskz_loadu_epi64(lanes, step + j);
    // x = base + i * step in wrapping 64-bit arithmetic, advanced by step per index.
    __m512i x = _mm512_add_epi64(
        _mm512_maskz_loadu_epi64(lanes, base + j),
        _mm512_mullo_epi64(delta, _mm512_set1_epi64(static_cast<long long>(first))));
    for (std::uint32_t i = 0; i < count; ++i) {
      // |x| (Long.MIN_VALUE stays 2^63, as 0 - x on u64), then FastMod64's reduction:
      // q = high(n * R) is n / m or one less, so r = n - q * m < 2m; min(r, r - m) is r mod m
      // (r - m wraps above r when r < m).
      const __m512i a = _mm512_abs_epi64(x);
      const __m512i q = MulHigh64(a, r_low, r_high);
      const __m512i r = _mm512_sub_epi64(a, _mm512_mullo_epi64(q, m));
      _mm512_mask_storeu_epi64(out + i * stride + j, lanes,
                               _mm512_min_epu64(r, _mm512_sub_epi64(r, m)));
      x = _mm512_add_epi64(x, delta);
    }
  }
}
#endif

}  // namespace

bool FilterKernelSupported(FilterKernel kernel) {
  switch (kernel) {
    case FilterKernel::kPortable: return true;
    case FilterKernel::kAvx512:
#if defined(__x86_64__)
      // libgcc's CPU model reports an AVX-512 feature only if the OS saves the zmm state too.
      // It is filled by a constructor; the init call makes this safe from any other one.
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#else
      return false;
#endif
  }
  return false;
}

FilterKernel BestFilterKernel() {
  static const FilterKernel best = FilterKernelSupported(FilterKernel::kAvx512)
                                       ? FilterKernel::kAvx512
                                       : FilterKernel::kPortable;
  return best;
}

void CassandraMurmur3Keys(FilterKernel kernel, const std::uint8_t* const* p, const std::size_t* len,
                          std::size_t n, Murmur3Hash* out) {
#if defined(__x86_64__)
  if (kernel == FilterKernel::kAvx512) return CassandraMurmur3KeysAvx512(p, len, n, out);
#endif
  CassandraMurmur3KeysPortable(p, len, n, out);
}

void MurmurHash64Keys(FilterKernel kernel, const std::uint8_t* const* p, const std::size_t* len,
                      std::size_t n, std::uint64_t* h1, std::uint64_t* h2) {
#if defined(__x86_64__)
  if (kernel == FilterKernel::kAvx512) return MurmurHash64KeysAvx512(p, len, n, h1, h2);
#endif
  MurmurHash64KeysPortable(p, len, n, h1, h2);
}

void AbsModIndices(FilterKernel kernel, const std::uint64_t* base, const std::uint64_t* step,
                   std::size_t n, std::uint32_t first, std::uint32_t count, const FastMod64& mod,
                   std::uint64_t* out, std::size_t stride) {
#if defined(__x86_64__)
  if (kernel == FilterKernel::kAvx512) {
    return AbsModIndicesAvx512(base, step, n, first, count, mod, out, stride);
  }
#endif
  AbsModIndicesPortable(base, step, n, first, count, mod, out, stride);
}

}  // namespace bloomcodec::cassandra

// The body of CassandraMurmur3 / CanonicalMurmur3 (murmur3/hash.cc), for the filter kernels that
// inline it into their loops of keys.
// Written on u64 so that every wraparound of Java's long arithmetic is defined here; the results
// convert back to signed at the end (modular in C++20).
#pragma once

#include <boost/endian/conversion.hpp>
#include <cstring>

#include "bloomcodec/cassandra/murmur3.h"

namespace bloomcodec::cassandra {

namespace murmur3_detail {

inline constexpr std::uint64_t kC1 = 0x87c37b91114253d5ULL;
inline constexpr std::uint64_t kC2 = 0x4cf5ad432745937fULL;

inline std::uint64_t Rotl(std::uint64_t v, int r) { return (v << r) | (v >> (64 - r)); }

inline constexpr std::uint64_t kFmix1 = 0xff51afd7ed558ccdULL;
inline constexpr std::uint64_t kFmix2 = 0xc4ceb9fe1a85ec53ULL;
// Java's fmix uses `>>>`: logical shifts, as on u64.
inline std::uint64_t Fmix(std::uint64_t k) {
  k ^= k >> 33;
  k *= kFmix1;
  k ^= k >> 33;
  k *= kFmix2;
  k ^= k >> 33;
  return k;
}

inline std::uint64_t LoadLittle64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return boost::endian::little_to_native(v);
}

// How a tail byte becomes a 64-bit lane value before its shift.
inline std::uint64_t Widen(std::uint8_t b, bool sign_extend) {
  return sign_extend
             ? static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(b)))
             : std::uint64_t{b};
}

// The two lane values of a tail of `rest` < 16 bytes, before they are mixed: k1 from bytes
// 0 .. 7, k2 from bytes 8 .. 15; a lane the tail does not reach is 0 (and mixes to 0).
inline void TailWords(const std::uint8_t* tail, std::size_t rest, bool sign_extend,
                      std::uint64_t& k1, std::uint64_t& k2) {
  k1 = 0;
  k2 = 0;
  // Trap: Java's `(long) key.get(offset + t) << s` sign-extends a byte >= 0x80, so every bit of
  // the lane above that byte is flipped too (a no-op only at t = 7, where the shift is 56).
  for (std::size_t t = 8; t < rest; ++t) k2 ^= Widen(tail[t], sign_extend) << (8 * (t - 8));
  for (std::size_t t = 0; t < rest && t < 8; ++t) k1 ^= Widen(tail[t], sign_extend) << (8 * t);
}

inline Murmur3Hash Hash(ByteSpan key, bool sign_extend_tail) {
  const std::uint8_t* data = key.data();
  const std::size_t len = key.size();
  const std::size_t blocks = len / 16;
  std::uint64_t h1 = 0;  // seed 0
  std::uint64_t h2 = 0;
  for (std::size_t i = 0; i < blocks; ++i) {
    // Body bytes are masked with 0xff in the Java code: canonical little-endian words.
    std::uint64_t k1 = LoadLittle64(data + i * 16);
    std::uint64_t k2 = LoadLittle64(data + i * 16 + 8);
    k1 *= kC1;
    k1 = Rotl(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
    h1 = Rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= kC2;
    k2 = Rotl(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
    h2 = Rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }
  const std::size_t rest = len & 15;
  std::uint64_t k1, k2;
  TailWords(data + blocks * 16, rest, sign_extend_tail, k1, k2);
  if (rest > 8) {
    k2 *= kC2;
    k2 = Rotl(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
  }
  if (rest > 0) {
    k1 *= kC1;
    k1 = Rotl(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
  }
  h1 ^= static_cast<std::uint64_t>(len);
  h2 ^= static_cast<std::uint64_t>(len);
  h1 += h2;
  h2 += h1;
  h1 = Fmix(h1);
  h2 = Fmix(h2);
  h1 += h2;
  h2 += h1;
  return {static_cast<std::int64_t>(h1), static_cast<std::int64_t>(h2)};
}

}  // namespace murmur3_detail

// CassandraMurmur3, inline.
inline Murmur3Hash InlineCassandraMurmur3(ByteSpan key) { return murmur3_detail::Hash(key, true); }

}  // namespace bloomcodec::cassandra

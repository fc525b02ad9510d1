// The arithmetic RocksDB 7.8's Standard128 Ribbon filter shares between building and querying
// (util/ribbon_impl.h StandardHasher with StandardRehasherAdapter; Standard128Ribbon settings:
// 128-bit coefficient rows, first coefficient always 1, no "smash", 32-bit result rows).
// Private to the library.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace bloomcodec::rocksdb::ribbon {

__extension__ using U128 = unsigned __int128;  // GCC/Clang; -Wpedantic knows it is an extension
using CoeffRow = U128;
inline constexpr std::uint32_t kCoeffBits = 128;
inline constexpr std::uint32_t kMaxColumns = 32;  // ResultRow is 32 bits wide

// Ordinal seed (the byte stored in the trailer) to the raw seed the hash mixes in.
inline std::uint32_t RawSeed(std::uint32_t ordinal_seed) {
  std::uint64_t tmp = std::uint64_t{ordinal_seed} * 0xc78219a23eeadd03ULL;
  tmp ^= (tmp & 0xf0f0f0f0f0f0f0f0ULL) >> 4;
  return static_cast<std::uint32_t>(tmp);
}

// The key's Hash64, re-hashed with the seed.
inline std::uint64_t SeededHash(std::uint64_t hash64, std::uint32_t raw_seed) {
  return (hash64 ^ raw_seed) * 0x6193d459236a3a0dULL;
}

inline std::uint32_t Start(std::uint64_t seeded, std::uint32_t num_starts) {
  return static_cast<std::uint32_t>((static_cast<U128>(seeded) * num_starts) >> 64);
}

inline constexpr std::uint64_t kCoeffAndResultFactor = 0xc28f82822b650bedULL;

inline CoeffRow Coefficients(std::uint64_t seeded) {
  const std::uint64_t a = seeded * kCoeffAndResultFactor;
  const CoeffRow c = (static_cast<CoeffRow>(a) << 64) ^ (a ^ 0xc367844a6e52731dULL);
  return c | 1;
}

// The expected result bits: the most start-independent (highest) product bits, byte-swapped.
inline std::uint32_t ExpectedResult(std::uint64_t seeded) {
  return static_cast<std::uint32_t>(__builtin_bswap64(seeded * kCoeffAndResultFactor));
}

inline int Parity(CoeffRow v) {
  // parity(lo) ^ parity(hi) = parity(lo ^ hi); the builtin folds with XORs (no popcount needed).
  return __builtin_parityll(static_cast<std::uint64_t>(v) ^ static_cast<std::uint64_t>(v >> 64));
}

// A segment is a little-endian 128-bit word.
inline CoeffRow LoadSegment(const std::uint8_t* p) {
  std::uint64_t lo;
  std::uint64_t hi;
  std::memcpy(&lo, p, 8);
  std::memcpy(&hi, p + 8, 8);
  if constexpr (std::endian::native == std::endian::big) {
    lo = __builtin_bswap64(lo);
    hi = __builtin_bswap64(hi);
  }
  return (static_cast<CoeffRow>(hi) << 64) | lo;
}

inline void StoreSegment(std::uint8_t* p, CoeffRow v) {
  for (int i = 0; i < 16; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// The interleaved layout for a payload of `num_segments` 16-byte segments over `num_blocks`
// blocks of 128 slots: blocks below upper_start_block use one column fewer.
struct Layout {
  std::uint32_t upper_num_columns = 0;
  std::uint32_t upper_start_block = 0;
  std::uint32_t used_segments = 0;
};
inline Layout LayoutFor(std::uint32_t num_segments, std::uint32_t num_blocks) {
  Layout l;
  if (num_blocks == 0) return l;
  l.upper_num_columns =
      static_cast<std::uint32_t>((std::uint64_t{num_segments} + num_blocks - 1) / num_blocks);
  l.upper_start_block = l.upper_num_columns * num_blocks - num_segments;
  l.used_segments = num_segments;
  if (l.upper_num_columns > kMaxColumns) {
    // More space than 32 columns can use: the rest stays unused.
    l.upper_num_columns = kMaxColumns;
    l.upper_start_block = 0;
    l.used_segments = num_blocks * kMaxColumns;
  }
  return l;
}

}  // namespace bloomcodec::rocksdb::ribbon

// Copy and compare for the short byte strings keys mostly are (tens of bytes), inline: a
// library call to memcpy or memcmp costs more than the bytes themselves at these sizes. Longer
// spans go to the library.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "bloomcodec/bytes.h"

namespace bloomcodec {

// The 8 bytes at p as a number that orders as the bytes do (big-endian).
inline std::uint64_t LoadOrderedU64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}

// memcpy(dst, src, n).
inline void CopyShort(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) {
  if (n > 32) {
    std::memcpy(dst, src, n);
  } else if (n >= 8) {
    // 8-byte steps, the last one overlapping the one before.
    std::uint64_t last;
    std::memcpy(&last, src + n - 8, 8);
    for (std::size_t i = 0; i + 8 < n; i += 8) std::memcpy(dst + i, src + i, 8);
    std::memcpy(dst + n - 8, &last, 8);
  } else {
    for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

// The sign of memcmp(a, b, n): <0, 0, >0.
inline int CompareShort(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
  if (n > 64) return std::memcmp(a, b, n);
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    const std::uint64_t x = LoadOrderedU64(a);
    const std::uint64_t y = LoadOrderedU64(b);
    if (x != y) return x < y ? -1 : 1;
  }
  for (; n > 0; ++a, ++b, --n) {
    if (*a != *b) return *a < *b ? -1 : 1;
  }
  return 0;
}

// Whether a and b are the same bytes, for spans known to share their first `common` bytes (or
// all of the shorter one): only the rest is compared.
inline bool SameBytesAfter(ByteSpan a, ByteSpan b, std::size_t common) {
  if (a.size() != b.size()) return false;
  const std::size_t skip = common < a.size() ? common : a.size();
  return CompareShort(a.data() + skip, b.data() + skip, a.size() - skip) == 0;
}

}  // namespace bloomcodec

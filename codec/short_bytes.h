// Copy and compare for the short byte strings keys mostly are (tens of bytes), inline: a
// library call to memcpy or memcmp costs more than the bytes themselves at these sizes. Longer
// spans go to the library.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"

namespace bloomcodec {

// The 8 bytes at p as a number that orders as the bytes do (big-endian).
inline std::uint64_t LoadOrderedU64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}

// memcpy(dst, src, n), inline for short n (defined beside KeyList::Add, which inlines it too:
// bloomcodec/key_list.h).
using internal::CopyShort;

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

// Internal: not part of the API. Here only because an inline function of a public header
// (KeyList::Add) uses it; the library's own code reaches it as CopyShort (codec/short_bytes.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bloomcodec::internal {

// Copies n bytes without a call to memcpy when n is small (keys are mostly 8 - 32 bytes).
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

}  // namespace bloomcodec::internal

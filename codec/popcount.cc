#include "codec/popcount.h"

#include <bit>
#include <cstring>

namespace bloomcodec {

namespace {

// The CPU picks a clone: AVX-512 VPOPCNTQ, POPCNT, or the portable loop.
__attribute__((target_clones("arch=icelake-server", "popcnt", "default"))) std::uint64_t
PopCountWords(const std::uint8_t* p, std::size_t words) {
  std::uint64_t count = 0;
  for (std::size_t i = 0; i < words; ++i) {
    std::uint64_t w;
    std::memcpy(&w, p + i * 8, 8);
    count += static_cast<std::uint64_t>(__builtin_popcountll(w));
  }
  return count;
}

}  // namespace

std::uint64_t PopCountBytes(ByteSpan bytes) {
  const std::size_t words = bytes.size() / 8;
  std::uint64_t count = words > 0 ? PopCountWords(bytes.data(), words) : 0;
  for (std::size_t i = words * 8; i < bytes.size(); ++i) {
    count += static_cast<std::uint64_t>(std::popcount(bytes[i]));
  }
  return count;
}

}  // namespace bloomcodec

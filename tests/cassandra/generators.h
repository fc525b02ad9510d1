// RapidCheck generators shared by the Cassandra property tests.
#pragma once

#include <rapidcheck.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "support/rc_rates.h"

namespace bloomcodec::testing {

// A 64-bit value, often one of the edges of the wrapping arithmetic (0, 2^63 = Long.MIN_VALUE,
// 2^64 - 1 = -1, and their neighbours). Arbitrary values come at full size from the first case:
// RapidCheck otherwise scales them with the case size, and the early cases would be small.
inline rc::Gen<std::uint64_t> GenEdgy64() {
  return rc::gen::oneOf(rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()),
                        rc::gen::element<std::uint64_t>(0, 1, 2, (1ULL << 63) - 1, 1ULL << 63,
                                                        (1ULL << 63) + 1, ~0ULL - 1, ~0ULL));
}

// Keys of arbitrary bytes. How many keys and how long grow with the case size; every byte is
// uniform from the first case on, so half of them are >= 0x80: the sign-extension trap of the
// hashes, whose tail bytes Java reads as signed.
inline rc::Gen<std::vector<std::vector<std::uint8_t>>> GenKeys() {
  return rc::gen::container<std::vector<std::vector<std::uint8_t>>>(
      rc::gen::container<std::vector<std::uint8_t>>(AnyByte()));
}

// Whether some key has a byte >= 0x80 in its tail: the bytes after its last whole block of
// `block` bytes (MurmurHash64 8, Murmur3 16), which the hash reads one by one as Java bytes.
inline bool SomeTailByteIsHigh(const std::vector<std::vector<std::uint8_t>>& keys,
                               std::size_t block) {
  for (const auto& k : keys) {
    for (std::size_t i = k.size() - k.size() % block; i < k.size(); ++i) {
      if (k[i] >= 0x80) return true;
    }
  }
  return false;
}

}  // namespace bloomcodec::testing

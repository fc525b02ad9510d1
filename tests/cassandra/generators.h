// RapidCheck generators shared by the Cassandra property tests.
#pragma once

#include <rapidcheck.h>

#include <cstdint>

namespace bloomcodec::testing {

// A 64-bit value, often one of the edges of the wrapping arithmetic (0, 2^63 = Long.MIN_VALUE,
// 2^64 - 1 = -1, and their neighbours). Arbitrary values come at full size from the first case:
// RapidCheck otherwise scales them with the case size, and the early cases would be small.
inline rc::Gen<std::uint64_t> GenEdgy64() {
  return rc::gen::oneOf(rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()),
                        rc::gen::element<std::uint64_t>(0, 1, 2, (1ULL << 63) - 1, 1ULL << 63,
                                                        (1ULL << 63) + 1, ~0ULL - 1, ~0ULL));
}

}  // namespace bloomcodec::testing

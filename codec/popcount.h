// Set bits of a byte string, a word at a time with the CPU's popcount instruction when it has
// one. The portable build has no POPCNT, so std::popcount becomes a libgcc call per value: per
// byte of a filter, that call costs more than the rest of a verify's fill statistics.
#pragma once

#include <cstdint>

#include "bloomcodec/bytes.h"

namespace bloomcodec {

std::uint64_t PopCountBytes(ByteSpan bytes);

}  // namespace bloomcodec

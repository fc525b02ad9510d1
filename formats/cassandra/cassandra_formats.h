// The cassandra formats as the command line sees them (bloomcodec::FormatCodec implementations).
// Private to the library: the registry (formats/registry.cc) lists them.
#pragma once

#include <span>

#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {

std::span<const FormatCodec* const> Formats();

}  // namespace bloomcodec::cassandra

// The leveldb formats as the command line sees them (bloomcodec::FormatCodec implementations).
// Private to the library: the registry (formats/registry.cc) lists them.
#pragma once

#include <span>

#include "bloomcodec/format.h"

namespace bloomcodec::leveldb {

std::span<const FormatCodec* const> Formats();

}  // namespace bloomcodec::leveldb

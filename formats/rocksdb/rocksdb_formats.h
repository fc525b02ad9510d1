// The rocksdb formats as the command line sees them (bloomcodec::FormatCodec implementations).
// Private to the library: the registry (formats/registry.cc) lists them.
#pragma once

#include <span>

#include "bloomcodec/format.h"

namespace bloomcodec::rocksdb {

// rocksdb-bloom-legacy, rocksdb-bloom, rocksdb-ribbon: one full filter on its own.
std::span<const FormatCodec* const> FilterFormats();
// rocksdb-sst: a block-based table file.
std::span<const FormatCodec* const> SstFormats();

}  // namespace bloomcodec::rocksdb

#include "leveldb_formats.h"

namespace bloomcodec::leveldb {

// Filled in as the leveldb codecs land.
std::span<const FormatCodec* const> Formats() { return {}; }

}  // namespace bloomcodec::leveldb

#include "cassandra_formats.h"

namespace bloomcodec::cassandra {

// Filled in as the cassandra codecs land.
std::span<const FormatCodec* const> Formats() { return {}; }

}  // namespace bloomcodec::cassandra

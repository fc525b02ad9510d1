// For the tests of streamed, parallel verify of tables: the limits of blocktable/stream.h for the
// plain path (one pass, one chunk, one range) and for splits.
#pragma once

#include <cstdint>

#include "blocktable/stream.h"

namespace bloomcodec::testing {

// One pass, one chunk, one range: the plain path the others must equal.
inline blocktable::StreamLimits WholeTable() {
  blocktable::StreamLimits l;
  l.chunk_keys = std::size_t{1} << 40;
  l.min_range_bytes = std::uint64_t{1} << 62;
  l.max_ranges = 1;
  l.drop_window = std::uint64_t{1} << 62;
  return l;
}

// Chunks of `chunk_keys`, ranges from `range_bytes`, pages dropped as soon as passed.
inline blocktable::StreamLimits Split(std::size_t chunk_keys, std::uint64_t range_bytes) {
  blocktable::StreamLimits l;
  l.chunk_keys = chunk_keys;
  l.min_range_bytes = range_bytes;
  l.max_ranges = 1u << 20;
  l.drop_window = 1;
  return l;
}

}  // namespace bloomcodec::testing

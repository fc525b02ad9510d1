// Internal: the reading of a Filter.db that answers every key when its version's reading does
// not: a writer that serialized the filter in another era's layout (the na tables Cassandra 4.0
// wrote with 3.x's big-endian longs). verify names it in its false-negative finding.
//
//   std::string other = FormatAnsweringEveryKey(file, era, keys);  // "" when none does
#pragma once

#include <string>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/era.h"
#include "cassandra/filter_keys.h"

namespace bloomcodec::cassandra {

// The first known era other than `used` under which `file` parses and answers every one of
// `keys` (not by accident: a positive K, not saturated, fp^n below 1e-6), as its --format name;
// "" when none does. Reads the keys again (FilterKeys::AllPresent).
std::string FormatAnsweringEveryKey(ByteSpan file, Era used, const FilterKeys& keys);

}  // namespace bloomcodec::cassandra

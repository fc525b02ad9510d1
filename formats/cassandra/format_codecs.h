// Internal header: what the FormatCodec adapters of Cassandra's filter formats share (here and
// in legacy/format_codecs.cc): which Filter.db a format claims, and how the command line's
// parameters pick one of Cassandra's getFilter overloads.
#pragma once

#include <cstdint>
#include <string_view>

#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"
#include "cassandra/descriptor.h"

namespace bloomcodec::cassandra {

// A Filter.db whose file name's version writes filters of `kind`.
bool ClaimsKind(std::string_view path, FilterKind kind);

// The number of elements Cassandra sizes from: --expected-keys, else the keys given.
std::int64_t ElementCount(const KeyList* keys, const FilterParams& params);

// Which getFilter overload the parameters select: exactly one of fp chance / buckets per
// element (a Java int); --bits-per-key is refused.
Status CheckOverload(const FilterParams& params);

}  // namespace bloomcodec::cassandra

// Internal: inspect, dump and undump of the 1.0 row filter (v10_row/inspect.cc), for its codec.
#pragma once

#include <string_view>

#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {

Result<Document> InspectRowFilter(ByteSpan file, std::string_view source);
Result<Document> DumpRowFilter(ByteSpan file, std::string_view source);
Result<ByteVector> UndumpRowFilter(const Document& dump, std::string_view source);

}  // namespace bloomcodec::cassandra

// Internal: inspect, dump and undump of the 1.0 Filter.db (v10/inspect.cc), for its codec.
#pragma once

#include <string_view>

#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {

Result<Document> InspectV10Filter(ByteSpan file, std::string_view source);
Result<Document> DumpV10Filter(ByteSpan file, std::string_view source);
Result<ByteVector> UndumpV10Filter(const Document& dump, std::string_view source);

}  // namespace bloomcodec::cassandra

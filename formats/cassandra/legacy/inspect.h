// Internal: inspect, dump and undump of the legacy Filter.db (legacy/inspect.cc), for the codecs
// of the two eras whose bytes it is: `era` is Era::kLegacy, or Era::kV06 (the same bytes, keys
// hashed as Java Strings), whose name the documents carry.
#pragma once

#include <string_view>

#include "bloomcodec/cassandra/era.h"
#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {

Result<Document> InspectLegacyFilter(ByteSpan file, std::string_view source, Era era);
Result<Document> DumpLegacyFilter(ByteSpan file, std::string_view source, Era era);
Result<ByteVector> UndumpLegacyFilter(const Document& dump, std::string_view source, Era era);

}  // namespace bloomcodec::cassandra

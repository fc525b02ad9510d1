// inspect, dump and undump of the Cassandra 0.7 - 1.1 formats (private to the library; the
// FormatCodec classes of cassandra_formats.cc forward to these).
#pragma once

#include <string_view>

#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {

Result<Document> InspectFilterDb(ByteSpan file, std::string_view source);
Result<Document> InspectLegacyFilter(ByteSpan file, std::string_view source);
Result<Document> InspectRowFilter(ByteSpan file, std::string_view source);

Result<Document> DumpFilterDb(ByteSpan file, std::string_view source);
Result<Document> DumpLegacyFilter(ByteSpan file, std::string_view source);
Result<Document> DumpRowFilter(ByteSpan file, std::string_view source);

Result<ByteVector> UndumpFilterDb(const Document& dump, std::string_view source);
Result<ByteVector> UndumpLegacyFilter(const Document& dump, std::string_view source);
Result<ByteVector> UndumpRowFilter(const Document& dump, std::string_view source);

}  // namespace bloomcodec::cassandra

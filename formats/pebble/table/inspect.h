// inspect and dump of a Pebble table (private to the library): footer, metaindex, properties,
// index and filter, with the filter's own inspect (pebble/inspect.h) nested.
#pragma once

#include <string_view>

#include "bloomcodec/format.h"

namespace bloomcodec::pebble {

Result<Document> InspectPebbleTable(ByteSpan file, std::string_view source);

// dump: the footer, metaindex and filter block of the table, and the whole file in base64;
// undump gives back the file when the fields still agree with it (a table is not rebuilt from
// edited fields: its blocks and checksums would change).
Result<Document> DumpPebbleTable(ByteSpan file, std::string_view source);
Result<ByteVector> UndumpPebbleTable(const Document& dump, std::string_view source);

}  // namespace bloomcodec::pebble

// inspect of a Pebble row-based table (private to the library): footer, metaindex, properties,
// index and filter, with the filter's own inspect (pebble/inspect.h) nested.
#pragma once

#include <string_view>

#include "bloomcodec/format.h"

namespace bloomcodec::pebble {

Result<Document> InspectPebbleTable(ByteSpan file, std::string_view source);

}  // namespace bloomcodec::pebble

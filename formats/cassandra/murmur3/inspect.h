// inspect, dump and undump of the Cassandra 1.2 - 5.0 filters (private to the library; the
// FormatCodec classes of murmur3/format_codecs.cc forward to these).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {

// The most keys FilterFactory.getFilter(n, fp) could have sized a filter of this K and capacity
// for (the loosest of the candidate buckets per element). Unset when no fp chance gives this K.
std::optional<double> KeysAllowedByMurmur3Sizing(std::int32_t hash_count, std::int64_t capacity);

Result<Document> InspectMurmur3Filter(ByteSpan file, std::string_view source, Murmur3Layout layout);
Result<Document> DumpMurmur3Filter(ByteSpan file, std::string_view source, Murmur3Layout layout);
Result<ByteVector> UndumpMurmur3Filter(const Document& dump, std::string_view source,
                                       Murmur3Layout layout);

// The codec of each layout (cassandra-1.2, -3.0, -4.0).
const FormatCodec* Murmur3Codec(Murmur3Layout layout);

}  // namespace bloomcodec::cassandra

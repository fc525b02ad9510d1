// Internal: inspect, dump and undump of the Murmur3 eras' filters (Cassandra 1.2 - 5.0), for
// their codecs (murmur3/format_codecs.cc), and the most keys their sizing allows (verify).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "bloomcodec/cassandra/era.h"
#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {

// The most keys FilterFactory.getFilter(n, fp) could have sized a filter of this K and capacity
// for (the loosest of the candidate buckets per element). Unset when no fp chance gives this K.
std::optional<double> KeysAllowedByMurmur3Sizing(std::int32_t hash_count, std::int64_t capacity);

Result<Document> InspectMurmur3Filter(ByteSpan file, std::string_view source, Era era);
Result<Document> DumpMurmur3Filter(ByteSpan file, std::string_view source, Era era);
Result<ByteVector> UndumpMurmur3Filter(const Document& dump, std::string_view source, Era era);

}  // namespace bloomcodec::cassandra

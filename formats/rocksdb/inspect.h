// inspect, dump and undump of one RocksDB full filter (private to the library; the FormatCodec
// classes of rocksdb_filter_formats.cc forward to these).
#pragma once

#include <string_view>

#include "bloomcodec/format.h"
#include "bloomcodec/rocksdb/full_filter.h"

namespace bloomcodec::rocksdb {

// The format name of each encoding (rocksdb-bloom-legacy, rocksdb-bloom, rocksdb-ribbon).
std::string_view FormatNameOf(FilterEncoding encoding);
// The trailer kind a filter of this encoding normally has.
FullFilterKind KindOf(FilterEncoding encoding);

Result<Document> InspectFullFilter(ByteSpan file, std::string_view source, FilterEncoding named);
Result<Document> DumpFullFilter(ByteSpan file, std::string_view source, FilterEncoding named);
Result<ByteVector> UndumpFullFilter(const Document& dump, std::string_view source,
                                    FilterEncoding named);

}  // namespace bloomcodec::rocksdb

// inspect, dump and undump of the LevelDB formats (private to the library; the FormatCodec
// classes of format_codecs.cc and table/format_codecs.cc forward to these).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "bloomcodec/format.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/leveldb/hash.h"

namespace bloomcodec::leveldb {

// `goleveldb`: the filter is goleveldb's (goleveldb-bloom: 1.18's hash, 1.17's policy name).
Result<Document> InspectBloom(ByteSpan file, std::string_view source, HashFlavor flavor,
                              bool goleveldb = false);
Result<Document> DumpBloom(ByteSpan file, std::string_view source, HashFlavor flavor,
                           bool goleveldb = false);
Result<ByteVector> UndumpBloom(const Document& dump, std::string_view source, HashFlavor flavor,
                               bool goleveldb = false);

// The strict layout and per-filter statistics of a filter block found at `base_offset` of
// `source`. Every filter's entry says which data-block offsets it serves.
Result<Document> InspectFilterBlockAt(ByteSpan block, std::string_view source,
                                      std::uint64_t base_offset, HashFlavor flavor,
                                      bool goleveldb = false,
                                      BloomVariant variant = BloomVariant::kLevelDb);
Result<Document> InspectFilterBlock(ByteSpan file, std::string_view source);
// Dump fields of a filter block (base_lg, array_offset, filters: [{offset, base64}]), without
// the format head: a table dump nests them.
Result<Document> FilterBlockDumpFields(ByteSpan block, std::string_view source,
                                       std::uint64_t base_offset);
Result<Document> DumpFilterBlock(ByteSpan file, std::string_view source);
// Accepts the fields of FilterBlockDumpFields (each filter's bytes in `base64`).
Result<ByteVector> FilterBlockFromFields(const Document& fields, std::string_view source);
Result<ByteVector> UndumpFilterBlock(const Document& dump, std::string_view source);

Result<Document> InspectTable(ByteSpan file, std::string_view source);
Result<Document> DumpTable(ByteSpan file, std::string_view source);
Result<ByteVector> UndumpTable(const Document& dump, std::string_view source);

// The most keys NewBloomFilterPolicy could have sized a filter of k and `bits` for (inspect's
// sized_for_keys_max); unset when no bits_per_key gives k.
std::optional<double> KeysAllowedByPolicy(std::uint32_t k, std::uint64_t bits);

// The name of the raw bloom format whose hash a filter of `flavor` uses (goleveldb-bloom for
// goleveldb's filters).
std::string_view BloomFormatName(HashFlavor flavor, bool goleveldb = false);

}  // namespace bloomcodec::leveldb

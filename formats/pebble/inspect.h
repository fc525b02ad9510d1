// inspect, dump and undump of Pebble's two table filter kinds, and the policy facts a verifier
// can judge them by (private to the library; the FormatCodec classes of format_codecs.cc forward
// to these). Field names are the RocksDB full filters' where the concept is the same.
#pragma once

#include <string_view>

#include "bloomcodec/format.h"
#include "pebble/binary_fuse.h"
#include "pebble/bloom.h"

namespace bloomcodec::pebble {

inline constexpr std::string_view kBloomFormatName = "pebble-bloom";
inline constexpr std::string_view kBinaryFuseFormatName = "pebble-binaryfuse";

// Which bits per key (1 .. 512, the adaptive policy's ceiling) write this probe count in each
// era, and the key counts the line count was sized for: {"rounded_probes": {...},
// "table_probes": {...}}, each with bits_per_key_min/max and sized_for_keys_min/max (or a note).
Document BloomPolicyFacts(const BloomReader& filter);
// The key counts a binary fuse geometry was sized for (sized_for_keys_min/max, and the ranges
// when a halved segment length could also have produced it), the fingerprint bits and 2^-B.
Document BinaryFusePolicyFacts(const BinaryFuseReader& filter);

Result<Document> InspectBloom(ByteSpan file, std::string_view source);
// Dumps split the bytes into payload and trailer whatever they hold (a filter Parse refuses
// dumps too), so Undump(Dump(file)) is `file` for every input.
Document DumpBloom(ByteSpan file);
Result<ByteVector> UndumpBloom(const Document& dump, std::string_view source);

Result<Document> InspectBinaryFuse(ByteSpan file, std::string_view source);
Document DumpBinaryFuse(ByteSpan file);
Result<ByteVector> UndumpBinaryFuse(const Document& dump, std::string_view source);

}  // namespace bloomcodec::pebble

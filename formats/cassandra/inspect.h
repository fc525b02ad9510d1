// inspect, dump and undump of the Cassandra 0.7 - 1.1 formats (private to the library; the
// FormatCodec classes of format_codecs.cc forward to these), and inspect helpers the 1.2 -
// 5.0 formats share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {

// The most keys a Cassandra 1.0 sizing (getFilter by buckets or by fp chance; `fixed_bpe` when the
// caller is known, else 0) could have sized a filter of this K and modulus for: the largest
// `sized_for_keys` of inspect's candidates. Unset when no sizing gives this K.
std::optional<double> KeysAllowedBySizing(std::int32_t hash_count, std::int64_t modulus,
                                          std::int32_t fixed_bpe);

// inspect's sizing section, shared by all Cassandra eras: copies a candidate's values (buckets
// per element, the key count sized for, the promised rate) up into the section.
void CopyCandidateUp(Document& sizing, const Document& candidate);
// The note for a K that several buckets-per-element values give.
std::string SeveralCandidatesNote(std::int32_t hash_count, std::size_t candidates);

Result<Document> InspectV10Filter(ByteSpan file, std::string_view source);
// `name`: "cassandra-legacy", or "cassandra-0.6" (the same bytes, keys hashed as Java Strings).
Result<Document> InspectLegacyFilter(ByteSpan file, std::string_view source,
                                     std::string_view name = "cassandra-legacy");
Result<Document> InspectRowFilter(ByteSpan file, std::string_view source);

Result<Document> DumpV10Filter(ByteSpan file, std::string_view source);
Result<Document> DumpLegacyFilter(ByteSpan file, std::string_view source,
                                  std::string_view name = "cassandra-legacy");
Result<Document> DumpRowFilter(ByteSpan file, std::string_view source);

Result<ByteVector> UndumpV10Filter(const Document& dump, std::string_view source);
Result<ByteVector> UndumpLegacyFilter(const Document& dump, std::string_view source,
                                      std::string_view name = "cassandra-legacy");
Result<ByteVector> UndumpRowFilter(const Document& dump, std::string_view source);

}  // namespace bloomcodec::cassandra

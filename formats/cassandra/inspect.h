// Internal: what the eras' inspect, dump and undump share (inspect.cc). The sizing facts of
// Cassandra 1.0's getFilter, which every era's inspect reports in its own terms, and the fields
// of the filters before 1.2 (the 0.6, legacy, 1.0 and 1.0 row filters: a hash count, a word count
// and big-endian words). Each era's own inspect is in its folder's inspect.cc.
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

// inspect's fields of a filter before 1.2: format, K, W, the modulus, the fill and its sizing
// facts (`fixed_bpe` as for KeysAllowedBySizing).
Document FilterFields(std::string_view format, std::int32_t hash_count, std::int32_t word_count,
                      std::int64_t modulus, std::uint64_t bits_set, std::int32_t fixed_bpe);
// inspect's "sstable" section for a filter before 1.2 whose `source` is an SSTable file name (a
// .gz suffix is ignored): the name's fields, the era of its version and, before e, the
// partitioner the Index.db beside it shows.
void AddSstableBefore12(Document& doc, std::string_view source);

// A dump's hash_count, word_count and words_base64 (the words as stored), checked; the words.
Result<ByteVector> WordsField(const Document& dump, std::string_view source,
                              std::int64_t& hash_count, std::int64_t& word_count);
// The same fields into a dump.
void PutWords(Document& doc, std::int32_t hash_count, std::int32_t word_count, ByteSpan words);

}  // namespace bloomcodec::cassandra

// inspect / dump / undump for Filter.db (f .. hf), legacy Filter.db (c .. e) and the 1.0 row
// filter. The dumps carry the header fields and the words exactly as stored (big-endian bytes,
// base64), so Undump(Dump(file)) is the file byte for byte, trailing bytes included.
#include <climits>
#include <string>

#include "bloomcodec/byte_writer.h"
#include "bloomcodec/cassandra/descriptor.h"
#include "bloomcodec/cassandra/filter_db.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "cassandra_inspect.h"
#include "inspect_support.h"

namespace bloomcodec::cassandra {
namespace {

// The version letters of an SSTable file name, when `source` is one (a .gz suffix is ignored).
void AddDescriptor(Document& doc, std::string_view source) {
  if (source.ends_with(".gz")) source.remove_suffix(3);
  Result<Descriptor> d = ParseDescriptor(source);
  if (!d.ok()) return;
  Document sstable;
  if (!d->keyspace.empty()) sstable["keyspace"] = d->keyspace;
  sstable["column_family"] = d->column_family;
  sstable["version"] = d->version;
  sstable["generation"] = d->generation;
  sstable["component"] = d->component;
  sstable["filter_kind"] = std::string(FilterKindName(d->filter_kind()));
  doc["sstable"] = std::move(sstable);
}

// What K and the modulus say about how the filter was sized. getFilter(n, buckets) picks
// K = optKPerBuckets[bpe] and allocates n * bpe + 20 bits rounded up to whole words, so every bpe
// whose optimal K is the stored K is a candidate, and each implies n ~ (64 W - 20) / bpe.
// getFilter(n, fp) may choose a K below the optimum of its bpe (computeBloomSpec lowers K while
// the fp target still holds): such filters match no candidate or a wrong one, and the note says so.
Document SizingFacts(std::int32_t hash_count, std::int64_t modulus, std::int32_t fixed_bpe) {
  Document sizing;
  Document candidates = Document::array();
  for (int bpe = 1; bpe <= kMaxBucketsPerElement; ++bpe) {
    if (fixed_bpe != 0 && bpe != fixed_bpe) continue;
    if (OptimalHashCount(bpe) != hash_count) continue;
    Document c;
    c["buckets_per_element"] = bpe;
    c["sized_for_keys"] = std::max<std::int64_t>(0, (modulus - kExcessBits) / bpe);
    std::span<const double> probs = BloomProbabilities(bpe);
    c["promised_false_positive_rate"] =
        hash_count >= 0 && static_cast<std::size_t>(hash_count) < probs.size()
            ? JsonNumber(probs[static_cast<std::size_t>(hash_count)])
            : Document(nullptr);
    candidates.push_back(std::move(c));
  }
  sizing["rule"] = fixed_bpe != 0 ? "getFilter(columns, " + std::to_string(fixed_bpe) + ")"
                                  : std::string("getFilter(n, buckets_per_element): K = "
                                                "optKPerBuckets[bpe], bits = n * bpe + 20");
  if (candidates.size() == 1) {
    sizing["buckets_per_element"] = candidates[0]["buckets_per_element"];
    sizing["sized_for_keys"] = candidates[0]["sized_for_keys"];
    sizing["promised_false_positive_rate"] = candidates[0]["promised_false_positive_rate"];
  } else if (candidates.empty()) {
    sizing["note"] = "no buckets-per-element row of BloomCalculations has K = " +
                     std::to_string(hash_count) +
                     " as its optimum: sized by fp chance with a lowered K, or not by Cassandra";
  } else {
    sizing["note"] = "K = " + std::to_string(hash_count) + " is the optimum of " +
                     std::to_string(candidates.size()) +
                     " buckets-per-element rows: the key count it was sized for is one of the "
                     "candidates (Cassandra's SSTable writer uses 15)";
  }
  sizing["candidates"] = std::move(candidates);
  return sizing;
}

Document FilterFields(std::string_view format, std::int32_t hash_count, std::int32_t word_count,
                      std::int64_t modulus, std::uint64_t bits_set, std::int32_t fixed_bpe) {
  Document doc;
  doc["format"] = std::string(format);
  doc["hash_count"] = hash_count;
  doc["word_count"] = word_count;
  doc["modulus"] = modulus;
  AddFillStatistics(doc, static_cast<std::uint64_t>(std::max<std::int64_t>(0, modulus)), bits_set,
                    static_cast<std::uint32_t>(std::max(0, hash_count)));
  doc["sizing"] = SizingFacts(hash_count, modulus, fixed_bpe);
  return doc;
}

Result<ByteVector> WordsField(const Document& dump, std::string_view source,
                              std::int64_t& hash_count, std::int64_t& word_count) {
  BLOOMCODEC_ASSIGN_OR_RETURN(hash_count, DumpInt(dump, "hash_count", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(word_count, DumpInt(dump, "word_count", source));
  if (hash_count < INT32_MIN || hash_count > INT32_MAX) {
    return BadDumpField(source, "hash_count", "a 32-bit integer");
  }
  if (word_count <= 0 || word_count > INT32_MAX) {
    return BadDumpField(source, "word_count", "an integer from 1 to 2^31 - 1");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector words, DumpBase64(dump, "words_base64", source));
  if (words.size() != static_cast<std::uint64_t>(word_count) * 8) {
    return BadDumpField(source, "words_base64",
                        std::to_string(word_count * 8) + " bytes (8 per word), found " +
                            std::to_string(words.size()));
  }
  return words;
}

void PutWords(Document& doc, std::int32_t hash_count, std::int32_t word_count, ByteSpan words) {
  doc["hash_count"] = hash_count;
  doc["word_count"] = word_count;
  doc["words_base64"] = ToBase64(words);
}

ByteVector FilterDbBytes(std::int32_t hash_count, std::int32_t word_count, ByteSpan words) {
  ByteVector out;
  out.reserve(FilterDb::kHeaderBytes + words.size());
  ByteWriter w(out);
  w.PutBigI32(hash_count);
  w.PutBigI32(word_count);
  out.insert(out.end(), words.begin(), words.end());
  return out;
}

}  // namespace

Result<Document> InspectFilterDb(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterDb f, FilterDb::Parse(file, source));
  Document doc = FilterFields("cassandra-1.0", f.signed_hash_count(), f.word_count(), f.modulus(),
                              f.bits_set(), 0);
  doc["file_bytes"] = file.size();
  doc["trailing_bytes"] = f.trailing_bytes();
  AddDescriptor(doc, source);
  return doc;
}

Result<Document> InspectLegacyFilter(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter f, LegacyFilter::Parse(file, source));
  Document doc = FilterFields("cassandra-legacy", f.signed_hash_count(), f.word_count(),
                              f.modulus(), f.bits_set(), 0);
  doc["file_bytes"] = file.size();
  doc["trailing_bytes"] = f.trailing_bytes();
  AddDescriptor(doc, source);
  return doc;
}

Result<Document> InspectRowFilter(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(RowFilter row, RowFilter::Parse(file, source));
  const FilterDb& f = *row.current();
  Document doc = FilterFields("cassandra-1.0-row", f.signed_hash_count(), f.word_count(),
                              f.modulus(), f.bits_set(), kRowFilterBucketsPerElement);
  doc["length_prefix"] = row.length_prefix();
  doc["padding_bytes"] = f.trailing_bytes();
  doc["file_bytes"] = file.size();
  doc["trailing_bytes"] = file.size() - row.consumed_bytes();
  return doc;
}

Result<Document> DumpFilterDb(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterDb f, FilterDb::Parse(file, source));
  Document doc = DumpHead("cassandra-1.0");
  PutWords(doc, f.signed_hash_count(), f.word_count(), f.words_bytes());
  if (f.trailing_bytes() > 0) {
    doc["trailing_base64"] = ToBase64(file.subspan(f.serialized().size()));
  }
  return doc;
}

Result<Document> DumpLegacyFilter(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter f, LegacyFilter::Parse(file, source));
  Document doc = DumpHead("cassandra-legacy");
  PutWords(doc, f.signed_hash_count(), f.word_count(), f.words_bytes());
  if (f.trailing_bytes() > 0) {
    doc["trailing_base64"] = ToBase64(file.subspan(f.serialized().size()));
  }
  return doc;
}

Result<Document> DumpRowFilter(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(RowFilter row, RowFilter::Parse(file, source));
  const FilterDb& f = *row.current();
  Document doc = DumpHead("cassandra-1.0-row");
  doc["length_prefix"] = row.length_prefix();
  PutWords(doc, f.signed_hash_count(), f.word_count(), f.words_bytes());
  const std::size_t filter_end = 4 + f.serialized().size();
  if (f.trailing_bytes() > 0) {
    doc["padding_base64"] = ToBase64(file.subspan(filter_end, f.trailing_bytes()));
  }
  if (file.size() > row.consumed_bytes()) {
    doc["trailing_base64"] = ToBase64(file.subspan(row.consumed_bytes()));
  }
  return doc;
}

Result<ByteVector> UndumpFilterDb(const Document& dump, std::string_view source) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, "cassandra-1.0", source));
  std::int64_t k = 0, w = 0;
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector words, WordsField(dump, source, k, w));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector trailing, DumpOptionalBase64(dump, "trailing_base64", source));
  ByteVector out = FilterDbBytes(static_cast<std::int32_t>(k), static_cast<std::int32_t>(w), words);
  out.insert(out.end(), trailing.begin(), trailing.end());
  return out;
}

Result<ByteVector> UndumpLegacyFilter(const Document& dump, std::string_view source) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, "cassandra-legacy", source));
  std::int64_t k = 0, w = 0;
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector words, WordsField(dump, source, k, w));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector trailing, DumpOptionalBase64(dump, "trailing_base64", source));
  if (w > LegacyFilter::kMaxWordCount) {
    return BadDumpField(source, "word_count",
                        "at most " + std::to_string(LegacyFilter::kMaxWordCount) +
                            " (64 * W must fit Java's int BitSet.size())");
  }
  // The serialization stream around the words is fixed for a given W: let the writer produce it,
  // then put the dumped words in place.
  BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter empty, LegacyFilter::Create(static_cast<std::int32_t>(k),
                                                                       static_cast<std::int32_t>(w)));
  ByteVector out = empty.Serialize();
  std::copy(words.begin(), words.end(), out.begin() + LegacyFilter::kWordsOffset);
  out.insert(out.end(), trailing.begin(), trailing.end());
  return out;
}

Result<ByteVector> UndumpRowFilter(const Document& dump, std::string_view source) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, "cassandra-1.0-row", source));
  std::int64_t k = 0, w = 0;
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector words, WordsField(dump, source, k, w));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t length, DumpInt(dump, "length_prefix", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector padding, DumpOptionalBase64(dump, "padding_base64", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector trailing, DumpOptionalBase64(dump, "trailing_base64", source));
  const std::int64_t inner = 8 + 8 * w + static_cast<std::int64_t>(padding.size());
  if (length != inner) {
    return BadDumpField(source, "length_prefix",
                        std::to_string(inner) + " (8 + 8 * word_count + padding bytes)");
  }
  ByteVector out;
  ByteWriter writer(out);
  writer.PutBigI32(static_cast<std::int32_t>(length));
  ByteVector filter = FilterDbBytes(static_cast<std::int32_t>(k), static_cast<std::int32_t>(w), words);
  out.insert(out.end(), filter.begin(), filter.end());
  out.insert(out.end(), padding.begin(), padding.end());
  out.insert(out.end(), trailing.begin(), trailing.end());
  return out;
}

}  // namespace bloomcodec::cassandra

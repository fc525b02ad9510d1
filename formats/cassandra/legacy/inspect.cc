// inspect / dump / undump of the legacy Filter.db (versions c .. e), and of the 0.6 one, whose
// bytes are the same. The dump carries the header fields and the words exactly as stored
// (big-endian bytes, base64), so Undump(Dump(file)) is the file byte for byte, trailing bytes
// included.
#include "cassandra/legacy/inspect.h"

#include <algorithm>
#include <string>

#include "bloomcodec/cassandra/legacy_filter.h"
#include "cassandra/era_table.h"
#include "cassandra/inspect.h"
#include "inspect_support.h"

namespace bloomcodec::cassandra {

Result<Document> InspectLegacyFilter(ByteSpan file, std::string_view source, Era era) {
  BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter f, LegacyFilter::Parse(file, source));
  Document doc = FilterFields(Facts(era).name, f.signed_hash_count(), f.word_count(), f.modulus(),
                              f.bits_set(), 0);
  AddFillProfile(doc, file, f.words_bytes());
  doc["file_bytes"] = file.size();
  doc["trailing_bytes"] = f.trailing_bytes();
  AddSstableBefore12(doc, source);
  return doc;
}

Result<Document> DumpLegacyFilter(ByteSpan file, std::string_view source, Era era) {
  BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter f, LegacyFilter::Parse(file, source));
  Document doc = DumpHead(Facts(era).name);
  PutWords(doc, f.signed_hash_count(), f.word_count(), f.words_bytes());
  if (f.trailing_bytes() > 0) {
    doc["trailing_base64"] = ToBase64(file.subspan(f.serialized().size()));
  }
  return doc;
}

Result<ByteVector> UndumpLegacyFilter(const Document& dump, std::string_view source, Era era) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, Facts(era).name, source));
  std::int64_t k = 0, w = 0;
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector words, WordsField(dump, source, k, w));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector trailing,
                              DumpOptionalBase64(dump, "trailing_base64", source));
  if (w > LegacyFilter::kMaxWordCount) {
    return BadDumpField(source, "word_count",
                        "at most " + std::to_string(LegacyFilter::kMaxWordCount) +
                            " (64 * W must fit Java's int BitSet.size())");
  }
  // The serialization stream around the words is fixed for a given W: let the writer produce it,
  // then put the dumped words in place.
  BLOOMCODEC_ASSIGN_OR_RETURN(
      LegacyFilter empty,
      LegacyFilter::Create(static_cast<std::int32_t>(k), static_cast<std::int32_t>(w)));
  ByteVector out = empty.Serialize();
  std::copy(words.begin(), words.end(), out.begin() + LegacyFilter::kWordsOffset);
  out.insert(out.end(), trailing.begin(), trailing.end());
  return out;
}

}  // namespace bloomcodec::cassandra

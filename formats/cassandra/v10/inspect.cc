// inspect / dump / undump of the 1.0 Filter.db (versions f .. hf). The dump carries the header
// fields and the words exactly as stored (big-endian bytes, base64), so Undump(Dump(file)) is the
// file byte for byte, trailing bytes included.
#include "cassandra/v10/inspect.h"

#include "bloomcodec/cassandra/v10_filter.h"
#include "cassandra/era_table.h"
#include "cassandra/inspect.h"
#include "cassandra/word_filter_bytes.h"
#include "inspect_support.h"

namespace bloomcodec::cassandra {

Result<Document> InspectV10Filter(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter f, V10Filter::Parse(file, source));
  Document doc = FilterFields(Facts(Era::kV10).name, f.signed_hash_count(), f.word_count(),
                              f.modulus(), f.bits_set(), 0);
  AddFillProfile(doc, file, f.words_bytes());
  doc["file_bytes"] = file.size();
  doc["trailing_bytes"] = f.trailing_bytes();
  AddSstableBefore12(doc, source);
  return doc;
}

Result<Document> DumpV10Filter(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter f, V10Filter::Parse(file, source));
  Document doc = DumpHead(Facts(Era::kV10).name);
  PutWords(doc, f.signed_hash_count(), f.word_count(), f.words_bytes());
  if (f.trailing_bytes() > 0) {
    doc["trailing_base64"] = ToBase64(file.subspan(f.serialized().size()));
  }
  return doc;
}

Result<ByteVector> UndumpV10Filter(const Document& dump, std::string_view source) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, Facts(Era::kV10).name, source));
  std::int64_t k = 0, w = 0;
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector words, WordsField(dump, source, k, w));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector trailing,
                              DumpOptionalBase64(dump, "trailing_base64", source));
  ByteVector out =
      WordFilterBytes(static_cast<std::int32_t>(k), static_cast<std::int32_t>(w), words);
  out.insert(out.end(), trailing.begin(), trailing.end());
  return out;
}

}  // namespace bloomcodec::cassandra

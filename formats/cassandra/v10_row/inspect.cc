// inspect / dump / undump of the 1.0 row filter: a length prefix, then a 1.0 filter. The dump
// carries the prefix, the header fields, the words as stored, and the padding inside the prefix's
// length and the row's bytes after it, so Undump(Dump(file)) is the file byte for byte.
#include "cassandra/v10_row/inspect.h"

#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "cassandra/era_table.h"
#include "cassandra/inspect.h"
#include "cassandra/word_filter_bytes.h"
#include "codec/byte_writer.h"
#include "inspect_support.h"

namespace bloomcodec::cassandra {

Result<Document> InspectRowFilter(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(RowFilter row, RowFilter::Parse(file, source));
  const V10Filter& f = *row.v10();
  Document doc = FilterFields(Facts(Era::kV10Row).name, f.signed_hash_count(), f.word_count(),
                              f.modulus(), f.bits_set(), kRowFilterBucketsPerElement);
  AddFillProfile(doc, file, f.words_bytes());
  doc["length_prefix"] = row.length_prefix();
  doc["padding_bytes"] = f.trailing_bytes();
  doc["file_bytes"] = file.size();
  doc["trailing_bytes"] = file.size() - row.consumed_bytes();
  return doc;
}

Result<Document> DumpRowFilter(ByteSpan file, std::string_view source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(RowFilter row, RowFilter::Parse(file, source));
  const V10Filter& f = *row.v10();
  Document doc = DumpHead(Facts(Era::kV10Row).name);
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

Result<ByteVector> UndumpRowFilter(const Document& dump, std::string_view source) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckDumpHead(dump, Facts(Era::kV10Row).name, source));
  std::int64_t k = 0, w = 0;
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector words, WordsField(dump, source, k, w));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int64_t length, DumpInt(dump, "length_prefix", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector padding,
                              DumpOptionalBase64(dump, "padding_base64", source));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector trailing,
                              DumpOptionalBase64(dump, "trailing_base64", source));
  const std::int64_t inner = 8 + 8 * w + static_cast<std::int64_t>(padding.size());
  if (length != inner) {
    return BadDumpField(source, "length_prefix",
                        std::to_string(inner) + " (8 + 8 * word_count + padding bytes)");
  }
  ByteVector out;
  ByteWriter writer(out);
  writer.PutBigI32(static_cast<std::int32_t>(length));
  ByteVector filter =
      WordFilterBytes(static_cast<std::int32_t>(k), static_cast<std::int32_t>(w), words);
  out.insert(out.end(), filter.begin(), filter.end());
  out.insert(out.end(), padding.begin(), padding.end());
  out.insert(out.end(), trailing.begin(), trailing.end());
  return out;
}

}  // namespace bloomcodec::cassandra

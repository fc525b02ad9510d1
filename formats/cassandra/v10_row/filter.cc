#include "bloomcodec/cassandra/row_filter.h"

#include <string>

#include "codec/byte_reader.h"
#include "codec/byte_writer.h"

namespace bloomcodec::cassandra {

Result<ByteVector> BuildRowFilter(const KeyList& names, std::int64_t estimated_columns) {
  // ColumnIndexer: BloomFilter.getFilter(columnCount, 4) -> K = 3, 4 * count + 20 bits.
  BLOOMCODEC_ASSIGN_OR_RETURN(
      FilterSpec spec, SizeForBucketsPerElement(estimated_columns, kRowFilterBucketsPerElement));
  BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter filter, V10Filter::Create(spec));
  filter.AddAll(names);
  const ByteSpan body = filter.serialized();
  ByteVector out;
  out.reserve(4 + body.size());
  ByteWriter w(out);
  w.PutBigI32(static_cast<std::int32_t>(body.size()));  // the serializedSize() prefix
  w.PutBytes(body);
  return out;
}

Result<RowFilter> RowFilter::Parse(ByteSpan bytes, std::string_view source, bool legacy,
                                   std::uint64_t base_offset) {
  ByteReader r(bytes, source, base_offset);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t length, r.ReadBigI32("row filter length (i32 BE)"));
  // IndexHelper.defreezeBloomFilter refuses L <= 0 and L larger than the row.
  if (length <= 0) {
    return r.ErrorAt(base_offset, "a row filter length > 0", std::to_string(length));
  }
  if (static_cast<std::uint64_t>(length) > r.remaining()) {
    return r.ErrorAt(base_offset,
                     "a row filter length within the " + std::to_string(r.remaining()) +
                         " bytes that follow",
                     std::to_string(length));
  }
  const ByteSpan body = bytes.subspan(4, static_cast<std::size_t>(length));
  // The filter is deserialized from exactly these L bytes; the reader then continues after
  // them whatever the filter consumed.
  if (legacy) {
    BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter f,
                                LegacyFilter::ParseAt(body, source, base_offset + 4));
    return RowFilter(length, std::move(f));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter f, V10Filter::ParseAt(body, source, base_offset + 4));
  return RowFilter(length, std::move(f));
}

const Filter& RowFilter::filter() const {
  if (const V10Filter* f = v10()) return *f;
  return *legacy();
}

}  // namespace bloomcodec::cassandra

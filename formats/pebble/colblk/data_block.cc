#include "pebble/colblk/data_block.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "codec/short_bytes.h"

namespace bloomcodec::pebble::colblk {

namespace {

constexpr std::string_view kFormatColumnNames[] = {
    "trailers",           "prefix changed",        "values",
    "is value external",  "is obsolete",           "tiering span IDs",
    "tiering attributes", "secondary blob handles"};

void StoreBE64(std::uint8_t* p, std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

void StoreBE32(std::uint8_t* p, std::uint32_t v) {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}

}  // namespace

Result<DataBlock> DataBlock::Decode(ByteSpan block, const KeySchema& schema, bool tiering,
                                    const BlockPlace& place) {
  DataBlock d;
  d.schema_ = &schema;
  d.tiering_ = tiering;
  BLOOMCODEC_ASSIGN_OR_RETURN(
      d.layout_,
      BlockLayout::Decode(block, schema.header_size() + kDataBlockCustomHeaderSize, place));
  if (schema.header_size() == 1) d.schema_header_ = block[0];
  d.max_key_length_ = LoadLE32(block.data() + schema.header_size());
  BLOOMCODEC_RETURN_IF_ERROR(d.DecodeKeyColumns());
  BLOOMCODEC_RETURN_IF_ERROR(d.DecodeFormatColumns());
  return d;
}

ColumnBytes DataBlock::column(int index) const {
  const int keys = schema_->key_columns();
  const std::string_view name =
      index < keys ? schema_->column_name(index) : kFormatColumnNames[index - keys];
  Result<ColumnBytes> c = layout_.Column(index, layout_.type(index), name);
  return c.ok() ? c.value() : ColumnBytes();
}

Status DataBlock::DecodeKeyColumns() {
  const std::uint32_t n = rows();
  const KeySchema& s = *schema_;
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c0,
                              layout_.Column(0, DataType::kPrefixBytes, s.column_name(0)));
  BLOOMCODEC_ASSIGN_OR_RETURN(prefixes_, DecodePrefixBytesColumn(c0, n));
  if (s.kind == KeySchemaKind::kDefault) {
    BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c1,
                                layout_.Column(1, DataType::kBytes, s.column_name(1)));
    BLOOMCODEC_ASSIGN_OR_RETURN(suffixes_, DecodeRawBytesColumn(c1, n));
    return Status();
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c1, layout_.Column(1, DataType::kUint, s.column_name(1)));
  BLOOMCODEC_ASSIGN_OR_RETURN(wall_, DecodeUintColumn(c1, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c2, layout_.Column(2, DataType::kUint, s.column_name(2)));
  BLOOMCODEC_ASSIGN_OR_RETURN(logical_, DecodeUintColumn(c2, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes c3,
                              layout_.Column(3, DataType::kBytes, s.column_name(3)));
  BLOOMCODEC_ASSIGN_OR_RETURN(suffixes_, DecodeRawBytesColumn(c3, n));
  return Status();
}

Status DataBlock::DecodeFormatColumns() {
  const std::uint32_t n = rows();
  const int k = schema_->key_columns();
  auto col = [&](int i, DataType t) { return layout_.Column(k + i, t, kFormatColumnNames[i]); };
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes trailers, col(kDataColumnTrailer, DataType::kUint));
  BLOOMCODEC_ASSIGN_OR_RETURN(trailers_, DecodeUintColumn(trailers, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes changed, col(kDataColumnPrefixChanged, DataType::kBool));
  std::uint64_t pos = changed.start;
  BLOOMCODEC_ASSIGN_OR_RETURN(prefix_changed_, DecodeBitmap(changed, pos, n));
  if (!prefix_changed_.stored()) {
    // Pebble reads it, but its writer never writes it; refusing it bounds the rows a block can
    // claim by its size (a bit each).
    return changed.Error(changed.start,
                         "a stored prefix-changed bitmap (Pebble's writer always stores one, a "
                         "bit per row)",
                         "the all-zero encoding");
  }
  BLOOMCODEC_RETURN_IF_ERROR(changed.CheckEnd(pos));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes values, col(kDataColumnValue, DataType::kBytes));
  BLOOMCODEC_ASSIGN_OR_RETURN(values_, DecodeRawBytesColumn(values, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes external,
                              col(kDataColumnIsValueExternal, DataType::kBool));
  BLOOMCODEC_ASSIGN_OR_RETURN(external_, DecodeBitmapColumn(external, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes obsolete, col(kDataColumnIsObsolete, DataType::kBool));
  BLOOMCODEC_ASSIGN_OR_RETURN(obsolete_, DecodeBitmapColumn(obsolete, n));
  if (!tiering_) return Status();
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes spans, col(kDataColumnTieringSpanId, DataType::kUint));
  BLOOMCODEC_ASSIGN_OR_RETURN(span_ids_, DecodeUintColumn(spans, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes attributes,
                              col(kDataColumnTieringAttribute, DataType::kUint));
  BLOOMCODEC_ASSIGN_OR_RETURN(attributes_, DecodeUintColumn(attributes, n));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes secondary,
                              col(kDataColumnSecondaryBlobHandle, DataType::kBytes));
  BLOOMCODEC_ASSIGN_OR_RETURN(secondary_, DecodeRawBytesColumn(secondary, n));
  return Status();
}

void DataBlockIterator::SeekToRow(std::uint32_t row) {
  row_ = row;
  if (Valid()) Materialize(false);
}

void DataBlockIterator::Materialize(bool next) {
  const DataBlock& b = *block_;
  if (next) {
    cursor_.SetNext(b.prefixes(), buffer_);
  } else {
    cursor_.SetAt(b.prefixes(), row_, buffer_);
  }
  const std::size_t head = cursor_.length();
  if (b.schema().kind == KeySchemaKind::kDefault) {
    const ByteSpan suffix = b.suffixes().At(row_);
    buffer_.Reserve(head + suffix.size());
    CopyShort(buffer_.data() + head, suffix.data(), suffix.size());
    key_size_ = head + suffix.size();
    prefix_size_ = head;
    return;
  }
  MaterializeCrdb1Version(head);
}

void DataBlockIterator::MaterializeCrdb1Version(std::size_t roach) {
  const DataBlock& b = *block_;
  const std::uint64_t wall = b.wall_times().At(row_);
  const std::uint32_t logical = static_cast<std::uint32_t>(b.logical_times().At(row_));
  prefix_size_ = roach + 1;
  if (wall == 0 && logical == 0) {
    const ByteSpan untyped = b.suffixes().At(row_);
    buffer_.Reserve(roach + 2 + untyped.size());
    std::uint8_t* p = buffer_.data() + roach;
    p[0] = 0;
    if (untyped.empty()) {
      key_size_ = roach + 1;
      return;
    }
    CopyShort(p + 1, untyped.data(), untyped.size());
    // The length byte wraps for a 255-byte untyped version, as Pebble's byte() conversion does.
    p[1 + untyped.size()] = static_cast<std::uint8_t>(untyped.size() + 1);
    key_size_ = roach + 2 + untyped.size();
    return;
  }
  buffer_.Reserve(roach + 14);
  std::uint8_t* p = buffer_.data() + roach;
  p[0] = 0;
  StoreBE64(p + 1, wall);
  if (logical == 0) {
    p[9] = 9;
    key_size_ = roach + 10;
    return;
  }
  StoreBE32(p + 9, logical);
  p[13] = 13;
  key_size_ = roach + 14;
}

}  // namespace bloomcodec::pebble::colblk

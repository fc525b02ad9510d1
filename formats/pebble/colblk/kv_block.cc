#include "pebble/colblk/kv_block.h"

#include <algorithm>
#include <string>

namespace bloomcodec::pebble::colblk {

Result<KeyValueBlock> KeyValueBlock::Decode(ByteSpan block, const BlockPlace& place) {
  KeyValueBlock b;
  BLOOMCODEC_ASSIGN_OR_RETURN(b.layout_, BlockLayout::Decode(block, 0, place));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes keys, b.layout_.Column(0, DataType::kBytes, "keys"));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.keys_, DecodeRawBytesColumn(keys, b.layout_.rows()));
  BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes values, b.layout_.Column(1, DataType::kBytes, "values"));
  BLOOMCODEC_ASSIGN_OR_RETURN(b.values_, DecodeRawBytesColumn(values, b.layout_.rows()));
  return b;
}

Status VerifyKeyValueBlock(const KeyValueBlock& block) {
  BLOOMCODEC_RETURN_IF_ERROR(block.layout().VerifyShape(kKeyValueColumns));
  for (std::uint32_t row = 1; row < block.rows(); ++row) {
    const ByteSpan a = block.key(row - 1);
    const ByteSpan b = block.key(row);
    if (!std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end())) {
      const ColumnBytes c = block.layout().Column(0, DataType::kBytes, "keys").value();
      return c.Error(c.start,
                     "keys in strictly increasing bytewise order (row " + std::to_string(row) + ")",
                     "a key not after the one of row " + std::to_string(row - 1));
    }
  }
  return Status();
}

void KeyValueBlockWriter::Add(ByteSpan key, ByteSpan value) {
  keys_.Put(key);
  values_.Put(value);
  ++rows_;
}

std::uint32_t KeyValueBlockWriter::Size(std::uint32_t rows) const {
  std::uint32_t off = HeaderSize(kKeyValueColumns, 0);
  off = keys_.Size(rows, off);
  off = values_.Size(rows, off);
  return off + 1;
}

Result<ByteVector> KeyValueBlockWriter::Finish(std::uint32_t rows) const {
  if (rows > rows_) return Status::InvalidArgument("pebble key-value block: more rows than added");
  ByteVector out;
  BlockWriter w(out, Size(rows), kKeyValueColumns, rows, 0);
  std::uint8_t* buf = w.data();
  w.EndColumn(keys_.Finish(rows, w.BeginColumn(DataType::kBytes), buf));
  w.EndColumn(values_.Finish(rows, w.BeginColumn(DataType::kBytes), buf));
  if (!w.Finish()) return Status::Internal("pebble key-value block: column sizes disagree");
  return out;
}

void KeyValueBlockWriter::Reset() {
  keys_.Reset();
  values_.Reset();
  rows_ = 0;
}

}  // namespace bloomcodec::pebble::colblk

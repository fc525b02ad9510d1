#include "pebble/colblk/block.h"

#include <string>

namespace bloomcodec::pebble::colblk {

Result<BlockLayout> BlockLayout::Decode(ByteSpan block, std::uint32_t custom_header_size,
                                        const BlockPlace& place) {
  BlockLayout l;
  l.bytes_ = block;
  l.custom_ = custom_header_size;
  l.place_ = place;
  // One more byte than the header: every columnar block ends with its padding byte.
  const std::uint64_t base = std::uint64_t{custom_header_size} + kBlockHeaderBaseSize;
  if (block.size() < base + 1) {
    return place.ErrorAt(0,
                         "a columnar block of at least " + std::to_string(base + 1) +
                             " bytes (header and padding byte)",
                         std::to_string(block.size()) + " bytes");
  }
  if (block.size() > 0xffffffffu) {
    return place.ErrorAt(0, "a columnar block shorter than 4 GiB (its offsets are 32-bit)");
  }
  const std::uint8_t* h = block.data() + custom_header_size;
  l.columns_ = LoadLE16(h + 1);
  l.rows_ = LoadLE32(h + 3);
  const std::uint64_t directory_end = base + std::uint64_t{kColumnHeaderSize} * l.columns_;
  if (directory_end + 1 > block.size()) {
    return place.ErrorAt(custom_header_size + 1,
                         "a column count whose directory (" + std::to_string(directory_end - base) +
                             " bytes) fits the " + std::to_string(block.size()) + "-byte block",
                         std::to_string(l.columns_) + " columns");
  }
  const std::uint64_t padding = block.size() - 1;
  std::uint64_t previous = directory_end;
  for (int i = 0; i < l.columns_; ++i) {
    const std::uint64_t entry = base + std::uint64_t{kColumnHeaderSize} * i;
    const std::uint8_t type = block[entry];
    if (!IsKnownDataType(type)) {
      return place.ErrorAt(entry,
                           "a column data type 1 (bool), 2 (uint), 3 (bytes) or 4 (prefixbytes)",
                           std::to_string(type), "column " + std::to_string(i));
    }
    const std::uint32_t start = LoadLE32(block.data() + entry + 1);
    if (start < previous || start > padding) {
      std::string expected =
          i == 0 ? "a start after the column directory (at or after byte " +
                       std::to_string(directory_end) + ")"
                 : "a start at or after the previous column's (" + std::to_string(previous) + ")";
      expected += " and at most at the padding byte (" + std::to_string(padding) + ")";
      return place.ErrorAt(entry + 1, std::move(expected), std::to_string(start),
                           "column " + std::to_string(i));
    }
    previous = start;
  }
  return l;
}

std::uint32_t BlockLayout::column_start(int column) const {
  if (column >= columns_) return static_cast<std::uint32_t>(bytes_.size() - 1);
  return LoadLE32(bytes_.data() + custom_ + kBlockHeaderBaseSize + kColumnHeaderSize * column + 1);
}

Result<ColumnBytes> BlockLayout::Column(int index, DataType type, std::string_view name) const {
  if (index >= columns_) {
    return place_.ErrorAt(custom_ + 1,
                          "at least " + std::to_string(index + 1) + " columns (" +
                              std::string(name) + " is column " + std::to_string(index) + ")",
                          std::to_string(columns_));
  }
  if (this->type(index) != type) {
    return place_.ErrorAt(custom_ + kBlockHeaderBaseSize + kColumnHeaderSize * index,
                          "data type " + std::to_string(static_cast<int>(type)) + " (" +
                              std::string(DataTypeName(type)) + ")",
                          std::to_string(static_cast<int>(this->type(index))) + " (" +
                              std::string(DataTypeName(this->type(index))) + ")",
                          "column " + std::to_string(index) + " (" + std::string(name) + ")");
  }
  ColumnBytes c;
  c.block = bytes_;
  c.start = column_start(index);
  c.end = column_start(index + 1);
  c.place = place_;
  c.index = index;
  c.name = name;
  return c;
}

Status BlockLayout::VerifyShape(int expected_columns) const {
  if (version() != kBlockVersion1) {
    return place_.ErrorAt(custom_, "columnar block version 1", std::to_string(version()));
  }
  if (columns_ != expected_columns) {
    return place_.ErrorAt(custom_ + 1, std::to_string(expected_columns) + " columns",
                          std::to_string(columns_));
  }
  const std::uint32_t directory_end = HeaderSize(columns_, custom_);
  if (columns_ > 0 && column_start(0) != directory_end) {
    return place_.ErrorAt(custom_ + kBlockHeaderBaseSize + 1,
                          "the first column to start right after the directory, at byte " +
                              std::to_string(directory_end),
                          std::to_string(column_start(0)), "column 0");
  }
  if (columns_ == 0 && bytes_.size() != directory_end + 1) {
    return place_.ErrorAt(directory_end, "only the padding byte after a directory of no columns",
                          std::to_string(bytes_.size() - directory_end) + " bytes");
  }
  if (bytes_.back() != 0) {
    return place_.ErrorAt(bytes_.size() - 1, "the padding byte 0x00", HexByte(bytes_.back()));
  }
  return Status();
}

BlockWriter::BlockWriter(ByteVector& out, std::uint32_t size, std::uint16_t columns,
                         std::uint32_t rows, std::uint32_t custom_header_size)
    : out_(out) {
  out_.assign(size, 0);
  std::uint8_t* h = out_.data() + custom_header_size;
  h[0] = kBlockVersion1;
  StoreLE16(h + 1, columns);
  StoreLE32(h + 3, rows);
  directory_ = custom_header_size + kBlockHeaderBaseSize;
  offset_ = HeaderSize(columns, custom_header_size);
}

std::uint32_t BlockWriter::BeginColumn(DataType type) {
  out_[directory_] = static_cast<std::uint8_t>(type);
  StoreLE32(out_.data() + directory_ + 1, offset_);
  directory_ += kColumnHeaderSize;
  return offset_;
}

bool BlockWriter::Finish() {
  if (offset_ + 1 != out_.size()) return false;
  out_[offset_] = 0;
  return true;
}

}  // namespace bloomcodec::pebble::colblk

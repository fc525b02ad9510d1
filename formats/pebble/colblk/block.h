// Internal to the library (not installed): the columnar block's header and column directory
// (Pebble's sstable/colblk/block.go: Header, BlockDecoder, DecodeColumn, BlockEncoder).
//
//   using namespace bloomcodec::pebble::colblk;
//   BlockPlace place{"000012.sst", handle.offset, false, "index block"};
//   BLOOMCODEC_ASSIGN_OR_RETURN(BlockLayout layout, BlockLayout::Decode(bytes, 0, place));
//   BLOOMCODEC_ASSIGN_OR_RETURN(ColumnBytes col, layout.Column(1, DataType::kUint, "offsets"));
//
// Layout: [custom header][u8 version][LE u16 columns][LE u32 rows], then per column
// [u8 data type][LE u32 start], then the columns' data in order, then one padding byte. A column
// ends where the next one starts; the last one at the padding byte.
//
// Contract: Decode refuses what would make Pebble's decoder panic or read outside the block
// (a block too short for its directory, a column starting inside the header or the directory,
// past the padding byte or before its predecessor, an unknown data type) with a Corrupt status at
// the directory entry's offset. Like Pebble it accepts any version byte and padding byte;
// VerifyShape checks them with the other writer invariants.
#pragma once

#include <cstdint>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "pebble/colblk/column.h"

namespace bloomcodec::pebble::colblk {

inline constexpr std::uint32_t kBlockHeaderBaseSize = 7;  // version, columns, rows
inline constexpr std::uint32_t kColumnHeaderSize = 5;     // type, start offset
inline constexpr std::uint8_t kBlockVersion1 = 1;

// The size of the header with its column directory (Pebble's HeaderSize).
constexpr std::uint32_t HeaderSize(std::uint32_t columns, std::uint32_t custom_header_size) {
  return kBlockHeaderBaseSize + columns * kColumnHeaderSize + custom_header_size;
}

class BlockLayout {
 public:
  static Result<BlockLayout> Decode(ByteSpan block, std::uint32_t custom_header_size,
                                    const BlockPlace& place);

  ByteSpan bytes() const { return bytes_; }
  ByteSpan custom_header() const { return bytes_.first(custom_); }
  std::uint8_t version() const { return bytes_[custom_]; }
  int columns() const { return columns_; }
  std::uint32_t rows() const { return rows_; }
  DataType type(int column) const {
    return static_cast<DataType>(
        bytes_[custom_ + kBlockHeaderBaseSize + kColumnHeaderSize * column]);
  }
  // Where column `column` starts; for column == columns(), the padding byte's position.
  std::uint32_t column_start(int column) const;
  const BlockPlace& place() const { return place_; }

  // Column `index`, checked to exist and to hold `type` (Pebble's DecodeColumn checks), named
  // `name` in messages.
  Result<ColumnBytes> Column(int index, DataType type, std::string_view name) const;

  // The writer's invariants Pebble's reader does not check: version 1, exactly
  // `expected_columns` columns, the first column right after the directory, padding byte 0.
  Status VerifyShape(int expected_columns) const;

 private:
  ByteSpan bytes_;
  std::uint32_t custom_ = 0;
  int columns_ = 0;
  std::uint32_t rows_ = 0;
  BlockPlace place_;
};

// Writes a block's header and directory, then its columns one after the other, into a buffer of
// the block's exact size (Pebble's BlockEncoder: sizes are computed first, then every column
// writes at its offset, so that alignment padding is relative to the block start).
class BlockWriter {
 public:
  // `out` is resized to `size` and zeroed; the caller fills the custom header.
  BlockWriter(ByteVector& out, std::uint32_t size, std::uint16_t columns, std::uint32_t rows,
              std::uint32_t custom_header_size);

  std::uint8_t* data() { return out_.data(); }
  std::uint32_t offset() const { return offset_; }
  // Adds the next column's directory entry at the current offset; the caller writes the column
  // there and passes the offset after it to EndColumn.
  std::uint32_t BeginColumn(DataType type);
  void EndColumn(std::uint32_t next_offset) { offset_ = next_offset; }
  // The padding byte. Returns false when the columns did not end exactly before it (a bug of
  // ours: Size and Finish of some column disagree).
  bool Finish();

 private:
  ByteVector& out_;
  std::uint32_t directory_ = 0;
  std::uint32_t offset_ = 0;
};

}  // namespace bloomcodec::pebble::colblk

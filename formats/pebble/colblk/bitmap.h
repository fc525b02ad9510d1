// Internal to the library (not installed): bool columns (Pebble's sstable/colblk/bitmap.go).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(Bitmap obsolete, DecodeBitmapColumn(column, rows));
//   if (obsolete.At(row)) ...
//
// One encoding byte: 1 = every bit 0 (nothing follows), 0 = a bitmap: zero padding to a
// multiple of 8 (from the block start), ceil(n / 64) LE u64 words (bit i is bit i % 64 of word
// i / 64, bits past n are 0), then ceil(words / 64) summary words (bit j set when word j is not
// 0). Unlike other columns, a bitmap of 0 rows still takes its encoding byte.
//
// Contract: decoding refuses an encoding byte other than 0 and 1 (Pebble reads any other byte as
// a bitmap) and a bitmap that does not fit the column; Verify checks the writer's invariants
// (bits past n clear, summary words exact, a stored bitmap has a bit set).
#pragma once

#include <cstdint>
#include <vector>

#include "bloomcodec/status.h"
#include "pebble/colblk/column.h"

namespace bloomcodec::pebble::colblk {

inline constexpr std::uint8_t kBitmapStored = 0;
inline constexpr std::uint8_t kBitmapAllZero = 1;

// The bytes of a stored bitmap of `rows` bits, words and summary words (no encoding byte).
constexpr std::uint64_t BitmapWordsSize(std::uint64_t rows) {
  const std::uint64_t words = (rows + 63) / 64;
  return (words + (words + 63) / 64) * 8;
}

class Bitmap {
 public:
  Bitmap() = default;
  Bitmap(const std::uint8_t* words, std::uint32_t rows, std::uint32_t encoding_at)
      : words_(words), rows_(rows), encoding_at_(encoding_at) {}

  bool At(std::uint32_t i) const {
    if (words_ == nullptr) return false;
    return (LoadLE64(words_ + 8 * (i >> 6)) >> (i & 63)) & 1;
  }
  bool stored() const { return words_ != nullptr; }  // false: encoded as all zero
  std::uint32_t rows() const { return rows_; }
  // The first set bit at or after `i`, or rows() (Pebble's SeekSetBitGE, by the words alone).
  std::uint32_t NextSet(std::uint32_t i) const;

  // The writer's invariants of a stored bitmap, reported against `column`. A bitmap Pebble's
  // writer stores has a bit set, except the data block's inverted prefix-changed column
  // (`may_be_empty`), whose only row can be clear.
  Status Verify(const ColumnBytes& column, bool may_be_empty = false) const;

 private:
  const std::uint8_t* words_ = nullptr;
  std::uint32_t rows_ = 0;
  std::uint32_t encoding_at_ = 0;  // block position of the encoding byte, for messages
};

// Decodes a bitmap of `rows` bits at block position `pos` inside `column`, advancing `pos`.
Result<Bitmap> DecodeBitmap(const ColumnBytes& column, std::uint64_t& pos, std::uint32_t rows);
// A whole bool column, ending exactly where the column ends.
Result<Bitmap> DecodeBitmapColumn(const ColumnBytes& column, std::uint32_t rows);

// Builds a bool column as Pebble's BitmapBuilder does: all-zero encoding while no bit below the
// row count is set; Invert for the data block's prefix-changed column (built as "prefix same").
class BitmapBuilder {
 public:
  void Reset();
  void Set(std::uint32_t row);
  // Flips the first `rows` bits and forces a stored bitmap.
  void Invert(std::uint32_t rows);

  std::uint32_t Size(std::uint32_t rows, std::uint32_t offset) const;
  // The size after Invert(rows), before calling it.
  static std::uint32_t InvertedSize(std::uint32_t rows, std::uint32_t offset);
  // Writes the first `rows` bits (clears the bits past them, as Pebble does).
  std::uint32_t Finish(std::uint32_t rows, std::uint32_t offset, std::uint8_t* buf);

 private:
  bool IsZero(std::uint64_t rows) const {
    return min_nonzero_rows_ == 0 || rows < min_nonzero_rows_;
  }
  std::vector<std::uint64_t> words_;
  std::uint64_t min_nonzero_rows_ = 0;  // 1 + the lowest set bit; 0 while none is set
};

}  // namespace bloomcodec::pebble::colblk

// Internal to the library (not installed): uint columns (Pebble's sstable/colblk/uints.go,
// unsafe_uints.go): decoding with bounds checks, and the builder with Pebble's choice of
// encoding.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(Uints trailers, DecodeUintColumn(column, rows));
//   std::uint64_t t = trailers.At(row);
//
// A column of n > 0 rows: one encoding byte e (width w = e & 0x7f in {0, 1, 2, 4, 8}; bit 7:
// "delta", a LE u64 base follows and every value is base + stored value; width 8 with delta is
// invalid), then zero padding to a multiple of w (counted from the block start), then n LE
// integers of w bytes. w = 0: every value is 0 (or the base). n = 0: no bytes at all.
#pragma once

#include <cstdint>
#include <vector>

#include "bloomcodec/status.h"
#include "pebble/colblk/column.h"

namespace bloomcodec::pebble::colblk {

class UintEncoding {
 public:
  static constexpr std::uint8_t kDeltaBit = 0x80;
  constexpr UintEncoding() = default;
  constexpr explicit UintEncoding(std::uint8_t byte) : byte_(byte) {}
  static constexpr UintEncoding Make(unsigned width, bool delta) {
    return UintEncoding(static_cast<std::uint8_t>(width | (delta ? kDeltaBit : 0)));
  }
  constexpr std::uint8_t byte() const { return byte_; }
  constexpr unsigned width() const { return byte_ & 0x7f; }
  constexpr bool delta() const { return (byte_ & kDeltaBit) != 0; }
  // Pebble's IsValid: width 0, 1, 2 or 4 (delta or not), or 8 without delta.
  constexpr bool valid() const {
    const unsigned w = width();
    return w == 0 || w == 1 || w == 2 || w == 4 || (w == 8 && !delta());
  }
  constexpr bool operator==(const UintEncoding&) const = default;

 private:
  std::uint8_t byte_ = 0;
};

// Below this many rows the row count can change the best encoding (Pebble's
// UintEncodingRowThreshold): an 8-byte base does not pay for itself.
inline constexpr std::uint64_t kUintEncodingRowThreshold = 8;

// The bytes (0, 1, 2, 4 or 8) a value needs.
unsigned UintByteWidth(std::uint64_t value);
// Pebble's DetermineUintEncoding: the width of max - min; delta when max itself does not fit it;
// for fewer than 8 rows, no delta when the wider plain width costs less than the 8-byte base.
UintEncoding DetermineUintEncoding(std::uint64_t min, std::uint64_t max, std::uint64_t rows);
inline UintEncoding DetermineUintEncodingNoDelta(std::uint64_t max) {
  return UintEncoding::Make(UintByteWidth(max), false);
}
// The offset after a uint column of `rows` rows encoded with `e` at `offset` (Pebble's
// uintColumnSize; rows > 0).
std::uint64_t UintColumnEnd(std::uint64_t rows, std::uint64_t offset, UintEncoding e);

// A decoded uint column: a view into the block. At() is unchecked (Decode checked the bounds).
class Uints {
 public:
  Uints() = default;
  Uints(const std::uint8_t* data, std::uint64_t base, unsigned width)
      : data_(data), base_(base), width_(static_cast<std::uint8_t>(width)) {}

  std::uint64_t At(std::uint64_t i) const {
    switch (width_) {
      case 0: return base_;
      case 1: return base_ + data_[i];
      case 2: return base_ + LoadLE16(data_ + 2 * i);
      case 4: return base_ + LoadLE32(data_ + 4 * i);
      default: return base_ + LoadLE64(data_ + 8 * i);
    }
  }
  unsigned width() const { return width_; }
  std::uint64_t base() const { return base_; }
  const std::uint8_t* data() const { return data_; }  // the stored values (width() bytes each)

 private:
  const std::uint8_t* data_ = nullptr;
  std::uint64_t base_ = 0;
  std::uint8_t width_ = 0;
};

// Decodes `rows` values at block position `pos` inside `column`, advancing `pos` past them
// (Pebble's DecodeUnsafeUints). `what` names the values in messages.
Result<Uints> DecodeUints(const ColumnBytes& column, std::uint64_t& pos, std::uint64_t rows,
                          std::string_view what = "uint column");
// The same for an offset table (RawBytes, PrefixBytes; Pebble's DecodeUnsafeOffsets): refuses a
// non-zero delta base and width 8, which Pebble panics on.
Result<Uints> DecodeOffsets(const ColumnBytes& column, std::uint64_t& pos, std::uint64_t rows,
                            std::string_view what = "offset table");
// A whole uint column: decoded from its start, and ending exactly where the column ends.
Result<Uints> DecodeUintColumn(const ColumnBytes& column, std::uint32_t rows);

// Builds a uint column as Pebble's UintBuilder does, including its running statistics: Finish
// with one row fewer than were set (a data block finished without its last key) may keep the
// encoding and base the last row chose, as Pebble's does.
class UintBuilder {
 public:
  // default_zero: rows never Set are 0, and the column is assumed to hold a 0 (Pebble's
  // InitWithDefault), so it is never delta-encoded.
  explicit UintBuilder(bool default_zero = false) : default_zero_(default_zero) { Reset(); }

  void Reset();
  void Set(std::uint32_t row, std::uint64_t value);
  std::uint64_t Get(std::uint32_t row) const { return row < values_.size() ? values_[row] : 0; }

  // The offset after the first `rows` rows encoded at `offset`.
  std::uint32_t Size(std::uint32_t rows, std::uint32_t offset) const;
  // Writes the first `rows` rows at `offset` of `buf` (sized by Size); returns the next offset.
  std::uint32_t Finish(std::uint32_t rows, std::uint32_t offset, std::uint8_t* buf) const;

 private:
  // The encoding and delta base for the first `rows` rows (Pebble's determineEncoding).
  UintEncoding EncodingFor(std::uint32_t rows, std::uint64_t& base) const;

  bool default_zero_;
  std::vector<std::uint64_t> values_;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  UintEncoding encoding_;
  std::uint32_t encoding_row_ = 0;  // the row that last changed encoding_
};

// Writes `rows` values (values[i], 0 past the end of `values`) with encoding `e` and base `base`
// at `offset` of `buf`; returns the next offset (Pebble's uintColumnFinish).
std::uint32_t WriteUints(std::uint32_t rows, std::uint64_t base, const std::uint64_t* values,
                         std::size_t count, UintEncoding e, std::uint32_t offset,
                         std::uint8_t* buf);

}  // namespace bloomcodec::pebble::colblk

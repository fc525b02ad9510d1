#include "pebble/colblk/uints.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

namespace bloomcodec::pebble::colblk {

unsigned UintByteWidth(std::uint64_t value) {
  const int bits = std::bit_width(value);
  if (bits == 0) return 0;
  if (bits <= 8) return 1;
  if (bits <= 16) return 2;
  if (bits <= 32) return 4;
  return 8;
}

UintEncoding DetermineUintEncoding(std::uint64_t min, std::uint64_t max, std::uint64_t rows) {
  unsigned b = UintByteWidth(max - min);
  if (b == 8) return UintEncoding::Make(8, false);
  bool delta = max >= (std::uint64_t{1} << (b * 8));
  if (delta && rows < kUintEncodingRowThreshold) {
    // Whether the bytes saved per row pay for the 8-byte base.
    const unsigned plain = UintByteWidth(max);
    if (rows * (plain - b) < 8) {
      b = plain;
      delta = false;
    }
  }
  return UintEncoding::Make(b, delta);
}

std::uint64_t UintColumnEnd(std::uint64_t rows, std::uint64_t offset, UintEncoding e) {
  offset += 1;
  if (e.delta()) offset += 8;
  const unsigned w = e.width();
  if (w > 0) offset = AlignUp(offset, w);
  return offset + rows * w;
}

Result<Uints> DecodeUints(const ColumnBytes& column, std::uint64_t& pos, std::uint64_t rows,
                          std::string_view what) {
  if (rows == 0) return Uints();
  const std::string_view name = what;  // made a string only for a message
  if (pos >= column.end) {
    return column.Error(pos, "the encoding byte of the " + std::string(name),
                        "the end of the column");
  }
  const UintEncoding e(column.block[pos]);
  if (!e.valid()) {
    return column.Error(pos,
                        "a uint encoding of width 0, 1, 2, 4 or 8 (8 without the delta bit 0x80) "
                        "for the " +
                            std::string(name),
                        HexByte(e.byte()));
  }
  std::uint64_t p = pos + 1;
  std::uint64_t base = 0;
  if (e.delta()) {
    if (column.end - p < 8) {
      return column.Error(p, "the 8-byte delta base of the " + std::string(name),
                          std::to_string(column.end - p) + " bytes left in the column");
    }
    base = LoadLE64(column.block.data() + p);
    p += 8;
  }
  const unsigned w = e.width();
  if (w > 0) p = AlignUp(p, w);
  const std::uint64_t need = rows * w;
  if (p > column.end || need > column.end - p) {
    return column.Error(
        pos,
        std::to_string(rows) + " values of " + std::to_string(w) + " bytes for the " +
            std::string(name) + " (" + std::to_string(need) + " bytes)",
        std::to_string(p > column.end ? 0 : column.end - p) + " bytes left in the column");
  }
  const Uints u(column.block.data() + p, base, w);
  pos = p + need;
  return u;
}

Result<Uints> DecodeOffsets(const ColumnBytes& column, std::uint64_t& pos, std::uint64_t rows,
                            std::string_view what) {
  const std::uint64_t at = pos;
  BLOOMCODEC_ASSIGN_OR_RETURN(Uints u, DecodeUints(column, pos, rows, what));
  if (u.base() != 0 || u.width() == 8) {
    return column.Error(at,
                        "an offset encoding of width 0, 1, 2 or 4 without a delta base for the " +
                            std::string(what),
                        "width " + std::to_string(u.width()) + ", base " +
                            std::to_string(u.base()));
  }
  return u;
}

Result<Uints> DecodeUintColumn(const ColumnBytes& column, std::uint32_t rows) {
  std::uint64_t pos = column.start;
  BLOOMCODEC_ASSIGN_OR_RETURN(Uints u, DecodeUints(column, pos, rows, "uint column"));
  BLOOMCODEC_RETURN_IF_ERROR(column.CheckEnd(pos));
  return u;
}

void UintBuilder::Reset() {
  values_.clear();
  min_ = default_zero_ ? 0 : std::numeric_limits<std::uint64_t>::max();
  max_ = 0;
  encoding_ = UintEncoding();
  encoding_row_ = 0;
}

void UintBuilder::Set(std::uint32_t row, std::uint64_t value) {
  if (values_.size() <= row) values_.resize(std::size_t{row} + 1, 0);
  // Pebble recomputes the encoding when the range grows, and for every one of the first 8 rows
  // (where the row count itself matters); it remembers the row that last changed it.
  if (min_ > value || max_ < value || row < kUintEncodingRowThreshold) {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
    const UintEncoding e = DetermineUintEncoding(min_, max_, std::uint64_t{row} + 1);
    if (e != encoding_) {
      encoding_ = e;
      encoding_row_ = row;
    }
  }
  values_[row] = value;
}

UintEncoding UintBuilder::EncodingFor(std::uint32_t rows, std::uint64_t& base) const {
  if (encoding_row_ < rows) {
    // The running encoding was already chosen within the first `rows` rows; its base is the
    // minimum over every row set, which may include a row after them (as in Pebble).
    base = min_;
    return encoding_;
  }
  std::uint64_t min = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t max = 0;
  const std::size_t n = std::min<std::size_t>(rows, values_.size());
  for (std::size_t i = 0; i < n; ++i) {
    min = std::min(min, values_[i]);
    max = std::max(max, values_[i]);
  }
  if (default_zero_) min = 0;
  base = min;
  return DetermineUintEncoding(min, max, rows);
}

std::uint32_t UintBuilder::Size(std::uint32_t rows, std::uint32_t offset) const {
  if (rows == 0) return offset;
  std::uint64_t base = 0;
  return static_cast<std::uint32_t>(UintColumnEnd(rows, offset, EncodingFor(rows, base)));
}

std::uint32_t UintBuilder::Finish(std::uint32_t rows, std::uint32_t offset,
                                  std::uint8_t* buf) const {
  if (rows == 0) return offset;
  std::uint64_t base = 0;
  const UintEncoding e = EncodingFor(rows, base);
  return WriteUints(rows, base, values_.data(), std::min<std::size_t>(rows, values_.size()), e,
                    offset, buf);
}

std::uint32_t WriteUints(std::uint32_t rows, std::uint64_t base, const std::uint64_t* values,
                         std::size_t count, UintEncoding e, std::uint32_t offset,
                         std::uint8_t* buf) {
  buf[offset++] = e.byte();
  if (!e.delta()) base = 0;
  if (e.delta()) {
    StoreLE64(buf + offset, base);
    offset += 8;
  }
  const unsigned w = e.width();
  if (w == 0) return offset;
  const std::uint32_t aligned = static_cast<std::uint32_t>(AlignUp(offset, w));
  std::fill(buf + offset, buf + aligned, 0);
  std::uint8_t* out = buf + aligned;
  for (std::uint32_t i = 0; i < rows; ++i, out += w) {
    const std::uint64_t v = i < count ? values[i] - base : 0;
    switch (w) {
      case 1: *out = static_cast<std::uint8_t>(v); break;
      case 2: StoreLE16(out, static_cast<std::uint16_t>(v)); break;
      case 4: StoreLE32(out, static_cast<std::uint32_t>(v)); break;
      default: StoreLE64(out, v); break;
    }
  }
  return aligned + rows * w;
}

}  // namespace bloomcodec::pebble::colblk

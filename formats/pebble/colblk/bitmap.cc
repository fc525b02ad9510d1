#include "pebble/colblk/bitmap.h"

#include <algorithm>
#include <bit>
#include <string>

namespace bloomcodec::pebble::colblk {

std::uint32_t Bitmap::NextSet(std::uint32_t i) const {
  if (words_ == nullptr) return rows_;
  const std::uint64_t words = (std::uint64_t{rows_} + 63) / 64;
  for (std::uint64_t w = i >> 6; w < words && i < rows_; ++w) {
    std::uint64_t word = LoadLE64(words_ + 8 * w);
    if (w == (i >> 6)) word &= ~std::uint64_t{0} << (i & 63);
    if (word != 0) {
      const std::uint64_t bit = w * 64 + static_cast<unsigned>(std::countr_zero(word));
      return bit < rows_ ? static_cast<std::uint32_t>(bit) : rows_;
    }
  }
  return rows_;
}

Status Bitmap::Verify(const ColumnBytes& column, bool may_be_empty) const {
  if (words_ == nullptr) return Status();
  const std::uint64_t words = (std::uint64_t{rows_} + 63) / 64;
  const std::uint64_t summaries = (words + 63) / 64;
  const std::uint64_t words_at = words_ - column.block.data();
  bool any = false;
  for (std::uint64_t s = 0; s < summaries; ++s) {
    std::uint64_t summary = 0;
    for (std::uint64_t w = s * 64; w < std::min(words, s * 64 + 64); ++w) {
      std::uint64_t word = LoadLE64(words_ + 8 * w);
      if (w + 1 == words && rows_ % 64 != 0 && (word >> (rows_ % 64)) != 0) {
        return column.Error(
            words_at + 8 * w, "no bit set past the bitmap's " + std::to_string(rows_) + " rows",
            "a bit at row " + std::to_string(w * 64 + 64 - std::countl_zero(word) - 1));
      }
      if (word != 0) summary |= std::uint64_t{1} << (w - s * 64);
    }
    const std::uint64_t stored = LoadLE64(words_ + 8 * (words + s));
    if (stored != summary) {
      return column.Error(words_at + 8 * (words + s),
                          "summary word " + std::to_string(s) +
                              " marking exactly the non-zero bitmap words " +
                              std::to_string(s * 64) + ".." + std::to_string(s * 64 + 63),
                          "a different word");
    }
    any = any || summary != 0;
  }
  if (!any && !may_be_empty) {
    return column.Error(encoding_at_,
                        "the all-zero encoding (1) for a bitmap without a set bit, as Pebble's "
                        "writer uses",
                        "a stored bitmap of zeros");
  }
  return Status();
}

Result<Bitmap> DecodeBitmap(const ColumnBytes& column, std::uint64_t& pos, std::uint32_t rows) {
  if (pos >= column.end)
    return column.Error(pos, "the bitmap encoding byte", "the end of the column");
  const std::uint64_t at = pos;
  const std::uint8_t encoding = column.block[pos];
  if (encoding == kBitmapAllZero) {
    pos += 1;
    return Bitmap(nullptr, rows, static_cast<std::uint32_t>(at));
  }
  if (encoding != kBitmapStored) {
    return column.Error(pos, "bitmap encoding 0 (stored) or 1 (all zero)", HexByte(encoding));
  }
  const std::uint64_t words_at = AlignUp(pos + 1, 8);
  const std::uint64_t size = BitmapWordsSize(rows);
  if (words_at > column.end || size > column.end - words_at) {
    return column.Error(at,
                        "a bitmap of " + std::to_string(rows) + " rows (" + std::to_string(size) +
                            " bytes from block byte " + std::to_string(words_at) + ")",
                        std::to_string(words_at > column.end ? 0 : column.end - words_at) +
                            " bytes left in the column");
  }
  pos = words_at + size;
  return Bitmap(column.block.data() + words_at, rows, static_cast<std::uint32_t>(at));
}

Result<Bitmap> DecodeBitmapColumn(const ColumnBytes& column, std::uint32_t rows) {
  std::uint64_t pos = column.start;
  BLOOMCODEC_ASSIGN_OR_RETURN(Bitmap b, DecodeBitmap(column, pos, rows));
  BLOOMCODEC_RETURN_IF_ERROR(column.CheckEnd(pos));
  return b;
}

void BitmapBuilder::Reset() {
  words_.clear();
  min_nonzero_rows_ = 0;
}

void BitmapBuilder::Set(std::uint32_t row) {
  if (IsZero(std::uint64_t{row} + 1)) min_nonzero_rows_ = std::uint64_t{row} + 1;
  const std::size_t w = row >> 6;
  if (words_.size() <= w) words_.resize(w + 1, 0);
  words_[w] |= std::uint64_t{1} << (row & 63);
}

void BitmapBuilder::Invert(std::uint32_t rows) {
  min_nonzero_rows_ = 1;
  words_.resize((std::size_t{rows} + 63) / 64, 0);
  for (std::uint64_t& w : words_) w = ~w;
}

std::uint32_t BitmapBuilder::Size(std::uint32_t rows, std::uint32_t offset) const {
  if (IsZero(rows)) return offset + 1;
  return InvertedSize(rows, offset);
}

std::uint32_t BitmapBuilder::InvertedSize(std::uint32_t rows, std::uint32_t offset) {
  return static_cast<std::uint32_t>(AlignUp(std::uint64_t{offset} + 1, 8) + BitmapWordsSize(rows));
}

std::uint32_t BitmapBuilder::Finish(std::uint32_t rows, std::uint32_t offset, std::uint8_t* buf) {
  if (IsZero(rows)) {
    buf[offset] = kBitmapAllZero;
    return offset + 1;
  }
  buf[offset] = kBitmapStored;
  const std::uint32_t words_at = static_cast<std::uint32_t>(AlignUp(std::uint64_t{offset} + 1, 8));
  std::fill(buf + offset + 1, buf + words_at, 0);
  const std::size_t n = (std::size_t{rows} + 63) / 64;
  if (words_.size() > n) words_.resize(n);
  if (words_.size() == n && rows % 64 != 0) words_[n - 1] &= (std::uint64_t{1} << (rows % 64)) - 1;
  std::uint8_t* out = buf + words_at;
  for (std::size_t i = 0; i < n; ++i) StoreLE64(out + 8 * i, i < words_.size() ? words_[i] : 0);
  const std::size_t summaries = (n + 63) / 64;
  for (std::size_t s = 0; s < summaries; ++s) {
    std::uint64_t summary = 0;
    for (std::size_t j = 0; j < 64 && s * 64 + j < words_.size(); ++j) {
      if (words_[s * 64 + j] != 0) summary |= std::uint64_t{1} << j;
    }
    StoreLE64(out + 8 * (n + s), summary);
  }
  return words_at + static_cast<std::uint32_t>(8 * (n + summaries));
}

}  // namespace bloomcodec::pebble::colblk

#include "pebble/colblk/raw_bytes.h"

#include <algorithm>
#include <string>

namespace bloomcodec::pebble::colblk {

namespace {

// The offsets must not decrease: Pebble would build a slice of negative length and panic.
template <typename Load>
std::uint64_t FirstDecrease(std::uint64_t n, Load load) {
  std::uint64_t previous = load(0);
  for (std::uint64_t i = 1; i < n; ++i) {
    const std::uint64_t v = load(i);
    if (v < previous) return i;
    previous = v;
  }
  return n;
}

// Specialized by width: a block's offsets are checked once, when it is decoded.
std::uint64_t FirstDecreaseOf(const Uints& offsets, std::uint64_t n) {
  const std::uint8_t* p = offsets.data();
  switch (offsets.width()) {
    case 0: return n;  // all equal
    case 1: return FirstDecrease(n, [p](std::uint64_t i) { return std::uint64_t{p[i]}; });
    case 2:
      return FirstDecrease(n, [p](std::uint64_t i) { return std::uint64_t{LoadLE16(p + 2 * i)}; });
    default:
      return FirstDecrease(n, [p](std::uint64_t i) { return std::uint64_t{LoadLE32(p + 4 * i)}; });
  }
}

}  // namespace

Result<RawBytes> DecodeRawBytes(const ColumnBytes& column, std::uint64_t& pos, std::uint64_t count,
                                std::string_view what) {
  if (count == 0) return RawBytes();
  if (count >= 0xffffffffu) {
    return column.Error(pos, "fewer than 2^32 - 1 " + std::string(what), std::to_string(count));
  }
  const std::uint64_t table_at = pos;
  std::uint64_t p = pos;
  BLOOMCODEC_ASSIGN_OR_RETURN(Uints offsets, DecodeOffsets(column, p, count + 1, "offset table"));
  const std::uint64_t data_at = p;
  const std::uint64_t last = offsets.At(count);
  if (last > column.end - data_at) {
    return column.Error(table_at,
                        "a last offset inside the column (at most " +
                            std::to_string(column.end - data_at) + ") for the " + std::string(what),
                        std::to_string(last));
  }
  const std::uint64_t bad = FirstDecreaseOf(offsets, count + 1);
  if (bad <= count) {
    return column.Error(
        table_at,
        "non-decreasing offsets for the " + std::string(what) + " (offset " + std::to_string(bad) +
            " is below offset " + std::to_string(bad - 1) + ")",
        std::to_string(offsets.At(bad)) + " after " + std::to_string(offsets.At(bad - 1)));
  }
  pos = data_at + last;
  return RawBytes(offsets, column.block.data() + data_at, static_cast<std::uint32_t>(count));
}

Result<RawBytes> DecodeRawBytesColumn(const ColumnBytes& column, std::uint32_t rows) {
  std::uint64_t pos = column.start;
  BLOOMCODEC_ASSIGN_OR_RETURN(RawBytes b, DecodeRawBytes(column, pos, rows, "byte strings"));
  BLOOMCODEC_RETURN_IF_ERROR(column.CheckEnd(pos));
  return b;
}

void RawBytesBuilder::Reset() {
  rows_ = 0;
  data_.clear();
  offsets_.Reset();
  offsets_.Set(0, 0);
}

void RawBytesBuilder::Put(ByteSpan s) {
  data_.insert(data_.end(), s.begin(), s.end());
  ++rows_;
  offsets_.Set(rows_, data_.size());
}

void RawBytesBuilder::PutConcat(ByteSpan a, ByteSpan b) {
  data_.insert(data_.end(), a.begin(), a.end());
  data_.insert(data_.end(), b.begin(), b.end());
  ++rows_;
  offsets_.Set(rows_, data_.size());
}

ByteSpan RawBytesBuilder::Get(std::uint32_t i) const {
  const std::uint64_t start = offsets_.Get(i);
  return ByteSpan(data_.data() + start, offsets_.Get(i + 1) - start);
}

std::uint32_t RawBytesBuilder::Size(std::uint32_t rows, std::uint32_t offset) const {
  if (rows == 0) return offset;
  offset = offsets_.Size(rows + 1, offset);
  return offset + static_cast<std::uint32_t>(offsets_.Get(rows));
}

std::uint32_t RawBytesBuilder::Finish(std::uint32_t rows, std::uint32_t offset,
                                      std::uint8_t* buf) const {
  if (rows == 0) return offset;
  const std::uint64_t length = offsets_.Get(rows);
  offset = offsets_.Finish(rows + 1, offset, buf);
  std::copy_n(data_.data(), length, buf + offset);
  return offset + static_cast<std::uint32_t>(length);
}

}  // namespace bloomcodec::pebble::colblk

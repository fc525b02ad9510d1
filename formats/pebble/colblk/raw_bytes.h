// Internal to the library (not installed): RawBytes columns (Pebble's sstable/colblk/
// raw_bytes.go): n byte strings behind an offset table of n + 1 uint offsets (never delta,
// narrower than 8 bytes; the writer's first offset is 0), counted from the byte after the table;
// string i is data[off[i], off[i+1]). n = 0: no bytes at all.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(RawBytes values, DecodeRawBytesColumn(column, rows));
//   ByteSpan v = values.At(row);  // a view into the block
//
// Contract: decoding checks every offset (non-decreasing, the last inside the column), so that
// At() needs no check; Pebble checks only the last and panics on the others when read.
#pragma once

#include <cstdint>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "pebble/colblk/column.h"
#include "pebble/colblk/uints.h"

namespace bloomcodec::pebble::colblk {

class RawBytes {
 public:
  RawBytes() = default;
  RawBytes(Uints offsets, const std::uint8_t* data, std::uint32_t slices)
      : offsets_(offsets), data_(data), slices_(slices) {}

  std::uint32_t slices() const { return slices_; }
  ByteSpan At(std::uint32_t i) const {
    const std::uint64_t start = offsets_.At(i);
    return ByteSpan(data_ + start, offsets_.At(std::uint64_t{i} + 1) - start);
  }
  // The offset table (slices() + 1 entries) and where the data starts: for PrefixBytes, whose
  // slices are addressed by their offsets.
  const Uints& offsets() const { return offsets_; }
  const std::uint8_t* data() const { return data_; }

 private:
  Uints offsets_;
  const std::uint8_t* data_ = nullptr;
  std::uint32_t slices_ = 0;
};

// Decodes `count` strings at block position `pos` inside `column`, advancing `pos` past their
// data (Pebble's DecodeRawBytes). `what` names them in messages.
Result<RawBytes> DecodeRawBytes(const ColumnBytes& column, std::uint64_t& pos, std::uint64_t count,
                                std::string_view what = "byte strings");
// A whole bytes column, ending exactly where the column ends.
Result<RawBytes> DecodeRawBytesColumn(const ColumnBytes& column, std::uint32_t rows);

// Builds a bytes column as Pebble's RawBytesBuilder does (offsets start with a 0 row, so never
// delta-encoded).
class RawBytesBuilder {
 public:
  RawBytesBuilder() { Reset(); }
  void Reset();
  void Put(ByteSpan s);
  void PutConcat(ByteSpan a, ByteSpan b);
  std::uint32_t rows() const { return rows_; }
  ByteSpan Get(std::uint32_t i) const;

  std::uint32_t Size(std::uint32_t rows, std::uint32_t offset) const;
  std::uint32_t Finish(std::uint32_t rows, std::uint32_t offset, std::uint8_t* buf) const;

 private:
  std::uint32_t rows_ = 0;
  ByteVector data_;
  UintBuilder offsets_;
};

}  // namespace bloomcodec::pebble::colblk

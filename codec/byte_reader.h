// ByteReader: bounded, zero-copy reads of fixed-width integers, varints and byte runs.
//
//   bloomcodec::ByteReader r(file_bytes, "Filter.db");
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t k, r.ReadBigI32("hash count"));
//   BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::ByteSpan words, r.ReadBytes(n, "filter words"));
//
// Every read checks the remaining length first and never moves past the end. A failed read
// returns a Corrupt status naming the source, the absolute byte offset and what was being read;
// the reader stays where it was. `base_offset` makes offsets absolute when the span is a piece of
// a larger file (a block inside a table, a filter inside a Data.db row).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec {

class ByteReader {
 public:
  ByteReader(ByteSpan data, std::string_view source, std::uint64_t base_offset = 0)
      : data_(data), source_(source), base_(base_offset) {}

  std::size_t position() const { return pos_; }          // relative to the span
  std::uint64_t offset() const { return base_ + pos_; }  // absolute, for messages
  std::size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  ByteSpan rest() const { return data_.subspan(pos_); }
  const std::string& source() const { return source_; }

  Result<std::uint8_t> ReadU8(std::string_view what);
  Result<std::uint16_t> ReadBigU16(std::string_view what);
  Result<std::uint32_t> ReadBigU32(std::string_view what);
  Result<std::int32_t> ReadBigI32(std::string_view what);
  Result<std::uint64_t> ReadBigU64(std::string_view what);
  Result<std::int64_t> ReadBigI64(std::string_view what);
  Result<std::uint32_t> ReadLittleU32(std::string_view what);
  Result<std::uint64_t> ReadLittleU64(std::string_view what);
  // Unsigned LEB128 as LevelDB writes it: at most 5 (resp. 10) bytes, no overflow.
  Result<std::uint32_t> ReadVarint32(std::string_view what);
  Result<std::uint64_t> ReadVarint64(std::string_view what);
  // A view of the next n bytes (no copy).
  Result<ByteSpan> ReadBytes(std::uint64_t n, std::string_view what);
  // Consumes exactly `literal` or fails, naming both.
  Status Expect(ByteSpan literal, std::string_view what);
  Status Skip(std::uint64_t n, std::string_view what);
  Status Seek(std::size_t position, std::string_view what);

  // A Corrupt status at the current offset: "expected <expected>[, found <found>]".
  Status Error(std::string expected, std::string found = {}) const;
  Status ErrorAt(std::uint64_t absolute_offset, std::string expected, std::string found = {}) const;

 private:
  Status Short(std::uint64_t need, std::string_view what) const;

  ByteSpan data_;
  std::string source_;
  std::uint64_t base_;
  std::size_t pos_ = 0;
};

}  // namespace bloomcodec

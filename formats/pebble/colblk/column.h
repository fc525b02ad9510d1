// Internal to the library (not installed): what every columnar-block decoder and encoder of
// Pebble's sstable/colblk shares: the column data types, where a block came from (for error
// messages), a column's bytes inside its block, little-endian loads and stores, alignment.
//
// Offsets inside a columnar block are counted from the block's first byte, custom header
// included, and every alignment padding is relative to that first byte (Pebble keeps block
// buffers word-aligned, so its alignment of a pointer and of a block offset agree). Our buffers
// need not be aligned: loads go through memcpy.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::pebble::colblk {

// A column's logical type, the byte of its entry in the column directory (Pebble's DataType).
enum class DataType : std::uint8_t {
  kInvalid = 0,
  kBool = 1,         // a bitmap
  kUint = 2,         // unsigned integers of 0, 1, 2, 4 or 8 bytes, optionally from a base
  kBytes = 3,        // RawBytes: byte strings behind an offset table
  kPrefixBytes = 4,  // sorted byte strings, prefix-compressed in bundles
};
std::string_view DataTypeName(DataType type);
inline bool IsKnownDataType(std::uint8_t b) { return b >= 1 && b <= 4; }

// Where a block's bytes came from. Messages name the file and an absolute byte offset; for a
// block that was decompressed, the offset is the block's own and the position inside the
// uncompressed bytes goes into the message (as blocktable::Block::ErrorAt does). The strings are
// views: they must outlive every decoded view that keeps the place.
struct BlockPlace {
  std::string_view source;
  std::uint64_t file_offset = 0;
  bool decompressed = false;
  std::string_view what = "columnar block";

  // A Corrupt status at `position` (counted from the block's first byte). `context` (optional)
  // names the part of the block, e.g. "column 2 (trailers)".
  Status ErrorAt(std::uint64_t position, std::string expected, std::string found = {},
                 std::string_view context = {}) const;
};

// One column's bytes inside its block: [start, end) in block positions. `end` is where the next
// column starts (the padding byte for the last column): Pebble requires a decoded column to end
// there exactly.
struct ColumnBytes {
  ByteSpan block;
  std::uint32_t start = 0;
  std::uint32_t end = 0;
  BlockPlace place;
  int index = -1;  // the column's number in the directory (-1: a column on its own, in tests)
  std::string_view name;

  // A Corrupt status at `position`, naming the column.
  Status Error(std::uint64_t position, std::string expected, std::string found = {}) const;
  // Pebble's DecodeColumn check: the decoded data ended exactly where the column ends.
  Status CheckEnd(std::uint64_t decoded_end) const;
};

// A view of a whole block as one column region, for decoding a column on its own (tests, fuzzers):
// [start, end) of `block`, alignment relative to block[0].
ColumnBytes StandaloneColumn(ByteSpan block, std::uint32_t start, std::uint32_t end,
                             std::string_view name = "column");

inline std::uint16_t LoadLE16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | p[1] << 8);
}
inline std::uint32_t LoadLE32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}
inline std::uint64_t LoadLE64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
inline void StoreLE16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}
inline void StoreLE32(std::uint8_t* p, std::uint32_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}
inline void StoreLE64(std::uint8_t* p, std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

// The first multiple of `width` (a power of two) at or after `offset`.
constexpr std::uint64_t AlignUp(std::uint64_t offset, std::uint64_t width) {
  return (offset + width - 1) & ~(width - 1);
}

// "0x1f": one byte in messages.
std::string HexByte(std::uint8_t b);

}  // namespace bloomcodec::pebble::colblk

// Internal to the library (not installed): PrefixBytes columns (Pebble's sstable/colblk/
// prefix_bytes.go): sorted byte strings, prefix-compressed in bundles of 2^s rows.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(PrefixBytes keys, DecodePrefixBytesColumn(column, rows));
//   KeyBuffer buf;
//   PrefixBytesCursor cursor;
//   cursor.SetAt(keys, 0, buf);  // row 0's whole string: ByteSpan(buf.data(), cursor.length())
//   for (std::uint32_t r = 1; r < rows; ++r) cursor.SetNext(keys, buf);  // copies only suffixes
//
// Layout: [u8 s] then a RawBytes of n + b slices (b = 1 + (n - 1) >> s bundles), except that
// the first offset is the length of the block-wide shared prefix data[0, off[0]). Bundle j's
// prefix (without the shared prefix) is slice j * (2^s + 1); row r's suffix is slice
// 1 + (r >> s) + r. A row = shared prefix + its bundle's prefix + its suffix. An empty suffix
// that is not the bundle's first means "the same string as the row before".
//
// Contract: decoding refuses what Pebble panics on (no rows) and what would make it read
// outside the column or build a slice of negative length (offsets past the data or decreasing),
// and a bundle shift over 31 (Pebble writes 4; a larger shift has no meaning for 32-bit rows).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "pebble/colblk/column.h"
#include "pebble/colblk/raw_bytes.h"

namespace bloomcodec::pebble::colblk {

inline constexpr unsigned kMaxBundleShift = 31;

// A reusable key buffer: grows when a key is longer than any before, never shrinks, so that
// walking a block allocates at most a few times in all. Its users keep the lengths.
class KeyBuffer {
 public:
  std::uint8_t* data() { return data_.get(); }
  const std::uint8_t* data() const { return data_.get(); }
  std::size_t capacity() const { return capacity_; }
  // Makes room for n bytes, keeping every byte already there.
  void Reserve(std::size_t n) {
    if (n > capacity_) Grow(n);
  }

 private:
  void Grow(std::size_t n);
  std::unique_ptr<std::uint8_t[]> data_;
  std::size_t capacity_ = 0;
};

class PrefixBytes {
 public:
  PrefixBytes() = default;
  PrefixBytes(RawBytes raw, std::uint32_t rows, unsigned shift)
      : raw_(raw), rows_(rows), shift_(shift), shared_(raw.offsets().At(0)) {}

  std::uint32_t rows() const { return rows_; }
  unsigned bundle_shift() const { return shift_; }
  std::uint64_t bundle_count() const { return 1 + ((std::uint64_t{rows_} - 1) >> shift_); }
  ByteSpan SharedPrefix() const { return ByteSpan(raw_.data(), shared_); }
  ByteSpan BundlePrefix(std::uint64_t bundle) const { return Slice(BundleSlice(bundle)); }
  ByteSpan RowBundlePrefix(std::uint32_t row) const { return Slice(BundleSlice(row >> shift_)); }
  // Row `row`'s own bytes, after following empty "same as before" slices back: up to a bundle's
  // rows of work (16 in Pebble's blocks, 2^31 at most); walking with a cursor costs only what
  // changed.
  ByteSpan RowSuffix(std::uint32_t row) const;
  // Appends row `row`'s whole string to `out`.
  void AppendRow(std::uint32_t row, ByteVector& out) const;

  // Slice i of the underlying RawBytes (bundle prefixes and row suffixes).
  ByteSpan Slice(std::uint64_t i) const { return raw_.At(static_cast<std::uint32_t>(i)); }
  std::uint64_t Offset(std::uint64_t i) const { return raw_.offsets().At(i); }
  const std::uint8_t* data() const { return raw_.data(); }
  std::uint64_t BundleSlice(std::uint64_t bundle) const { return (bundle << shift_) + bundle; }
  std::uint64_t RowSlice(std::uint32_t row) const {
    return 1 + (row >> shift_) + std::uint64_t{row};
  }

 private:
  RawBytes raw_;
  std::uint32_t rows_ = 0;
  unsigned shift_ = 0;
  std::uint64_t shared_ = 0;
};

// Decodes `rows` strings at block position `pos` inside `column`, advancing `pos`.
Result<PrefixBytes> DecodePrefixBytes(const ColumnBytes& column, std::uint64_t& pos,
                                      std::uint32_t rows);
// A whole prefixbytes column, ending exactly where the column ends.
Result<PrefixBytes> DecodePrefixBytesColumn(const ColumnBytes& column, std::uint32_t rows);

// Rebuilds consecutive rows' strings at the start of a KeyBuffer, copying only what changed
// (Pebble's PrefixBytesIter: SetAt, SetNext). The string is the buffer's first length() bytes;
// what the caller writes after them (a key's suffix) is left alone unless the string grows.
class PrefixBytesCursor {
 public:
  void SetAt(const PrefixBytes& p, std::uint32_t row, KeyBuffer& key);
  // The next row; requires a row after the current one.
  void SetNext(const PrefixBytes& p, KeyBuffer& key) {
    ++slice_;
    if (slice_ < next_bundle_slice_) {
      const std::uint64_t start = p.Offset(slice_);
      const std::uint64_t end = p.Offset(slice_ + 1);
      if (start == end) return;  // the same string as the row before
      length_ = prefix_ + (end - start);
      key.Reserve(length_);
      CopyBytes(key.data() + prefix_, p.data() + start, end - start);
      return;
    }
    NextBundle(p, key);
  }
  std::size_t length() const { return length_; }

 private:
  static void CopyBytes(std::uint8_t* dst, const std::uint8_t* src, std::size_t n);
  void NextBundle(const PrefixBytes& p, KeyBuffer& key);

  std::uint64_t slice_ = 0;              // the current row's suffix slice
  std::uint64_t next_bundle_slice_ = 0;  // the next bundle's prefix slice
  std::size_t prefix_ = 0;               // shared + bundle prefix length, in the buffer
  std::size_t length_ = 0;               // the current string's length
};

// Builds a prefixbytes column as Pebble's PrefixBytesBuilder does, including Finish with one row
// fewer than were put. Strings must come in ascending bytewise order (not checked here).
class PrefixBytesBuilder {
 public:
  // `bundle_size` is a power of two (Pebble's data blocks use 16).
  explicit PrefixBytesBuilder(std::uint32_t bundle_size = 16);
  void Reset();
  void Put(ByteSpan key);
  std::uint32_t rows() const { return keys_; }
  // The last (i = rows() - 1) or the one before (rows() - 2); Pebble's UnsafeGet.
  ByteSpan Get(std::uint32_t i) const;

  std::uint32_t Size(std::uint32_t rows, std::uint32_t offset) const;
  std::uint32_t Finish(std::uint32_t rows, std::uint32_t offset, std::uint8_t* buf) const;

 private:
  // What encoding the rows up to one key would take (Pebble's prefixBytesSizing).
  struct Sizing {
    std::uint64_t last_key_offset = 0;  // where the last distinct key starts in data_
    std::uint64_t offset_count = 0;
    std::uint64_t block_prefix = 0;
    std::uint64_t bundle_distinct_len = 0;
    std::uint64_t bundle_distinct_keys = 0;
    std::uint64_t bundle_prefix = 0;
    std::uint64_t bundle_prefix_slot = 0;  // index in offsets_ of the open bundle's prefix
    std::uint64_t compressed_len = 0;
    UintEncoding offset_encoding;
  };
  void PutFirstOfBundle(ByteSpan key, std::uint64_t shared);
  void WriteCompressed(std::uint32_t rows, const Sizing& sz, unsigned width, std::uint8_t* offsets,
                       std::uint8_t* data) const;
  std::uint64_t BundleCount(std::uint64_t rows) const { return 1 + ((rows - 1) >> shift_); }

  unsigned shift_;
  std::uint32_t bundle_size_;
  static constexpr std::uint64_t kMaxShared = 0xffff;  // Pebble's maxShared
  ByteVector data_;  // every key put, concatenated (duplicates once)
  std::uint32_t keys_ = 0;
  std::uint64_t completed_bundles_len_ = 0;
  Sizing sizings_[2];  // after the last key and the one before
  std::vector<std::uint32_t> offsets_;
};

}  // namespace bloomcodec::pebble::colblk

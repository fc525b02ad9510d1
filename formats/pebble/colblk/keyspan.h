// Internal to the library (not installed): columnar keyspan blocks, the range deletions and range
// keys of Pebblev5+ tables (Pebble's sstable/colblk/keyspan.go).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(KeyspanBlock spans, KeyspanBlock::Decode(bytes, place));
//   for (std::uint32_t i = 0; i + 1 < spans.boundary_count(); ++i)
//     for (std::uint64_t k = spans.boundary_start(i); k < spans.boundary_start(i + 1); ++k)
//       Visit(spans.boundary_key(i), spans.boundary_key(i + 1), spans.trailer(k));
//
// Layout: custom header LE u32 count of boundary keys; columns boundary user keys (bytes) and
// boundary start indices (uint), both with that count; trailers (uint), suffixes (bytes), values
// (bytes), with the block's row count (one row per key). The keys [start(i), start(i + 1)) span
// [boundary i, boundary i + 1); abutting fragments share their boundary, a gap has no keys.
//
// Contract: Decode makes Pebble's checks and, so that reading spans stays inside the block,
// refuses start indices that decrease or exceed the row count (Pebble would build a slice of
// negative or excessive length). VerifyKeyspanBlock adds the writer's invariants: the shape,
// boundaries strictly increasing under a known comparer, indices from 0 to the row count,
// range-deletion and range-key kinds only. Its work is bounded by the block's size.
#pragma once

#include <cstdint>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "pebble/colblk/block.h"
#include "pebble/colblk/key_schema.h"
#include "pebble/colblk/raw_bytes.h"
#include "pebble/colblk/uints.h"

namespace bloomcodec::pebble::colblk {

inline constexpr int kKeyspanColumns = 5;
inline constexpr std::uint32_t kKeyspanHeaderSize = 4;

class KeyspanBlock {
 public:
  static Result<KeyspanBlock> Decode(ByteSpan block, const BlockPlace& place);

  const BlockLayout& layout() const { return layout_; }
  std::uint32_t boundary_count() const { return boundaries_; }
  ByteSpan boundary_key(std::uint32_t i) const { return keys_.At(i); }
  std::uint64_t boundary_start(std::uint32_t i) const { return starts_.At(i); }
  std::uint32_t rows() const { return layout_.rows(); }
  std::uint64_t trailer(std::uint64_t k) const { return trailers_.At(k); }
  unsigned trailer_width() const { return trailers_.width(); }
  ByteSpan suffix(std::uint64_t k) const { return suffixes_.At(static_cast<std::uint32_t>(k)); }
  ByteSpan value(std::uint64_t k) const { return values_.At(static_cast<std::uint32_t>(k)); }

 private:
  Status CheckStarts(const ColumnBytes& column) const;

  BlockLayout layout_;
  std::uint32_t boundaries_ = 0;
  RawBytes keys_;
  Uints starts_;
  Uints trailers_;
  RawBytes suffixes_;
  RawBytes values_;
};

Status VerifyKeyspanBlock(const KeyspanBlock& block, KeyComparer comparer);

// One key of a span: a range deletion (no suffix, no value) or a range key.
struct KeyspanKey {
  std::uint64_t trailer = 0;
  ByteSpan suffix;
  ByteSpan value;
};

// Writes keyspan blocks as Pebble's KeyspanBlockWriter does: spans in order, fragmented (spans
// that overlap have equal bounds), each span's keys as the caller orders them.
class KeyspanBlockWriter {
 public:
  explicit KeyspanBlockWriter(KeyComparer comparer = KeyComparer::kBytewise)
      : comparer_(comparer) {}
  void AddSpan(ByteSpan start, ByteSpan end, const std::vector<KeyspanKey>& keys);
  std::uint32_t Size() const;
  Result<ByteVector> Finish() const;
  void Reset();

 private:
  KeyComparer comparer_;
  RawBytesBuilder boundary_keys_;
  UintBuilder boundary_starts_;
  UintBuilder trailers_;
  RawBytesBuilder suffixes_;
  RawBytesBuilder values_;
  std::uint32_t keys_ = 0;
  bool any_ = false;
};

}  // namespace bloomcodec::pebble::colblk

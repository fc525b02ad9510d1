// Internal to the library (not installed): columnar index blocks (Pebble's sstable/colblk/
// index_block.go), for the single-level index, index partitions and the top-level index alike.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(IndexBlock index, IndexBlock::Decode(bytes, place));
//   for (std::uint32_t i = 0; i < index.rows(); ++i) Visit(index.separator(i), index.offset(i));
//
// Layout: no custom header; columns separator (bytes: user keys, no trailer), offset (uint),
// length (uint), block properties (bytes: (shortID, uvarint length, bytes) per collector).
//
// Contract: Decode makes Pebble's checks (types, extents, columns ending where the next starts)
// and those that keep reads inside the block; views point into `bytes`. VerifyIndexBlock adds
// the writer's invariants: the shape, separators in non-decreasing order (a user key may span
// two data blocks, so two separators can be equal) under a known comparer, blocks in file order
// (each at or after the previous one's end and 5-byte trailer), block properties with ascending
// short IDs and non-empty values inside their slice.
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

inline constexpr int kIndexColumns = 4;

class IndexBlock {
 public:
  static Result<IndexBlock> Decode(ByteSpan block, const BlockPlace& place);

  const BlockLayout& layout() const { return layout_; }
  std::uint32_t rows() const { return layout_.rows(); }
  ByteSpan separator(std::uint32_t row) const { return separators_.At(row); }
  std::uint64_t offset(std::uint32_t row) const { return offsets_.At(row); }
  std::uint64_t length(std::uint32_t row) const { return lengths_.At(row); }
  ByteSpan block_properties(std::uint32_t row) const { return properties_.At(row); }

 private:
  BlockLayout layout_;
  RawBytes separators_;
  Uints offsets_;
  Uints lengths_;
  RawBytes properties_;
};

Status VerifyIndexBlock(const IndexBlock& block, KeyComparer comparer);

// Writes index blocks as Pebble's IndexBlockWriter does.
class IndexBlockWriter {
 public:
  void AddBlockHandle(ByteSpan separator, std::uint64_t offset, std::uint64_t length,
                      ByteSpan block_properties);
  std::uint32_t rows() const { return rows_; }
  std::uint32_t Size(std::uint32_t rows) const;
  // The block of the first `rows` entries (rows() or rows() - 1).
  Result<ByteVector> Finish(std::uint32_t rows) const;
  void Reset();

 private:
  RawBytesBuilder separators_;
  UintBuilder offsets_;
  UintBuilder lengths_;
  RawBytesBuilder properties_;
  std::uint32_t rows_ = 0;
};

}  // namespace bloomcodec::pebble::colblk

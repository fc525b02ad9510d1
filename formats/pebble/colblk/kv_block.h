// Internal to the library (not installed): columnar key-value blocks, Pebblev6+'s metaindex and
// Pebblev7+'s properties (Pebble's sstable/colblk/key_value_block.go).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(KeyValueBlock meta, KeyValueBlock::Decode(bytes, place));
//   for (std::uint32_t i = 0; i < meta.rows(); ++i) Visit(meta.key(i), meta.value(i));
//
// Layout: no custom header; columns key (bytes) and value (bytes).
//
// Contract: Decode makes Pebble's checks and keeps reads inside the block; views point into
// `bytes`. VerifyKeyValueBlock adds the writer's invariants: the shape and, because the
// metaindex and properties writers sort their entries, keys strictly increasing bytewise.
#pragma once

#include <cstdint>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "pebble/colblk/block.h"
#include "pebble/colblk/raw_bytes.h"

namespace bloomcodec::pebble::colblk {

inline constexpr int kKeyValueColumns = 2;

class KeyValueBlock {
 public:
  static Result<KeyValueBlock> Decode(ByteSpan block, const BlockPlace& place);

  const BlockLayout& layout() const { return layout_; }
  std::uint32_t rows() const { return layout_.rows(); }
  ByteSpan key(std::uint32_t row) const { return keys_.At(row); }
  ByteSpan value(std::uint32_t row) const { return values_.At(row); }

 private:
  BlockLayout layout_;
  RawBytes keys_;
  RawBytes values_;
};

Status VerifyKeyValueBlock(const KeyValueBlock& block);

// Writes key-value blocks as Pebble's KeyValueBlockWriter does (entries as added).
class KeyValueBlockWriter {
 public:
  void Add(ByteSpan key, ByteSpan value);
  std::uint32_t rows() const { return rows_; }
  std::uint32_t Size(std::uint32_t rows) const;
  Result<ByteVector> Finish(std::uint32_t rows) const;
  void Reset();

 private:
  RawBytesBuilder keys_;
  RawBytesBuilder values_;
  std::uint32_t rows_ = 0;
};

}  // namespace bloomcodec::pebble::colblk

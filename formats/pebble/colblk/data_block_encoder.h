// Internal to the library (not installed): writes columnar data blocks byte for byte as Pebble's
// DataBlockEncoder does (sstable/colblk/data_block.go) with the default key writer and
// CockroachDB's crdb1 key writer (cockroachkvs.go).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(DataBlockEncoder enc, DataBlockEncoder::Make(schema, false));
//   BLOOMCODEC_RETURN_IF_ERROR(enc.Add(key, (seq << 8) | kind, value));
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector block, enc.Finish(enc.rows()));
//   // or rows() - 1, as Pebble's table writer does when the last key did not fit
//
// Contract: Add refuses keys out of order (user key ascending under the schema's comparer, then
// trailer descending: Pebble's writer refuses them too) and, for crdb1, keys that are not engine
// keys (where Pebble's writer panics). Finish(rows() - 1) keeps what Pebble's keeps from the
// excluded row: the maximum key length, crdb1's suffix types, uint encodings chosen with it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "pebble/colblk/bitmap.h"
#include "pebble/colblk/key_schema.h"
#include "pebble/colblk/prefix_bytes.h"
#include "pebble/colblk/raw_bytes.h"
#include "pebble/colblk/uints.h"

namespace bloomcodec::pebble::colblk {

// A row's tiering metadata (Pebblev8): written only when `set` (else the row's columns are 0).
struct TieringMeta {
  bool set = false;
  std::uint64_t span_id = 0;
  std::uint64_t attribute = 0;
};

// One row of a data block.
struct DataBlockRow {
  ByteSpan user_key;
  std::uint64_t trailer = 0;  // seqnum << 8 | kind
  ByteSpan value;             // for an external value: the handle, after the prefix byte
  bool obsolete = false;
  // The value prefix byte of a value stored elsewhere (value block or blob file); nullopt for a
  // value in place.
  std::optional<std::uint8_t> external_prefix;
  TieringMeta tiering;
  ByteSpan secondary_blob_handle;
  // Row 0 only: whether its prefix differs from the table's previous key (the last of the block
  // before), as Pebble's table writer carries that comparison into a new block; nullopt: as for
  // a table's first key (set unless the prefix is empty). Other rows compare within the block.
  std::optional<bool> first_prefix_changed;
};

class DataBlockEncoder {
 public:
  // Unsupported for a default schema whose comparer we do not implement (its Split is unknown).
  static Result<DataBlockEncoder> Make(const KeySchema& schema, bool tiering);

  Status Add(const DataBlockRow& row);
  std::uint32_t rows() const { return rows_; }
  // The block's size with its first `rows` rows (rows() or rows() - 1).
  std::uint32_t Size(std::uint32_t rows) const;
  // The block with its first `rows` rows (rows() or rows() - 1). The encoder must be Reset
  // before it is used again.
  Result<ByteVector> Finish(std::uint32_t rows);
  void Reset();

 private:
  DataBlockEncoder(const KeySchema& schema, bool tiering);
  Status CheckOrder(const DataBlockRow& row) const;
  Status WriteCrdb1Key(ByteSpan key, std::size_t prefix_length);
  std::uint32_t KeyColumnsSize(std::uint32_t rows, std::uint32_t offset) const;
  void WriteColumns(std::uint32_t rows, class BlockWriter& w);

  KeySchemaKind kind_;
  KeyComparer comparer_;
  std::uint32_t header_size_;
  int key_columns_;
  bool tiering_;
  std::uint32_t rows_ = 0;
  std::uint32_t max_key_length_ = 0;
  ByteVector last_key_;
  std::uint64_t last_trailer_ = 0;
  // Key columns: the default schema's prefixes and suffixes; crdb1's roach keys, wall and
  // logical times, untyped versions.
  PrefixBytesBuilder prefixes_;
  RawBytesBuilder suffixes_;
  UintBuilder wall_{false};
  UintBuilder logical_{true};
  std::uint8_t suffix_types_ = 0;
  // The other columns.
  UintBuilder trailers_{false};
  BitmapBuilder prefix_same_;  // inverted into "prefix changed" by Finish
  RawBytesBuilder values_;
  BitmapBuilder external_;
  BitmapBuilder obsolete_;
  UintBuilder span_ids_{true};
  UintBuilder attributes_{true};
  RawBytesBuilder secondary_;
};

}  // namespace bloomcodec::pebble::colblk

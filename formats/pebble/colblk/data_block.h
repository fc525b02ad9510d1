// Internal to the library (not installed): columnar data blocks (Pebble's sstable/colblk/
// data_block.go: DataBlockDecoder, DataBlockIter, DataBlockValidator) under a key schema.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(KeySchema schema, FindKeySchema(props.key_schema));
//   BLOOMCODEC_ASSIGN_OR_RETURN(DataBlock block, DataBlock::Decode(bytes, schema, false, place));
//   for (DataBlockIterator it(block); it.Valid(); it.Next()) Use(it.user_key(), it.trailer());
//   BLOOMCODEC_RETURN_IF_ERROR(VerifyDataBlock(block));  // the writer's invariants
//
// Layout: custom header = the schema's header, then LE u32 maximum user key length; columns:
// the schema's key columns, then trailer (uint), prefix changed (bool), value (bytes),
// is-value-external (bool), is-obsolete (bool), and with tiering (Pebblev8) tiering span ID
// (uint), tiering attribute (uint), secondary blob handle (bytes).
//
// Contract: Decode makes every check Pebble's decoder makes or panics on (column types and
// extents, each column ending where the next starts, a key column of at least one row) and those
// that keep reads inside the block; every view then points into `block`, which must outlive it
// (and so must `schema` and the place's strings). Two further refusals bound the work a block can
// cause: a data block needs rows, and a stored prefix-changed bitmap (Pebble's writer always
// stores one, one bit per row). The iterator reassembles each user key in one reused buffer:
// no allocation per key once it has grown to the longest key.
#pragma once

#include <cstdint>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "pebble/colblk/bitmap.h"
#include "pebble/colblk/block.h"
#include "pebble/colblk/key_schema.h"
#include "pebble/colblk/prefix_bytes.h"
#include "pebble/colblk/raw_bytes.h"
#include "pebble/colblk/uints.h"

namespace bloomcodec::pebble::colblk {

// The columns after the key schema's, in order.
inline constexpr int kDataColumnTrailer = 0;
inline constexpr int kDataColumnPrefixChanged = 1;
inline constexpr int kDataColumnValue = 2;
inline constexpr int kDataColumnIsValueExternal = 3;
inline constexpr int kDataColumnIsObsolete = 4;
inline constexpr int kDataColumnTieringSpanId = 5;
inline constexpr int kDataColumnTieringAttribute = 6;
inline constexpr int kDataColumnSecondaryBlobHandle = 7;
inline constexpr int kDataColumnsWithoutTiering = 5;
inline constexpr int kDataColumnsWithTiering = 8;
inline constexpr std::uint32_t kDataBlockCustomHeaderSize = 4;  // the maximum key length

// crdb1's suffix-type bits (its schema header).
inline constexpr std::uint8_t kCrdb1MvccSuffixes = 1;
inline constexpr std::uint8_t kCrdb1EmptySuffixes = 2;
inline constexpr std::uint8_t kCrdb1NonMvccSuffixes = 4;

class DataBlock {
 public:
  // `tiering`: the table format has the tiering columns (Pebblev8).
  static Result<DataBlock> Decode(ByteSpan block, const KeySchema& schema, bool tiering,
                                  const BlockPlace& place);

  const KeySchema& schema() const { return *schema_; }
  const BlockLayout& layout() const { return layout_; }
  std::uint32_t rows() const { return layout_.rows(); }
  std::uint32_t maximum_key_length() const { return max_key_length_; }
  std::uint8_t schema_header() const { return schema_header_; }  // crdb1's suffix types
  bool tiering() const { return tiering_; }

  std::uint64_t trailer(std::uint32_t row) const { return trailers_.At(row); }
  ByteSpan value(std::uint32_t row) const { return values_.At(row); }
  bool prefix_changed(std::uint32_t row) const { return prefix_changed_.At(row); }
  bool is_value_external(std::uint32_t row) const { return external_.At(row); }
  bool is_obsolete(std::uint32_t row) const { return obsolete_.At(row); }
  std::uint64_t tiering_span_id(std::uint32_t row) const { return span_ids_.At(row); }
  std::uint64_t tiering_attribute(std::uint32_t row) const { return attributes_.At(row); }
  ByteSpan secondary_blob_handle(std::uint32_t row) const {
    return tiering_ ? secondary_.At(row) : ByteSpan();
  }

  // Key columns. Default schema: prefixes() and suffixes(). crdb1: prefixes() holds the roach
  // keys, suffixes() the untyped versions, and wall_times() / logical_times() the MVCC ones.
  const PrefixBytes& prefixes() const { return prefixes_; }
  const RawBytes& suffixes() const { return suffixes_; }
  const Uints& wall_times() const { return wall_; }
  const Uints& logical_times() const { return logical_; }

  // The bitmaps, for Verify.
  const Bitmap& prefix_changed_bitmap() const { return prefix_changed_; }
  const Bitmap& external_bitmap() const { return external_; }
  const Bitmap& obsolete_bitmap() const { return obsolete_; }
  // Column `index` of the block (checked by Decode), for messages.
  ColumnBytes column(int index) const;

 private:
  Status DecodeKeyColumns();
  Status DecodeFormatColumns();

  const KeySchema* schema_ = nullptr;
  BlockLayout layout_;
  bool tiering_ = false;
  std::uint32_t max_key_length_ = 0;
  std::uint8_t schema_header_ = 0;
  PrefixBytes prefixes_;
  RawBytes suffixes_;
  Uints wall_;
  Uints logical_;
  Uints trailers_;
  Bitmap prefix_changed_;
  RawBytes values_;
  Bitmap external_;
  Bitmap obsolete_;
  Uints span_ids_;
  Uints attributes_;
  RawBytes secondary_;
};

// Walks a data block's rows, reassembling each user key as Pebble's key seekers do
// (MaterializeUserKey). crdb1 keys: roach key, 0x00, then the untyped version and its length + 1
// when both MVCC times are 0 and it is not empty; else nothing when both times are 0; else the
// wall time (8 bytes BE) and 9 when the logical time is 0; else wall, logical (4 bytes BE), 13.
class DataBlockIterator {
 public:
  explicit DataBlockIterator(const DataBlock& block) : block_(&block) { SeekToRow(0); }

  bool Valid() const { return row_ < block_->rows(); }
  std::uint32_t row() const { return row_; }
  // Up to a prefix bundle's rows of work (PrefixBytes::RowSuffix); Next costs only the bytes
  // that change.
  void SeekToRow(std::uint32_t row);
  void Next() {
    ++row_;
    if (Valid()) Materialize(true);
  }

  ByteSpan user_key() const { return ByteSpan(buffer_.data(), key_size_); }
  // The length of the key's prefix as the block stores it: the default schema's prefix column
  // row; crdb1's roach key plus the 0x00 sentinel.
  std::size_t prefix_size() const { return prefix_size_; }
  std::uint64_t trailer() const { return block_->trailer(row_); }
  ByteSpan value() const { return block_->value(row_); }

 private:
  void Materialize(bool next);
  void MaterializeCrdb1Version(std::size_t roach);

  const DataBlock* block_;
  std::uint32_t row_ = 0;
  KeyBuffer buffer_;
  PrefixBytesCursor cursor_;
  std::size_t key_size_ = 0;
  std::size_t prefix_size_ = 0;
};

// The writer's invariants Pebble's reader does not check (its DataBlockValidator's and more): the
// block's shape (version, column count, padding), keys in strictly increasing internal-key order
// under the schema's comparer (when we know it), the obsolete mark on a key shadowed by the key
// before (unless that one is a MERGE), prefix-changed bits, keys no longer than the header's
// maximum, point kinds only, external values with their value prefix, the bundle size the schema
// names, the bitmaps' padding and summaries; for crdb1 the version columns and the header bits.
Status VerifyDataBlock(const DataBlock& block);

}  // namespace bloomcodec::pebble::colblk

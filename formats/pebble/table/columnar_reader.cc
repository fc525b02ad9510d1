// Pebble's columnar tables (Pebblev5..v8, formats/pebble/FORMAT.md §2, §3, §6): block bytes with
// MinLZ's decodable forms, the key-value metaindex and properties, the v7 attributes, and the
// columnar index and data blocks, each decoded and checked by formats/pebble/colblk and handed to
// the block-table walk re-laid as a row block, so that the verify pipeline, its key checks and
// its filter questions are the row tables' own.
#include <string>

#include "blocktable/block_builder.h"
#include "codec/byte_reader.h"
#include "pebble/colblk/data_block.h"
#include "pebble/colblk/index_block.h"
#include "pebble/colblk/keyspan.h"
#include "pebble/table/table_reader.h"

namespace bloomcodec::pebble {

using blocktable::Block;
using blocktable::BlockCompression;
using blocktable::BlockContents;
using blocktable::BlockHandle;

namespace {

// Compression type 8, MinLZ (Pebblev6 on).
constexpr std::uint8_t kMinLzType = 8;

// A row block built from a columnar one. Its positions name no byte of the file, so it is marked
// as not stored as is (any compression but none): a message about it names the block's offset.
Result<Block> Relaid(ByteSpan row_bytes, const BlockHandle& h, const std::string& source,
                     std::string_view what) {
  BlockContents c = BlockContents::Owned(ByteVector(row_bytes.begin(), row_bytes.end()), h.offset);
  c.set_compression(BlockCompression::kSnappy);
  return Block::Parse(std::move(c), source, what, blocktable::BlockFooterLayout::kPebble);
}

std::string HandleText(const BlockHandle& h) {
  return "block " + std::to_string(h.offset) + "/" + std::to_string(h.size);
}

}  // namespace

Result<BlockContents> PebbleTable::ReadContents(const BlockHandle& h, std::string_view what) const {
  BLOOMCODEC_RETURN_IF_ERROR(blocktable::CheckHandleInFile(h, file_.size(), source_, what));
  const std::uint64_t type_at = h.offset + h.size;
  const std::uint8_t type = file_[type_at];
  const bool minlz_known = version() >= kFooterChecksumFormat;
  if (type == kMinLzType && minlz_known) {
    BLOOMCODEC_RETURN_IF_ERROR(
        blocktable::VerifyTrailer(file_, h, source_, BlockOptions().trailer, what));
    const ByteSpan data = file_.subspan(h.offset, h.size);
    // A first byte other than 0: the Snappy block Pebble's MinLZ compressor falls back to.
    if (!data.empty() && data[0] != 0) {
      BLOOMCODEC_ASSIGN_OR_RETURN(
          ByteVector out,
          blocktable::Decompress(BlockOptions().trailer, BlockCompression::kSnappy, data, source_,
                                 h.offset, what, blocktable::kMaxUncompressedBlockSize));
      BlockContents c = BlockContents::Owned(std::move(out), h.offset);
      c.set_compression(BlockCompression::kSnappy);
      return c;
    }
    ByteReader r(data, source_, h.offset);
    BLOOMCODEC_RETURN_IF_ERROR(r.ReadU8("MinLZ block marker").status());
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t length, r.ReadVarint64("MinLZ uncompressed length"));
    // Length 0: the rest of the block is stored as is (MinLZ's literal form).
    if (length == 0) {
      const std::uint64_t at = r.offset();
      return BlockContents::View(file_.subspan(at, h.offset + h.size - at), at);
    }
    return Status::Unsupported(source_ + ": byte " + std::to_string(h.offset) + ": " +
                               std::string(what) + " (" + HandleText(h) +
                               ") compressed with MinLZ (compression type 8): bloomcodec has no "
                               "MinLZ decoder");
  }
  if (type != 0 && type != 1 && type != 7) {
    return Status::Corrupt(source_, type_at,
                           std::string("a compression type Pebble writes (0 none, 1 Snappy, 7 "
                                       "Zstd") +
                               (minlz_known ? ", 8 MinLZ" : "") + ") in the " + std::string(what) +
                               " trailer",
                           std::to_string(type));
  }
  return blocktable::ReadBlock(file_, h, source_, BlockOptions(), what);
}

Status PebbleTable::ReadColumnarMetaindex() {
  const BlockHandle& h = footer().metaindex_handle;
  BLOOMCODEC_ASSIGN_OR_RETURN(metaindex_contents_, ReadContents(h, "metaindex block"));
  if (metaindex_contents_.compression() != BlockCompression::kNone) {
    return Status::Corrupt(
        source_, h.offset + h.size, "an uncompressed metaindex block (Pebble never compresses it)",
        std::string(blocktable::CompressionName(metaindex_contents_.compression())));
  }
  const ByteSpan bytes = metaindex_contents_.bytes();
  const colblk::BlockPlace place{source_, metaindex_contents_.file_offset(), false,
                                 "metaindex block"};
  BLOOMCODEC_ASSIGN_OR_RETURN(colblk::KeyValueBlock kv,
                              colblk::KeyValueBlock::Decode(bytes, place));
  for (std::uint32_t i = 0; i < kv.rows(); ++i) {
    const ByteSpan value = kv.value(i);
    BLOOMCODEC_RETURN_IF_ERROR(
        AddMetaindexEntry(kv.key(i), value,
                          metaindex_contents_.file_offset() +
                              static_cast<std::uint64_t>(value.data() - bytes.data())));
  }
  return Status();
}

// Pebblev7: a key-value block, compressed like a data block; re-laid as the row block the
// property parser reads.
Status PebbleTable::ReadColumnarProperties() {
  const BlockHandle& h = properties_handle_;
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockContents c, ReadContents(h, "properties block"));
  const colblk::BlockPlace place{source_, c.file_offset(),
                                 c.compression() != BlockCompression::kNone, "properties block"};
  BLOOMCODEC_ASSIGN_OR_RETURN(colblk::KeyValueBlock kv,
                              colblk::KeyValueBlock::Decode(c.bytes(), place));
  BLOOMCODEC_RETURN_IF_ERROR(colblk::VerifyKeyValueBlock(kv));
  blocktable::BlockBuilder rows(1);
  for (std::uint32_t i = 0; i < kv.rows(); ++i) rows.Add(kv.key(i), kv.value(i));
  BLOOMCODEC_ASSIGN_OR_RETURN(properties_block_,
                              Relaid(rows.Finish(), h, source_, "properties block"));
  return Status();
}

// Pebblev7+: the footer's attributes are those the properties give (Properties.toAttributes).
Status PebbleTable::CheckAttributes() const {
  if (version() < kAttributesFormat) return Status();
  auto positive = [this](std::string_view name) { return Number(name).value_or(0) > 0; };
  std::uint32_t derived = 0;
  if (positive("pebble.num.value-blocks") || positive("pebble.num.values.in.value-blocks")) {
    derived |= 1;
  }
  if (positive("pebble.num.range-key-sets")) derived |= 2;
  if (positive("pebble.num.range-key-unsets")) derived |= 4;
  if (positive("pebble.num.range-key-dels")) derived |= 8;
  if (positive("rocksdb.num.range-deletions")) derived |= 16;
  if (two_level_) derived |= 32;
  if (positive("pebble.num.values.in.blob-files")) derived |= 64;
  if (positive("rocksdb.num.data.blocks")) derived |= 128;
  if (derived == footer_.attributes) return Status();
  return Status::Corrupt(source_, file_.size() - 61 + 41,
                         "footer attributes " + std::to_string(derived) +
                             ", those the properties give (Pebble: attributes mismatch)",
                         std::to_string(footer_.attributes));
}

Result<Block> PebbleTable::ReadDataBlock(const BlockHandle& h) const {
  if (!columnar()) return ReadBlock(h, "data block");
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockContents c, ReadContents(h, "data block"));
  const colblk::BlockPlace place{source_, c.file_offset(),
                                 c.compression() != BlockCompression::kNone, "data block"};
  BLOOMCODEC_ASSIGN_OR_RETURN(
      colblk::DataBlock block,
      colblk::DataBlock::Decode(c.bytes(), key_schema_, version() >= kTieringFormat, place));
  BLOOMCODEC_RETURN_IF_ERROR(colblk::VerifyDataBlock(block));
  // Internal keys: the user key, then its trailer (seqnum << 8 | kind) as LE u64.
  blocktable::BlockBuilder rows(16);
  ByteVector key;
  for (colblk::DataBlockIterator it(block); it.Valid(); it.Next()) {
    const ByteSpan user = it.user_key();
    key.assign(user.begin(), user.end());
    const std::uint64_t trailer = it.trailer();
    for (int i = 0; i < 8; ++i) key.push_back(static_cast<std::uint8_t>(trailer >> (8 * i)));
    rows.Add(key, it.value());
  }
  return Relaid(rows.Finish(), h, source_, "data block");
}

Result<Block> PebbleTable::ReadIndexBlock(const BlockHandle& h, std::string_view what) const {
  if (!columnar()) return ReadBlock(h, what);
  BLOOMCODEC_ASSIGN_OR_RETURN(BlockContents c, ReadContents(h, what));
  const colblk::BlockPlace place{source_, c.file_offset(),
                                 c.compression() != BlockCompression::kNone, what};
  BLOOMCODEC_ASSIGN_OR_RETURN(colblk::IndexBlock index,
                              colblk::IndexBlock::Decode(c.bytes(), place));
  BLOOMCODEC_RETURN_IF_ERROR(colblk::VerifyIndexBlock(index, comparer_));
  // The row index's values: the handle, then the block properties as stored.
  blocktable::BlockBuilder rows(1);
  ByteVector value;
  for (std::uint32_t i = 0; i < index.rows(); ++i) {
    value.clear();
    blocktable::AppendBlockHandle(BlockHandle{index.offset(i), index.length(i)}, value);
    const ByteSpan props = index.block_properties(i);
    value.insert(value.end(), props.begin(), props.end());
    rows.Add(index.separator(i), value);
  }
  return Relaid(rows.Finish(), h, source_, what);
}

Status PebbleTable::VerifyColumnarMetaBlocks() const {
  if (version() >= kFooterChecksumFormat) {
    const colblk::BlockPlace place{source_, metaindex_contents_.file_offset(), false,
                                   "metaindex block"};
    BLOOMCODEC_ASSIGN_OR_RETURN(colblk::KeyValueBlock kv,
                                colblk::KeyValueBlock::Decode(metaindex_contents_.bytes(), place));
    BLOOMCODEC_RETURN_IF_ERROR(colblk::VerifyKeyValueBlock(kv));
  }
  for (const auto& e : metaindex_entries_) {
    if (e.key != kRangeDelBlockName && e.key != kRangeKeyBlockName) continue;
    const std::string what =
        e.key == kRangeDelBlockName ? "range deletion block" : "range key block";
    BLOOMCODEC_ASSIGN_OR_RETURN(BlockContents c, ReadContents(*e.handle, what));
    const colblk::BlockPlace place{source_, c.file_offset(),
                                   c.compression() != BlockCompression::kNone, what};
    BLOOMCODEC_ASSIGN_OR_RETURN(colblk::KeyspanBlock b,
                                colblk::KeyspanBlock::Decode(c.bytes(), place));
    BLOOMCODEC_RETURN_IF_ERROR(colblk::VerifyKeyspanBlock(b, comparer_));
  }
  return Status();
}

Status PebbleTable::ForEachColumnarRangeDeletion(
    const std::function<Status(ByteSpan start, ByteSpan end)>& fn) const {
  for (const auto& e : metaindex_entries_) {
    if (e.key != kRangeDelBlockName) continue;
    BLOOMCODEC_ASSIGN_OR_RETURN(BlockContents c, ReadContents(*e.handle, "range deletion block"));
    const colblk::BlockPlace place{source_, c.file_offset(),
                                   c.compression() != BlockCompression::kNone,
                                   "range deletion block"};
    BLOOMCODEC_ASSIGN_OR_RETURN(colblk::KeyspanBlock b,
                                colblk::KeyspanBlock::Decode(c.bytes(), place));
    // Keys [start(i), start(i + 1)) span [boundary i, boundary i + 1).
    for (std::uint32_t i = 0; i + 1 < b.boundary_count(); ++i) {
      for (std::uint64_t k = b.boundary_start(i); k < b.boundary_start(i + 1); ++k) {
        BLOOMCODEC_RETURN_IF_ERROR(fn(b.boundary_key(i), b.boundary_key(i + 1)));
      }
    }
  }
  return Status();
}

}  // namespace bloomcodec::pebble

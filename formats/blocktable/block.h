// Blocks of a block-based table (LevelDB table, RocksDB SST): reading one (bounds, trailer
// checksum, decompression) and walking its entries.
//
//   using namespace bloomcodec::blocktable;
//   BLOOMCODEC_ASSIGN_OR_RETURN(BlockContents raw, ReadBlock(file, handle, source, {}));
//   BLOOMCODEC_ASSIGN_OR_RETURN(Block block, Block::Parse(std::move(raw), source));
//   BlockIterator it(block, KeyOrder::kBytewise);
//   BLOOMCODEC_RETURN_IF_ERROR(it.Seek(target));  // first entry >= target, as LevelDB's Seek
//   if (it.valid()) Use(it.key(), it.value());
//
// Compatibility contract: the block format of LevelDB's table/block.cc and block_builder.cc,
// which RocksDB's table/block_based/block.cc keeps (entries of varint32 shared, varint32
// non_shared, varint32 value length, key suffix, value; then LE u32 restart offsets and their
// LE u32 count), with RocksDB's additions named where they apply (BlockFooterLayout::kRocksDb,
// ValueEncoding::kIndexHandleDelta*). Seek finds the entry LevelDB's Block::Iter::Seek finds
// (binary search over restart points, then a linear scan). Unlike the originals, every varint,
// length, shared prefix and restart offset is checked against the block, and a violation is a
// Corrupt status at an absolute file offset (for a compressed block, the block's own offset,
// with the position inside the uncompressed bytes in the message). Uncompressed blocks are views
// of the caller's (mapped) file; decompressed ones are owned.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <boost/container/small_vector.hpp>

#include "blocktable/block_handle.h"
#include "blocktable/trailer.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::blocktable {

struct ReadBlockOptions {
  TrailerFormat trailer;         // whose type bytes and checksum (TrailerFormatOf the footer)
  bool verify_checksum = false;  // LevelDB checks only with paranoid_checks / verify_checksums
  std::uint64_t max_uncompressed_size = kMaxUncompressedBlockSize;
  // RocksDB's compression dictionary (the rocksdb.compression_dict meta block) for the table's
  // data blocks; empty for every other block and table.
  ByteSpan dictionary;
};

// A block's bytes (trailer stripped, decompressed), either viewing the file or owned.
class BlockContents {
 public:
  BlockContents() = default;
  static BlockContents View(ByteSpan bytes, std::uint64_t file_offset);
  static BlockContents Owned(ByteVector bytes, std::uint64_t file_offset);

  ByteSpan bytes() const { return bytes_; }
  std::uint64_t file_offset() const { return file_offset_; }
  bool owned() const { return owned_ != nullptr; }
  BlockCompression compression() const { return compression_; }
  void set_compression(BlockCompression c) { compression_ = c; }

 private:
  ByteSpan bytes_;
  std::uint64_t file_offset_ = 0;
  std::shared_ptr<const ByteVector> owned_;  // shared: a Block copy stays cheap
  BlockCompression compression_ = BlockCompression::kNone;
};

// Reads the block `handle` names: bounds, the trailer's checksum if asked, then its type byte and
// the decompression it calls for (trailer.h).
Result<BlockContents> ReadBlock(ByteSpan file, const BlockHandle& handle, std::string_view source,
                                const ReadBlockOptions& options, std::string_view what = "block");

// How keys are ordered inside a table.
enum class KeyOrder {
  kBytewise,  // leveldb.BytewiseComparator: memcmp, shorter first
  kInternal,  // InternalKeyComparator over bytewise: user key ascending, then the 8-byte tag
              // (sequence << 8 | type, LE) DEscending, so newer versions come first
  // RocksDB's ReverseBytewiseComparator (and comparators that wrap it, MyRocks's
  // rev:RocksDB_SE_v3.10): bytewise descending; and the internal-key order over it (user key
  // descending, then the tag descending as in kInternal).
  kReverseBytewise,
  kReverseInternal,
  // Keys under a comparator we do not know: the iterator reads them (internal keys still need
  // their tag), but no order is judged (CheckedBlockWalk, VerifyBlock) and nothing may be
  // sought (CompareKeys compares them as kBytewise / kInternal, which says nothing).
  kUnknown,
  kUnknownInternal,
  // Basho's LevelDB (Riak's eleveldb): kInternal, but the user key of its expiry types (2 and 3)
  // also drops the 8-byte expiry before the tag, and those types' tags compare as type 1.
  kBashoInternal,
};
// Whether keys under `order` end with an 8-byte tag.
inline bool IsInternalOrder(KeyOrder order) {
  return order == KeyOrder::kInternal || order == KeyOrder::kReverseInternal ||
         order == KeyOrder::kUnknownInternal || order == KeyOrder::kBashoInternal;
}
// Whether `order` is one whose keys can be judged and sought.
inline bool IsKnownOrder(KeyOrder order) {
  return order != KeyOrder::kUnknown && order != KeyOrder::kUnknownInternal;
}
// <0, 0, >0. For internal orders both keys must be >= 8 bytes (the iterator guarantees it for
// keys it returns); a shorter key is compared as a user key with tag 0.
int CompareKeys(KeyOrder order, ByteSpan a, ByteSpan b);
// CompareKeys(order, a, b) for keys known to share their first `common` bytes
// (common <= a.size(), b.size()): compares only from there.
int CompareKeysAfter(KeyOrder order, ByteSpan a, ByteSpan b, std::size_t common);

// How a block's last 4 bytes are read.
enum class BlockFooterLayout {
  kLevelDb,  // a plain LE u32 restart count
  // RocksDB (table/block_based/data_block_footer.cc): in blocks up to 64 KiB the top bit flags a
  // data-block hash index (kDataBlockBinaryAndHash) and the low 31 bits count the restarts; the
  // hash index (num_buckets u8 buckets, then LE u16 num_buckets) sits between the restart array
  // and the footer. Larger blocks never carry the index and store the plain count.
  kRocksDb,
  // Pebble's row blocks (formats/pebble/FORMAT.md §5.2): a plain LE u32 restart count, and restart
  // offsets of 31 bits whose top bit (format Pebblev3 on) flags a restart whose entries since the
  // one before are all SETs of one prefix; the offset is read without it.
  kPebble,
};

// A parsed block: the entries region and the restart array, validated for bounds.
class Block {
 public:
  static Result<Block> Parse(BlockContents contents, std::string_view source,
                             std::string_view what = "block",
                             BlockFooterLayout layout = BlockFooterLayout::kLevelDb);

  const BlockContents& contents() const { return contents_; }
  ByteSpan entries() const { return contents_.bytes().first(restarts_offset_); }
  std::uint32_t num_restarts() const { return num_restarts_; }
  std::uint32_t restart_point(std::uint32_t i) const;  // i < num_restarts()
  // RocksDB data-block hash index: its bucket count (0 when the block has none).
  std::uint32_t hash_index_buckets() const { return hash_index_buckets_; }
  bool has_hash_index() const { return has_hash_index_; }
  const std::string& source() const { return source_; }
  const std::string& what() const { return what_; }

  // A Corrupt status for a position inside the block's bytes.
  Status ErrorAt(std::size_t position, std::string expected, std::string found = {}) const;

 private:
  BlockContents contents_;
  std::string source_;
  std::string what_;
  std::uint32_t restarts_offset_ = 0;  // where the restart array starts
  std::uint32_t num_restarts_ = 0;
  bool has_hash_index_ = false;
  std::uint32_t hash_index_buckets_ = 0;
  std::uint32_t restart_mask_ = 0xffffffffu;  // kPebble: the offset's low 31 bits
};

// A reconstructed key: inline up to 128 bytes, so that an iterator made for one lookup (as
// TableReader::MayContain makes) allocates nothing for ordinary keys; longer keys spill to the
// heap once per iterator.
using KeyBuffer = boost::container::small_vector<std::uint8_t, 128>;

// How an entry's value is delimited.
enum class ValueEncoding {
  kLengthPrefixed,  // a varint32 value length in the entry header (LevelDB, RocksDB data blocks)
  // RocksDB index blocks with format_version >= 4 ("rocksdb.index.value.is.delta.encoded"): the
  // header has no value length. An entry with shared = 0 holds a whole block handle (varint64
  // offset, varint64 size); any other entry only the zigzag varint64 size delta to the previous
  // handle (its offset follows the previous block and its trailer).
  kIndexHandleDelta,
  // The same, each value followed by a varint32-length-prefixed first key
  // (kBinarySearchWithFirstKey).
  kIndexHandleDeltaWithFirstKey,
};

// Walks a block's entries. Holds the reconstructed key in a reused buffer (no allocation per
// entry once it has grown). Errors leave the iterator invalid.
class BlockIterator {
  friend class CheckedBlockWalk;

 public:
  BlockIterator(const Block& block, KeyOrder order,
                ValueEncoding values = ValueEncoding::kLengthPrefixed)
      : block_(&block), order_(order), values_(values) {}

  Status SeekToFirst();
  Status Next();  // requires valid()
  // Positions at the first entry whose key is >= target under the order; invalid if none.
  Status Seek(ByteSpan target);

  bool valid() const { return valid_; }
  ByteSpan key() const { return ByteSpan(key_.data(), key_.size()); }
  ByteSpan value() const { return value_; }
  std::size_t entry_position() const { return entry_; }  // inside the block's bytes
  std::uint32_t shared() const { return shared_; }       // the entry's shared-prefix length

 private:
  // One entry's lengths, checked against the entries region; the views point into the block.
  struct EntryView {
    std::uint32_t shared = 0;
    ByteSpan key_suffix;
    ByteSpan value;
    std::size_t next = 0;  // the following entry's position
  };
  Status DecodeEntryAt(std::size_t at, bool restart, EntryView& entry) const;
  // The common entry, inline: length-prefixed values, three one-byte lengths, key and value
  // inside the region, shared 0 at a restart. False for anything else, which DecodeEntryAt
  // decodes or refuses with its error.
  bool DecodeShortEntryAt(std::size_t at, bool restart, EntryView& entry) const {
    const ByteSpan region = block_->entries();
    if (values_ != ValueEncoding::kLengthPrefixed || at >= region.size()) return false;
    const std::uint8_t* const p = region.data() + at;
    const std::size_t left = region.size() - at;
    if (left < 3 || (p[0] | p[1] | p[2]) >= 0x80 || std::size_t{p[1]} + p[2] > left - 3 ||
        (restart && p[0] != 0)) {
      return false;
    }
    entry.shared = p[0];
    entry.key_suffix = ByteSpan(p + 3, p[1]);
    entry.value = ByteSpan(p + 3 + p[1], p[2]);
    entry.next = at + 3 + p[1] + p[2];
    return true;
  }
  // An entry sharing more bytes than the key before it has.
  Status SharedTooLongError(std::size_t at, std::size_t previous_size, std::uint32_t shared) const;
  // Restart point 0 not at offset 0 (a non-empty block).
  Status FirstRestartError() const;
  // kIndexHandleDelta*: the value's extent found by decoding it from `p`.
  Status DecodeIndexValueAt(std::size_t at, const std::uint8_t* p, std::uint32_t shared,
                            std::uint32_t non_shared, EntryView& entry) const;
  // Internal keys carry an 8-byte tag; anything shorter is corrupt.
  bool KeyTooShort(std::size_t key_size) const { return IsInternalOrder(order_) && key_size < 8; }
  Status ShortInternalKeyError(std::size_t at, std::size_t key_size) const;
  // The key of the restart entry at `at`, in place (no copy into key_).
  Status RestartKeyAt(std::size_t at, ByteSpan& key) const;
  // Decodes the entry at position `at`; with `restart` the shared length must be 0.
  Status ParseEntryAt(std::size_t at, bool restart);

  const Block* block_;
  KeyOrder order_;
  ValueEncoding values_;
  bool valid_ = false;
  std::size_t entry_ = 0;
  std::size_t next_ = 0;
  std::uint32_t shared_ = 0;
  KeyBuffer key_;
  ByteSpan value_;
};

// Walks a block's entries once and makes VerifyBlock's checks on the way, so that a caller who
// needs both the keys and the verdict reads the block once. The walk goes on past a failed check
// (the keys stay usable) and stops only where BlockIterator would (SeekToFirst or Next returns
// the error). Keeps the previous entry's key too (two buffers used in turn).
class CheckedBlockWalk {
 public:
  CheckedBlockWalk(const Block& block, KeyOrder order,
                   ValueEncoding values = ValueEncoding::kLengthPrefixed)
      : block_(&block), order_(order), decoder_(block, order, values) {}

  Status SeekToFirst();
  Status Next() {  // requires valid()
    valid_ = false;
    if (next_ >= block_->entries().size()) {
      CheckEnd();
      return Status();
    }
    return ParseEntryAt(next_, false);
  }

  bool valid() const { return valid_; }
  // After the walk ended or stopped at an error, key() is still the last entry's key.
  ByteSpan key() const { return ByteSpan(keys_[current_].data(), keys_[current_].size()); }
  // The key of the entry before this one (meaningful when entries() > 1).
  ByteSpan previous_key() const {
    return ByteSpan(keys_[current_ ^ 1].data(), keys_[current_ ^ 1].size());
  }
  ByteSpan value() const { return value_; }
  std::size_t entry_position() const { return entry_; }
  std::uint32_t shared() const { return shared_; }
  // The entries walked so far, the current one included.
  std::uint64_t entries() const { return entries_; }
  // What VerifyBlock reports, as far as the walk got: the first failed check, or the error
  // SeekToFirst or Next returned, whichever came first; ok while there is none. Final once the
  // walk has ended (valid() false after an ok Next) or stopped at an error.
  const Status& damage() const { return damage_; }

 private:
  Status ParseEntryAt(std::size_t at, bool restart);
  Status Stop(Status s) {
    if (damage_.ok()) damage_ = s;
    return s;
  }
  void CheckEntry();
  void CheckEnd();

  const Block* block_;
  KeyOrder order_;
  BlockIterator decoder_;  // decodes entries (its own walk state is unused)
  bool valid_ = false;
  std::size_t entry_ = 0;
  std::size_t next_ = 0;
  std::uint32_t shared_ = 0;
  std::uint32_t next_restart_ = 0;
  std::uint64_t entries_ = 0;
  unsigned current_ = 0;
  KeyBuffer keys_[2];
  ByteSpan value_;
  Status damage_;
};

// Strict check of a whole block: entries tile the region exactly, restart 0 is 0, restart
// offsets increase and each lands on an entry with shared = 0, keys strictly increase under
// `order` (not judged for an unknown order). Counts the entries.
Result<std::uint64_t> VerifyBlock(const Block& block, KeyOrder order,
                                  ValueEncoding values = ValueEncoding::kLengthPrefixed);

}  // namespace bloomcodec::blocktable

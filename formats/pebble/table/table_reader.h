// Reading Pebble's tables, row-based (Pebblev1..v4) and columnar (Pebblev5..v8): footer, metaindex,
// properties, index
// (one or two levels, block properties after each handle), data blocks, and the table filter.
// Internal to the library (included as "pebble/table/table_reader.h"); the verify plug-in
// (verify.cc) and the `pebble-table` format (format_codecs.cc) read tables through it.
//
//   using namespace bloomcodec::pebble;
//   BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTable t, PebbleTable::Open(file_bytes, "000010.sst"));
//   std::vector<std::uint8_t> answers(user_keys.size());
//   t.MayContainBatch(user_keys, answers);  // as Pebble's read path asks its filter
//
// Contract (formats/pebble/FORMAT.md §2 - §7):
// * The footer: the Pebble magic f0 9f aa b3 f0 9f aa b3; the LE u32 version 12 bytes from the
//   end (the same place in all four footer layouts); versions 1..5 have the 53-byte footer of
//   RocksDB (checksum type byte, both handles, zero padding, version, magic), version 6 adds the
//   footer checksum (57 bytes), 7 and 8 the attributes before it (61 bytes). Version 0, checksum
//   types other than 1 (CRC-32C) and 3 (XXHash64) and a footer checksum mismatch are Corrupt, as
//   Pebble refuses them; versions above 8 (unknown) are Unsupported, naming the version.
// * Every block's trailer checksum is verified when read; compression types 0 (none), 1 (Snappy)
//   and 7 (Zstd with Pebble's uvarint length prefix) are read, and from Pebblev6 type 8 (MinLZ)
//   in its two forms we can decode without a MinLZ decoder (literal, Snappy fallback); a true
//   MinLZ block is Unsupported, any other type Corrupt. Row blocks use Pebble's restart layout
//   (the top bit of a restart offset is masked, BlockFooterLayout::kPebble).
// * Metaindex: raw names, exactly one handle per value (pebble.value_index: handle and 3 width
//   bytes), uncompressed (a row block up to Pebblev5, a key-value block from Pebblev6), a
//   rocksdb.properties entry required. Properties: a row block, a key-value block from Pebblev7
//   (which may be compressed); Pebblev7's footer attributes must equal those the properties give.
// * Index: row tables: internal keys, values a handle followed by block properties (shortID
//   byte, uvarint length > 0, bytes); rocksdb.block.based.table.index.type 2 is a two-level index.
//   Columnar tables (Pebblev5+): columnar index blocks of user-key separators; each is checked
//   (colblk::VerifyIndexBlock) and handed to the block-table walk as a row block of the same
//   separators and values (a handle, then the block properties).
// * Columnar data blocks are decoded under the key schema pebble.colblk.schema names (Unsupported
//   for a schema we do not know, as Pebble's reader refuses it), checked (colblk::VerifyDataBlock)
//   and handed on as a row block of internal keys (user key, LE trailer) and values.
// * Filter: fullfilter.rocksdb.BuiltinBloomFilter (pebble/bloom.h) or fullfilter.binaryfuse
//   (pebble/binary_fuse.h), holding key[:Split(key)] of every point key. Split is the whole key
//   for leveldb.BytewiseComparator, CockroachDB's for cockroach_comparator.
// Errors name the file and an absolute offset.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blocktable/block.h"
#include "blocktable/footer.h"
#include "blocktable/index_block.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"
#include "pebble/binary_fuse.h"
#include "pebble/bloom.h"
#include "pebble/colblk/key_schema.h"
#include "pebble/colblk/kv_block.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::pebble {

// The two cockroach emoji U+1FAB3, as a little-endian u64.
inline constexpr std::uint64_t kPebbleTableMagic = 0xb3aa9ff0b3aa9ff0ull;
inline constexpr std::uint32_t kFirstRowFormat = 1;        // Pebblev1
inline constexpr std::uint32_t kLastRowFormat = 4;         // Pebblev4; Pebblev5 on are columnar
inline constexpr std::uint32_t kLastKnownFormat = 8;       // Pebblev8
inline constexpr std::uint32_t kValuePrefixFormat = 3;     // Pebblev3: value prefix, restart bit
inline constexpr std::uint32_t kObsoleteBitFormat = 4;     // Pebblev4: obsolete bit, DELSIZED
inline constexpr std::uint32_t kFooterChecksumFormat = 6;  // Pebblev6: footer checksum, MinLZ,
                                                           // key-value metaindex
inline constexpr std::uint32_t kAttributesFormat = 7;      // Pebblev7: attributes, kv properties
inline constexpr std::uint32_t kTieringFormat = 8;         // Pebblev8: tiering columns
inline constexpr std::uint8_t kObsoleteBit = 0x40;

inline constexpr std::string_view kTableFormatName = "pebble-table";
inline constexpr std::string_view kBloomFilterBlockName = "fullfilter.rocksdb.BuiltinBloomFilter";
inline constexpr std::string_view kBinaryFuseFilterBlockName = "fullfilter.binaryfuse";
inline constexpr std::string_view kRangeDelBlockName = "rocksdb.range_del2";
inline constexpr std::string_view kRangeKeyBlockName = "pebble.range_key";
inline constexpr std::string_view kValueIndexBlockName = "pebble.value_index";

// "Pebblev3".
std::string PebbleFormatName(std::uint32_t version);
// True when the file ends in the Pebble magic and is long enough for Pebble's smallest footer.
bool HasPebbleTableMagic(ByteSpan file);

// Which footers PebbleTable::Open takes: Pebble's own (what `verify`, `inspect` and `convert` read
// as pebble-table), or also those of the two row formats Pebble writes below format major
// version 5 (FORMAT.md §8.5), which `repair` rewrites inside a Pebble database:
// TableFormatRocksDBv2 (RocksDB's block-based magic, footer version 2; other versions are
// Unsupported, as Pebble refuses them) and TableFormatLevelDB (LevelDB's 48-byte footer).
enum class PebbleFooters { kPebble, kPebbleAndRocksDb };

// How PebbleTable::Open reads; the defaults are the pebble-table readers'.
struct PebbleOpenOptions {
  PebbleFooters footers = PebbleFooters::kPebble;
  // A filter block that fails its checksum or does not parse is no error: filter().damage says
  // why, filter().handle still names the block, and the table reads as one without a filter
  // (repair rebuilds such a filter from the table's keys; a bad data or index block still fails).
  bool tolerate_damaged_filter = false;
};

struct PebbleFooter {
  // Pebblev1..v8; 0 for RocksDBv2 and LevelDB (footer.magic tells which). Both are row tables
  // laid out as Pebblev1 (no value prefix, no block properties in their index handles).
  std::uint32_t version = 0;
  blocktable::Footer footer;     // checksum type and handles (magic: Pebble's, or version 0's)
  std::uint32_t attributes = 0;  // Pebblev7+ (FORMAT.md §2.1)
};
// "Pebblev3", "RocksDBv2", "LevelDB".
std::string PebbleFooterFormatName(const PebbleFooter& footer);
// Decodes the footer of a table (see the contract above).
Result<PebbleFooter> DecodePebbleFooter(ByteSpan file, std::string_view source,
                                        PebbleFooters accepted = PebbleFooters::kPebble);
// Appends a Pebblev1..v8 footer, with the v6+ footer checksum (tests, fuzz seeds), or for
// version 0 RocksDB's footer under footer.footer's magic.
void AppendPebbleFooter(const PebbleFooter& footer, ByteVector& out);

enum class PebbleFilterKind { kNone, kBloom, kBinaryFuse };

struct PebbleFilter {
  PebbleFilterKind kind = PebbleFilterKind::kNone;
  blocktable::BlockHandle handle;
  std::optional<BloomReader> bloom;
  std::optional<BinaryFuseReader> fuse;
  std::string damage;  // PebbleOpenOptions::tolerate_damaged_filter: why the block was not read
  // A filter block is in the file (read, or damaged): `handle` names it.
  bool stored() const { return kind != PebbleFilterKind::kNone || !damage.empty(); }
};

class PebbleTable {
 public:
  static Result<PebbleTable> Open(ByteSpan file, std::string source,
                                  const PebbleOpenOptions& options = {});

  const std::string& source() const { return source_; }
  ByteSpan file() const { return file_; }
  std::uint32_t version() const { return footer_.version; }  // 0: RocksDBv2 or LevelDB
  std::string format_name() const { return PebbleFooterFormatName(footer_); }
  const PebbleFooter& pebble_footer() const { return footer_; }
  std::uint32_t attributes() const { return footer_.attributes; }  // Pebblev7+
  const blocktable::Footer& footer() const { return footer_.footer; }
  const std::vector<rocksdb::SstMetaindexEntry>& metaindex() const { return metaindex_entries_; }
  const blocktable::Block& metaindex_block() const { return metaindex_; }
  const blocktable::Block& index_block() const { return index_; }
  const rocksdb::TableProperties& properties() const { return properties_; }
  const blocktable::BlockHandle& properties_handle() const { return properties_handle_; }
  // A property Pebble stores as a uvarint (nullopt when absent or malformed).
  std::optional<std::uint64_t> Number(std::string_view name) const;
  const PebbleFilter& filter() const { return filter_; }
  bool two_level_index() const { return two_level_; }
  // The comparer the properties name, and whether we know its Split and order.
  const std::string& comparer_name() const { return comparer_name_; }
  colblk::KeyComparer comparer() const { return comparer_; }

  // Pebblev5 on: columnar data, index and keyspan blocks.
  bool columnar() const { return footer_.version > kLastRowFormat; }
  // The key schema of a columnar table's data blocks.
  const colblk::KeySchema& key_schema() const { return key_schema_; }

  blocktable::ReadBlockOptions BlockOptions() const;
  // A block's bytes: bounds, trailer checksum, Pebble's compression types (MinLZ: see above).
  Result<blocktable::BlockContents> ReadContents(const blocktable::BlockHandle& handle,
                                                 std::string_view what) const;
  // A row block: ReadContents, parsed with Pebble's layout.
  Result<blocktable::Block> ReadBlock(const blocktable::BlockHandle& handle,
                                      std::string_view what) const;
  // A data block as a row block: columnar ones decoded, checked and re-laid (see above).
  Result<blocktable::Block> ReadDataBlock(const blocktable::BlockHandle& handle) const;
  // An index block (the index, a partition) as a row block: columnar ones checked and re-laid.
  Result<blocktable::Block> ReadIndexBlock(const blocktable::BlockHandle& handle,
                                           std::string_view what) const;
  // Columnar tables: the checks of the metaindex and range-deletion blocks the writer's
  // invariants give (their trailers are checked by the caller).
  Status VerifyColumnarMetaBlocks() const;
  blocktable::IndexLayout index_layout() const;
  // A handle followed by its block properties; the handle must lie inside the file.
  Result<blocktable::BlockHandle> DecodeIndexValue(const blocktable::IndexEntry& entry) const;
  // The index partitions of a two-level index (none for a single-level one).
  Status ForEachIndexPartition(const blocktable::IndexEntryFn& fn) const;
  // The data blocks the index names, in its order (partitions read with their checksums; no
  // data block read).
  Status ForEachDataBlock(const blocktable::IndexEntryFn& fn) const;
  // Every entry of the range-deletion block (none without one).
  Status ForEachRangeDeletion(const std::function<Status(ByteSpan start, ByteSpan end)>& fn) const;

  // The filter's answers for user keys, as Pebble's read path gives them: key[:Split(key)]
  // asked of the filter; 1 for every key without a filter.
  void MayContainBatch(const KeyList& user_keys, std::span<std::uint8_t> answers) const;
  // The same through a virtual table of this backing file whose keys show `synthetic_prefix`
  // (FORMAT.md §8.3): Pebble's reader takes key[:Split(key)], cuts the synthetic prefix off and
  // asks the filter the rest; a key without that prefix is absent (0) when there is a filter. A
  // synthetic suffix replaces what follows Split, which no filter holds: it changes no answer.
  void MayContainBatch(const KeyList& user_keys, ByteSpan synthetic_prefix,
                       std::span<std::uint8_t> answers) const;

 private:
  PebbleTable() = default;
  Status ReadMetaindex();
  Status ReadColumnarMetaindex();
  // One metaindex entry: its value exactly one handle (and 3 widths for the value index).
  Status AddMetaindexEntry(ByteSpan key, ByteSpan value, std::uint64_t value_at);
  Status ForEachColumnarRangeDeletion(
      const std::function<Status(ByteSpan start, ByteSpan end)>& fn) const;
  Status ReadProperties();
  Status ReadColumnarProperties();
  Status CheckAttributes() const;
  Status ReadFilter();
  Status ReadFilterBlock(const rocksdb::SstMetaindexEntry& e);

  std::string source_;
  ByteSpan file_;
  PebbleFooter footer_;
  blocktable::Block metaindex_;
  blocktable::Block index_;
  std::vector<rocksdb::SstMetaindexEntry> metaindex_entries_;
  blocktable::Block properties_block_;
  rocksdb::TableProperties properties_;
  blocktable::BlockHandle properties_handle_;
  blocktable::BlockContents filter_contents_;  // what the filter's reader views
  PebbleFilter filter_;
  bool two_level_ = false;
  std::string comparer_name_;
  colblk::KeyComparer comparer_ = colblk::KeyComparer::kBytewise;
  colblk::KeySchema key_schema_;
  blocktable::BlockContents metaindex_contents_;  // Pebblev6+: the key-value block's bytes
};

}  // namespace bloomcodec::pebble

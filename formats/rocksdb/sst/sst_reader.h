// Reading a RocksDB block-based table (SST): metaindex, properties, index (binary search or
// two-level), data blocks, and the full or partitioned filter, answering probes as RocksDB 7.8's
// BlockBasedTable::Get consults the filter.
//
//   using namespace bloomcodec::rocksdb;
//   BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::InputFile in, bloomcodec::InputFile::Open(path));
//   BLOOMCODEC_ASSIGN_OR_RETURN(SstReader sst, SstReader::Open(in.bytes(), path));
//   std::vector<std::uint8_t> answers(user_keys.size());
//   BLOOMCODEC_RETURN_IF_ERROR(sst.MayContainBatch(user_keys, answers));
//
// Compatibility contract (RocksDB 7.8, table/block_based/*):
// * The filter is the metaindex entry "fullfilter." or "partitionedfilter." followed by a name
//   of the built-in filters (IsBuiltinFilterName: rocksdb.BuiltinBloomFilter, the compatibility
//   name of every built-in Bloom and Ribbon policy, or an alias RocksDB 7.0.x or TiKV wrote).
//   Entries of other policies are listed but not used. Without either, "filter." followed by
//   such a name is the block-based filter of RocksDB <= 6.x (7.x ignores it; answered here as
//   6.x answers, see FilterPlacement). Whatever the name, the filter's own bytes (a full
//   filter's trailer) say how it is decoded.
// * A probe is a user key. With whole-key filtering (the property
//   rocksdb.block.based.table.whole.key.filtering, "1" when absent) the full filter answers for
//   the user key itself, before any index lookup. A partitioned filter's top-level index is
//   sought with the lookup key (user key, or user key + the newest tag when index keys are
//   internal keys); past its end the last partition answers. No usable filter: 1.
// * Data blocks hold internal keys (user key + 8-byte tag) in InternalKeyComparator order over
//   the user comparator the property rocksdb.comparator names (UserKeyOrder); index keys are user
//   keys when rocksdb.index.key.is.user.key is 1; index values are delta-encoded block handles
//   when rocksdb.index.value.is.delta.encoded is 1. Under a comparator we do not know, nothing
//   is sought in an index (DataBlockFor and a partitioned filter's lookups are Unsupported).
// Every structure is checked, errors name the file and absolute offset.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blocktable/block.h"  // internal for now: BlockHandle, Block, KeyOrder in this API
#include "blocktable/footer.h"
#include "blocktable/index_block.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/status.h"

namespace bloomcodec::rocksdb {

inline constexpr std::string_view kBuiltinFilterName = "rocksdb.BuiltinBloomFilter";
// Whether `policy_name` (a filter's metaindex key without "fullfilter.", "partitionedfilter." or
// "filter.") names RocksDB's built-in filters, which read each other's filters:
// * rocksdb.BuiltinBloomFilter: what every RocksDB writes, except 7.0.0 to 7.0.2;
// * what RocksDB 7.0.0 to 7.0.2 wrote instead (the policy's Name(), not its compatibility
//   name): bloomfilter, ribbonfilter, and the internal policies' names
//   rocksdb.internal.{LegacyBloom,FastLocalBloom,Standard128Ribbon,DeprecatedBlockBasedBloom}Filter;
//   RocksDB 7.0.3 and later read all of them as built-in (block_based_table_reader.cc,
//   kBuiltinNameAndAliases);
// * TiKV's names: rocksdb.BuiltinBloomFilter.FullBloom, .Ribbon and .BlockBloom, the Name() of
//   tikv/rust-rocksdb's wrappers of NewBloomFilterPolicy (full or block-based) and
//   NewRibbonFilterPolicy from April 2023 (#740, TiKV 7.1 and later, on RocksDB 6.29.tikv, whose
//   metaindex key is "prefix + Name()") until July 2024 (#794); tikv/rocksdb 6.29.tikv reads
//   every name starting with rocksdb.BuiltinBloomFilter as built-in.
bool IsBuiltinFilterName(std::string_view policy_name);
inline constexpr std::string_view kPropertiesBlockName = "rocksdb.properties";
// The range-deletion meta block: internal keys (start key + tag of type kTypeRangeDeletion) whose
// values are the exclusive end user keys.
inline constexpr std::string_view kRangeDelBlockName = "rocksdb.range_del";
// The compression dictionary of the data blocks (zstd, LZ4, zlib with max_dict_bytes > 0).
inline constexpr std::string_view kCompressionDictBlockName = "rocksdb.compression_dict";
// The tag of a lookup key: the newest sequence a DB can hold, kValueTypeForSeek (0x16 in 7.8).
inline constexpr std::uint64_t kLookupTag = (((std::uint64_t{1} << 56) - 2) << 8) | 0x16;

// The user comparator's order, from the name rocksdb.comparator records: bytewise
// (leveldb.BytewiseComparator, MyRocks's RocksDB_SE_v3.10, or no name recorded), reverse
// bytewise (rocksdb.ReverseBytewiseComparator, MyRocks's rev:RocksDB_SE_v3.10), or unknown.
enum class UserKeyOrder { kBytewise, kReverseBytewise, kUnknown };
UserKeyOrder UserKeyOrderOf(std::string_view comparator_name);

// BlockBasedTableOptions::IndexType as the property rocksdb.block.based.table.index.type stores it.
enum class IndexType : std::uint32_t {
  kBinarySearch = 0,
  kHashSearch = 1,
  kTwoLevelIndexSearch = 2,
  kBinarySearchWithFirstKey = 3,
};
std::string_view IndexTypeName(IndexType type);

// kBlockBased: "filter." + rocksdb.BuiltinBloomFilter, what RocksDB <= 6.x wrote by default
// (use_block_based_builder): LevelDB's filter-block layout (one filter per 2^base_lg bytes of
// data-block offsets), each filter LevelDB's Bloom layout hashed with RocksDB's BloomHash
// (LevelDB's hash with sign-extended tail bytes). RocksDB 7.0 stopped writing it, 7.4 reading
// it; it is probed here as 5.x and 6.x probe it, through the data block the index names for
// the key.
enum class FilterPlacement { kFull, kPartitioned, kBlockBased };

struct SstMetaindexEntry {
  std::string key;
  ByteSpan value;              // inside the metaindex block's contents
  std::uint64_t value_at = 0;  // its file offset; the block's if that is compressed
  std::optional<blocktable::BlockHandle> handle;  // when the value decodes as exactly one handle
};

// One entry of the properties block. Numbers are decoded for the names RocksDB stores as varint64
// (and the two fixed-width ones SstFileWriter and the table builder add).
struct TableProperty {
  std::string name;
  ByteSpan raw;
  std::optional<std::uint64_t> number;
  bool malformed = false;  // a numeric name whose value does not decode (RocksDB skips it)
};

struct TableProperties {
  std::vector<TableProperty> entries;
  const TableProperty* Find(std::string_view name) const;
  std::optional<std::uint64_t> Number(std::string_view name) const;
  std::optional<std::string> String(std::string_view name) const;
};

// Parses a properties block's entries (keys bytewise, values raw).
Result<TableProperties> ParseProperties(const blocktable::Block& block);

struct SstFilterInfo {
  std::string metaindex_key;
  FilterPlacement placement = FilterPlacement::kFull;
  // Whose bits the filter holds: built-in, or Speedb's paired Bloom (metaindex key
  // "fullfilter.speedb_paired_bloom_filter" or "partitionedfilter." + the same).
  FilterPolicyFamily family = FilterPolicyFamily::kBuiltin;
  blocktable::BlockHandle handle;      // the filter block, or the partitions' top-level index
  blocktable::BlockContents contents;  // its bytes
};

struct SstOpenOptions {
  bool verify_checksums = false;
  // With verify_checksums: the filter block's (or partition index's) too. A repair, which
  // replaces the filter, reads a table whose filter block alone is damaged without it; false
  // also opens a table whose partitioned filter's top-level index does not parse (no
  // partition is then found for a probe: FilterBlockFor is Corrupt).
  bool verify_filter_checksum = true;
  std::uint64_t max_uncompressed_block_size = blocktable::kMaxUncompressedBlockSize;
};

class SstReader {
 public:
  static Result<SstReader> Open(ByteSpan file, std::string source,
                                const SstOpenOptions& options = {});

  const std::string& source() const { return source_; }
  ByteSpan file() const { return file_; }
  const blocktable::Footer& footer() const { return footer_; }
  // The index block: the footer's handle, or from format_version 6 on the metaindex entry
  // "rocksdb.index".
  const blocktable::BlockHandle& index_handle() const { return index_handle_; }
  const std::vector<SstMetaindexEntry>& metaindex() const { return metaindex_entries_; }
  const blocktable::Block& metaindex_block() const { return metaindex_; }
  const blocktable::Block& index_block() const { return index_; }
  const std::optional<TableProperties>& properties() const { return properties_; }
  const std::optional<blocktable::BlockHandle>& properties_handle() const {
    return properties_handle_;
  }
  const std::optional<SstFilterInfo>& filter() const { return filter_; }
  IndexType index_type() const { return index_type_; }
  bool index_key_is_user_key() const { return index_key_is_user_key_; }
  bool index_value_is_delta_encoded() const { return index_value_delta_; }
  bool whole_key_filtering() const { return whole_key_filtering_; }
  // The comparator's order, its name as recorded (empty: none), and the orders of the data
  // blocks' internal keys and of the index keys under it.
  UserKeyOrder user_key_order() const { return user_key_order_; }
  const std::string& comparator_name() const { return comparator_name_; }
  blocktable::KeyOrder data_key_order() const;
  blocktable::KeyOrder index_key_order() const;
  blocktable::ValueEncoding index_value_encoding() const;
  blocktable::ReadBlockOptions BlockOptions() const;

  // The filter's answer for a user key (1 without a usable filter or whole-key filtering).
  Result<bool> MayContain(ByteSpan user_key) const;
  Status MayContainBatch(const KeyList& user_keys, std::span<std::uint8_t> answers) const;
  // A partitioned filter: the partition the probe is asked in. Full filter: the filter block.
  Result<blocktable::BlockHandle> FilterBlockFor(ByteSpan user_key) const;
  // Whether the full or partitioned filter holds `entry` (a whole key or a prefix), whatever
  // whole-key filtering says; a partitioned filter is asked in the partition of `user_key`.
  // Block-based filters and tables without a filter: true.
  Result<bool> FilterHolds(ByteSpan entry, ByteSpan user_key) const;

  // Decodes an index entry's value (the iterator's shared length says delta or whole handle);
  // `previous` is the entry before it in the same block. A handle reaching past the file is
  // Corrupt at the entry.
  Result<blocktable::BlockHandle> DecodeIndexValue(const blocktable::Block& block,
                                                   std::size_t entry_position, std::uint32_t shared,
                                                   ByteSpan value,
                                                   const blocktable::BlockHandle* previous) const;
  Result<blocktable::BlockHandle> DecodeIndexValue(const blocktable::IndexEntry& entry) const;
  // How the index is walked: its block, value encoding, and whether it has two levels.
  blocktable::IndexLayout index_layout() const;
  // Every entry of an index-format block with its decoded handle.
  Status ForEachIndexEntry(
      const blocktable::Block& block,
      const std::function<Status(ByteSpan key, const blocktable::BlockHandle&)>& fn) const;
  // The index partitions of a two-level index (empty for the other index types).
  Status ForEachIndexPartition(
      const std::function<Status(ByteSpan key, const blocktable::BlockHandle&)>& fn) const;
  // Every data block in index order with its index key.
  Status ForEachDataBlock(
      const std::function<Status(ByteSpan index_key, const blocktable::BlockHandle& handle)>& fn)
      const;
  // Every range deletion (the "rocksdb.range_del" meta block) in stored order: its start as an
  // internal key and its end user key. No such block: none. Keys are not compared (releases
  // before fragmented tombstones wrote them in insertion order).
  Status ForEachRangeDeletion(
      const std::function<Status(ByteSpan start_internal_key, ByteSpan end_user_key)>& fn) const;
  // Every entry in file order: internal keys as stored.
  Status ForEachEntry(const std::function<Status(ByteSpan key, ByteSpan value,
                                                 const blocktable::BlockHandle& block)>& fn) const;
  Result<blocktable::Block> ReadBlock(const blocktable::BlockHandle& handle,
                                      std::string_view what) const;
  // A data block: decompressed with the table's compression dictionary when it has one.
  Result<blocktable::Block> ReadDataBlock(const blocktable::BlockHandle& handle) const;
  // The rocksdb.compression_dict meta block's bytes (empty: none).
  ByteSpan compression_dictionary() const { return dictionary_.bytes(); }
  // The data block whose index entry is the first >= the lookup key (nullopt past the end).
  Result<std::optional<blocktable::BlockHandle>> DataBlockFor(ByteSpan user_key) const;

 private:
  SstReader() = default;
  Status ReadMetaindex();
  Status FindIndexHandle();
  Status ReadDictionary();
  Status ReadPropertiesBlock();
  Status FindFilter();
  Status CheckIndexedBlockInFile(const blocktable::Block& block, std::size_t entry_position,
                                 const blocktable::BlockHandle& h) const;
  void MakeLookupKey(ByteSpan user_key, ByteVector& out, bool user_key_index) const;
  Result<std::optional<blocktable::BlockHandle>> SeekIndexBlock(const blocktable::Block& block,
                                                                ByteSpan lookup,
                                                                bool last_if_past) const;

  std::string source_;
  ByteSpan file_;
  SstOpenOptions options_;
  blocktable::Footer footer_;
  blocktable::BlockHandle index_handle_;
  blocktable::Block metaindex_;
  blocktable::Block index_;
  std::vector<SstMetaindexEntry> metaindex_entries_;
  std::optional<TableProperties> properties_;
  std::optional<blocktable::BlockHandle> properties_handle_;
  blocktable::Block properties_block_;
  blocktable::BlockContents dictionary_;
  std::optional<SstFilterInfo> filter_;
  std::optional<blocktable::Block> filter_index_;  // partitioned filter: the top-level index
  IndexType index_type_ = IndexType::kBinarySearch;
  bool index_key_is_user_key_ = false;
  bool index_value_delta_ = false;
  bool whole_key_filtering_ = true;
  UserKeyOrder user_key_order_ = UserKeyOrder::kBytewise;
  std::string comparator_name_;
};

// A name read from the file (metaindex key, property name) fit for messages and JSON: itself
// when printable ASCII, else "hex:" and its bytes in hex.
std::string PrintableName(std::string_view name);

// The user key of an internal key (the 8-byte tag dropped).
inline ByteSpan UserKeyOf(ByteSpan internal_key) {
  return internal_key.first(internal_key.size() >= 8 ? internal_key.size() - 8 : 0);
}

}  // namespace bloomcodec::rocksdb

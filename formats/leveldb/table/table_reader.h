// Reading a LevelDB table file (.ldb / .sst) and answering membership probes exactly as LevelDB's
// read path does.
//
//   using namespace bloomcodec::leveldb;
//   BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::InputFile in, bloomcodec::InputFile::Open(path));
//   TableOpenOptions options;
//   options.key_kind = bloomcodec::KeyKind::kUser;     // a database's table
//   BLOOMCODEC_ASSIGN_OR_RETURN(TableReader table, TableReader::Open(in.bytes(), path, options));
//   std::vector<std::uint8_t> answers(keys.size());
//   BLOOMCODEC_RETURN_IF_ERROR(table.MayContainBatch(keys, answers));
//
// Compatibility contract (LevelDB 1.23's Table::Open / Table::InternalGet / Version::Get):
// * The filter is the metaindex entry "filter." + policy name: leveldb.BuiltinBloomFilter2 (1.18+,
//   unsigned-tail hash) or, when only that exists, leveldb.BuiltinBloomFilter (<= 1.17, answered
//   with the x86 signed-tail hash as LevelDB 1.17 answered; 1.18+ would ignore it).
// * A probe seeks the index block with the lookup key (plain: the probe itself under bytewise
//   order; user: probe + tag(sequence, type 1) under internal-key order). Past the last index
//   entry -> 0. Otherwise that data block's filter (filter number = block offset >> base_lg)
//   answers for the probe (user tables: the filter hashes the user key, as LevelDB's
//   InternalFilterPolicy strips the tag); a table without a filter answers 1.
// * Basho's LevelDB (Riak's eleveldb), told by its metaindex entry "stats.sst1": its
//   leveldb.BuiltinBloomFilter2 is Basho's bloom2 (not 1.18+'s filter), its
//   leveldb.BuiltinBloomFilter Google's original with the signed-tail hash (Basho reads both);
//   its internal keys of types 2 and 3 carry an expiry before the tag (user key: minus 16
//   bytes), and its keys order under Basho's comparator (KeyOrder::kBashoInternal).
// * User tables are also asked only when the probe lies within [smallest, largest] user key of
//   the table, as Version::Get skips tables whose range excludes the key.
// Differences from LevelDB, on purpose: every structure is checked (a damaged metaindex or filter
// handle is a Corrupt error here, where LevelDB silently drops the filter), and CRCs are checked
// when asked (verify_checksums), with errors at absolute file offsets.
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
#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/leveldb/hash.h"
#include "bloomcodec/leveldb/options.h"
#include "bloomcodec/status.h"
#include "leveldb/basho_bloom.h"

namespace bloomcodec::leveldb {

// LevelDB's largest sequence number, 2^56 - 1.
inline constexpr std::uint64_t kMaxSequenceNumber = (std::uint64_t{1} << 56) - 1;
// The default snapshot of user-table probes. Any sequence at least as large as every sequence in
// the table and below kMaxSequenceNumber picks the same data block as DB::Get at the database's
// last sequence; kMaxSequenceNumber itself does NOT: an index separator shortened by LevelDB
// carries exactly (kMaxSequenceNumber, type 1), and a probe equal to its user key would then stop
// one block earlier than DB::Get does.
inline constexpr std::uint64_t kNewestSnapshotSequence = kMaxSequenceNumber - 1;

// FilterWriter (bloomcodec/leveldb/options.h): who wrote a table's filter.
// "leveldb" (or "leveldb-1.18+"), "leveldb-1.17", "goleveldb"; "" and "auto" are kAuto.
Result<FilterWriter> ParseFilterWriter(std::string_view name);
inline constexpr std::string_view kFilterWriterNames = "leveldb, leveldb-1.17, goleveldb";

struct TableOpenOptions {
  bool verify_checksums = false;
  // With verify_checksums: the filter block's too. A repair, which replaces the filter, reads a
  // table whose filter block alone is damaged without it.
  bool verify_filter_checksum = true;
  KeyKind key_kind = KeyKind::kAuto;
  std::optional<std::uint64_t> sequence;  // user tables: the lookup snapshot; <= kMaxSequenceNumber
  std::uint64_t max_uncompressed_block_size = blocktable::kMaxUncompressedBlockSize;
  FilterWriter writer = FilterWriter::kAuto;
  // Basho's bloom2 filters are asked with this build's hashes (basho_bloom.h); null: x86-64's.
  const Bloom2Build* bloom2_build = nullptr;
};

struct MetaindexEntry {
  std::string key;
  ByteVector value;            // normally an encoded blocktable::BlockHandle
  std::uint64_t value_offset;  // absolute; the block's offset when it is Snappy-compressed
};

struct TableFilter {
  std::string metaindex_key;  // "filter." + policy name
  bool v117 = false;          // leveldb.BuiltinBloomFilter: LevelDB <= 1.17's name and hash
  // goleveldb names its filter leveldb.BuiltinBloomFilter too but hashes tail bytes unsigned
  // (1.18+'s hash), and reads its own filter. Decided from the table's keys (v117 is then
  // false); `ambiguous` when no key hashes differently under the two (no tail byte >= 0x80).
  bool goleveldb = false;
  bool writer_ambiguous = false;
  bool writer_forced = false;  // --writer said who wrote it
  // Written by Basho's LevelDB (the table has "stats.sst1"); `variant` says whether the filter
  // is its bloom2 (leveldb.BuiltinBloomFilter2) or Google's original (leveldb.BuiltinBloomFilter).
  bool basho = false;
  BloomVariant variant = BloomVariant::kLevelDb;
  HashFlavor flavor = HashFlavor::kUnsignedTail;
  blocktable::BlockHandle handle;
  blocktable::BlockContents contents;
};

// What the read path did for one probe (tests, inspect).
struct LookupTrace {
  bool in_range = true;           // user tables: within [smallest, largest] user key
  bool block_found = false;       // the index seek found an entry
  blocktable::BlockHandle block;  // that data block
  bool filter_asked = false;
  bool answer = false;
};

class TableReader {
 public:
  static Result<TableReader> Open(ByteSpan file, std::string source,
                                  const TableOpenOptions& options = {});

  const std::string& source() const { return source_; }
  ByteSpan file() const { return file_; }
  const blocktable::Footer& footer() const { return footer_; }
  const blocktable::Block& index_block() const { return index_; }
  const blocktable::Block& metaindex_block() const { return metaindex_; }
  const std::vector<MetaindexEntry>& metaindex() const { return metaindex_entries_; }
  const std::optional<TableFilter>& filter() const { return filter_; }
  // kUser or kPlain (kAuto is resolved by Open, or Open fails).
  KeyKind key_kind() const { return key_kind_; }
  blocktable::KeyOrder key_order() const {
    if (key_kind_ != KeyKind::kUser) return blocktable::KeyOrder::kBytewise;
    return basho_ ? blocktable::KeyOrder::kBashoInternal : blocktable::KeyOrder::kInternal;
  }
  std::uint64_t lookup_sequence() const { return sequence_; }
  // Basho's LevelDB wrote the table: its metaindex has "stats.sst1".
  bool basho() const { return basho_; }
  // The user key of a stored internal key as this table's writer strips it (UserKeyOf, or
  // BashoUserKeyOf in a Basho table).
  ByteSpan UserKey(ByteSpan internal_key) const;

  // The read path's answer: true = may contain.
  Result<bool> MayContain(ByteSpan probe) const;
  // answers.size() == probes.size(); 1 may contain, 0 definitely not.
  Status MayContainBatch(const KeyList& probes, std::span<std::uint8_t> answers) const;
  Result<LookupTrace> Trace(ByteSpan probe) const;

  // An index entry's value: the data block's handle (varint64 offset, varint64 size).
  Result<blocktable::BlockHandle> DecodeIndexValue(const blocktable::IndexEntry& entry) const;
  // Every data block in index order with its index key (the separator LevelDB stored).
  Status ForEachDataBlock(
      const std::function<Status(ByteSpan index_key, const blocktable::BlockHandle& handle)>& fn)
      const;
  // Every entry in file order. Keys are as stored (internal keys in user tables).
  Status ForEachEntry(const std::function<Status(ByteSpan key, ByteSpan value,
                                                 const blocktable::BlockHandle& block)>& fn) const;
  Result<blocktable::Block> ReadDataBlock(const blocktable::BlockHandle& handle) const;
  // "leveldb-1.18+", "leveldb-1.17", "goleveldb", "leveldb-1.17-or-goleveldb", "basho-leveldb",
  // or "" (no filter).
  std::string_view writer() const;

  // Checks every block (CRC when verify_checksums, structure, key order, index separators
  // bracketing their blocks, tag types in user tables), the filter block's layout, that every
  // data block has its filter, and that the filter answers "may contain" for every key stored
  // (user keys in user tables). Returns the number of entries.
  Result<std::uint64_t> Verify() const;

 private:
  class Lookup;  // per-batch scratch state
  TableReader() = default;
  Status ReadMetaindex();
  Status ResolveKeyKind(KeyKind requested);
  // For a leveldb.BuiltinBloomFilter table: LevelDB <= 1.17 or goleveldb, from the keys.
  Status DecideV117OrGoLevelDb();
  Status ForceWriter(FilterWriter writer);
  Status LoadUserKeyRange();
  // The filter of the data block at `block_offset` asked for `key` (with options_.bloom2_build's
  // hashes for a bloom2 filter).
  bool FilterMayMatch(std::uint64_t block_offset, ByteSpan key) const;
  blocktable::ReadBlockOptions BlockOptions() const;

  std::string source_;
  ByteSpan file_;
  TableOpenOptions options_;
  blocktable::Footer footer_;
  blocktable::Block index_;
  blocktable::Block metaindex_;
  std::vector<MetaindexEntry> metaindex_entries_;
  std::optional<TableFilter> filter_;
  std::optional<FilterBlockReader> filter_reader_;
  KeyKind key_kind_ = KeyKind::kPlain;
  std::uint64_t sequence_ = kNewestSnapshotSequence;
  bool has_data_ = false;
  bool basho_ = false;
  ByteVector smallest_user_key_;
  ByteVector largest_user_key_;
};

// Only the stored key's user part: an internal key minus its 8-byte tag.
inline ByteSpan UserKeyOf(ByteSpan internal_key) {
  return internal_key.first(internal_key.size() >= 8 ? internal_key.size() - 8 : 0);
}
// Basho's LevelDB: the key types 2 (kTypeValueWriteTime) and 3 (kTypeValueExplicitExpiry) keep
// an 8-byte expiry time between the user key and the tag.
inline constexpr std::uint8_t kBashoTypeValueWriteTime = 2;
inline constexpr std::uint8_t kBashoTypeValueExplicitExpiry = 3;
inline constexpr std::string_view kBashoStatsMetaKey = "stats.sst1";
// Basho's user key: minus 16 bytes for its expiry types (when the key has them), else minus 8.
inline ByteSpan BashoUserKeyOf(ByteSpan internal_key) {
  if (internal_key.size() >= 16) {
    const std::uint8_t type = internal_key[internal_key.size() - 8];
    if (type == kBashoTypeValueWriteTime || type == kBashoTypeValueExplicitExpiry) {
      return internal_key.first(internal_key.size() - 16);
    }
  }
  return UserKeyOf(internal_key);
}
// The tag of an internal key: sequence << 8 | type.
std::uint64_t TagOf(ByteSpan internal_key);

}  // namespace bloomcodec::leveldb

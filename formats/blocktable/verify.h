// The verify pipeline of block-based tables, and the plug-in interface through which a table
// format joins it. LevelDB tables (formats/leveldb/table/verify.cc), RocksDB SSTs
// (formats/rocksdb/sst/verify.cc) and Pebble's row-based tables (formats/pebble/table/verify.cc)
// are its plug-ins, none copying the scan or the pipeline. Internal to the library: included as
// "blocktable/verify.h", not installed.
//
//   // formats/<family>/<table>/verify.cc: one plug-in object per table verified.
//   class MyTableVerify final : public blocktable::VerifyPlugin {
//    public:
//     std::string_view format_name() const override { return "my-table"; }
//     bool Open(ByteSpan file, const std::string& path, FileReport& report) override;
//     blocktable::VerifySetup setup() const override;
//     ...  // the other pure hooks below, and the optional ones the format needs
//   };
//   FileReport VerifyMyTable(const std::string& path, const KeyStream* probes,
//                            const std::string& group) {
//     MyTableVerify plugin;
//     return blocktable::VerifyBlockTable(path, plugin, probes, group);
//   }
//
// What the pipeline does, whatever the format (VerifyBlockTable, in this order):
//  1. Maps the file (unreadable: an error finding, done) and calls Open. Open reads what the
//     format keeps outside the data blocks (footer and magic, metaindex and the roles of its
//     entries, properties, filter and its placement) and states in the report what the table
//     is (version, writer, findings known from that alone). False: Open reported why the table
//     cannot be read (with the finding kind that is the format's), and the report is complete.
//  2. setup() once: how the data blocks are read and how damage and given keys are reported.
//  3. CheckBeforeData: every structure check before the data blocks (index and meta blocks,
//     their checksums, the filter's layout). Damage ends the report when setup says so;
//     otherwise the data blocks are still scanned, without their structure checks, and this is
//     the damage reported.
//  4. Lists the data blocks: the index (index_layout) walked with DecodeIndexValue, index
//     partitions read with ReadIndexPartition.
//  5. Scans the data blocks in ranges on every core of the run (blocktable/stream.h: bounded
//     chunks of keys, pages given back behind the cursor, results merged in file order, so the
//     report never depends on the split). Per block: ReadDataBlock (trailer, checksum,
//     decompression), a walk of its entries that makes the block's own checks (restarts, key
//     order), CheckBlockStart, the key kinds (setup().keys), CheckValue, CheckBlockEnd. The
//     stored keys (without their trailer) are asked of the filter through a RangeFilter per
//     range, in chunks; every false negative is counted.
//  6. CheckAfterData when nothing was damaged: checks of the whole against what the table
//     claims (entry counts against properties).
//  7. Reports the damage (one structure finding: the first in file order), or else why the scan
//     stopped. Damage ends the report when setup says so.
//  8. ReportStoredKeys: keys_checked, and what is to be said when the stored keys were not asked
//     (no filter, one reads never consult, one that could not be asked); false ends the report.
//  9. The false negatives; the given keys (`probes`) asked through MayContainBatch, the read
//     path; one false-negative finding naming filter_description().
// 10. ReportFill, unless the scan stopped early: the filter's fill statistics and their findings.
//
// Lifetimes: the plug-in outlives the VerifyBlockTable call. The bytes given to Open stay
// mapped until the call returns: the plug-in may keep views of them (blocks, filters). Spans
// and references given to a hook are valid during that call only.
// Threads: the scan hooks (ReadDataBlock, FilterGroupOf, CheckBlockStart, CheckBlockEnd,
// InvalidKind, CheckValue, NewRangeFilter) are const and are called from several threads at
// once; a RangeFilter belongs to one range, on one thread. The other hooks run on the caller's
// thread.
// Errors: every Status a hook returns names the file and an absolute byte offset; the pipeline
// turns it into a finding as it stands.
//
// Where Pebble's tables plug in (formats/pebble/table/verify.cc; columnar ones, Pebblev5..v8, are
// read by PebbleTable and handed over re-laid as row blocks, so the same hooks serve them),
// hook by hook:
// * Open: the magic f0 9f aa b3 f0 9f aa b3 and the RocksDB-style footer with its format
//   version; the metaindex (fullfilter.rocksdb.BuiltinBloomFilter or fullfilter.binaryfuse,
//   rocksdb.properties, rocksdb.range_del2, pebble.value_index from v3); properties.
// * ReadDataBlock: CRC-32C or XXHash64 trailers, Snappy or zstd with a varint length prefix
//   (blocktable::ReadBlock reads both as it reads RocksDB's format_version >= 2). From v3 a
//   restart point's high bit flags a key that shares a prefix: Pebble's blocks are parsed with
//   BlockFooterLayout::kPebble, which strips it, since the walk checks restart offsets against
//   entry boundaries.
// * index_layout, DecodeIndexValue, ReadIndexPartition: a block handle followed by the block's
//   encoded properties (v1+), and two-level indexes.
// * setup().keys: the 8-byte trailer, Pebble's key kinds in kind_flags, kind_mask 0xbf (v4's
//   obsolete bit, 0x40); CheckAfterData: the counts its properties claim.
// * setup().check_values, CheckValue: the one-byte prefix of every SET's value (v3+): in
//   place, or a handle into a value block.
// * NewRangeFilter: Pebble's Bloom or binary fuse filter, in kDistinct batches (the filter
//   holds key[:Split(key)]: the whole key for leveldb.BytewiseComparator).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blocktable/block.h"
#include "blocktable/block_handle.h"
#include "blocktable/index_block.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"

namespace bloomcodec::blocktable {

// ---- what a format declares once (setup) -------------------------------------------------------

// Counters a key kind can add to (ScanTotals::kind_counts), and the flag of kinds that have no
// place in a data block.
inline constexpr std::size_t kKindCounters = 4;
inline constexpr std::uint8_t kKindInvalid = 0x80;
// Per kind byte: bit i (i < kKindCounters) counts the key in kind_counts[i]; kKindInvalid makes
// it structure damage (worded by InvalidKind).
using KindFlags = std::array<std::uint8_t, 256>;

// How a stored key is laid out: the user key, then a trailer the filter never sees.
struct KeyEncoding {
  // Bytes after the user key: 8 for an internal key (LevelDB's, RocksDB's and Pebble's tag,
  // sequence << 8 | kind, little-endian), 0 for plain keys (a LevelDB TableBuilder's).
  std::size_t trailer_bytes = 0;
  // With a trailer, its first byte is the key's kind (value type). It is masked (Pebble's
  // format v4 keeps an "obsolete" flag, 0x40, in the kind byte) and looked up here; null:
  // kinds are not looked at.
  std::uint8_t kind_mask = 0xff;
  const KindFlags* kind_flags = nullptr;
};

// Which stored keys are asked of the filter.
enum class StoredKeys {
  // Every entry, each version of a key again (LevelDB: keys_checked counts entries; each
  // filter of a filter block is asked the keys of its own data blocks).
  kEveryEntry,
  // Each filter key once per run of equal ones, as a builder adds them (RocksDB), with the
  // format's prefix of the key too (setup().prefix).
  kDistinct,
};

// A prefix of the user key the filter holds as well (RocksDB's prefix extractor; Pebble's
// comparer Split). Called for each distinct filter key (kDistinct only); a plain function so
// that the scan pays no virtual call per key.
struct KeyPrefix {
  // False when the key lies outside the extractor's domain (it adds no prefix).
  bool (*of)(const void* context, ByteSpan user_key, ByteSpan& prefix) = nullptr;
  const void* context = nullptr;
  explicit operator bool() const { return of != nullptr; }
};

struct VerifySetup {
  // The data blocks: their key order, value encoding, key layout.
  KeyOrder key_order = KeyOrder::kBytewise;
  ValueEncoding values = ValueEncoding::kLengthPrefixed;
  KeyEncoding keys;
  StoredKeys asked = StoredKeys::kEveryEntry;
  // kDistinct: whether the filter holds whole keys (counted in ScanTotals::filter_entries), and
  // a prefix of each key it holds as well.
  bool filter_holds_whole_keys = true;
  KeyPrefix prefix;
  // The filter groups distinct keys are counted in (FilterGroupOf; ScanTotals::distinct).
  std::size_t filter_groups = 1;
  // CheckBlockStart is given the previous block's last key and index key (LevelDB's checks
  // that keys increase across blocks; a range first reads the last key of the block before it).
  bool checks_across_blocks = false;
  // CheckValue is called for every entry (Pebble v3+: the value prefix byte, value handles).
  bool check_values = false;
  // What damage does to the report: false, the scan goes on past it without further structure
  // checks and its false negatives are reported beside it (LevelDB); true, the first damage is
  // the report (RocksDB: nothing of the filter pass is said of a damaged table).
  bool damage_ends_report = false;
  // The given keys' false negatives: their own finding, after the stored keys' (LevelDB); or
  // counted with the stored keys' in one finding (RocksDB).
  bool given_keys_own_finding = false;
};

// ---- what the scan hands the hooks ---------------------------------------------------------------

// A data block being scanned.
struct DataBlockView {
  std::size_t number = 0;  // in index order, from 0
  const BlockHandle& handle;
  const Block& block;
  ByteSpan index_key;  // its key in the index
};

// A block's start, for CheckBlockStart: its first key (none: the block has no entry) and, with
// checks_across_blocks and number > 0, the block before it.
struct BlockStart {
  const DataBlockView& block;
  std::optional<ByteSpan> first_key;
  std::optional<ByteSpan> previous_last_key;
  ByteSpan previous_index_key;
};

// The filter a data block's keys count in (distinct keys are counted per group).
struct FilterGroup {
  std::uint64_t group = 0;  // < setup().filter_groups when counted
  bool counted = false;     // false: the block's keys count in no group (they are still asked)
};

// Keys waiting for one batch question to the filter (the chunk is reused: no allocation per
// key). `has_prefix` is empty unless setup().prefix is set.
struct FilterChunk {
  const KeyList& keys;                       // filter keys (user keys), in stored order
  const KeyList& prefixes;                   // the prefixes of the keys that have one, in order
  std::span<const std::uint8_t> has_prefix;  // per key: 1 when it has a prefix
  std::uint64_t block_offset = 0;            // the data block of keys[0]
};

// How one range asks the filter for its stored keys (full filter, partitions, a filter block's
// filter per data block, the read path). One object per range, used on one thread.
class RangeFilter {
 public:
  virtual ~RangeFilter() = default;
  // Called before each data block's keys are collected: true when they are asked of another
  // filter than the keys collected so far (the scan then asks those first).
  virtual bool StartsNewFilter(const BlockHandle&) { return false; }
  // Answers the chunk: answers[i] = 1 "may contain" (key and, if it has one, its prefix),
  // 0 "definitely absent". Returns how many keys were answered: all, or the keys before the
  // first whose filter cannot be asked, with `error` saying why; the filter is then asked no
  // more (ScanTotals::filter_error).
  virtual std::size_t Ask(const FilterChunk& chunk, std::span<std::uint8_t> answers,
                          Status& error) = 0;
};

// What the scan adds up: what one pass over the whole table gives, whatever the split.
struct ScanTotals {
  std::optional<Status> damage;        // the first structure damage in file order
  std::optional<Status> stopped;       // why the scan stopped early: a block that cannot be read
                                       // or walked, or (damage_ends_report) damage
  std::optional<Status> filter_error;  // the filter could not be asked; no key after counts
  std::uint64_t entries = 0;           // entries walked
  std::array<std::uint64_t, kKindCounters> kind_counts{};
  std::vector<std::uint64_t> distinct;  // distinct filter keys per filter group
  // kDistinct: what a filter builder added, each distinct whole key (filter_holds_whole_keys)
  // and each prefix once per run of equal prefixes (not again when it equals its whole key).
  std::uint64_t filter_entries = 0;
  std::uint64_t false_negative_count = 0;
  std::vector<ByteVector> false_negatives;  // the first kMaxListedFalseNegatives, in key order

  std::uint64_t distinct_keys() const;  // summed over the groups
};

// ---- the plug-in -----------------------------------------------------------------------------------

class VerifyPlugin {
 public:
  virtual ~VerifyPlugin() = default;

  // The report's format (a name of the command-line contract).
  virtual std::string_view format_name() const = 0;
  // 1. Reads the table (see the call protocol above).
  virtual bool Open(ByteSpan file, const std::string& path, FileReport& report) = 0;
  // 2. Called once, after Open.
  virtual VerifySetup setup() const = 0;
  // 3. Structure checks before the data blocks; the first damage found.
  virtual Status CheckBeforeData() const = 0;

  // 4. The index, and how its values decode (LevelDB: a block handle; RocksDB: a handle or a
  // size delta; Pebble: a handle, then the block's encoded properties).
  virtual IndexLayout index_layout() const = 0;
  virtual Result<BlockHandle> DecodeIndexValue(const IndexEntry& entry) const = 0;
  // A two-level index's partition (only called for index_layout().two_level).
  virtual Result<Block> ReadIndexPartition(const BlockHandle& partition) const;

  // 5. The scan's hooks (const, called from several threads).
  // A data block's bytes: bounds, the trailer's checksum (the format's checksum type, context
  // checksums), the compression its type byte names (the format's types and framing), parsed.
  virtual Result<Block> ReadDataBlock(const BlockHandle& handle) const = 0;
  // The filter group of a data block (the default: one group, every block counted).
  virtual FilterGroup FilterGroupOf(const BlockHandle& handle) const;
  // The format's checks of a block's start, once its first entry decoded (or the block proved
  // empty); the first damage in the format's order. Called while no damage has been found.
  virtual Status CheckBlockStart(const BlockStart& start) const;
  // The format's checks once a block with entries was walked without damage: its last key
  // against its index key (or whatever the format holds there).
  virtual Status CheckBlockEnd(const DataBlockView& block, ByteSpan last_key) const;
  // The damage of a key whose kind setup().keys flags kKindInvalid (`kind`: the byte as stored).
  virtual Status InvalidKind(const Block& block, std::size_t entry_position,
                             std::uint8_t kind) const;
  // With check_values: one entry's value as stored (Pebble v3+: the prefix byte saying whether
  // the value is in place or a handle into a value block). The first damage of a block is
  // reported after the damage of its key kinds.
  virtual Status CheckValue(const DataBlockView& block, std::size_t entry_position, ByteSpan key,
                            ByteSpan value) const;
  // The filter as one range asks it; null when the stored keys are not asked (no filter, or one
  // reads never consult).
  virtual std::unique_ptr<RangeFilter> NewRangeFilter() const = 0;

  // 6. Checks of the whole once every data block passed (the default: none).
  virtual Status CheckAfterData(const ScanTotals& totals) const;
  // 8. keys_checked, and the findings of a table whose stored keys were not asked; false ends
  // the report.
  virtual bool ReportStoredKeys(const ScanTotals& totals, FileReport& report) const = 0;
  // 9. What the false-negative finding says answered "absent" ("the filter").
  virtual std::string_view filter_description() const = 0;
  // The read path's answers for given keys (answers.size() == keys.size(); 1 may contain).
  virtual Status MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const = 0;
  // 10. The fill statistics (report.fill) and their findings.
  virtual void ReportFill(const ScanTotals& totals, FileReport& report) const = 0;
};

// Verifies the table at `path` through `plugin`; `probes` (optional) are keys that must also be
// answered "may contain" through the read path; `group` names what a read consults together.
FileReport VerifyBlockTable(const std::string& path, VerifyPlugin& plugin, const KeyStream* probes,
                            const std::string& group);

}  // namespace bloomcodec::blocktable

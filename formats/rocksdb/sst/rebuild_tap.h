// Repair's tap on verify's scan of RocksDB SSTs. Internal to the library.
//
// A repair that rebuilds every table's filter (--bits-per-key) verifies the database first, and
// verify's scan reads every data block and asks the old filter for every stored key. With a tap
// in the verify options, the scan also hashes those keys as the new filter takes them, and the
// table's new filter is built once the table is verified. The repair's rewrite then takes it
// (RewriteSstFilterTail's `prebuilt`) instead of reading and decompressing every data block a
// second time: one read of the data blocks makes verify's findings and the new filter.
//
//   auto tap = std::make_shared<rocksdb::RebuildTap>(12.0, std::nullopt);
//   VerifyOptions options;
//   options.family.Set(rocksdb::RebuildTapOption{tap});
//   BLOOMCODEC_ASSIGN_OR_RETURN(VerifyReport report, VerifyPaths(paths, options));
//   const rocksdb::RebuiltFilter* f = tap->Find(path, file_size, 12.0, std::nullopt);
//
// Which tables get a filter: a full filter that verify asks for every whole key (whole-key
// filtering, no prefix extractor, a table the rewrite takes), scanned without damage, the old
// filter answering every chunk (false negatives are fine: they are what a repair fixes), its
// index listing the data blocks in file order (the ranges are merged by offset). Every
// other table, and every table of a repair without --bits-per-key, is rebuilt by the rewrite's
// own pass. The filter is the rewrite's to the byte: the same keys in file order, collapsed as
// RocksDB's builder collapses neighbouring equal hashes, whatever verify's split into ranges
// (tests/rocksdb_sst/rebuild_tap_test.cc compares the two).
// Threads: tables and their ranges fill the tap from verify's workers; Find is for after the
// verify returned. Memory: a table's hashes (8 bytes a key) while its scan runs, then only its
// new filter, kept until the repair's transaction writes it. Both are bounded, whatever the
// database's size: verify scans tables side by side, and a table is taken only while the hashes
// of the tables being tapped, its own included, are estimated (8 bytes for each entry the
// properties count, at most the file's size) within the hash budget; a new filter is kept only
// while the kept ones stay within the filter budget. A table past either is rebuilt by the
// rewrite's own pass (its data blocks read a second time).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "blocktable/rebuilt_filters.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/rocksdb/full_filter.h"

namespace bloomcodec::rocksdb {

class SstReader;

// A table's new full filter, with what the rewrite's pass would have counted.
struct RebuiltFilter {
  FilterEncoding encoding = FilterEncoding::kFastLocalBloom;
  double bits_per_key = 0;
  std::uint64_t file_size = 0;       // of the table verified: a different file is not this one
  ByteVector filter;                 // the full filter block's contents
  std::uint64_t entries = 0;         // entries of the data blocks
  std::uint64_t filter_entries = 0;  // distinct user keys added (rocksdb.num.filter_entries)
};

class RebuildTap : public blocktable::RebuiltFilters<RebuiltFilter> {
 public:
  // The parameters of the repair: every table's new filter has `bits_per_key`, and the kind
  // `wanted` (repair --to) or else the one the table keeps (StoredFilterEncoding). The budgets:
  // blocktable/rebuilt_filters.h.
  RebuildTap(double bits_per_key, std::optional<FilterEncoding> wanted,
             std::uint64_t hash_budget = kHashBudget, std::uint64_t filter_budget = kFilterBudget)
      : RebuiltFilters(hash_budget, filter_budget), bits_per_key_(bits_per_key), wanted_(wanted) {}

  double bits_per_key() const { return bits_per_key_; }
  std::optional<FilterEncoding> wanted() const { return wanted_; }

  // The filter kept for the file at `path` when it was built for this file size and these
  // parameters; null otherwise.
  const RebuiltFilter* Find(const std::string& path, std::uint64_t file_size, double bits_per_key,
                            std::optional<FilterEncoding> wanted) const {
    if (bits_per_key != bits_per_key_ || wanted != wanted_) return nullptr;
    return FindFile(path, file_size);
  }

 private:
  const double bits_per_key_;
  const std::optional<FilterEncoding> wanted_;
};

// How the tap reaches the RocksDB family's verify: a value of VerifyOptions::family.
struct RebuildTapOption {
  std::shared_ptr<RebuildTap> tap;
};

// One table's hashes while verify scans it: each range of the scan appends the hashes of its
// keys (AppendCollapsedHashes) and hands them over once it is done; Merged puts them in file
// order with the collapse across ranges.
class TableHashes {
 public:
  // `reserved`: bytes of `tap`'s budget held until this is destroyed.
  TableHashes(FilterEncoding encoding, RebuildTap& tap, std::uint64_t reserved)
      : encoding_(encoding), tap_(tap), reserved_(reserved) {}
  ~TableHashes() { tap_.Release(reserved_); }
  TableHashes(const TableHashes&) = delete;
  TableHashes& operator=(const TableHashes&) = delete;

  FilterEncoding encoding() const { return encoding_; }
  // A range's hashes; `first_block` is the offset of the data block of its first key.
  void Add(std::uint64_t first_block, std::vector<std::uint64_t> hashes);
  // Every range's hashes in file order, as one pass over the table would have collapsed them.
  std::vector<std::uint64_t> Merged();

 private:
  const FilterEncoding encoding_;
  RebuildTap& tap_;
  const std::uint64_t reserved_;
  std::mutex lock_;
  std::vector<std::pair<std::uint64_t, std::vector<std::uint64_t>>> ranges_;
};

// The tap's table, when `sst` is one it builds a filter for (see above): null otherwise.
std::unique_ptr<TableHashes> TapTable(RebuildTap* tap, const SstReader& sst, bool prefix_applied);
// Builds the table's filter from its merged hashes and keeps it in the tap; nothing when the
// build fails (the rewrite's own pass then meets the same failure and reports it).
void KeepRebuiltFilter(RebuildTap& tap, const SstReader& sst, TableHashes& hashes,
                       std::uint64_t entries, std::uint64_t filter_entries);

}  // namespace bloomcodec::rocksdb

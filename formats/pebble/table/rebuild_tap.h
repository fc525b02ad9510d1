// Repair's tap on verify's scan of Pebble's tables. Internal to the library.
//
// A repair at --bits-per-key verifies the database first, and verify's scan reads every data
// block and asks the old filter for every filter key. With a tap in the verify options, the scan
// also keeps each key's hash, and what the old filter answered for it under each hash flavour;
// once the table is verified, the tap decides the new filter's policy as the rewrite would from
// the same keys (the flavour the old filter shows, its probe era: PolicyFromEvidence), builds the
// filter and asks it for every hash. The repair's rewrite (lsmrepair::PebbleFilterRewrite) then
// takes that filter and walks only the index: the data blocks are read once.
//
//   auto tap = std::make_shared<pebble::RebuildTap>(12);
//   VerifyOptions options;
//   options.family.Set(pebble::RebuildTapOption{tap});
//   BLOOMCODEC_ASSIGN_OR_RETURN(VerifyReport report, VerifyPaths({dir}, options));
//   const pebble::RebuiltFilter* f = tap->Find(path, file_size, 12);
//
// Which tables get a filter: a Bloom filter (a binary fuse one, none or a damaged one goes to the
// rewrite's pass) holding whole keys (leveldb.BytewiseComparator; cockroach_comparator's prefixes
// go to the rewrite's pass), row or columnar, scanned whole without damage, every data block
// read (none compressed with MinLZ proper), its index listing the data blocks in file order (the
// ranges are merged by offset). The filter is the rewrite's to the byte, whatever verify's split
// into ranges (tests/pebble/rebuild_tap_test.cc compares the two): the same keys in file order,
// each run of equal keys once (as DecideHashFlavor counts them), the chosen flavour's hashes
// collapsed as Pebble's writer collapses them.
// Threads: tables and their ranges fill the tap from verify's workers; Find is for after the
// verify returned. Memory: 4 bytes a key while a table's scan runs (estimated from the properties'
// entries for the hash budget), then its new filter, within blocktable/rebuilt_filters.h's budgets.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "blocktable/rebuilt_filters.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "pebble/bloom.h"

namespace bloomcodec::pebble {

class PebbleTable;

// A table's new filter block, as the rewrite's own pass would have built it.
struct RebuiltFilter {
  std::uint32_t bits_per_key = 0;
  std::uint64_t file_size = 0;  // of the table verified: a different file is not this one
  bool writes_filter = false;   // false: no point key (Pebble writes no filter)
  ByteVector filter;            // the filter block's contents when writes_filter
  BloomPolicy policy;
  std::uint64_t filter_keys = 0;  // the point keys added (PebbleRewrite::filter_keys)
};

class RebuildTap : public blocktable::RebuiltFilters<RebuiltFilter> {
 public:
  explicit RebuildTap(std::uint32_t bits_per_key, std::uint64_t hash_budget = kHashBudget,
                      std::uint64_t filter_budget = kFilterBudget)
      : RebuiltFilters(hash_budget, filter_budget), bits_per_key_(bits_per_key) {}

  std::uint32_t bits_per_key() const { return bits_per_key_; }
  // The filter kept for the file at `path` when it was built for this file size at these bits
  // per key; null otherwise.
  const RebuiltFilter* Find(const std::string& path, std::uint64_t file_size,
                            std::uint32_t bits_per_key) const {
    return bits_per_key == bits_per_key_ ? FindFile(path, file_size) : nullptr;
  }

 private:
  const std::uint32_t bits_per_key_;
};

// How the tap reaches the Pebble family's verify: a value of VerifyOptions::family.
struct RebuildTapOption {
  std::shared_ptr<RebuildTap> tap;
};

// One range of a table's scan, as the range's filter asks the old filter (one thread).
struct TappedRange {
  std::uint64_t first_block = 0;  // the data block of its first key
  // Each key's signed hash (every Pebble since 2020), and the unsigned one of the keys whose
  // flavours differ, by index into `hashes`.
  std::vector<std::uint32_t> hashes;
  std::vector<std::pair<std::size_t, std::uint32_t>> unsigned_hashes;
  // The old filter's answers: the range's first key apart (the merge drops it when the range
  // before ended with the same key), then the rest.
  HashFlavorEvidence first, rest;
  ByteVector first_key, last_key;

  // Hashes `keys` (the range's next chunk, each key once per run), asks `old` for each, and
  // writes what it answered under the signed hash into `answers` (verify's own question).
  void Ask(const BloomReader& old, const KeyList& keys, std::span<std::uint8_t> answers);
};

// One table's ranges while verify scans it.
class TableHashes {
 public:
  // `reserved`: bytes of `tap`'s budget held until this is destroyed.
  TableHashes(RebuildTap& tap, std::uint64_t reserved) : tap_(tap), reserved_(reserved) {}
  ~TableHashes() { tap_.Release(reserved_); }
  TableHashes(const TableHashes&) = delete;
  TableHashes& operator=(const TableHashes&) = delete;

  void Add(TappedRange range);
  // Builds the table's filter from its ranges and keeps it in the tap; nothing when the build
  // fails (the rewrite's own pass then meets the same failure and reports it). `entries`: the
  // point keys of the data blocks.
  void Keep(const PebbleTable& table, std::uint64_t entries);

 private:
  RebuildTap& tap_;
  const std::uint64_t reserved_;
  std::mutex lock_;
  std::vector<TappedRange> ranges_;
};

// The tap's table, when `table` is one it builds a filter for (see above; the scan's own
// conditions are checked when it keeps the filter): null otherwise.
std::unique_ptr<TableHashes> TapTable(RebuildTap* tap, const PebbleTable& table);

// A Bloom filter block built from `hashes` (collapsed) under `policy`, then asked for each of
// them: Internal, naming `source`, when it denies one. nullopt: Pebble writes no filter.
Result<std::optional<ByteVector>> BuildCheckedBloom(const BloomPolicy& policy,
                                                    std::span<const std::uint64_t> hashes,
                                                    const std::string& source);

}  // namespace bloomcodec::pebble

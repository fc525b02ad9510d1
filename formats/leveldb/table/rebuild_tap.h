// Repair's tap on verify's scan of LevelDB tables (LevelDB, goleveldb, Mojang's). Internal to
// the library.
//
// A repair at given bits per key verifies the database first, and verify's scan reads every
// data block and asks the old filter block for every stored key. With a tap in the verify
// options, the scan also hashes those keys as the new filter block takes them, and the table's
// new filter block is built once the table is verified. The repair's rewrite then takes it
// (RewriteTableFilterTail's `prebuilt`) instead of reading and decompressing every data block a
// second time, as the RocksDB tap does (rocksdb/sst/rebuild_tap.h).
//
//   auto tap = std::make_shared<leveldb::RebuildTap>(12);
//   VerifyOptions options;
//   options.family.Set(leveldb::RebuildTapOption{tap});
//   BLOOMCODEC_ASSIGN_OR_RETURN(VerifyReport report, VerifyPaths(paths, options));
//   const leveldb::RebuiltFilterBlock* f = tap->Find(path, file_size);
//   if (f && f->Fits(policy, file_size, data_end)) ...
//
// The new filter block's filters are by 2 KiB window of the data blocks' offsets, which a repair
// does not move: the scan asks each window's keys apart (a chunk never spans two windows), and
// the keys of a window make one filter whatever their order (its bits are ORed), sized by their
// count. So the ranges' hashes, put in file order, give FilterBlockBuilder what TableBuilder gave
// it, and the block is the rewrite's to the byte (tests/leveldb_table/rebuild_tap_test.cc).
// The policy is the one the repair's sizing gives a table of the database (LevelDbPolicy): by
// the old filter's name, and for 1.17's name by the writer its keys show (goleveldb's when they
// cannot tell, as for a database of such tables); the rewrite takes the block only when its
// policy is the same (Fits), else it rebuilds by its own pass.
// Which tables: a database's (user keys), not Basho's, whose filter block verify can read, scanned
// without damage and asked whole, its data blocks back to back in file order as the index lists
// them. Threads and memory: as the RocksDB tap (blocktable/rebuilt_filters.h); a table's hashes
// take 4 bytes a key, estimated for the budget at its file's size (an entry takes more than 4
// bytes of a table, compression aside).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "blocktable/rebuilt_filters.h"
#include "blocktable/trailer.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/leveldb/bloom.h"
#include "leveldb/table/table_writer.h"

namespace bloomcodec::leveldb {

class TableReader;

// A table's new filter block, with what the rewrite's pass would have found.
struct RebuiltFilterBlock {
  BloomPolicy policy = BloomPolicy::Current(0);
  std::uint64_t file_size = 0;  // of the table verified: a different file is not this one
  ByteVector filter;            // the filter block's contents
  std::uint64_t entries = 0;    // entries of the data blocks
  std::uint64_t data_end = 0;   // where the data blocks end
  // The first compressed data block's compression, in file order (kNone: none is).
  blocktable::BlockCompression compression = blocktable::BlockCompression::kNone;

  // Built with `p` from a file of `size` bytes whose data blocks end at `blocks_end`.
  bool Fits(const BloomPolicy& p, std::uint64_t size, std::uint64_t blocks_end) const {
    return p.bits_per_key == policy.bits_per_key && p.flavor == policy.flavor &&
           p.goleveldb_name == policy.goleveldb_name && size == file_size && blocks_end == data_end;
  }
};

class RebuildTap : public blocktable::RebuiltFilters<RebuiltFilterBlock> {
 public:
  explicit RebuildTap(int bits_per_key, std::uint64_t hash_budget = kHashBudget,
                      std::uint64_t filter_budget = kFilterBudget)
      : RebuiltFilters(hash_budget, filter_budget), bits_per_key_(bits_per_key) {}

  int bits_per_key() const { return bits_per_key_; }
  // The block kept for the file at `path` when it was built from a file of this size; its
  // policy is the caller's to check (Fits).
  const RebuiltFilterBlock* Find(const std::string& path, std::uint64_t file_size) const {
    return FindFile(path, file_size);
  }

 private:
  const int bits_per_key_;
};

// How the tap reaches the LevelDB family's verify: a value of VerifyOptions::family.
struct RebuildTapOption {
  std::shared_ptr<RebuildTap> tap;
};

// One table's hashes while verify scans it: each range of the scan hands over its keys' hashes
// grouped by data block offset (one group per chunk asked) once it is done; Merged puts them in
// file order.
class TableHashes {
 public:
  // `reserved`: bytes of `tap`'s budget held until this is destroyed.
  TableHashes(BloomPolicy policy, RebuildTap& tap, std::uint64_t reserved)
      : policy_(policy), tap_(tap), reserved_(reserved) {}
  ~TableHashes() { tap_.Release(reserved_); }
  TableHashes(const TableHashes&) = delete;
  TableHashes& operator=(const TableHashes&) = delete;

  const BloomPolicy& policy() const { return policy_; }
  void Add(BlockHashes range);
  // A data block read at `offset` was compressed so (from verify's workers, any order).
  void SawCompressed(std::uint64_t offset, blocktable::BlockCompression compression);
  // Every range's groups in file order; the first compression seen in file order.
  BlockHashes Merged();
  blocktable::BlockCompression compression() const;

 private:
  const BloomPolicy policy_;
  RebuildTap& tap_;
  const std::uint64_t reserved_;
  mutable std::mutex lock_;
  std::vector<BlockHashes> ranges_;
  // The first compressed block seen, by offset: most blocks of a compressed table are, so the
  // offset is compared before the lock is taken.
  std::atomic<std::uint64_t> compressed_at_{UINT64_MAX};
  blocktable::BlockCompression compression_ = blocktable::BlockCompression::kNone;
};

// The tap's table, when `table` is one it builds a filter block for (see above): null otherwise.
std::unique_ptr<TableHashes> TapTable(RebuildTap* tap, const TableReader& table);
// Builds the table's filter block from its merged hashes and keeps it in the tap; nothing when
// the build fails or the data blocks are not back to back (the rewrite's own pass then meets it).
void KeepRebuiltFilter(RebuildTap& tap, const TableReader& table, TableHashes& hashes,
                       std::uint64_t entries);

}  // namespace bloomcodec::leveldb

// Replacing table files of a closed Pebble database with rewritten ones (a new filter) as one
// transaction, the way Pebble rolls its own MANIFEST. Internal to the library (included as
// "lsmrepair/pebble_transaction.h"); the repair command builds on it (repair/pebble_repair.cc).
//
//   PebbleRepairOptions options;
//   options.rewrite = PebbleFilterRewrite(10);
//   options.check = PebbleTableCheck();
//   BLOOMCODEC_ASSIGN_OR_RETURN(RepairResult done, RepairPebbleDatabase("/data/chaindata", options));
//
// The steps are repair_transaction.h's, with Pebble's facts (cockroachdb/pebble
// version_set.go, version_edit.go, vfs/atomicfs/marker.go, filenames.go, vfs/file_lock_unix.go):
//   1. Lock: dir/LOCK with fcntl(F_SETLK, F_WRLCK) as Pebble's vfs.Default.Lock (and flock,
//      database_lock.h), held to the end.
//   2. The MANIFEST Pebble opens (pebble/database.h: the manifest marker from format major version
//      2 on, CURRENT before); refused when damaged, when a live table is missing or when the
//      directory holds a finding Pebble would refuse. The unit of work is a table file: a
//      physical table, or a backing with every virtual table that is a view of it. New numbers
//      come from max(next file number, largest number on disk + 1): each file, then each of its
//      virtual tables (Pebble refuses a table number added after it was deleted), then the
//      MANIFEST, then the next file number.
//   3. Each file rewritten to NNNNNN.dbtmp, fsynced, read back, renamed to NNNNNN.sst (the
//      shared step of repair_steps.h); the directory fsynced.
//   4. MANIFEST-M: the old MANIFEST's records byte for byte, then one version edit
//      (PebbleRepairEdit below); fsynced, the directory fsynced.
//   5. Backup as repair_transaction.h's (hard links, CURRENT's bytes; the old manifest marker's
//      name as an empty file).
//   6. The switch as that format major version's Pebble makes it. With a manifest marker
//      (atomicfs.Marker.Move): marker.manifest.<iteration + 1>.MANIFEST-M created empty and
//      fsynced, the directory fsynced (THE COMMIT: Pebble takes the highest iteration), then the
//      old marker removed. Without one (setCurrentFile): temporary.M.dbtmp holding
//      "MANIFEST-M\n", fsynced, renamed over CURRENT (THE COMMIT), the directory fsynced.
//   7. The replaced files and the old MANIFEST unlinked (the backup keeps them); fsynced.
// Level 0: Pebble orders it by largest, then smallest sequence number, the number breaking ties
// only; the records keep the sequence numbers, so new numbers keep the order but for two level-0
// tables with equal sequence numbers of which one is rebuilt (such tables do not overlap).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "lsmrepair/repair_transaction.h"

namespace bloomcodec::pebble {
class RebuildTap;  // pebble/table/rebuild_tap.h
}  // namespace bloomcodec::pebble

namespace bloomcodec::lsmrepair {

struct PebbleRepairOptions {
  // Chooses table files: TableToRepair.path is the file, meta its (first) table's record with
  // the file's size. Null: every file.
  std::function<bool(const TableToRepair&)> select;
  TableRewriteFn rewrite;  // required
  TableCheckFn check;      // null: none
  std::string backup_dir;  // empty: a dated folder beside the database directory
  bool no_backup = false;
  std::function<void(const TablesDone&)> on_table;  // null: none; after each file of step 3
};

Result<RepairResult> RepairPebbleDatabase(const std::string& dir,
                                          const PebbleRepairOptions& options);

// Pebble's tables, row (Pebblev1..v4, and the RocksDBv2 and LevelDB tables Pebble writes below
// format major version 5, which keep their footer) and columnar (Pebblev5+): the filter rebuilt
// from the table's keys at `bits_per_key`, in the hash flavour and probe era of the table's own
// filter (pebble/table/table_writer.h RewriteTail). The data blocks are read once, with their
// checksums: their keys choose the policy and build the filter, which is asked for each of them
// ("may contain" for every key). A table whose filter `tap` built from verify's scan
// (pebble/table/rebuild_tap.h) is not read again: only its index is walked. The rewrite is the
// table's tail after its data blocks (TableRewrite::filter_offset names the new filter in it).
TableRewriteFn PebbleFilterRewrite(std::uint32_t bits_per_key,
                                   const pebble::RebuildTap* tap = nullptr);
// The written table read back without its data blocks (the rewrite kept their bytes and asked the
// filter for their keys): footer, metaindex, properties, index and filter with their checksums,
// and an index that names the old table's data blocks, the same offsets and sizes in order.
TableCheckFn PebbleTableCheck();

// One rewritten file for the repair's edit: the tables recorded on it (one physical table, or
// the virtual tables of a backing) with their new numbers.
struct PebbleFileReplacement {
  bool is_backing = false;
  std::uint64_t old_number = 0, new_number = 0;  // the file's
  std::uint64_t new_size = 0;
  std::vector<manifest::TableMeta> tables;   // as the MANIFEST records them
  std::vector<std::uint64_t> table_numbers;  // new table numbers (physical: new_number)
};

// The repair's version edit: each old table deleted (tag 6) and recorded again under its new
// number with every other byte of its record kept (sequence numbers, bounds, creation time,
// blob references, synthetic prefix and suffix), a physical table with its new size, a virtual
// table pointing at its backing's new number (custom tag 66); a backing removed (106) and created
// again at its new number and size (105); a table marked for compaction by tag 11 marked again;
// then the next file number (3).
Result<ByteVector> PebbleRepairEdit(std::span<const PebbleFileReplacement> replaced,
                                    std::uint64_t next_file);

}  // namespace bloomcodec::lsmrepair

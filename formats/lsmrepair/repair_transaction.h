// Replacing tables of a closed LSM database (LevelDB, goleveldb, Mojang's fork, RocksDB) with
// rewritten ones (a new filter) as one transaction: the database opens afterwards with either
// all its old tables or all the new ones, whatever point a crash stops the repair at. Internal
// to the library (included as "lsmrepair/repair_transaction.h"); the repair command builds on it.
//
//   RepairOptions options;
//   options.flavor = manifest::Flavor::kRocksDb;
//   options.rewrite = RocksDbFilterRewrite(12.0);  // table_rewriters.h: the family's rewrite
//   options.check = RocksDbTableCheck();
//   BLOOMCODEC_ASSIGN_OR_RETURN(RepairResult done, RepairDatabase("/data/db", options));
//   for (const TableOutcome& t : done.tables) ... t.new_number, or t.left_alone says why not
//
// The steps, in order (each file written is fsynced before it is renamed or referenced):
//   1. Lock: dir/LOCK, both ways the writers lock it (database_lock.h), held to the end.
//   2. Read CURRENT and its MANIFEST; refuse a damaged one, a MANIFEST ending in an open
//      atomic group, a live table that is missing. Choose the tables (options.select; a chosen
//      level-0 table brings every newer level-0 table of its column family, see below) and
//      number them from max(next file number, largest number on disk + 1), the new MANIFEST
//      next, the new next file number after it.
//   3. Each table: its size checked against the MANIFEST, then options.rewrite (which verifies
//      it: an error leaves the table alone, reported in its outcome), the result written to
//      NNNNNN.dbtmp (the kept prefix copied in the kernel, then the new tail), fsynced, read
//      back (byte for byte the old prefix and the tail, then options.check'ed), renamed to
//      NNNNNN.<old extension>. Then the directory is fsynced. The rewrites (no file-system
//      step) of consecutive small tables, up to kRewriteBatchBytes, are made side by side
//      first; the writes, read-backs and renames stay one table after another in plan order.
//   4. MANIFEST-M: the old MANIFEST's records and the repair's edits (manifest_writer.h),
//      fsynced; the directory fsynced.
//   5. Backup (unless no_backup): a folder beside the database directory (never inside it),
//      named <db>.bloomcodec-backup-<UTC time> (MyRocks's #rocksdb: beside MariaDB's data
//      directory, when on the same file system), or options.backup_dir: hard links to the
//      replaced tables and the old MANIFEST, a copy of CURRENT; fsynced.
//   6. Switch CURRENT as the database's writer does: LevelDB and RocksDB (SetCurrentFile) write
//      M.dbtmp, fsync, rename it over CURRENT, fsync the directory; goleveldb (setMeta) first
//      saves the old CURRENT as CURRENT.bak, then writes CURRENT.M and renames it. THE COMMIT
//      (for goleveldb, whose GetMeta takes a whole CURRENT.<number> before CURRENT, the
//      moment CURRENT.M is whole).
//   7. Unlink the replaced tables and the old MANIFEST (the backup keeps them); fsync.
//
// Invariant: before the commit of step 6, CURRENT names the old MANIFEST and every file it
// references is untouched (new files only have numbers nothing references, which the
// databases delete on open: LevelDB and RocksDB remove unreferenced tables, temporary files and
// older MANIFESTs; goleveldb unreferenced tables). From the commit on, the MANIFEST the writer
// reads is the new one, complete and fsynced, and its tables are all on disk (fsynced, their
// directory fsynced); step 7 removes only files it does not reference. A failure before the
// commit removes the files the repair made.
//
// Level 0: LevelDB and goleveldb take the level-0 table with the higher number as the newer one
// (RocksDB orders level 0 by sequence numbers, then epoch); the new numbers keep that order,
// so a repair that replaces a level-0 table replaces every newer one of its column family too,
// and a level-0 table left alone keeps every older rewritten one out of the repair.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/status.h"
#include "manifest/manifest.h"

namespace bloomcodec::lsmrepair {

struct TableToRepair {
  std::string column_family;  // "default" for LevelDB
  std::uint32_t column_family_id = 0;
  manifest::TableMeta meta;  // as the MANIFEST records it
  std::string path;
  // The mapped old table the rewrite is handed the bytes of, when it is one (null: bytes in
  // memory): the rewrite's pass over the data blocks gives its pages back as it goes.
  const InputFile* mapped = nullptr;
};

// A rewritten table: bytes [0, kept_prefix) of the old file as they are, then `tail`.
struct TableRewrite {
  std::uint64_t kept_prefix = 0;
  ByteVector tail;
  std::uint64_t entries = 0;  // the old table's entries, as the rewrite's pass counted them
  // Where the new filter block lies in the new file (size 0: none), so that its figures can be
  // read without assembling the table (the dry run).
  std::uint64_t filter_offset = 0;
  std::uint64_t filter_size = 0;
  // The new filter is several blocks (RocksDB's partitions, then their index, each with its
  // trailer, filter_size bytes in all): the index's contents are the last filter_index_size
  // bytes before the last trailer.
  bool filter_in_pieces = false;
  std::uint64_t filter_index_size = 0;
};

// Consecutive tables whose rewrites run side by side hold at most this many bytes of tables
// together (their key hashes and new tails are held until each is written); a larger table
// runs alone.
constexpr std::uint64_t kRewriteBatchBytes = std::uint64_t{32} << 20;

// The family's rewrite of one table (`file` is its bytes): verifies it first; an error leaves
// the table alone (its outcome says why); nullopt: nothing to change. RepairDatabase calls it
// for several tables at once (kRewriteBatchBytes): it must be safe to run side by side.
using TableRewriteFn =
    std::function<Result<std::optional<TableRewrite>>(const TableToRepair&, ByteSpan file)>;
// Reads a written table back before it is put in; an error leaves the table alone.
using TableCheckFn =
    std::function<Status(const TableToRepair&, ByteSpan old_file, ByteSpan new_file)>;

// How the writer switches CURRENT (step 6).
enum class CurrentStyle { kLevelDb, kGoLevelDb };

// How far step 3 has got: tables rewritten (or left alone) of those chosen, and their bytes.
struct TablesDone {
  std::size_t tables = 0, tables_total = 0;
  std::uint64_t bytes = 0, bytes_total = 0;
};

struct RepairOptions {
  manifest::Flavor flavor = manifest::Flavor::kLevelDb;
  CurrentStyle current = CurrentStyle::kLevelDb;
  std::function<bool(const TableToRepair&)> select;  // null: every live table
  TableRewriteFn rewrite;                            // required
  TableCheckFn check;                                // null: none
  std::string backup_dir;  // empty: a dated folder beside the database directory
  bool no_backup = false;  // the replaced files are deleted, not kept
  std::function<void(const TablesDone&)> on_table;  // null: none; after each table of step 3
};

struct TableOutcome {
  std::string column_family;
  int level = 0;
  std::uint64_t old_number = 0, old_size = 0;
  std::string old_path;
  std::uint64_t new_number = 0, new_size = 0;  // 0: not replaced
  std::string new_path;
  std::string left_alone;    // why it was not replaced (empty: it was)
  bool unsupported = false;  // left alone because the rewrite does not handle its layout
};

struct RepairResult {
  std::vector<TableOutcome> tables;  // every table chosen, in the order they were numbered
  std::string old_manifest, new_manifest;
  std::string backup_dir;          // empty: none
  bool switched = false;           // CURRENT names the new MANIFEST (false: nothing was replaced)
  std::vector<std::string> notes;  // after the commit: files that could not be removed
};

Result<RepairResult> RepairDatabase(const std::string& dir, const RepairOptions& options);

}  // namespace bloomcodec::lsmrepair

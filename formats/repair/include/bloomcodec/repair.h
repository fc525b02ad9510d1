// Repairing the filters of a stopped database in place: each table's filter rebuilt from the
// table's own keys, every other file left as it is, one crash-safe transaction per table.
//
//   bloomcodec::RepairOptions options;
//   options.fp_chance = 0.001;      // unset (and no bits_per_key): only filters verify finds wrong
//   options.dry_run = true;         // the plan only: nothing is written
//   BLOOMCODEC_ASSIGN_OR_RETURN(bloomcodec::RepairReport report,
//                               bloomcodec::RepairPaths({"/var/lib/cassandra/data/ks"}, options));
//   for (const bloomcodec::TableRepair& t : report.tables) ... t.action, t.reasons, sizes
//   return report.damaged > 0 ? 1 : 0;
//
// What a PATH may be: a Cassandra or ScyllaDB data directory (every live sstable under it,
// keyspace subfolders included; snapshots/ and backups/ copies are never touched), one
// component file of an sstable (the sstable), or an LSM database directory (a folder with
// CURRENT: LevelDB, goleveldb, Mojang's fork, RocksDB; every live table its MANIFEST lists), or
// a Pebble database directory (its manifest marker or CURRENT; row tables Pebblev1..v4 are
// rewritten, a table in another format chosen for a rebuild is Refused by name).
//
// Contract:
// * Without fp_chance (or buckets_per_element) only the filters verify finds wrong are rebuilt
//   (false negatives, overfilled or saturated, damaged, missing), at the parameters the table
//   records (Statistics.db's fp chance, else its writer's default); with one, every filter.
// * LSM databases: bits_per_key (every filter to N bits per key) and `to` (every filter to that
//   layout, a --format name the database's readers read; others are Refused) instead of
//   fp_chance, which is InvalidArgument for them. Without either, a rebuilt filter keeps its
//   table's policy and the bits per key its size and probe count imply. The database's own
//   transaction: LOCK held, new tables and a new MANIFEST, CURRENT switched atomically, the old
//   files linked in a dated folder beside the database (or backup_dir).
// * A table whose data or index is damaged is reported (action "damaged") and left untouched;
//   the run goes on with the others.
// * A refusal is a failing Status (Refused) and ends the run at once: a process holding a
//   component (the node is running), an unfinished Cassandra transaction, a temporary sstable, a
//   table written without a filter. Tables repaired before it stay repaired (each is a
//   transaction of its own, complete before the next begins).
// * Bad parameters are InvalidArgument before anything is read.
// * Each repaired table's old files are kept as hard links: by default in a snapshot of its own
//   (`<table dir>/snapshots/bloomcodec-repair-<UTC time>/`, which `nodetool clearsnapshot`
//   removes), under backup_dir when given, nowhere with no_backup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bloomcodec/status.h"

namespace bloomcodec {

struct RepairOptions {
  std::optional<double> fp_chance;                  // Cassandra: the new filters' fp chance
  std::optional<std::int32_t> buckets_per_element;  // Cassandra before 1.2
  std::optional<double> bits_per_key;               // LSM databases: the new filters' size
  std::string to;                                   // LSM databases: the new filters' layout
  bool dry_run = false;                             // plan only
  std::string backup_dir;                           // empty: the family's default place
  bool no_backup = false;                           // the replaced files are not kept
  std::string proc_root = "/proc";  // where the live check looks (tests only change it)
};

// One table's part of the run.
struct TableRepair {
  std::string path;    // the table: a Cassandra sstable's Data.db path, an LSM table's file
  std::string family;  // "cassandra", "leveldb" (Mojang's fork too), "goleveldb", "rocksdb",
                       // "pebble"
  std::string format;  // the filter's format (a --format name)
  std::string version;
  // "repaired" (new files in place), "planned" (dry run), "unchanged" (the rebuilt filter is
  // the one on disk, or the table has no filter by design), "sound" (nothing asked for and
  // verify finds the filter right), "damaged" (more than its filter is damaged: left untouched),
  // "unsupported" (a layout repair does not rebuild, such as RocksDB's block-based filters: left
  // untouched, the note says why; not an error).
  std::string action;
  // Why it is rebuilt: verify's finding kinds of the filter, or "requested" (a parameter given).
  std::vector<std::string> reasons;
  std::string damage;  // "damaged": verify's finding (kind: message)
  std::uint64_t keys = 0;
  std::uint64_t old_filter_bytes = 0, new_filter_bytes = 0;  // 0: none
  std::optional<double> old_fp_rate;  // what a read of the old filter sees (verify's fill)
  std::optional<double> new_fp_rate;  // of the new filter for its keys: (1 - e^(-kn/m))^k
  std::optional<double> fp_chance;    // the new filter's sizing, when by fp chance
  std::optional<std::int32_t> buckets_per_element;
  std::string sizing_basis;           // where the parameters came from, in words
  bool statistics_rewritten = false;  // Statistics.db now records fp_chance
  std::string backup;                 // where the old files are linked ("" without)
  std::vector<std::string> notes;     // what the operator should know
  // LSM databases only (level -1 for Cassandra):
  int level = -1;
  std::string column_family;
  std::optional<double> bits_per_key;  // the new filter's
  std::string new_format;              // the new filter's layout (a --format name)
  std::string new_path;                // the table's new file ("repaired")
};

struct RepairReport {
  std::vector<TableRepair> tables;  // in path order
  bool dry_run = false;
  std::size_t rebuilt = 0;              // repaired, or planned in a dry run
  std::size_t damaged = 0;              // left untouched: more than the filter is damaged
  std::int64_t filter_bytes_delta = 0;  // new minus old, over the tables rebuilt
};

using RepairProgress = std::function<void(std::size_t done, std::size_t total)>;

// Within one LSM database (LevelDB, goleveldb, Mojang's, RocksDB): the tables rebuilt so far of
// those planned (in a dry run, rebuilt in memory) and their bytes. Called after each table.
struct RepairTableProgress {
  std::string database;
  std::size_t tables_done = 0, tables_total = 0;
  std::uint64_t bytes_done = 0, bytes_total = 0;
};
using RepairTableProgressFn = std::function<void(const RepairTableProgress&)>;

// `progress` is called before each PATH's sstable or database (and once at the end),
// `table_progress` after each table of an LSM database.
Result<RepairReport> RepairPaths(std::span<const std::string> paths, const RepairOptions& options,
                                 const RepairProgress& progress = {},
                                 const RepairTableProgressFn& table_progress = {});

}  // namespace bloomcodec

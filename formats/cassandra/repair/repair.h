// Internal: repair of one Cassandra or ScyllaDB sstable's bloom filter, as one crash-safe
// transaction on a stopped node: a new Filter.db from the sstable's own keys (and, when the fp
// chance changes, Statistics.db with the new chance), every other component untouched.
//
//   FileOps ops;
//   RepairRequest req;
//   req.backup = SnapshotBackup(RepairSnapshotTag(std::time(nullptr)));
//   req.fp_chance = 0.001;                           // unset: the chance the sstable records
//   BLOOMCODEC_ASSIGN_OR_RETURN(RepairOutcome out, RepairSstable(".../nb-1-big-Data.db", req, ops));
//   out.action;   // kRepaired, kUnchanged, kFilterSound (only_if_wrong), kPlanned (dry_run)
//
// The steps, in this order (each numbered step that changes the disk goes through FileOps):
//  1. Resolve the sstable from any of its component names; list its components. Refuse a
//     temporary sstable, a folder with Cassandra transaction logs (*_txn_*.log: an unfinished
//     flush or compaction that start-up will roll back or forward), a Filter.db that TOC.txt
//     does not list (the table was written without a filter), and a ScyllaDB sstable whose
//     Scylla.db records component digests.
//  2. Live check (live_check.h) of every component and of our temporary files: no process may
//     have any open or mapped.
//  3. Remove temporary files of ours left by an interrupted run (<component>.bloomcodec_tmp).
//  4. Verify the sstable (verify.h). Any error that is not the filter's own (Index.db or the trie
//     damaged, Statistics.db damaged, a file unreadable, keys that cannot be read) leaves the
//     sstable untouched: the outcome is kDamaged, with that finding (a result, not an error, so
//     that a run over a data directory reports it and goes on). The filter's own findings (false negatives, overfilled or saturated,
//     damaged bytes, missing, mis-sized for its key count) are what repair is for.
//  5. Choose the parameters (rebuild.h): given, or Statistics.db's fp chance, or the writer's
//     default; build the filter for verify's key count, check that it answers every key. When a
//     rebuild is asked for, step 4's verify keeps the keys' hashes (cassandra/rebuild_tap.h) and
//     a Murmur3 filter is built and checked from them, the keys not read again; otherwise (an
//     older era, keys past the tap's budget, keys verify could not read whole) from the keys.
//  6. When the fp chance changes and the version records one: the new Statistics.db in memory
//     (statistics.h), every checksum that covers the chance recomputed.
//  7. Write the new files next to the old ones as <component>.bloomcodec_tmp (Filter.db's first),
//     with the old files' mode and owner, and fsync each.
//  8. Back up (backup.h): hard links of every component of the sstable, the old Filter.db and
//     Statistics.db among them, in a snapshot folder (or the --backup folder), durable.
//  9. Live check again (a node started in the meantime refuses the sstable here).
// 10. Rename the new Filter.db into place, then the new Statistics.db.
// 11. fsync the sstable's folder.
// 12. Read back: Filter.db and Statistics.db are the bytes written, Statistics.db reads with the
//     new chance (every checksum).
//
// The invariant, at every instant (a crash, a kill -9, a power cut anywhere): each component
// name of the sstable names a complete file, the old one or the new one, never a part of
// either; the new one appears only by rename(2) of a file already fsynced; the old Filter.db
// and Statistics.db stay reachable through the backup's links from before the first rename
// (without a backup, --no-backup, they are gone once renamed over); TOC.txt, Digest.*, Data.db,
// Index.db and every other component are never opened for writing. Our temporary files are the
// only other names we create in the sstable's folder, and a re-run removes them.
//
// Why Filter.db is renamed first: a crash between the two renames leaves the new Filter.db with
// the old Statistics.db. Cassandra 2.0 to 3.x (before CASSANDRA-11163) compares Statistics.db's
// fp chance with the table's at start-up: after the operator's ALTER TABLE they differ, so it
// rebuilds the filter from Index.db (correct, slower to start); with the table unchanged it
// loads the new filter, which holds every key. 4.0 and later, and ScyllaDB, load Filter.db
// whatever Statistics.db says. Every combination opens with a filter that has no false
// negative. The other order could leave the new fp chance beside the old Filter.db, which
// 2.0 - 3.x would then load as current: the very filter being repaired. (FORMAT.md, "Repair".)
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"
#include "cassandra/repair/backup.h"
#include "cassandra/repair/file_ops.h"
#include "cassandra/repair/rebuild.h"
#include "cassandra/verify.h"

namespace bloomcodec::cassandra {

// The suffix of our temporary files: `<component file>.bloomcodec_tmp` in the sstable's folder.
// Cassandra's directory scan reads it as an unknown (custom) component or an invalid name and
// ignores it; ScyllaDB's as a component of an unknown type, which it ignores too.
inline constexpr std::string_view kRepairTemporarySuffix = ".bloomcodec_tmp";

struct RepairRequest {
  // The new filter's parameters; both unset: what the sstable records (Statistics.db), else
  // the writer's default (rebuild.h).
  std::optional<double> fp_chance;
  std::optional<std::int32_t> buckets_per_element;  // versions before ia only
  // Rebuild only when verify finds the filter wrong (FilterProblems); otherwise always.
  bool only_if_wrong = false;
  bool dry_run = false;  // everything up to step 6, nothing written
  BackupTarget backup;   // SnapshotBackup(tag) unless the caller says otherwise
  std::optional<IndexKeyForm> forced_key_form;  // versions before e: --partitioner
  std::string proc_root = "/proc";
  std::time_t now = 0;  // the snapshot manifest's created_at (0: the current time)
};

enum class RepairAction {
  kRepaired,     // the new files are in place
  kPlanned,      // dry run: what would be written was computed
  kUnchanged,    // the rebuilt files are the ones on disk (or the table has no filter)
  kFilterSound,  // only_if_wrong, and verify found nothing wrong with the filter
  kDamaged,      // more than the filter is damaged (`damage`): nothing was written
};

struct RepairOutcome {
  RepairAction action = RepairAction::kUnchanged;
  SstableFiles sstable;
  FileReport before;                  // verify's report before anything was done
  std::vector<std::string> problems;  // the filter's own finding kinds that made it wrong
  std::optional<Finding> damage;      // kDamaged: the first finding that is not the filter's
  FilterSizing sizing;
  std::optional<double> recorded_fp_chance;  // Statistics.db's, when the version has one
  std::uint64_t keys = 0;
  std::int32_t hash_count = 0;  // of the new filter
  std::int64_t words = 0;
  std::uint64_t old_filter_bytes = 0;  // 0 when there was none
  std::uint64_t new_filter_bytes = 0;
  bool statistics_rewritten = false;
  std::string backup_folder;          // where the old files are linked ("" without a backup)
  std::vector<std::string> replaced;  // the component paths renamed over, in order
  std::vector<std::string> notes;     // what the operator should know (start-up, parameters)
};

// The sstable one of whose component files `path` is (any component, e.g. Data.db or
// Filter.db), with the paths of its components that exist.
struct SstableSet {
  SstableFiles files;
  std::string dir;
  std::string prefix;                   // "<dir>/nb-1-big-"
  std::vector<std::string> components;  // every existing component file, sorted
};
Result<SstableSet> FindSstableSet(const std::string& path);

// The kinds of the report's findings that are the filter's own and say it is wrong.
std::vector<std::string> FilterProblems(const FileReport& report);
// The first error finding that is not the filter's own (damage repair must not go past), or
// nullopt.
std::optional<Finding> DamageBesidesTheFilter(const FileReport& report);

Result<RepairOutcome> RepairSstable(const std::string& path, const RepairRequest& request,
                                    FileOps& ops);

// RepairSstable in its three parts, for a caller that plans several sstables side by side:
// Prepare (steps 1 - 3, through `ops`), Plan (steps 4 - 6: reads only, touches nothing but `p`,
// so plans of different sstables may run at once; verify's ranges and the rebuild then use the
// pool's idle workers), Finish (steps 7 - 12 through `ops`, or the dry run's outcome). Prepare
// and Finish of different sstables run one at a time, in the caller's order. A planned sstable
// holds its new Filter.db (and Statistics.db) until it is finished.
struct PreparedRepair {
  SstableSet set;
  RepairOutcome out;
  bool act = false;  // Plan found something to write
  ByteVector filter, statistics;
};
Result<PreparedRepair> PrepareSstableRepair(const std::string& path, const RepairRequest& request,
                                            FileOps& ops);
Status PlanSstableRepair(const RepairRequest& request, PreparedRepair& p);
Result<RepairOutcome> FinishSstableRepair(PreparedRepair p, const RepairRequest& request,
                                          FileOps& ops);

}  // namespace bloomcodec::cassandra

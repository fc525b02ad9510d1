// The steps of a repair transaction (see repair_transaction.h for their order and the
// invariant): planning (step 2), one table's rewrite (step 3), the backup (5), the switch of
// CURRENT (6) and the removal of the replaced files (7). Internal to formats/lsmrepair.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lsmrepair/manifest_writer.h"
#include "lsmrepair/repair_transaction.h"
#include "manifest/manifest.h"

namespace bloomcodec::lsmrepair {

struct PlannedTable {
  TableToRepair table;
  std::uint64_t new_number = 0;
  std::string extension;  // the old file's ("ldb" or "sst"), kept
};

struct RepairPlan {
  std::string dir;
  std::string old_manifest;  // its path
  std::string old_current;   // CURRENT's bytes
  std::vector<manifest::LogRecord> records;
  std::vector<PlannedTable> tables;
  std::uint64_t manifest_number = 0;
  std::uint64_t next_file = 0;
};

// Step 2 (the lock is held).
Result<RepairPlan> PlanRepair(const std::string& dir, const RepairOptions& options);

// Step 3 for one table. A table the repair cannot replace gets outcome.left_alone; the returned
// error is one that stops the whole repair (the file system refused a write). Every file made is
// added to `made` (removed again when the repair stops before its commit).
Status RewriteTable(const RepairPlan& plan, const PlannedTable& planned,
                    const RepairOptions& options, TableOutcome& outcome,
                    std::optional<TableReplacement>& replacement, std::vector<std::string>& made);

// Steps 3a-3b alone: the family's verified rewrite of one table, made with no file-system step,
// so that several tables' rewrites may run side by side before each RewriteTable below.
struct PreparedRewrite {
  Status stop;  // the old table could not be opened: an error that stops the repair
  Result<std::optional<TableRewrite>> rewrite = Status::Internal("not prepared");
};
PreparedRewrite PrepareRewrite(const PlannedTable& planned, const RepairOptions& options);
// Step 3 for a rewrite PrepareRewrite made (the overload above makes its own).
Status RewriteTable(const RepairPlan& plan, const PlannedTable& planned,
                    const RepairOptions& options, PreparedRewrite prepared, TableOutcome& outcome,
                    std::optional<TableReplacement>& replacement, std::vector<std::string>& made);

// Level 0 in number order (see repair_transaction.h): a rewritten level-0 table older than one
// left alone in its column family is taken out again (its new file removed).
Status KeepLevel0Order(std::vector<TableOutcome>& outcomes,
                       std::vector<std::optional<TableReplacement>>& replaced);

// Step 5: returns the backup folder.
Result<std::string> WriteBackup(const RepairPlan& plan, const std::vector<TableOutcome>& outcomes,
                                const std::string& requested_dir);
// Step 6 up to the rename (the commit); the directory's fsync is the caller's.
Status SwitchCurrent(const RepairPlan& plan, CurrentStyle style);

std::string ManifestName(std::uint64_t number);

}  // namespace bloomcodec::lsmrepair

// The repair transaction (see repair_transaction.h): the steps in order, the backup, the switch
// of CURRENT and the removal of what was replaced.
#include "lsmrepair/repair_transaction.h"

#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <optional>

#include "codec/parallel.h"
#include "lsmrepair/database_lock.h"
#include "lsmrepair/durable_io.h"
#include "lsmrepair/repair_steps.h"

namespace bloomcodec::lsmrepair {
namespace {

namespace fs = std::filesystem;

ByteSpan AsBytes(std::string_view s) {
  return ByteSpan(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
}

std::string FileName(const std::string& path) { return fs::path(path).filename().string(); }

// MyRocks keeps its RocksDB database in `#rocksdb` inside MariaDB's data directory (the one
// holding the `mysql` system schema), where MariaDB takes every folder for a database: a backup
// folder beside `#rocksdb` would show in SHOW DATABASES. Its place is then beside the data
// directory, when that is on the same file system (the backup is hard links); nullopt otherwise.
std::optional<fs::path> BesideMariaDbDataDir(const fs::path& db) {
  std::error_code ec;
  const fs::path data_dir = db.parent_path();
  if (db.filename() != "#rocksdb" || !fs::is_directory(data_dir / "mysql", ec) ||
      data_dir.parent_path() == data_dir) {
    return std::nullopt;
  }
  struct stat inside {};
  struct stat beside {};
  if (::stat(db.c_str(), &inside) != 0 || ::stat(data_dir.parent_path().c_str(), &beside) != 0 ||
      inside.st_dev != beside.st_dev) {
    return std::nullopt;
  }
  return data_dir.parent_path() / (data_dir.filename().string() + ".#rocksdb");
}

// <parent>/<db>.bloomcodec-backup-<UTC time>[-N]: beside the database, never inside it (for
// MyRocks beside MariaDB's data directory: <data dir>.#rocksdb.bloomcodec-backup-<UTC time>).
std::string DatedBackupDir(const std::string& dir) {
  fs::path db = fs::absolute(fs::path(dir)).lexically_normal();
  if (db.filename().empty()) db = db.parent_path();
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  const fs::path beside = BesideMariaDbDataDir(db).value_or(db);
  const std::string base =
      (beside.parent_path() / (beside.filename().string() + ".bloomcodec-backup-" + stamp))
          .string();
  std::string name = base;
  std::error_code ec;
  for (int n = 2; fs::exists(name, ec); ++n) name = base + "-" + std::to_string(n);
  return name;
}

// Removes what a repair that stops before its commit made (best effort: the files are not
// referenced by anything, and the databases delete them on open anyway).
void RemoveMade(const std::vector<std::string>& made) {
  for (const std::string& p : made) (void)RemoveFile(p);
}

// Steps 3 to 7 once the plan is made.
Status Commit(const RepairPlan& plan, const RepairOptions& options, RepairResult& result,
              std::vector<std::string>& made) {
  std::vector<std::optional<TableReplacement>> replaced(plan.tables.size());
  result.tables.resize(plan.tables.size());
  TablesDone done;
  done.tables_total = plan.tables.size();
  for (const PlannedTable& p : plan.tables) done.bytes_total += p.table.meta.size;
  for (std::size_t i = 0; i < plan.tables.size();) {
    // Small tables are rewritten side by side (one table's pass leaves cores idle in its
    // sequential parts: the filter's build, its check, the tail), up to kRewriteBatchBytes of tables
    // at a time, then written one after another in plan order.
    std::size_t end = i + 1;
    std::uint64_t bytes = plan.tables[i].table.meta.size;
    while (end < plan.tables.size() &&
           bytes + plan.tables[end].table.meta.size <= kRewriteBatchBytes) {
      bytes += plan.tables[end++].table.meta.size;
    }
    std::vector<PreparedRewrite> rewrites(end - i);
    ParallelFor(rewrites.size(),
                [&](std::size_t k) { rewrites[k] = PrepareRewrite(plan.tables[i + k], options); });
    for (std::size_t k = 0; k < rewrites.size(); ++k, ++i) {
      BLOOMCODEC_RETURN_IF_ERROR(RewriteTable(plan, plan.tables[i], options, std::move(rewrites[k]),
                                              result.tables[i], replaced[i], made));
      ++done.tables;
      done.bytes += plan.tables[i].table.meta.size;
      if (options.on_table) options.on_table(done);
    }
  }
  BLOOMCODEC_RETURN_IF_ERROR(KeepLevel0Order(result.tables, replaced));
  std::vector<TableReplacement> edits;
  for (auto& r : replaced) {
    if (r) edits.push_back(std::move(*r));
  }
  if (edits.empty()) return Status();  // nothing to put in: the database stays as it was
  BLOOMCODEC_RETURN_IF_ERROR(SyncDirectory(plan.dir));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector manifest, BuildRepairManifest(plan.records, options.flavor,
                                                                       edits, plan.next_file));
  result.new_manifest = plan.dir + "/" + ManifestName(plan.manifest_number);
  made.push_back(result.new_manifest);
  BLOOMCODEC_RETURN_IF_ERROR(WriteFileDurably(result.new_manifest, manifest));
  BLOOMCODEC_RETURN_IF_ERROR(SyncDirectory(plan.dir));
  if (!options.no_backup) {
    BLOOMCODEC_ASSIGN_OR_RETURN(result.backup_dir,
                                WriteBackup(plan, result.tables, options.backup_dir));
  }
  BLOOMCODEC_RETURN_IF_ERROR(SwitchCurrent(plan, options.current));
  // Committed: CURRENT names the new MANIFEST; nothing made may be removed any more.
  result.switched = true;
  made.clear();
  BLOOMCODEC_RETURN_IF_ERROR(SyncDirectory(plan.dir));
  // Step 7: the old names go; a failure now is only a note (the files are unreferenced).
  std::vector<std::string> old_files{plan.old_manifest};
  for (const TableOutcome& t : result.tables) {
    if (t.left_alone.empty()) old_files.push_back(t.old_path);
  }
  for (const std::string& p : old_files) {
    const Status s = RemoveFile(p);
    if (!s.ok()) result.notes.push_back(s.ToString());
  }
  const Status synced = SyncDirectory(plan.dir);
  if (!synced.ok()) result.notes.push_back(synced.ToString());
  return Status();
}

}  // namespace

Result<std::string> WriteBackup(const RepairPlan& plan, const std::vector<TableOutcome>& outcomes,
                                const std::string& requested_dir) {
  const std::string dir = requested_dir.empty() ? DatedBackupDir(plan.dir) : requested_dir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) BLOOMCODEC_RETURN_IF_ERROR(MakeDirectory(dir));
  // Hard links: the backup costs no space, and fails here (another file system) before the
  // database is changed.
  BLOOMCODEC_RETURN_IF_ERROR(LinkFile(plan.old_manifest, dir + "/" + FileName(plan.old_manifest)));
  for (const TableOutcome& t : outcomes) {
    if (t.left_alone.empty()) {
      BLOOMCODEC_RETURN_IF_ERROR(LinkFile(t.old_path, dir + "/" + FileName(t.old_path)));
    }
  }
  BLOOMCODEC_RETURN_IF_ERROR(WriteFileDurably(dir + "/CURRENT", AsBytes(plan.old_current)));
  BLOOMCODEC_RETURN_IF_ERROR(SyncDirectory(dir));
  const std::string parent = fs::path(dir).parent_path().string();
  BLOOMCODEC_RETURN_IF_ERROR(SyncDirectory(parent.empty() ? "." : parent));
  return dir;
}

Status SwitchCurrent(const RepairPlan& plan, CurrentStyle style) {
  const std::string content = ManifestName(plan.manifest_number) + "\n";
  const std::string current = plan.dir + "/CURRENT";
  std::string temp;
  if (style == CurrentStyle::kGoLevelDb) {
    // goleveldb's setMeta: the old CURRENT saved as CURRENT.bak, then CURRENT.<number>.
    BLOOMCODEC_RETURN_IF_ERROR(WriteFileDurably(current + ".bak", AsBytes(plan.old_current)));
    temp = current + "." + std::to_string(plan.manifest_number);
  } else {
    // LevelDB's and RocksDB's SetCurrentFile: <number>.dbtmp.
    temp = plan.dir + "/" + manifest::TableFileName(plan.manifest_number, "dbtmp");
  }
  BLOOMCODEC_RETURN_IF_ERROR(WriteFileDurably(temp, AsBytes(content)));
  return RenameFile(temp, current);  // the caller fsyncs the directory
}

Result<RepairResult> RepairDatabase(const std::string& dir, const RepairOptions& options) {
  BLOOMCODEC_ASSIGN_OR_RETURN(DatabaseLock lock, DatabaseLock::Acquire(dir));
  BLOOMCODEC_ASSIGN_OR_RETURN(RepairPlan plan, PlanRepair(dir, options));
  RepairResult result;
  result.old_manifest = plan.old_manifest;
  std::vector<std::string> made;
  const Status s = Commit(plan, options, result, made);
  if (!s.ok()) {
    RemoveMade(made);
    return s;
  }
  return result;
}

}  // namespace bloomcodec::lsmrepair

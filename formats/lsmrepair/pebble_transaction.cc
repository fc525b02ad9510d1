// The Pebble repair transaction (pebble_transaction.h): planning by table file, the shared
// table step, the new MANIFEST, the backup and the switch by marker or CURRENT.
#include "lsmrepair/pebble_transaction.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "bloomcodec/input_file.h"
#include "lsmrepair/database_lock.h"
#include "lsmrepair/durable_io.h"
#include "lsmrepair/repair_steps.h"
#include "pebble/database.h"

namespace bloomcodec::lsmrepair {
namespace {

namespace fs = std::filesystem;

Status RefusePebble(const std::string& dir, std::string why) {
  return Status::Unsupported(dir + ": " + std::move(why) + "; the database is not repaired");
}

// A table file and the tables recorded on it.
struct PebbleUnit {
  TableToRepair file;  // meta: the first table's record, size the file's
  bool is_backing = false;
  std::vector<manifest::TableMeta> tables;
};

struct PebblePlan {
  RepairPlan base;  // dir, old MANIFEST and CURRENT, records, numbers
  std::vector<PebbleUnit> units;
  std::vector<std::vector<std::uint64_t>> table_numbers;  // per unit
  std::optional<pebble::Marker> marker;                   // the manifest marker, when it rules
  bool has_current = false;                               // a CURRENT file, used or not
};

Status CheckPebbleDatabase(const std::string& dir, const pebble::Database& db) {
  const manifest::DatabaseView& view = db.view;
  for (const auto* list : {&view.current_findings, &view.manifest_findings}) {
    for (const Finding& f : *list) {
      if (f.severity == Severity::kError) {
        return RefusePebble(dir, "its MANIFEST or what names it is damaged (" + f.message + ")");
      }
    }
  }
  for (const pebble::FileFindings& other : db.other_files) {
    for (const Finding& f : other.findings) {
      if (f.severity == Severity::kError) {
        return RefusePebble(dir, other.path + ": " + f.message);
      }
    }
  }
  if (!view.from_manifest) return RefusePebble(dir, "no MANIFEST to repair the tables of");
  if (!view.manifest.next_file) {
    return RefusePebble(dir, "the MANIFEST records no next file number");
  }
  for (const manifest::LiveTable& t : view.live) {
    if (t.missing) return RefusePebble(dir, "live table " + t.path + " is missing");
  }
  return Status();
}

// Live tables grouped by file: a physical table alone, a backing with its virtual tables.
Result<std::vector<PebbleUnit>> PebbleUnits(const std::string& dir, const pebble::Database& db) {
  std::map<std::uint64_t, PebbleUnit> by_file;
  for (const manifest::LiveTable& t : db.view.live) {
    const std::uint64_t file = t.meta.is_virtual ? t.meta.backing : t.meta.number;
    auto [it, fresh] = by_file.try_emplace(file);
    PebbleUnit& u = it->second;
    if (!fresh && (u.is_backing != t.meta.is_virtual || !t.meta.is_virtual)) {
      return RefusePebble(dir, "file " + std::to_string(file) +
                                   " is recorded as a table more than once");
    }
    if (fresh) {
      u.is_backing = t.meta.is_virtual;
      u.file = {"default", 0, t.meta, t.path};
      if (u.is_backing) {
        const auto b =
            std::find_if(db.view.manifest.backings.begin(), db.view.manifest.backings.end(),
                         [file](const manifest::BackingTable& x) { return x.number == file; });
        if (b == db.view.manifest.backings.end()) {
          return RefusePebble(dir, "virtual table " + std::to_string(t.meta.number) +
                                       "'s backing " + std::to_string(file) + " is not recorded");
        }
        u.file.meta.number = file;
        u.file.meta.size = b->size;
      }
    }
    u.tables.push_back(t.meta);
  }
  std::vector<PebbleUnit> out;
  for (auto& [number, u] : by_file) out.push_back(std::move(u));
  return out;
}

Result<std::uint64_t> PebbleLargestNumberOnDisk(const std::string& dir) {
  std::uint64_t largest = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    for (std::string_view prefix : {"MANIFEST-", "OPTIONS-", "temporary.", "CURRENT."}) {
      if (name.starts_with(prefix)) name.erase(0, prefix.size());
    }
    std::size_t digits = 0;
    while (digits < name.size() && digits < 19 && name[digits] >= '0' && name[digits] <= '9') {
      ++digits;
    }
    if (digits > 0) largest = std::max<std::uint64_t>(largest, std::stoull(name.substr(0, digits)));
  }
  if (ec) return Status::IoError(dir, "list the directory: " + ec.message());
  return largest;
}

Result<PebblePlan> PlanPebbleRepair(const std::string& dir, const PebbleRepairOptions& options) {
  if (!options.rewrite) return Status::InvalidArgument("a repair needs the family's rewrite");
  const pebble::Database db = pebble::ReadDatabase(dir);
  BLOOMCODEC_RETURN_IF_ERROR(CheckPebbleDatabase(dir, db));
  PebblePlan plan;
  plan.base.dir = dir;
  plan.base.old_manifest = db.view.manifest_path;
  if (db.identity.from_marker) plan.marker = db.identity.manifest_marker;
  std::error_code ec;
  plan.has_current = fs::is_regular_file(dir + "/CURRENT", ec);
  if (plan.has_current) {
    std::ifstream in(dir + "/CURRENT", std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    plan.base.old_current = text.str();
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile old, InputFile::Open(db.view.manifest_path));
  manifest::LogReadResult log = manifest::ReadLogRecords(old.bytes(), manifest::Flavor::kPebble);
  if (log.damaged) return RefusePebble(dir, "its MANIFEST is damaged");
  plan.base.records = std::move(log.records);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<PebbleUnit> units, PebbleUnits(dir, db));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t largest, PebbleLargestNumberOnDisk(dir));
  std::uint64_t next = std::max(*db.view.manifest.next_file, largest + 1);
  for (PebbleUnit& u : units) {
    if (options.select && !options.select(u.file)) continue;
    PlannedTable p;
    p.table = u.file;
    p.new_number = next++;
    p.extension = "sst";
    std::vector<std::uint64_t> numbers;
    for (std::size_t i = 0; i < u.tables.size(); ++i) {
      numbers.push_back(u.is_backing ? next++ : p.new_number);
    }
    plan.base.tables.push_back(std::move(p));
    plan.units.push_back(std::move(u));
    plan.table_numbers.push_back(std::move(numbers));
  }
  plan.base.manifest_number = next++;
  plan.base.next_file = next;
  return plan;
}

std::string PebbleFileName(const std::string& path) { return fs::path(path).filename().string(); }

// The marker file name Pebble's Marker.Move makes (marker.<name>.<%06d iteration>.<value>).
std::string PebbleMarkerName(std::uint64_t iteration, std::uint64_t manifest_number) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "marker.manifest.%06llu.%s",
                static_cast<unsigned long long>(iteration), ManifestName(manifest_number).c_str());
  return buf;
}

// Step 6 up to the commit (the caller fsyncs the directory after it).
Status SwitchPebbleManifest(const PebblePlan& plan) {
  const std::string& dir = plan.base.dir;
  const std::uint64_t m = plan.base.manifest_number;
  if (plan.marker) {
    const std::string marker = dir + "/" + PebbleMarkerName(plan.marker->iteration + 1, m);
    BLOOMCODEC_RETURN_IF_ERROR(WriteFileDurably(marker, ByteSpan()));
    return SyncDirectory(dir);
  }
  char temp[64];
  std::snprintf(temp, sizeof temp, "temporary.%06llu.dbtmp", static_cast<unsigned long long>(m));
  const std::string content = ManifestName(m) + "\n";
  BLOOMCODEC_RETURN_IF_ERROR(WriteFileDurably(
      dir + "/" + temp,
      ByteSpan(reinterpret_cast<const std::uint8_t*>(content.data()), content.size())));
  BLOOMCODEC_RETURN_IF_ERROR(RenameFile(dir + "/" + temp, dir + "/CURRENT"));
  return SyncDirectory(dir);
}

// Steps 3 and 4: the tables, then the MANIFEST. False: nothing was replaced.
Result<bool> WritePebbleFiles(const PebblePlan& plan, const PebbleRepairOptions& options,
                              RepairResult& result, std::vector<std::string>& made) {
  RepairOptions shared;
  shared.rewrite = options.rewrite;
  shared.check = options.check;
  std::vector<PebbleFileReplacement> edits;
  result.tables.resize(plan.units.size());
  TablesDone done;
  done.tables_total = plan.base.tables.size();
  for (const PlannedTable& p : plan.base.tables) done.bytes_total += p.table.meta.size;
  for (std::size_t i = 0; i < plan.units.size(); ++i) {
    std::optional<TableReplacement> replaced;
    BLOOMCODEC_RETURN_IF_ERROR(
        RewriteTable(plan.base, plan.base.tables[i], shared, result.tables[i], replaced, made));
    ++done.tables;
    done.bytes += plan.base.tables[i].table.meta.size;
    if (options.on_table) options.on_table(done);
    if (!replaced) continue;
    const PebbleUnit& u = plan.units[i];
    edits.push_back({u.is_backing, u.file.meta.number, replaced->new_number, replaced->new_size,
                     u.tables, plan.table_numbers[i]});
  }
  if (edits.empty()) return false;
  BLOOMCODEC_RETURN_IF_ERROR(SyncDirectory(plan.base.dir));
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector edit, PebbleRepairEdit(edits, plan.base.next_file));
  ByteVector manifest;
  LogWriter log(manifest);
  for (const manifest::LogRecord& r : plan.base.records) log.AddRecord(r.payload);
  log.AddRecord(edit);
  result.new_manifest = plan.base.dir + "/" + ManifestName(plan.base.manifest_number);
  made.push_back(result.new_manifest);
  BLOOMCODEC_RETURN_IF_ERROR(WriteFileDurably(result.new_manifest, manifest));
  BLOOMCODEC_RETURN_IF_ERROR(SyncDirectory(plan.base.dir));
  return true;
}

Status CommitPebble(const PebblePlan& plan, const PebbleRepairOptions& options,
                    RepairResult& result, std::vector<std::string>& made) {
  BLOOMCODEC_ASSIGN_OR_RETURN(bool any, WritePebbleFiles(plan, options, result, made));
  if (!any) return Status();  // nothing to put in: the database stays as it was
  if (!options.no_backup) {
    BLOOMCODEC_ASSIGN_OR_RETURN(result.backup_dir,
                                WriteBackup(plan.base, result.tables, options.backup_dir));
    if (!plan.has_current) {
      // WriteBackup copies CURRENT's bytes; a directory without CURRENT has none to keep.
      BLOOMCODEC_RETURN_IF_ERROR(RemoveFile(result.backup_dir + "/CURRENT"));
    }
    if (plan.marker) {
      // The old marker's name, which says which MANIFEST the backup's tables belong to.
      const std::string name = result.backup_dir + "/" + PebbleFileName(plan.marker->path);
      BLOOMCODEC_RETURN_IF_ERROR(WriteFileDurably(name, ByteSpan()));
    }
    BLOOMCODEC_RETURN_IF_ERROR(SyncDirectory(result.backup_dir));
  }
  BLOOMCODEC_RETURN_IF_ERROR(SwitchPebbleManifest(plan));
  // Committed: the MANIFEST Pebble opens is the new one; nothing made may be removed any more.
  result.switched = true;
  made.clear();
  std::vector<std::string> old_files{plan.base.old_manifest};
  if (plan.marker) old_files.push_back(plan.marker->path);
  for (const TableOutcome& t : result.tables) {
    if (t.left_alone.empty()) old_files.push_back(t.old_path);
  }
  for (const std::string& p : old_files) {
    const Status s = RemoveFile(p);
    if (!s.ok()) result.notes.push_back(s.ToString());
  }
  const Status synced = SyncDirectory(plan.base.dir);
  if (!synced.ok()) result.notes.push_back(synced.ToString());
  return Status();
}

}  // namespace

Result<RepairResult> RepairPebbleDatabase(const std::string& dir,
                                          const PebbleRepairOptions& options) {
  BLOOMCODEC_ASSIGN_OR_RETURN(DatabaseLock lock, DatabaseLock::Acquire(dir));
  BLOOMCODEC_ASSIGN_OR_RETURN(PebblePlan plan, PlanPebbleRepair(dir, options));
  RepairResult result;
  result.old_manifest = plan.base.old_manifest;
  std::vector<std::string> made;
  const Status s = CommitPebble(plan, options, result, made);
  if (!s.ok()) {
    for (const std::string& p : made) (void)RemoveFile(p);
    return s;
  }
  return result;
}

}  // namespace bloomcodec::lsmrepair

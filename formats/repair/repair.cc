// RepairPaths (bloomcodec/repair.h): which family each PATH is, and each table through its
// family's transaction (Cassandra: cassandra/repair/repair.h).
#include "bloomcodec/repair.h"

#include <cmath>
#include <ctime>
#include <filesystem>
#include <optional>
#include <system_error>

#include "bloomcodec/verify.h"
#include "cassandra/repair/repair.h"
#include "cassandra/verify.h"
#include "codec/parallel.h"
#include "repair/lsm_repair.h"

namespace bloomcodec {
namespace {

namespace fs = std::filesystem;

// One table to repair: a Cassandra sstable (any component's path) and the PATH it was found
// under (for --backup DIR's relative folders), or an LSM database directory (lsm set).
struct PlannedTable {
  std::string sstable;
  std::string root;
  bool lsm = false;
};

// Every live sstable under each PATH, in order; snapshot and backup copies are left out.
Result<std::vector<PlannedTable>> FindTables(std::span<const std::string> paths) {
  std::vector<PlannedTable> tables;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return Status::IoError(path, "no such file or directory");
    if (!fs::is_directory(path, ec)) {
      tables.push_back({path, fs::path(path).parent_path().string()});
      continue;
    }
    if (repair_internal::IsLsmDatabase(path)) {
      tables.push_back({path, path, true});
      continue;
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<cassandra::SstableFiles> found,
                                cassandra::FindSstables(path));
    std::size_t live = 0;
    for (const cassandra::SstableFiles& s : found) {
      if (s.role != GroupRole::kLive) continue;
      ++live;
      // Filter.db's name finds the sstable whether or not the file exists.
      tables.push_back({s.filter_path, path});
    }
    if (live == 0) {
      return Status::InvalidArgument(path + ": holds no live Cassandra or ScyllaDB sstable");
    }
  }
  return tables;
}

// The false-positive rate of a bloom filter of `bits` bits and `k` hashes holding `n` keys.
double BloomFpRate(double bits, double k, double n) {
  if (bits <= 0 || k <= 0) return 1.0;
  return std::pow(1.0 - std::exp(-k * n / bits), k);
}

std::string ActionName(cassandra::RepairAction a) {
  using enum cassandra::RepairAction;
  switch (a) {
    case kRepaired: return "repaired";
    case kPlanned: return "planned";
    case kUnchanged: return "unchanged";
    case kFilterSound: return "sound";
    case kDamaged: return "damaged";
  }
  return "unchanged";
}

TableRepair FromOutcome(const cassandra::RepairOutcome& out, bool given) {
  TableRepair t;
  const std::string& filter = out.sstable.filter_path;
  t.path = filter.substr(0, filter.size() - std::string_view("Filter.db").size()) + "Data.db";
  t.family = "cassandra";
  t.format = out.before.format;
  t.version = out.sstable.descriptor.version;
  t.action = ActionName(out.action);
  if (out.damage) t.damage = out.damage->kind + ": " + out.damage->message;
  t.reasons = out.problems;
  if (given) t.reasons.insert(t.reasons.begin(), "requested");
  t.keys = out.keys;
  t.old_filter_bytes = out.old_filter_bytes;
  t.new_filter_bytes = out.new_filter_bytes;
  if (out.before.fill) t.old_fp_rate = out.before.fill->fp_rate;
  const bool built = out.action == cassandra::RepairAction::kRepaired ||
                     out.action == cassandra::RepairAction::kPlanned ||
                     (out.action == cassandra::RepairAction::kUnchanged && out.words > 0);
  if (built) {
    t.new_fp_rate = BloomFpRate(64.0 * static_cast<double>(out.words), out.hash_count,
                                static_cast<double>(out.keys));
    t.fp_chance = out.sizing.fp_chance;
    t.buckets_per_element = out.sizing.buckets_per_element;
    t.sizing_basis = out.sizing.basis;
  }
  t.statistics_rewritten = out.statistics_rewritten;
  if (out.action == cassandra::RepairAction::kRepaired ||
      out.action == cassandra::RepairAction::kPlanned) {
    t.backup = out.backup_folder;
  }
  t.notes = out.notes;
  return t;
}

// Options of one family on a PATH of another.
Status CheckFamilies(std::span<const PlannedTable> tables, const RepairOptions& options) {
  for (const PlannedTable& t : tables) {
    if (t.lsm) continue;
    if (options.bits_per_key) {
      return Status::InvalidArgument("--bits-per-key: " + t.sstable +
                                     " is a Cassandra or ScyllaDB sstable (its filters take "
                                     "--fp-chance)");
    }
    if (!options.to.empty()) {
      return Status::InvalidArgument("--to: " + t.sstable +
                                     " is a Cassandra or ScyllaDB sstable: repair keeps its "
                                     "version's filter layout");
    }
  }
  return Status();
}

// A database's rows into the report.
void AddRows(std::vector<TableRepair> rows, RepairReport& report) {
  for (TableRepair& t : rows) {
    if (t.action == "repaired" || t.action == "planned") {
      ++report.rebuilt;
      report.filter_bytes_delta += static_cast<std::int64_t>(t.new_filter_bytes) -
                                   static_cast<std::int64_t>(t.old_filter_bytes);
    }
    if (t.action == "damaged") ++report.damaged;
    report.tables.push_back(std::move(t));
  }
}

Status CheckOptions(const RepairOptions& options) {
  if (options.fp_chance && options.buckets_per_element) {
    return Status::InvalidArgument("--fp-chance and --buckets-per-element are alternatives");
  }
  if (options.fp_chance && !(*options.fp_chance > 0 && *options.fp_chance <= 1)) {
    return Status::InvalidArgument("--fp-chance must be above 0 and at most 1");
  }
  if (options.no_backup && !options.backup_dir.empty()) {
    return Status::InvalidArgument("--backup and --no-backup are alternatives");
  }
  return Status();
}

cassandra::BackupTarget BackupFor(const RepairOptions& options, const PlannedTable& table,
                                  const std::string& tag) {
  if (options.no_backup) return cassandra::NoBackup();
  if (options.backup_dir.empty()) return cassandra::SnapshotBackup(tag);
  std::error_code ec;
  const fs::path dir = fs::absolute(fs::path(table.sstable).parent_path(), ec);
  const fs::path root = fs::absolute(table.root.empty() ? "." : table.root, ec);
  std::string relative = dir.lexically_normal().lexically_relative(root.lexically_normal());
  if (relative.empty() || relative.starts_with("..")) relative = ".";
  return cassandra::DirectoryBackup(options.backup_dir, relative);
}

}  // namespace

Result<RepairReport> RepairPaths(std::span<const std::string> paths, const RepairOptions& options,
                                 const RepairProgress& progress,
                                 const RepairTableProgressFn& table_progress) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckOptions(options));
  if (paths.empty()) return Status::InvalidArgument("PATH is required");
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<PlannedTable> tables, FindTables(paths));
  BLOOMCODEC_RETURN_IF_ERROR(CheckFamilies(tables, options));
  const std::time_t now = std::time(nullptr);
  const std::string tag = cassandra::RepairSnapshotTag(now);  // one snapshot name per run
  const bool given = options.fp_chance || options.buckets_per_element;
  RepairReport report;
  report.dry_run = options.dry_run;
  cassandra::FileOps ops;
  const auto request_for = [&](const PlannedTable& table) {
    cassandra::RepairRequest req;
    req.fp_chance = options.fp_chance;
    req.buckets_per_element = options.buckets_per_element;
    req.only_if_wrong = !given;
    req.dry_run = options.dry_run;
    req.backup = BackupFor(options, table, tag);
    req.proc_root = options.proc_root;
    req.now = now;
    return req;
  };
  // Cassandra sstables are planned side by side, one per core (verify and the rebuild read only;
  // each holds its new filter until it is finished), and prepared and finished one at a time in
  // their order, as cassandra/repair/repair.h asks.
  std::optional<WorkPool> pool;
  for (std::size_t i = 0; i < tables.size();) {
    if (progress) progress(i, tables.size());
    if (tables[i].lsm) {
      BLOOMCODEC_ASSIGN_OR_RETURN(
          std::vector<TableRepair> rows,
          repair_internal::RepairLsmDatabase(tables[i].sstable, options, table_progress));
      AddRows(std::move(rows), report);
      ++i;
      continue;
    }
    if (!pool) pool.emplace(0);
    std::size_t end = i;
    while (end < tables.size() && !tables[end].lsm && end - i < pool->threads()) ++end;
    std::vector<cassandra::RepairRequest> requests;
    std::vector<Result<cassandra::PreparedRepair>> prepared;
    for (std::size_t k = i; k < end; ++k) {
      requests.push_back(request_for(tables[k]));
      prepared.push_back(cassandra::PrepareSstableRepair(tables[k].sstable, requests.back(), ops));
    }
    std::vector<Status> planned(end - i);
    pool->Run(planned.size(), [&](std::size_t k) {
      if (prepared[k].ok()) planned[k] = cassandra::PlanSstableRepair(requests[k], *prepared[k]);
    });
    for (std::size_t k = 0; k < planned.size(); ++k, ++i) {
      if (k > 0 && progress) progress(i, tables.size());
      BLOOMCODEC_RETURN_IF_ERROR(prepared[k].status());
      BLOOMCODEC_RETURN_IF_ERROR(planned[k]);
      BLOOMCODEC_ASSIGN_OR_RETURN(
          cassandra::RepairOutcome out,
          cassandra::FinishSstableRepair(std::move(prepared[k]).value(), requests[k], ops));
      AddRows({FromOutcome(out, given)}, report);
    }
  }
  if (progress) progress(tables.size(), tables.size());
  return report;
}

}  // namespace bloomcodec

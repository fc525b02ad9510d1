#include "cassandra/repair/repair.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

#include "bloomcodec/input_file.h"
#include "cassandra/era_table.h"
#include "cassandra/rebuild_tap.h"
#include "cassandra/repair/keys.h"
#include "cassandra/repair/live_check.h"
#include "cassandra/repair/scylla_db.h"
#include "cassandra/repair/statistics.h"
#include "codec/parallel.h"

namespace bloomcodec::cassandra {
namespace {

namespace fs = std::filesystem;

// What the keys' hashes verify keeps for the rebuild may take, shared by the sstables planned
// at once (rebuild_tap.h); a larger sstable's keys are read again.
constexpr std::uint64_t kTapBudget = std::uint64_t{64} << 20;

std::string Temporary(const std::string& component) {
  return component + std::string(kRepairTemporarySuffix);
}

// A file's bytes, or empty when it does not exist (a missing Filter.db).
Result<ByteVector> ReadIfPresent(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return ByteVector();
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(path));
  return ByteVector(in.bytes().begin(), in.bytes().end());
}

// Whether TOC.txt (when the sstable has one) names the Filter.db component.
bool TocListsFilter(const std::string& toc_path) {
  std::ifstream in(toc_path);
  if (!in) return true;  // before 2.0 there is no TOC.txt: the folder is the list
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "Filter.db") return true;
  }
  return false;
}

// Step 1's refusals: what makes an sstable unsafe to touch whatever its filter.
Status CheckTheFolder(const SstableSet& set) {
  const Descriptor& d = set.files.descriptor;
  if (d.temporary || set.prefix.find("/tmplink-") != std::string::npos) {
    return Status::Refused(set.prefix +
                           "*: a temporary sstable (Cassandra deletes it at start-up)");
  }
  std::error_code ec;
  for (fs::directory_iterator it(set.dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.ends_with(".log") && name.find("_txn_") != std::string::npos) {
      return Status::Refused(it->path().string() +
                             ": an unfinished Cassandra transaction in this folder; start the "
                             "node once (or run sstableutil --cleanup) and stop it before "
                             "repairing");
    }
  }
  if (!set.files.has_filter && !TocListsFilter(set.prefix + "TOC.txt")) {
    return Status::Refused(set.prefix +
                           "TOC.txt lists no Filter.db: the sstable was written without a filter "
                           "(bloom_filter_fp_chance 1.0), and adding one would change TOC.txt");
  }
  const std::string scylla = set.prefix + "Scylla.db";
  if (fs::exists(scylla, ec)) {
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(scylla));
    BLOOMCODEC_ASSIGN_OR_RETURN(bool digests, ScyllaRecordsComponentDigests(in.bytes(), scylla));
    if (digests) {
      return Status::Unsupported(
          scylla +
          ": records a digest of every component (ScyllaDB 2026.2 and later), which ScyllaDB "
          "checks at load; a new Filter.db would fail that check, and rewriting Scylla.db is "
          "not supported");
    }
  }
  return Status();
}

// Steps 2 - 3: nobody holds the sstable; our leftovers removed.
Status LiveCheckAndClean(const SstableSet& set, const RepairRequest& req, FileOps& ops,
                         bool clean) {
  std::vector<std::string> paths = set.components;
  const std::string leftovers[] = {Temporary(set.files.filter_path),
                                   Temporary(set.files.statistics_path)};
  for (const std::string& t : leftovers) paths.push_back(t);
  BLOOMCODEC_RETURN_IF_ERROR(CheckNotInUse(paths, req.proc_root));
  if (!clean) return Status();
  for (const std::string& t : leftovers) BLOOMCODEC_RETURN_IF_ERROR(ops.Remove(t));
  return RemoveManifestLeftovers(set.dir, ops);
}

// Step 5's parameters: the request's, else the sstable's record, else the writer's default.
Result<FilterSizing> ChooseSizing(const SstableSet& set, const RepairRequest& req,
                                  RepairOutcome& out) {
  const Descriptor& d = set.files.descriptor;
  if (set.files.has_statistics && RecordsFpChance(d.version, d.sstable_format)) {
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(set.files.statistics_path));
    BLOOMCODEC_ASSIGN_OR_RETURN(
        RecordedFpChance r,
        FindRecordedFpChance(in.bytes(), in.path(), d.version, d.sstable_format));
    out.recorded_fp_chance = r.fp_chance;
  }
  if (req.fp_chance) return GivenFpChance(*req.fp_chance);
  if (req.buckets_per_element) return GivenBucketsPerElement(*req.buckets_per_element);
  if (out.recorded_fp_chance) {
    FilterSizing s = GivenFpChance(*out.recorded_fp_chance);
    s.source = SizingSource::kStatistics;
    s.basis = "Statistics.db's bloom_filter_fp_chance " + s.basis.substr(s.basis.rfind(' ') + 1);
    return s;
  }
  return WriterDefaultSizing(d);
}

bool SameDouble(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Steps 4 - 6: what would be written. False when there is nothing to do (out.action says why).
Result<bool> Plan(const SstableSet& set, const RepairRequest& req, RepairOutcome& out,
                  ByteVector& filter, ByteVector& statistics) {
  const SstableFiles& s = set.files;
  // A rebuild asked for: verify keeps the keys' hashes as it asks the old filter, so that the
  // new one is built without reading the keys again (cassandra/rebuild_tap.h). 16 bytes a key,
  // within a share of kTapBudget among the sstables planned side by side.
  std::optional<RebuildTap> tap;
  if (!req.only_if_wrong) {
    const WorkPool* pool = CurrentWorkPool();
    tap.emplace(kTapBudget / (pool != nullptr ? std::max(1u, pool->threads()) : 1u));
  }
  SstableFiles tapped = s;
  tapped.tap = tap ? &*tap : nullptr;
  out.before = VerifySstable(tapped);
  if ((out.damage = DamageBesidesTheFilter(out.before))) {
    out.action = RepairAction::kDamaged;
    return false;
  }
  out.problems = FilterProblems(out.before);
  Result<FilterSizing> sizing = ChooseSizing(set, req, out);
  if (!sizing.ok() && sizing.status().code() == StatusCode::kCorrupt) {
    // Statistics.db's bytes (a checksum, its table of contents) are damage verify does not
    // judge: the sstable is left as it is, like one with a damaged index.
    out.damage = FindingFromStatus(Severity::kError, finding_kind::kStructure, sizing.status());
    out.action = RepairAction::kDamaged;
    return false;
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(out.sizing, std::move(sizing));
  const bool given = req.fp_chance || req.buckets_per_element;
  const Era era = s.descriptor.era();
  if (!given && out.recorded_fp_chance && *out.recorded_fp_chance == 1.0 &&
      Facts(era).hash == KeyHash::kMurmur3) {
    out.notes.push_back("the table's bloom_filter_fp_chance is 1.0: it has no filter by design");
    out.action = RepairAction::kUnchanged;
    return false;
  }
  if (req.only_if_wrong && !given && out.problems.empty()) {
    out.action = RepairAction::kFilterSound;
    return false;
  }
  std::optional<RebuiltFilter> from_tap;
  if (tap && tap->complete()) {
    BLOOMCODEC_ASSIGN_OR_RETURN(from_tap, RebuildFilterFromHashes(tap->chunks(), era, out.sizing));
  }
  tap.reset();  // the hashes go before the filter is written
  RebuiltFilter rebuilt;
  if (from_tap) {
    rebuilt = std::move(*from_tap);
  } else {
    BLOOMCODEC_ASSIGN_OR_RETURN(std::unique_ptr<KeyStream> keys, SstableKeys(s));
    BLOOMCODEC_ASSIGN_OR_RETURN(rebuilt,
                                RebuildFilter(*keys, era, out.sizing, out.before.keys_checked));
    BLOOMCODEC_RETURN_IF_ERROR(CheckEveryKeyPresent(*keys, era, rebuilt.bytes));
  }
  out.keys = rebuilt.keys;
  out.hash_count = rebuilt.hash_count;
  out.words = rebuilt.words;
  out.new_filter_bytes = rebuilt.bytes.size();
  filter = std::move(rebuilt.bytes);
  const Descriptor& d = s.descriptor;
  if (out.sizing.fp_chance && out.recorded_fp_chance &&
      !SameDouble(*out.sizing.fp_chance, *out.recorded_fp_chance)) {
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(s.statistics_path));
    BLOOMCODEC_ASSIGN_OR_RETURN(statistics, WithFpChance(in.bytes(), in.path(), d.version,
                                                         d.sstable_format, *out.sizing.fp_chance));
    out.statistics_rewritten = true;
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector old_filter, ReadIfPresent(s.filter_path));
  out.old_filter_bytes = old_filter.size();
  if (s.has_filter && old_filter == filter && !out.statistics_rewritten) {
    out.action = RepairAction::kUnchanged;
    return false;
  }
  return true;
}

// What the operator should know about this repair, in the report.
void AddNotes(const SstableSet& set, RepairOutcome& out) {
  const Descriptor& d = set.files.descriptor;
  if (out.sizing.source == SizingSource::kWriterDefault) {
    out.notes.push_back("sized as the writer of version " + d.version +
                        " did by default: " + out.sizing.basis);
  }
  if (out.statistics_rewritten) {
    out.notes.push_back(
        "Statistics.db now records the new fp chance: set the table's bloom_filter_fp_chance to "
        "the same value before the node starts (Cassandra 2.0 - 3.x rebuild a filter whose "
        "recorded chance differs from the table's)");
  } else if (out.sizing.fp_chance && !RecordsFpChance(d.version, d.sstable_format)) {
    out.notes.push_back("version " + d.version +
                        " records no fp chance in Statistics.db (from ja on); nothing to rewrite");
  }
}

// Steps 7 - 12.
Status Commit(const SstableSet& set, const RepairRequest& req, const ByteVector& filter,
              const ByteVector& statistics, RepairOutcome& out, FileOps& ops) {
  const SstableFiles& s = set.files;
  // The new files get the old ones' mode and owner (Data.db's for a Filter.db that was missing).
  std::string like_filter = s.has_filter ? s.filter_path : set.components.front();
  BLOOMCODEC_ASSIGN_OR_RETURN(struct stat filter_like, StatPath(like_filter));
  BLOOMCODEC_RETURN_IF_ERROR(ops.Write(Temporary(s.filter_path), filter, &filter_like));
  BLOOMCODEC_RETURN_IF_ERROR(ops.Fsync(Temporary(s.filter_path)));
  if (out.statistics_rewritten) {
    BLOOMCODEC_ASSIGN_OR_RETURN(struct stat stats_like, StatPath(s.statistics_path));
    BLOOMCODEC_RETURN_IF_ERROR(ops.Write(Temporary(s.statistics_path), statistics, &stats_like));
    BLOOMCODEC_RETURN_IF_ERROR(ops.Fsync(Temporary(s.statistics_path)));
  }
  std::string data_name = fs::path(set.prefix + "Data.db").filename().string();
  const std::time_t now = req.now != 0 ? req.now : std::time(nullptr);
  BLOOMCODEC_RETURN_IF_ERROR(
      LinkBackup(req.backup, s.descriptor, set.dir, set.components, data_name, now, ops));
  out.backup_folder = BackupFolder(req.backup, set.dir);
  BLOOMCODEC_RETURN_IF_ERROR(LiveCheckAndClean(set, req, ops, /*clean=*/false));
  BLOOMCODEC_RETURN_IF_ERROR(ops.Rename(Temporary(s.filter_path), s.filter_path));
  out.replaced.push_back(s.filter_path);
  if (out.statistics_rewritten) {
    BLOOMCODEC_RETURN_IF_ERROR(ops.Rename(Temporary(s.statistics_path), s.statistics_path));
    out.replaced.push_back(s.statistics_path);
  }
  BLOOMCODEC_RETURN_IF_ERROR(ops.FsyncDir(set.dir));
  // Step 12: what is on disk now is what was meant.
  BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector back, ReadIfPresent(s.filter_path));
  if (back != filter) return Status::Internal(s.filter_path + ": reads back other bytes");
  if (out.statistics_rewritten) {
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(s.statistics_path));
    BLOOMCODEC_ASSIGN_OR_RETURN(RecordedFpChance r,
                                FindRecordedFpChance(in.bytes(), in.path(), s.descriptor.version,
                                                     s.descriptor.sstable_format));
    if (!SameDouble(r.fp_chance, *out.sizing.fp_chance)) {
      return Status::Internal(s.statistics_path + ": reads back another fp chance");
    }
  }
  return Status();
}

}  // namespace

Result<PreparedRepair> PrepareSstableRepair(const std::string& path, const RepairRequest& request,
                                            FileOps& ops) {
  PreparedRepair p;
  BLOOMCODEC_ASSIGN_OR_RETURN(p.set, FindSstableSet(path));
  p.out.sstable = p.set.files;
  BLOOMCODEC_RETURN_IF_ERROR(CheckTheFolder(p.set));
  BLOOMCODEC_RETURN_IF_ERROR(LiveCheckAndClean(p.set, request, ops, /*clean=*/!request.dry_run));
  return p;
}

Status PlanSstableRepair(const RepairRequest& request, PreparedRepair& p) {
  BLOOMCODEC_ASSIGN_OR_RETURN(p.act, Plan(p.set, request, p.out, p.filter, p.statistics));
  if (p.act) AddNotes(p.set, p.out);
  return Status();
}

Result<RepairOutcome> FinishSstableRepair(PreparedRepair p, const RepairRequest& request,
                                          FileOps& ops) {
  if (!p.act) return std::move(p.out);
  if (request.dry_run) {
    p.out.action = RepairAction::kPlanned;
    p.out.backup_folder = BackupFolder(request.backup, p.set.dir);
    return std::move(p.out);
  }
  const Status committed = Commit(p.set, request, p.filter, p.statistics, p.out, ops);
  if (!committed.ok()) {
    // An error (not a crash): our temporary files go; a rename already made stays, which the
    // invariant allows (repair.h).
    (void)ops.Remove(Temporary(p.set.files.filter_path));
    (void)ops.Remove(Temporary(p.set.files.statistics_path));
    return committed;
  }
  p.out.action = RepairAction::kRepaired;
  return std::move(p.out);
}

Result<RepairOutcome> RepairSstable(const std::string& path, const RepairRequest& request,
                                    FileOps& ops) {
  BLOOMCODEC_ASSIGN_OR_RETURN(PreparedRepair p, PrepareSstableRepair(path, request, ops));
  BLOOMCODEC_RETURN_IF_ERROR(PlanSstableRepair(request, p));
  return FinishSstableRepair(std::move(p), request, ops);
}

}  // namespace bloomcodec::cassandra

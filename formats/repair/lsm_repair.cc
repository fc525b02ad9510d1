// The repair command's part for LSM database directories (lsm_repair.h): verify's findings make
// the plan, the database's transaction (lsmrepair/repair_transaction.h) carries it out.
#include "repair/lsm_repair.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>

#include "bloomcodec/input_file.h"
#include "bloomcodec/verify.h"
#include "codec/parallel.h"
#include "leveldb/table/rebuild_tap.h"
#include "lsmrepair/repair_transaction.h"
#include "lsmrepair/table_rewriters.h"
#include "pebble/database.h"
#include "pebble/table/rebuild_tap.h"
#include "repair/lsm_sizing.h"
#include "repair/pebble_repair.h"
#include "rocksdb/sst/rebuild_tap.h"

namespace bloomcodec::repair_internal {
namespace {

namespace fs = std::filesystem;

// verify's finding kinds that are the filter's own: what repair is for.
bool IsFilterProblem(std::string_view kind) {
  return kind == finding_kind::kFalseNegative || kind == finding_kind::kOverfilled ||
         kind == finding_kind::kUndersized || kind == finding_kind::kHashCount ||
         kind == finding_kind::kMissingFilter || kind == finding_kind::kStructure;
}

// Findings that say more than the filter is wrong: the table is left alone. (A "structure"
// finding may be the filter's or the data's: the rewrite reads every data block and the index
// with their checksums, and a table it cannot read is reported damaged then.)
bool IsTableDamage(const Finding& f) {
  return f.severity == Severity::kError && !IsFilterProblem(f.kind);
}

std::string Key(const std::string& path) { return fs::path(path).filename().string(); }

struct PlannedTable {
  const FileReport* report = nullptr;
  TableRepair repair;
  bool rebuild = false;
  std::optional<FilterFacts> old_facts;  // read before the transaction replaces the file
};

}  // namespace

TableRepair DescribeLiveTable(const FileReport& r, const std::string& family) {
  TableRepair t;
  t.path = r.path;
  t.family = family;
  t.format = r.format;
  t.version = r.version;
  t.keys = r.keys_checked;
  t.level = r.level;
  t.column_family = r.column_family;
  if (r.fill) t.old_fp_rate = r.fill->fp_rate;
  return t;
}

namespace {

TableRepair Describe(const LsmDatabase& db, const FileReport& r) {
  return DescribeLiveTable(r, db.family_name);
}

// Which tables to rebuild and why; damaged ones are marked.
std::vector<PlannedTable> Plan(const LsmDatabase& db, const std::vector<FileReport>& live,
                               const RepairOptions& options) {
  const bool given = options.bits_per_key || !options.to.empty();
  std::set<std::string> filtered_families;  // column families with a table that has a filter
  for (const FileReport& r : live) {
    const bool none = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) {
      return f.kind == finding_kind::kNoFilter;
    });
    if (!none) filtered_families.insert(r.column_family);
  }
  std::vector<PlannedTable> out;
  for (const FileReport& r : live) {
    PlannedTable p{&r, Describe(db, r), false, std::nullopt};
    const auto damage = std::find_if(r.findings.begin(), r.findings.end(), IsTableDamage);
    if (damage != r.findings.end()) {
      p.repair.action = "damaged";
      p.repair.damage = damage->kind + ": " + damage->message;
      out.push_back(std::move(p));
      continue;
    }
    std::vector<std::string> reasons;
    for (const Finding& f : r.findings) {
      const bool counts = IsFilterProblem(f.kind) || (f.kind == finding_kind::kNoFilter &&
                                                      filtered_families.count(r.column_family) > 0);
      if (counts && std::find(reasons.begin(), reasons.end(), f.kind) == reasons.end()) {
        reasons.push_back(f.kind);
      }
    }
    if (given) reasons.insert(reasons.begin(), "requested");
    p.repair.reasons = reasons;
    p.rebuild = !reasons.empty();
    p.repair.action = p.rebuild ? "planned" : "sound";
    out.push_back(std::move(p));
  }
  return out;
}

// The sizing of the first table of each column family that records one (for tables without).
std::map<std::string, FilterSizing> Siblings(const LsmDatabase& db,
                                             const std::vector<FileReport>& live) {
  std::map<std::string, FilterSizing> out;
  RepairOptions none;
  for (const FileReport& r : live) {
    if (!r.fill || out.count(r.column_family) > 0) continue;
    Result<FilterSizing> s = SizingFor(db, r, none, std::nullopt);
    if (s.ok()) out[r.column_family] = *s;
  }
  return out;
}

lsmrepair::TableRewriteFn FamilyRewrite(const FilterSizing& s, const RebuildTaps& taps) {
  if (s.policy) return lsmrepair::LevelDbFilterRewrite(*s.policy, taps.leveldb.get());
  return lsmrepair::RocksDbFilterRewrite(s.bits_per_key, s.encoding, taps.rocksdb.get());
}

// What every table's rewrite needs, shared by the dry run and the transaction.
struct Context {
  const LsmDatabase* db = nullptr;
  const RepairOptions* options = nullptr;
  std::map<std::string, const FileReport*> reports;  // by file name
  std::map<std::string, FilterSizing> siblings;      // by column family
  std::map<std::string, FilterSizing> sizing;        // by file name, once decided
  std::map<std::string, FilterFacts> facts;          // of the new filters, by file name
  // The rewrite's entry count, by file name: the key count where verify had none (a filter it
  // could not read checks no key).
  std::map<std::string, std::uint64_t> rewrite_entries;
  std::string dir;
  // The new filters verify's scan built (VerifyLiveTables), or none.
  RebuildTaps taps;
  RepairTableProgressFn progress;  // may be empty
  // The transaction rewrites small tables side by side (repair_transaction.cc): the maps above
  // are read and written under this lock from the rewrite.
  std::mutex lock;

  void Progress(const lsmrepair::TablesDone& done) const {
    if (!progress) return;
    progress({dir, done.tables, done.tables_total, done.bytes, done.bytes_total});
  }

  // The table's key count: verify's, else the rewrite's entry count, else 0.
  std::uint64_t KeysOf(const std::string& path) const {
    const std::string key = Key(path);
    if (auto r = reports.find(key); r != reports.end() && r->second->keys_checked > 0) {
      return r->second->keys_checked;
    }
    const auto e = rewrite_entries.find(key);
    return e == rewrite_entries.end() ? 0 : e->second;
  }

  Result<FilterSizing> SizingOf(const std::string& path) {
    const std::string key = Key(path);
    if (auto it = sizing.find(key); it != sizing.end()) return it->second;
    const auto r = reports.find(key);
    if (r == reports.end()) return Status::Internal(path + ": not among verify's live tables");
    std::optional<FilterSizing> sibling;
    if (auto s = siblings.find(r->second->column_family); s != siblings.end()) sibling = s->second;
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSizing s, SizingFor(*db, *r->second, *options, sibling));
    sizing[key] = s;
    return s;
  }
};

void Fill(TableRepair& t, const FilterSizing& s, const std::optional<FilterFacts>& old_facts,
          const std::optional<FilterFacts>& new_facts) {
  t.bits_per_key = s.bits_per_key;
  t.sizing_basis = s.basis;
  t.new_format = s.format;
  if (old_facts) t.old_filter_bytes = old_facts->bytes;
  if (new_facts) {
    t.new_filter_bytes = new_facts->bytes;
    // new_format stays the policy's: a Ribbon policy writes a Bloom filter for few keys.
    t.new_fp_rate = new_facts->fp_rate;
  }
}

// The old filter's facts, from the table's bytes.
std::optional<FilterFacts> OldFacts(const LsmDatabase& db, ByteSpan table, const std::string& path,
                                    std::uint64_t keys) {
  Result<FilterFacts> f = NewFilterFacts(db, table, path, keys);
  if (!f.ok()) return std::nullopt;
  return *f;
}

std::uint64_t FileBytes(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::uint64_t>(n);
}

// The new filter block of a rewrite of `old` (a partitioned filter: its blocks): its bytes
// gathered from the kept prefix and the tail (only the filter's: the table itself is never
// assembled).
ByteVector NewFilterBlock(ByteSpan old, const lsmrepair::TableRewrite& r) {
  ByteVector block;
  block.reserve(r.filter_size);
  const std::uint64_t end = r.filter_offset + r.filter_size;
  for (std::uint64_t at = r.filter_offset; at < end && at < r.kept_prefix; ++at) {
    block.push_back(at < old.size() ? old[at] : 0);
  }
  const std::uint64_t from = std::max(r.filter_offset, r.kept_prefix) - r.kept_prefix;
  const std::uint64_t to = std::min<std::uint64_t>(end - r.kept_prefix, r.tail.size());
  if (end > r.kept_prefix && from < to) {
    block.insert(block.end(), r.tail.begin() + static_cast<std::ptrdiff_t>(from),
                 r.tail.begin() + static_cast<std::ptrdiff_t>(to));
  }
  return block;
}

// One table of the dry run: its rewrite made in memory (its tail only), its row filled in.
// Touches nothing but `p`: tables run side by side. The table's mapped pages go with `in`.
Status DryRunTable(const LsmDatabase& db, PlannedTable& p, const FilterSizing& s,
                   const RebuildTaps& taps) {
  TableRepair& t = p.repair;
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(t.path));
  lsmrepair::TableToRepair table;
  table.path = t.path;
  table.mapped = &in;
  Result<std::optional<lsmrepair::TableRewrite>> r = FamilyRewrite(s, taps)(table, in.bytes());
  if (!r.ok()) {
    t.action = "damaged";
    t.damage = r.status().ToString();
    return Status();
  }
  std::optional<FilterFacts> new_facts = p.old_facts;
  if (*r && t.keys == 0) t.keys = (*r)->entries;  // verify checked none: see rewrite_entries
  if (*r) {
    const lsmrepair::TableRewrite& w = **r;
    Result<FilterFacts> f = FilterFacts{};
    if (w.filter_in_pieces && w.filter_size != 0) {
      f = NewPartitionedFilterFacts(in.bytes(), NewFilterBlock(in.bytes(), w), w.filter_offset,
                                    w.filter_index_size, t.path, s.filter_entries.value_or(t.keys));
    } else if (w.filter_size != 0) {
      f = FilterBlockFacts(db, NewFilterBlock(in.bytes(), w), t.path,
                           s.filter_entries.value_or(t.keys));
    }
    if (f.ok()) new_facts = *f;
  } else {
    t.action = "unchanged";
  }
  Fill(t, s, p.old_facts, new_facts);
  return Status();
}

// The dry run: every planned rewrite made in memory, nothing written. Small tables run side by
// side as in the transaction (lsmrepair::kRewriteBatchBytes of tables at a time).
Status DryRun(Context& ctx, std::vector<PlannedTable>& plan) {
  std::vector<PlannedTable*> rebuilt;
  std::vector<FilterSizing> sizing;
  std::vector<std::uint64_t> bytes;
  lsmrepair::TablesDone done;
  for (PlannedTable& p : plan) {
    if (!p.rebuild) continue;
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSizing s, ctx.SizingOf(p.repair.path));
    rebuilt.push_back(&p);
    sizing.push_back(std::move(s));
    bytes.push_back(FileBytes(p.repair.path));
    ++done.tables_total;
    done.bytes_total += bytes.back();
  }
  for (std::size_t i = 0; i < rebuilt.size();) {
    std::size_t end = i + 1;
    std::uint64_t held = bytes[i];
    while (end < rebuilt.size() && held + bytes[end] <= lsmrepair::kRewriteBatchBytes) {
      held += bytes[end++];
    }
    std::vector<Status> status(end - i);
    const std::size_t first = i;
    ParallelFor(status.size(), [&](std::size_t k) {
      status[k] = DryRunTable(*ctx.db, *rebuilt[first + k], sizing[first + k], ctx.taps);
    });
    for (; i < end; ++i) {
      BLOOMCODEC_RETURN_IF_ERROR(status[i - first]);
      ++done.tables;
      done.bytes += bytes[i];
      ctx.Progress(done);
    }
  }
  return Status();
}

lsmrepair::RepairOptions TransactionOptions(Context& ctx, const std::set<std::string>& chosen) {
  const LsmDatabase& db = *ctx.db;
  lsmrepair::RepairOptions ro;
  ro.flavor =
      db.family == LsmFamily::kRocksDb ? manifest::Flavor::kRocksDb : manifest::Flavor::kLevelDb;
  ro.current = db.family == LsmFamily::kGoLevelDb ? lsmrepair::CurrentStyle::kGoLevelDb
                                                  : lsmrepair::CurrentStyle::kLevelDb;
  ro.select = [&chosen](const lsmrepair::TableToRepair& t) {
    return chosen.count(Key(t.path)) > 0;
  };
  ro.rewrite = [&ctx, &chosen](const lsmrepair::TableToRepair& t,
                               ByteSpan file) -> Result<std::optional<lsmrepair::TableRewrite>> {
    // A level-0 table brought in because an older one is rebuilt (repair_transaction.h) is
    // renumbered as it is, and so is a rebuilt level-0 table whose filter stays: a copy under a
    // new number keeps level 0's order.
    const lsmrepair::TableRewrite copy{file.size(), {}};
    if (chosen.count(Key(t.path)) == 0) return std::optional(copy);
    Result<FilterSizing> sized = Status::Internal("not sized");
    {
      const std::lock_guard<std::mutex> held(ctx.lock);
      sized = ctx.SizingOf(t.path);
    }
    BLOOMCODEC_ASSIGN_OR_RETURN(FilterSizing s, std::move(sized));
    BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<lsmrepair::TableRewrite> r,
                                FamilyRewrite(s, ctx.taps)(t, file));
    if (r) {
      const std::lock_guard<std::mutex> held(ctx.lock);
      ctx.rewrite_entries[Key(t.path)] = r->entries;
    }
    if (!r && t.meta.level == 0) r = copy;
    return r;
  };
  const lsmrepair::TableCheckFn check = db.family == LsmFamily::kRocksDb
                                            ? lsmrepair::RocksDbTableCheck()
                                            : lsmrepair::LevelDbTableCheck();
  ro.check = [&ctx, check](const lsmrepair::TableToRepair& t, ByteSpan old_file,
                           ByteSpan new_file) -> Status {
    BLOOMCODEC_RETURN_IF_ERROR(check(t, old_file, new_file));
    Result<FilterFacts> f = NewFilterFacts(*ctx.db, new_file, t.path, ctx.KeysOf(t.path));
    if (f.ok()) ctx.facts[Key(t.path)] = *f;
    return Status();
  };
  ro.on_table = [&ctx](const lsmrepair::TablesDone& done) { ctx.Progress(done); };
  ro.backup_dir = ctx.options->backup_dir;
  ro.no_backup = ctx.options->no_backup;
  return ro;
}

// A table whose layout the rewrite does not handle: left untouched, never called damaged.
void MarkUnsupported(TableRepair& t, const std::string& why) {
  t.action = "unsupported";
  t.notes.push_back("unsupported, left untouched: " + why);
}

// One open of each table the repair may touch, before anything is sized or written: RocksDB's
// planned tables the family's rewrite would refuse outright (custom prefix extractors, no whole-key
// filtering, ...) found from their meta blocks, and the old filter's facts (read before the
// transaction replaces the file) of the rebuilt tables and, for a real repair, of level 0's.
Status InspectPlanned(const LsmDatabase& db, bool dry_run, std::vector<PlannedTable>& plan) {
  for (PlannedTable& p : plan) {
    if (!p.rebuild && (dry_run || p.repair.level != 0)) continue;
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(p.repair.path));
    if (p.rebuild && db.family == LsmFamily::kRocksDb) {
      const Status s = lsmrepair::RocksDbRewritable(in.bytes(), p.repair.path);
      if (s.code() == StatusCode::kUnsupported) {  // damage is the rewrite's to report
        p.rebuild = false;
        MarkUnsupported(p.repair, s.message());
      }
    }
    if (p.rebuild || !dry_run) p.old_facts = OldFacts(db, in.bytes(), p.repair.path, p.repair.keys);
  }
  return Status();
}

// The transaction's outcome of each table into the plan's rows.
void Record(Context& ctx, const lsmrepair::RepairResult& done, std::vector<PlannedTable>& plan) {
  std::map<std::string, const lsmrepair::TableOutcome*> outcomes;
  for (const lsmrepair::TableOutcome& o : done.tables) outcomes[Key(o.old_path)] = &o;
  for (PlannedTable& p : plan) {
    TableRepair& t = p.repair;
    const auto it = outcomes.find(Key(t.path));
    if (it == outcomes.end()) continue;
    const lsmrepair::TableOutcome& o = *it->second;
    t.keys = ctx.KeysOf(t.path);
    std::optional<FilterFacts> new_facts;
    if (auto f = ctx.facts.find(Key(t.path)); f != ctx.facts.end()) new_facts = f->second;
    if (p.rebuild) {
      // Sized before the transaction (RepairLsmDatabase): this is the cached sizing.
      Result<FilterSizing> s = ctx.SizingOf(t.path);
      if (s.ok()) Fill(t, *s, p.old_facts, new_facts);
    } else {
      // Brought in as a level-0 table newer than one rebuilt: copied under a new number.
      t.reasons.push_back("level-0 order");
      t.notes.push_back(
          "renumbered unchanged: level 0 is read newest number first, and an "
          "older level-0 table of its column family was rebuilt");
      if (p.old_facts) t.old_filter_bytes = t.new_filter_bytes = p.old_facts->bytes;
    }
    if (o.new_number != 0) {
      t.action = "repaired";
      t.new_path = o.new_path;
      t.backup = done.backup_dir;
    } else if (o.left_alone == "nothing to change") {
      t.action = "unchanged";
    } else if (o.left_alone.starts_with("level-0 table")) {
      t.action = "unchanged";
      t.notes.push_back(o.left_alone);
    } else if (o.unsupported) {
      MarkUnsupported(t, o.left_alone);
    } else {
      t.action = "damaged";
      t.damage = o.left_alone;
    }
  }
}

}  // namespace

bool IsLsmDatabase(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "CURRENT", ec) ||
         pebble::DetectDatabase(dir) != pebble::Evidence::kNone;
}

Result<std::vector<FileReport>> VerifyLiveTables(const std::string& dir, const RebuildTaps& taps) {
  const std::vector<std::string> paths{dir};
  VerifyOptions options;
  if (taps.rocksdb) options.family.Set(rocksdb::RebuildTapOption{taps.rocksdb});
  if (taps.leveldb) options.family.Set(leveldb::RebuildTapOption{taps.leveldb});
  if (taps.pebble) options.family.Set(pebble::RebuildTapOption{taps.pebble});
  BLOOMCODEC_ASSIGN_OR_RETURN(VerifyReport verified, VerifyPaths(paths, options));
  std::vector<FileReport> live;
  for (FileReport& r : verified.files) {
    if (r.level >= 0 && r.group_role == GroupRole::kLive) {
      live.push_back(std::move(r));
      continue;
    }
    // CURRENT or the MANIFEST: the repair writes a new MANIFEST from the old one's records.
    for (const Finding& f : r.findings) {
      if (f.severity == Severity::kError && f.kind == finding_kind::kManifest) {
        return Status::Refused(r.path + ": " + f.message +
                               ": repair writes the new MANIFEST from the old one's records "
                               "and needs it whole");
      }
    }
  }
  if (live.empty()) {
    return Status::InvalidArgument(dir + ": its MANIFEST lists no live table (nothing to repair)");
  }
  return live;
}

Result<std::vector<TableRepair>> RepairLsmDatabase(const std::string& dir,
                                                   const RepairOptions& options,
                                                   const RepairTableProgressFn& table_progress) {
  if (pebble::DetectDatabase(dir) != pebble::Evidence::kNone) {
    return RepairPebbleDatabase(dir, options, table_progress);  // pebble_repair.h
  }
  // Every table rebuilt at given bits per key: verify's scan builds the tables' new filters as
  // it reads their keys, and the rewrite does not read the data blocks again
  // (rocksdb/sst/rebuild_tap.h, leveldb/table/rebuild_tap.h). LevelDB's bits per key are whole
  // (CheckLsmOptions refuses others once the family is known).
  RebuildTaps taps;
  if (options.bits_per_key) {
    const double b = *options.bits_per_key;
    taps.rocksdb = std::make_shared<rocksdb::RebuildTap>(b, EncodingNamed(options.to));
    if (b >= 1 && b <= 100 && b == std::floor(b)) {
      taps.leveldb = std::make_shared<leveldb::RebuildTap>(static_cast<int>(b));
    }
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<FileReport> live, VerifyLiveTables(dir, taps));
  const LsmDatabase db = DescribeDatabase(dir, live);
  BLOOMCODEC_RETURN_IF_ERROR(CheckLsmOptions(db, options));
  std::vector<PlannedTable> plan = Plan(db, live, options);
  BLOOMCODEC_RETURN_IF_ERROR(InspectPlanned(db, options.dry_run, plan));
  Context ctx;
  ctx.db = &db;
  ctx.options = &options;
  ctx.dir = dir;
  ctx.taps = taps;
  ctx.progress = table_progress;
  for (const FileReport& r : live) ctx.reports[Key(r.path)] = &r;
  ctx.siblings = Siblings(db, live);
  // The tables' passes over their data blocks run on every core (ParallelFor finds this pool).
  WorkPool pool(0);
  if (options.dry_run) {
    Status s;
    pool.Run(1, [&](std::size_t) { s = DryRun(ctx, plan); });
    BLOOMCODEC_RETURN_IF_ERROR(s);
  } else {
    std::set<std::string> chosen;
    for (PlannedTable& p : plan) {
      if (!p.rebuild && p.repair.level != 0) continue;
      if (p.rebuild) chosen.insert(Key(p.repair.path));
      // Sizing first: a table the rewrite could not size is a refusal before anything is written.
      if (p.rebuild) BLOOMCODEC_RETURN_IF_ERROR(ctx.SizingOf(p.repair.path).status());
    }
    if (!chosen.empty()) {
      Result<lsmrepair::RepairResult> done = Status::Internal("not run");
      pool.Run(1, [&](std::size_t) {
        done = lsmrepair::RepairDatabase(dir, TransactionOptions(ctx, chosen));
      });
      BLOOMCODEC_RETURN_IF_ERROR(done.status());
      Record(ctx, *done, plan);
    }
  }
  std::vector<TableRepair> out;
  for (PlannedTable& p : plan) out.push_back(std::move(p.repair));
  return out;
}

}  // namespace bloomcodec::repair_internal

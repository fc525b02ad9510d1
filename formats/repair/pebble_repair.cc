// The repair command's part for Pebble database directories (pebble_repair.h): the plan from
// verify's findings, each table's sizing, the dry run, and the transaction's outcomes.
#include "repair/pebble_repair.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "bloomcodec/input_file.h"
#include "bloomcodec/verify.h"
#include "lsmrepair/pebble_transaction.h"
#include "pebble/table/rebuild_tap.h"
#include "pebble/table/table_reader.h"
#include "repair/lsm_repair.h"
#include "repair/lsm_sizing.h"

namespace bloomcodec::repair_internal {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kPebbleDefaultBitsPerKey = 10;  // Pebble's documented default
constexpr std::string_view kPebbleBloomFormat = "pebble-bloom";

std::string PebbleKey(const std::string& path) { return fs::path(path).filename().string(); }

std::string PebbleNumberText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// verify's finding kinds that are the filter's own (as lsm_repair.cc takes them).
bool PebbleFilterProblem(std::string_view kind) {
  return kind == finding_kind::kFalseNegative || kind == finding_kind::kOverfilled ||
         kind == finding_kind::kUndersized || kind == finding_kind::kHashCount ||
         kind == finding_kind::kMissingFilter || kind == finding_kind::kStructure;
}

Status CheckPebbleOptions(const std::string& dir, const RepairOptions& options) {
  const std::string where = dir + ": a Pebble database";
  if (options.fp_chance || options.buckets_per_element) {
    return Status::InvalidArgument(where +
                                   " sizes its filters by bits per key, not by a false-positive "
                                   "chance (--fp-chance and --buckets-per-element are "
                                   "Cassandra's); give --bits-per-key N");
  }
  if (options.bits_per_key) {
    const double b = *options.bits_per_key;
    if (!(b >= 1 && b <= 100) || b != std::floor(b)) {
      return Status::InvalidArgument("--bits-per-key " + PebbleNumberText(b) + ": " + where +
                                     " takes a whole number from 1 to 100 (Pebble's "
                                     "bloom.FilterPolicy is an int)");
    }
  }
  if (!options.to.empty() && options.to != kPebbleBloomFormat) {
    return Status::Refused("--to " + options.to + ": " + where +
                           " reads the filter its tables name, rocksdb.BuiltinBloomFilter "
                           "(pebble-bloom); repair writes no other layout");
  }
  return Status();
}

struct PebbleSizing {
  std::uint32_t bits_per_key = kPebbleDefaultBitsPerKey;
  std::string basis;
};

// The given bits per key, else the whole one whose probe count (either era) is the filter's,
// closest to its bits per key, else Pebble's default.
PebbleSizing SizePebbleTable(const FileReport& r, const RepairOptions& options) {
  PebbleSizing s;
  if (options.bits_per_key) {
    s.bits_per_key = static_cast<std::uint32_t>(*options.bits_per_key);
    s.basis = "--bits-per-key " + std::to_string(s.bits_per_key);
    return s;
  }
  if (r.fill && r.fill->bits > 0 && r.fill->hash_count > 0 && r.keys_checked > 0) {
    const double estimate = static_cast<double>(r.fill->bits) / static_cast<double>(r.keys_checked);
    std::optional<std::uint32_t> best;
    for (std::uint32_t b = 1; b <= 100; ++b) {
      const bool fits =
          pebble::BloomProbeCount(b, pebble::BloomProbes::kRounded) == r.fill->hash_count ||
          pebble::BloomProbeCount(b, pebble::BloomProbes::kTable) == r.fill->hash_count;
      if (fits && (!best || std::fabs(b - estimate) < std::fabs(*best - estimate))) best = b;
    }
    if (best) {
      s.bits_per_key = *best;
      s.basis = "as recorded: " + std::to_string(r.fill->bits) + " filter bits for " +
                std::to_string(r.keys_checked) + " keys (" + PebbleNumberText(estimate) +
                " a key) and " + std::to_string(r.fill->hash_count) +
                " probes: " + std::to_string(*best) + " bits per key";
      return s;
    }
  }
  s.basis = "no filter to read the sizing from: Pebble's default 10 bits per key";
  return s;
}

// Pebble's row tables, the RocksDBv2 and LevelDB tables it writes below format major version 5
// (go-ethereum's) and its columnar tables: every table the rewrite takes (so nothing is refused
// before the rewrite; a damaged table is the rewrite's to report and leave alone).
Result<pebble::PebbleTable> OpenPebbleTable(ByteSpan bytes, const std::string& path) {
  pebble::PebbleOpenOptions options;
  options.footers = pebble::PebbleFooters::kPebbleAndRocksDb;
  options.tolerate_damaged_filter = true;  // rebuilt like any wrong filter
  return pebble::PebbleTable::Open(bytes, path, options);
}

// The filter of a table's bytes: its size and (1 - e^(-kn/m))^k for `keys`.
std::optional<FilterFacts> PebbleFacts(ByteSpan bytes, const std::string& path,
                                       std::uint64_t keys) {
  Result<pebble::PebbleTable> t = OpenPebbleTable(bytes, path);
  if (!t.ok()) return std::nullopt;
  FilterFacts f;
  f.format = std::string(kPebbleBloomFormat);
  if (!t->filter().damage.empty()) f.bytes = t->filter().handle.size;
  if (!t->filter().bloom) return f;
  const pebble::BloomReader& b = *t->filter().bloom;
  f.bytes = b.bytes().size();
  if (!b.empty()) {
    f.fp_rate =
        BloomFpRate(static_cast<double>(b.bit_count()), b.hash_count(), static_cast<double>(keys));
  }
  return f;
}

// The figures of a rewrite's new filter block, read from its tail (the dry run assembles no
// table): its size and (1 - e^(-kn/m))^k for `keys`.
FilterFacts PebbleTailFacts(const lsmrepair::TableRewrite& r, const std::string& path,
                            std::uint64_t keys) {
  FilterFacts f;
  f.format = std::string(kPebbleBloomFormat);
  f.bytes = r.filter_size;
  const std::uint64_t at = r.filter_offset - r.kept_prefix;
  if (r.filter_size == 0 || r.filter_offset < r.kept_prefix || at > r.tail.size() ||
      r.filter_size > r.tail.size() - at) {
    return f;
  }
  Result<pebble::BloomReader> b =
      pebble::BloomReader::Parse(ByteSpan(r.tail).subspan(at, r.filter_size), path);
  if (b.ok() && !b->empty()) {
    f.fp_rate = BloomFpRate(static_cast<double>(b->bit_count()), b->hash_count(),
                            static_cast<double>(keys));
  }
  return f;
}

std::optional<FilterFacts> PebbleFactsOf(const std::string& path, std::uint64_t keys) {
  Result<InputFile> in = InputFile::Open(path);
  if (!in.ok()) return std::nullopt;
  return PebbleFacts(in->bytes(), path, keys);
}

struct PebbleRow {
  const FileReport* report = nullptr;
  TableRepair repair;
  bool rebuild = false;
  PebbleSizing sizing;
  std::optional<FilterFacts> old_facts, new_facts;
};

std::vector<PebbleRow> PlanPebble(const std::vector<FileReport>& live,
                                  const RepairOptions& options) {
  const bool given = options.bits_per_key || !options.to.empty();
  // A table without a filter counts when another table has one and verify warns about it (not
  // at a level whose OPTIONS say filter_policy=none, nor where Pebble's reads skip filters).
  const bool any_filter = std::any_of(
      live.begin(), live.end(), [](const FileReport& r) { return r.fill && r.fill->bits > 0; });
  std::vector<PebbleRow> out;
  for (const FileReport& r : live) {
    PebbleRow p;
    p.report = &r;
    p.repair = DescribeLiveTable(r, "pebble");
    TableRepair& t = p.repair;
    const auto damage = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& f) {
      return f.severity == Severity::kError && !PebbleFilterProblem(f.kind);
    });
    if (damage != r.findings.end()) {
      t.action = "damaged";
      t.damage = damage->kind + ": " + damage->message;
      out.push_back(std::move(p));
      continue;
    }
    for (const Finding& f : r.findings) {
      const bool counts =
          PebbleFilterProblem(f.kind) ||
          (f.kind == finding_kind::kNoFilter && any_filter && f.severity >= Severity::kWarning);
      if (counts && std::find(t.reasons.begin(), t.reasons.end(), f.kind) == t.reasons.end()) {
        t.reasons.push_back(f.kind);
      }
    }
    if (given) t.reasons.insert(t.reasons.begin(), "requested");
    p.rebuild = !t.reasons.empty();
    t.action = p.rebuild ? "planned" : "sound";
    out.push_back(std::move(p));
  }
  return out;
}

void FillPebbleRow(PebbleRow& p) {
  TableRepair& t = p.repair;
  t.bits_per_key = p.sizing.bits_per_key;
  t.sizing_basis = p.sizing.basis;
  t.new_format = std::string(kPebbleBloomFormat);
  if (p.old_facts) t.old_filter_bytes = p.old_facts->bytes;
  if (p.new_facts) {
    t.new_filter_bytes = p.new_facts->bytes;
    t.new_fp_rate = p.new_facts->fp_rate;
  }
}

std::uint64_t PebbleFileBytes(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::uint64_t>(n);
}

// Every planned rewrite made in memory (each table's tail), nothing written; `progress` after
// each table.
Status PebbleDryRun(std::vector<PebbleRow>& plan, const pebble::RebuildTap* tap,
                    const std::function<void(std::uint64_t)>& progress) {
  for (PebbleRow& p : plan) {
    if (!p.rebuild) continue;
    TableRepair& t = p.repair;
    progress(PebbleFileBytes(t.path));
    BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(t.path));
    lsmrepair::TableToRepair table;
    table.path = t.path;
    Result<std::optional<lsmrepair::TableRewrite>> r =
        lsmrepair::PebbleFilterRewrite(p.sizing.bits_per_key, tap)(table, in.bytes());
    if (!r.ok()) {
      t.action = "damaged";
      t.damage = r.status().ToString();
      continue;
    }
    p.new_facts = p.old_facts;
    if (*r && t.keys == 0) t.keys = (*r)->entries;  // verify could not count them (no filter)
    if (*r) {
      p.new_facts = PebbleTailFacts(**r, t.path, t.keys);
    } else {
      t.action = "unchanged";
    }
    FillPebbleRow(p);
  }
  return Status();
}

// The transaction, then its outcome of each file into the plan's rows.
Status PebbleTransaction(const std::string& dir, const RepairOptions& options,
                         std::vector<PebbleRow>& plan, const pebble::RebuildTap* tap,
                         const RepairTableProgressFn& progress) {
  std::map<std::string, PebbleRow*> chosen;
  for (PebbleRow& p : plan) {
    if (p.rebuild) chosen[PebbleKey(p.repair.path)] = &p;
  }
  if (chosen.empty()) return Status();
  lsmrepair::PebbleRepairOptions ro;
  ro.select = [&chosen](const lsmrepair::TableToRepair& t) {
    return chosen.count(PebbleKey(t.path)) > 0;
  };
  ro.rewrite = [&chosen, tap](const lsmrepair::TableToRepair& t, ByteSpan file) {
    PebbleRow& p = *chosen.at(PebbleKey(t.path));
    auto r = lsmrepair::PebbleFilterRewrite(p.sizing.bits_per_key, tap)(t, file);
    // Verify could not count the keys of a table without a readable filter: the rewrite did.
    if (r.ok() && *r && p.repair.keys == 0) p.repair.keys = (**r).entries;
    return r;
  };
  const lsmrepair::TableCheckFn check = lsmrepair::PebbleTableCheck();
  ro.check = [&chosen, check](const lsmrepair::TableToRepair& t, ByteSpan old_file,
                              ByteSpan new_file) -> Status {
    BLOOMCODEC_RETURN_IF_ERROR(check(t, old_file, new_file));
    PebbleRow& p = *chosen.at(PebbleKey(t.path));
    p.new_facts = PebbleFacts(new_file, t.path, p.repair.keys);
    return Status();
  };
  ro.backup_dir = options.backup_dir;
  ro.no_backup = options.no_backup;
  if (progress) {
    ro.on_table = [&dir, &progress](const lsmrepair::TablesDone& d) {
      progress({dir, d.tables, d.tables_total, d.bytes, d.bytes_total});
    };
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(lsmrepair::RepairResult done,
                              lsmrepair::RepairPebbleDatabase(dir, ro));
  for (const lsmrepair::TableOutcome& o : done.tables) {
    const auto it = chosen.find(PebbleKey(o.old_path));
    if (it == chosen.end()) continue;
    PebbleRow& p = *it->second;
    TableRepair& t = p.repair;
    if (o.new_number != 0) {
      t.action = "repaired";
      t.new_path = o.new_path;
      t.backup = done.backup_dir;
    } else if (o.left_alone == "nothing to change") {
      t.action = "unchanged";
      p.new_facts = p.old_facts;
    } else {
      t.action = "damaged";
      t.damage = o.left_alone;
    }
    FillPebbleRow(p);
  }
  return Status();
}

}  // namespace

Result<std::vector<TableRepair>> RepairPebbleDatabase(const std::string& dir,
                                                      const RepairOptions& options,
                                                      const RepairTableProgressFn& table_progress) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckPebbleOptions(dir, options));
  // With --bits-per-key, verify's scan builds each table's new filter as it reads the keys
  // (pebble/table/rebuild_tap.h): the rewrite then reads no data block again.
  RebuildTaps taps;
  if (options.bits_per_key) {
    taps.pebble =
        std::make_shared<pebble::RebuildTap>(static_cast<std::uint32_t>(*options.bits_per_key));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<FileReport> live, VerifyLiveTables(dir, taps));
  std::vector<PebbleRow> plan = PlanPebble(live, options);
  for (PebbleRow& p : plan) {
    if (!p.rebuild) continue;
    p.sizing = SizePebbleTable(*p.report, options);
    p.old_facts = PebbleFactsOf(p.repair.path, p.repair.keys);
  }
  if (options.dry_run) {
    RepairTableProgress done{dir, 0, 0, 0, 0};
    for (const PebbleRow& p : plan) {
      if (!p.rebuild) continue;
      ++done.tables_total;
      done.bytes_total += PebbleFileBytes(p.repair.path);
    }
    const auto one_more = [&](std::uint64_t bytes) {
      ++done.tables_done;
      done.bytes_done += bytes;
      if (table_progress) table_progress(done);
    };
    BLOOMCODEC_RETURN_IF_ERROR(PebbleDryRun(plan, taps.pebble.get(), one_more));
  } else {
    BLOOMCODEC_RETURN_IF_ERROR(
        PebbleTransaction(dir, options, plan, taps.pebble.get(), table_progress));
  }
  std::vector<TableRepair> out;
  for (PebbleRow& p : plan) out.push_back(std::move(p.repair));
  return out;
}

}  // namespace bloomcodec::repair_internal

// What an LSM database is and what each of its tables' new filter is (lsm_sizing.h).
#include "repair/lsm_sizing.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "bloomcodec/filter_stats.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "codec/popcount.h"
#include "leveldb/table/table_reader.h"
#include "pebble/database_internal.h"
#include "rocksdb/filter_sizing.h"
#include "rocksdb/sst/sst_filter_stats.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/table_files.h"

namespace bloomcodec::repair_internal {
namespace {

namespace fs = std::filesystem;

constexpr double kCustomaryBitsPerKey = 10;  // LevelDB's and RocksDB's documented default

// The newest OPTIONS-NNNNNN file of a RocksDB directory (the one its last opener wrote).
std::optional<std::string> NewestOptionsFile(const std::string& dir) {
  std::optional<std::string> best;
  unsigned long long best_number = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    unsigned long long n = 0;
    char tail = 0;
    if (name.starts_with("OPTIONS-") &&
        std::sscanf(name.c_str(), "OPTIONS-%llu%c", &n, &tail) == 1 && (!best || n > best_number)) {
      best = it->path().string();
      best_number = n;
    }
  }
  return best;
}

// "7.8.3" -> 7 * 1000 + 8; nullopt when it does not start "MAJOR.MINOR".
std::optional<int> ReleaseNumber(const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2 || major < 0 || minor < 0 ||
      major > 1000 || minor > 999) {
    return std::nullopt;
  }
  return major * 1000 + minor;
}

std::string FamilyTitle(const LsmDatabase& db) {
  switch (db.family) {
    case LsmFamily::kLevelDb: return "a LevelDB database";
    case LsmFamily::kGoLevelDb: return "a goleveldb database";
    case LsmFamily::kRocksDb: return "a RocksDB database";
  }
  return "a database";
}

// The layout --to names, checked against what the database's readers read.
Status CheckTarget(const LsmDatabase& db, const std::string& to) {
  const std::string where = db.dir + ": " + FamilyTitle(db);
  if (db.family != LsmFamily::kRocksDb) {
    const std::string own =
        db.family == LsmFamily::kGoLevelDb ? "goleveldb-bloom" : "leveldb-bloom";
    if (to == own) return Status();
    return Status::Refused(
        "--to " + to + ": " + where + " reads only the filter its policy names (" + own +
        (db.family == LsmFamily::kGoLevelDb
             ? ", leveldb.BuiltinBloomFilter"
             : ", leveldb.BuiltinBloomFilter2; LevelDB 1.17's leveldb-bloom-legacy is ignored by "
               "1.18 and later") +
        "); another layout would leave every table without a filter its reader consults");
  }
  int needs = 0;
  if (to == "rocksdb-bloom-legacy") return Status();
  if (to == "rocksdb-bloom")
    needs = 6006;  // FastLocalBloom: RocksDB 6.6
  else if (to == "rocksdb-ribbon")
    needs = 6015;  // Ribbon: RocksDB 6.15
  else {
    return Status::Refused("--to " + to + ": " + where +
                           " reads rocksdb-bloom-legacy, rocksdb-bloom (FastLocalBloom, RocksDB "
                           "6.6+) and rocksdb-ribbon (RocksDB 6.15+) full filters only");
  }
  if (!db.rocksdb_version) {
    return Status::Refused("--to " + to + ": " + where +
                           " whose OPTIONS file does not say which RocksDB release opens it; " +
                           to + " needs RocksDB " + (needs == 6006 ? "6.6" : "6.15") +
                           " or later to be read");
  }
  const std::optional<int> release = ReleaseNumber(*db.rocksdb_version);
  if (!release || *release < needs) {
    return Status::Refused("--to " + to + ": " + where + " last opened by RocksDB " +
                           *db.rocksdb_version + "; " + to + " needs RocksDB " +
                           (needs == 6006 ? "6.6" : "6.15") + " or later to be read");
  }
  return Status();
}

leveldb::BloomPolicy LevelDbPolicy(const LsmDatabase& db, const FileReport& report, int b) {
  if (report.version == leveldb::kLegacyPolicyName) {
    // Byte-identical either way when the writer is ambiguous (no key hashes differently).
    if (db.family == LsmFamily::kGoLevelDb || report.writer == "goleveldb") {
      return leveldb::BloomPolicy::GoLevelDb(b);
    }
    return leveldb::BloomPolicy::Legacy117(b);
  }
  if (report.version.empty() && db.family == LsmFamily::kGoLevelDb) {
    return leveldb::BloomPolicy::GoLevelDb(b);
  }
  return leveldb::BloomPolicy::Current(b);
}

std::string LevelDbFormatOf(const leveldb::BloomPolicy& p) {
  if (p.goleveldb_name) return "goleveldb-bloom";
  return p.name() == leveldb::kLegacyPolicyName ? "leveldb-bloom-legacy" : "leveldb-bloom";
}

std::string NumberText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The whole bits per key in [1, 100] whose probe count is `k` (by `probes`), closest to the
// size's `estimate`; nullopt when none gives k.
template <typename Probes>
std::optional<int> BitsForProbes(std::uint32_t k, double estimate, Probes probes) {
  std::optional<int> best;
  for (int b = 1; b <= 100; ++b) {
    if (static_cast<std::uint32_t>(probes(b)) != k) continue;
    if (!best || std::fabs(b - estimate) < std::fabs(*best - estimate)) best = b;
  }
  return best;
}

// The bits per key the table's filter records, from verify's fill (bits, probes) and key count.
// `entries`: what the filter holds when that is not its keys (a prefix table's prefixes).
template <typename Probes>
std::optional<FilterSizing> Recorded(const FileReport& report, Probes probes,
                                     std::optional<std::uint64_t> entries = std::nullopt) {
  const std::uint64_t n = entries.value_or(report.keys_checked);
  if (!report.fill || report.fill->bits == 0 || report.fill->hash_count == 0 || n == 0) {
    return std::nullopt;
  }
  const double estimate = static_cast<double>(report.fill->bits) / static_cast<double>(n);
  const std::optional<int> b = BitsForProbes(report.fill->hash_count, estimate, probes);
  if (!b) return std::nullopt;
  FilterSizing s;
  s.bits_per_key = *b;
  s.basis = "as recorded: " + std::to_string(report.fill->bits) + " filter bits for " +
            std::to_string(n) + (entries ? " entries" : " keys") + " (" + NumberText(estimate) +
            " a key) and " + std::to_string(report.fill->hash_count) +
            " probes: " + std::to_string(*b) + " bits per key";
  return s;
}

// verify reads no fill from a LevelDB filter block that fails its checksum (a flipped bit), and
// LevelDB records no key count; the writer's sizing is still in the filters' geometry: their
// bits, their probes (each filter's last byte) and, from their fill, about the keys they took.
// verify's report with that fill and the estimated key count (BitsForProbes only breaks a tie
// between the two bits per key one probe count allows), or nullopt.
std::optional<FileReport> WithGeometryOfDamagedLevelDbFilter(const FileReport& report) {
  if (report.fill && report.keys_checked > 0) return std::nullopt;
  Result<InputFile> in = InputFile::Open(report.path);
  if (!in.ok()) return std::nullopt;
  leveldb::TableOpenOptions open;
  open.key_kind = KeyKind::kUser;  // a database's table (the damaged filter cannot tell)
  Result<leveldb::TableReader> t = leveldb::TableReader::Open(in->bytes(), report.path, open);
  if (!t.ok() || !t->filter() || t->filter()->basho) return std::nullopt;
  const ByteSpan block = t->filter()->contents.bytes();
  Result<leveldb::FilterBlockLayout> layout = leveldb::ParseFilterBlockLayout(block, report.path);
  if (!layout.ok()) return std::nullopt;
  std::uint64_t bits = 0;
  std::uint64_t bits_set = 0;
  double keys = 0;
  std::optional<std::uint32_t> k;
  for (const leveldb::FilterRange& r : layout->filters) {
    if (r.size() < 2) continue;
    const ByteSpan filter = block.subspan(r.start, r.size());
    const std::uint32_t probes = filter.back();
    if (probes == 0 || probes > 30 || (k && *k != probes)) return std::nullopt;  // not a writer's
    k = probes;
    const std::uint64_t m = (filter.size() - 1) * std::uint64_t{8};
    const std::uint64_t x = PopCountBytes(filter.first(filter.size() - 1));
    const FillStatistics f = ComputeFillStatistics(m, x, probes);
    if (!std::isfinite(f.estimated_keys)) return std::nullopt;
    bits += m;
    bits_set += x;
    keys += f.estimated_keys;
  }
  if (!k || keys < 1) return std::nullopt;
  FileReport out = report;
  out.fill.emplace();
  out.fill->bits = bits;
  out.fill->bits_set = bits_set;
  out.fill->hash_count = *k;
  out.keys_checked = static_cast<std::uint64_t>(std::llround(keys));
  return out;
}

Result<FilterSizing> LevelDbSizing(const LsmDatabase& db, const FileReport& report,
                                   const RepairOptions& options,
                                   const std::optional<FilterSizing>& sibling) {
  std::optional<FilterSizing> s;
  if (options.bits_per_key) {
    s.emplace();
    s->bits_per_key = *options.bits_per_key;
    s->basis = "--bits-per-key " + NumberText(*options.bits_per_key);
  } else {
    const leveldb::BloomPolicy shape = LevelDbPolicy(db, report, 10);
    const std::optional<FileReport> damaged = WithGeometryOfDamagedLevelDbFilter(report);
    s = Recorded(damaged ? *damaged : report, [&](int b) {
      leveldb::BloomPolicy p = shape;
      p.bits_per_key = b;
      return p.probes();
    });
    if (s && damaged) s->basis += " (the key count estimated from the damaged filter's fill)";
  }
  if (!s && sibling) {
    s = *sibling;
    s->basis = "as the other tables of its column family: " + NumberText(sibling->bits_per_key) +
               " bits per key";
  }
  if (!s) {
    s.emplace();
    s->bits_per_key = kCustomaryBitsPerKey;
    s->basis = "no filter to read the sizing from: the customary 10 bits per key";
  }
  s->policy = LevelDbPolicy(db, report, static_cast<int>(s->bits_per_key));
  s->format = LevelDbFormatOf(*s->policy);
  s->encoding.reset();
  return *s;
}

// The kind RewriteSstFilter gives the table when --to names none.
bool RecordsPrefixExtractor(const rocksdb::SstReader& sst) {
  if (!sst.properties()) return false;
  const std::string name =
      sst.properties()->String("rocksdb.prefix.extractor.name").value_or("nullptr");
  return !name.empty() && name != "nullptr";
}

Result<rocksdb::FilterEncoding> TableEncoding(const rocksdb::SstReader& sst) {
  return rocksdb::StoredFilterEncoding(sst);
}

std::string RocksDbFormatOf(rocksdb::FilterEncoding e) {
  switch (e) {
    case rocksdb::FilterEncoding::kLegacyBloom: return "rocksdb-bloom-legacy";
    case rocksdb::FilterEncoding::kFastLocalBloom: return "rocksdb-bloom";
    case rocksdb::FilterEncoding::kRibbon: return "rocksdb-ribbon";
  }
  return "rocksdb-bloom";
}

// verify reads no fill from a filter block that fails its checksum (a flipped bit), yet the
// writer's sizing is still in the filter's geometry (its bits and probes) and the table records
// the keys it took (rocksdb.num.filter_entries, else rocksdb.num.entries): verify's report with
// that fill, or nullopt when verify has one or the geometry does not read.
std::optional<FileReport> WithGeometryOfDamagedFilter(const FileReport& report,
                                                      const rocksdb::SstReader& sst) {
  if ((report.fill && report.keys_checked > 0) || !sst.filter() || !sst.properties()) {
    return std::nullopt;
  }
  const Result<rocksdb::SstFilterStats> stats = rocksdb::ComputeSstFilterStats(sst);
  std::optional<std::uint64_t> keys = sst.properties()->Number("rocksdb.num.filter_entries");
  if (!keys) keys = sst.properties()->Number("rocksdb.num.entries");
  if (!stats.ok() || stats->bits == 0 || stats->hash_count == 0 || !keys || *keys == 0) {
    return std::nullopt;
  }
  FileReport r = report;
  r.fill.emplace();
  r.fill->bits = stats->bits;
  r.fill->bits_set = stats->bits_set;
  r.fill->hash_count = stats->hash_count;
  r.keys_checked = *keys;
  r.fill->sized_keys = static_cast<double>(*keys);  // the entries, with or without prefixes
  return r;
}

// A table with a prefix extractor sizes its filter from the entries RocksDB added (its prefixes
// beside or instead of its keys): the count verify judged the fill by (the table's
// rocksdb.num.filter_entries, else ours). nullopt: a table without an extractor, whose keys
// are its entries.
std::optional<std::uint64_t> PrefixTableEntries(const rocksdb::SstReader& sst,
                                                const FileReport& report) {
  if (!RecordsPrefixExtractor(sst) || !report.fill || !report.fill->sized_keys) return std::nullopt;
  return static_cast<std::uint64_t>(*report.fill->sized_keys);
}

Result<FilterSizing> RocksDbSizing(const FileReport& verified, const RepairOptions& options,
                                   const std::optional<FilterSizing>& sibling) {
  BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(verified.path));
  rocksdb::SstOpenOptions open;
  open.verify_filter_checksum = false;  // the filter is what a repair replaces
  BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader sst,
                              rocksdb::SstReader::Open(in.bytes(), verified.path, open));
  const std::optional<FileReport> damaged = WithGeometryOfDamagedFilter(verified, sst);
  const FileReport& report = damaged ? *damaged : verified;
  BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::FilterEncoding kind, TableEncoding(sst));
  const std::optional<std::uint64_t> entries = PrefixTableEntries(sst, report);
  auto recorded = [&](auto probes) { return Recorded(report, probes, entries); };
  std::optional<FilterSizing> s;
  if (options.bits_per_key) {
    s.emplace();
    s->bits_per_key = *options.bits_per_key;
    s->basis = "--bits-per-key " + NumberText(*options.bits_per_key);
  } else if (sst.filter() && sst.filter()->placement == rocksdb::FilterPlacement::kFull) {
    Result<rocksdb::FullFilterReader> f =
        rocksdb::FullFilterReader::Parse(sst.filter()->contents.bytes(), report.path);
    if (f.ok() && f->kind() == rocksdb::FullFilterKind::kLegacyBloom) {
      s = recorded([](int b) { return rocksdb::LegacyProbesFor(b); });
    } else if (f.ok() && f->kind() == rocksdb::FullFilterKind::kFastLocalBloom) {
      s = recorded([](int b) { return rocksdb::FastLocalProbesFor(b * 1000); });
    } else if (f.ok() && f->kind() == rocksdb::FullFilterKind::kRibbon && !sibling) {
      return Status::Refused(report.path +
                             ": a Ribbon filter does not record the bits per key it was built "
                             "for; give --bits-per-key N to rebuild it");
    }
  } else if (sst.filter() && sst.filter()->placement == rocksdb::FilterPlacement::kBlockBased) {
    // A block-based filter (rebuilt as a full filter) chose its probes as RocksDB's legacy full
    // filter does (bits per key x 0.69, within 1..30); verify's fill sums its filters' bits.
    s = recorded([](int b) { return rocksdb::LegacyProbesFor(b); });
  } else if (sst.filter() && sst.filter()->placement == rocksdb::FilterPlacement::kPartitioned) {
    // The partitions share the table's kind; verify's fill sums their bits.
    if (kind == rocksdb::FilterEncoding::kLegacyBloom) {
      s = recorded([](int b) { return rocksdb::LegacyProbesFor(b); });
    } else if (kind == rocksdb::FilterEncoding::kFastLocalBloom) {
      s = recorded([](int b) { return rocksdb::FastLocalProbesFor(b * 1000); });
    } else if (!sibling) {
      return Status::Refused(report.path +
                             ": Ribbon filter partitions do not record the bits per key they "
                             "were built for; give --bits-per-key N to rebuild them");
    }
  }
  if (!s && sibling) {
    s = *sibling;
    s->basis = "as the other tables of its column family: " + NumberText(sibling->bits_per_key) +
               " bits per key";
  }
  if (!s) {
    s.emplace();
    s->bits_per_key = kCustomaryBitsPerKey;
    s->basis = "no filter to read the sizing from: the customary 10 bits per key";
  }
  s->policy.reset();
  s->filter_entries = entries;
  s->encoding = EncodingNamed(options.to);
  s->format = RocksDbFormatOf(s->encoding ? *s->encoding : kind);
  return *s;
}

}  // namespace

std::optional<rocksdb::FilterEncoding> EncodingNamed(const std::string& to) {
  if (to == "rocksdb-bloom-legacy") return rocksdb::FilterEncoding::kLegacyBloom;
  if (to == "rocksdb-bloom") return rocksdb::FilterEncoding::kFastLocalBloom;
  if (to == "rocksdb-ribbon") return rocksdb::FilterEncoding::kRibbon;
  return std::nullopt;
}

double BloomFpRate(double bits, double k, double n) {
  if (bits <= 0 || k <= 0) return 1.0;
  return std::pow(1.0 - std::exp(-k * n / bits), k);
}

LsmDatabase DescribeDatabase(const std::string& dir, const std::vector<FileReport>& live) {
  LsmDatabase db;
  db.dir = dir;
  std::error_code ec;
  if (rocksdb::LooksLikeRocksDb(dir)) {
    db.family = LsmFamily::kRocksDb;
    db.family_name = "rocksdb";
    if (const std::optional<std::string> options = NewestOptionsFile(dir)) {
      db.rocksdb_version = pebble::ReadOptionsFile(*options).rocksdb_version;
    }
    return db;
  }
  // Tables under LevelDB 1.17's policy name whose keys do not tell goleveldb from 1.17 are
  // taken for goleveldb's (1.17 is from 2014): for such keys both write the same filter bytes,
  // and goleveldb's switch of CURRENT leaves only a CURRENT.bak, which LevelDB ignores.
  bool go = fs::is_regular_file(fs::path(dir) / "CURRENT.bak", ec);
  bool legacy = false, v117 = false;
  for (const FileReport& r : live) {
    go = go || r.writer == "goleveldb";
    legacy = legacy || r.version == leveldb::kLegacyPolicyName;
    v117 = v117 || r.writer == "leveldb-1.17";
  }
  go = go || (legacy && !v117);
  db.family = go ? LsmFamily::kGoLevelDb : LsmFamily::kLevelDb;
  db.family_name = go ? "goleveldb" : "leveldb";
  return db;
}

Status CheckLsmOptions(const LsmDatabase& db, const RepairOptions& options) {
  if (options.fp_chance || options.buckets_per_element) {
    return Status::InvalidArgument(
        db.dir + ": " + FamilyTitle(db) +
        " sizes its filters by bits per key, not by a false-positive chance (--fp-chance and "
        "--buckets-per-element are Cassandra's); give --bits-per-key N");
  }
  if (options.bits_per_key) {
    const double b = *options.bits_per_key;
    const bool whole = db.family != LsmFamily::kRocksDb;
    if (!(b >= 1 && b <= 100) || (whole && b != std::floor(b))) {
      return Status::InvalidArgument("--bits-per-key " + NumberText(b) + ": " + FamilyTitle(db) +
                                     " takes " + (whole ? "a whole number" : "a number") +
                                     " from 1 to 100");
    }
  }
  if (!options.to.empty()) return CheckTarget(db, options.to);
  return Status();
}

Result<FilterSizing> SizingFor(const LsmDatabase& db, const FileReport& report,
                               const RepairOptions& options,
                               const std::optional<FilterSizing>& sibling) {
  if (db.family == LsmFamily::kRocksDb) return RocksDbSizing(report, options, sibling);
  return LevelDbSizing(db, report, options, sibling);
}

namespace {

// A filter of several pieces (partitions, or a block-based filter's filters): `bytes`, and the
// fp rate of their bits and probes taken together (Ribbon: measured).
FilterFacts SplitFacts(const rocksdb::SstFilterStats& stats, std::uint64_t bytes, double n) {
  FilterFacts facts;
  facts.bytes = bytes;
  facts.fp_rate = stats.ribbon ? stats.fp_rate
                               : BloomFpRate(static_cast<double>(stats.bits), stats.hash_count, n);
  return facts;
}

// A partitioned filter (its partitions and their index) or a block-based one (its filters and
// their offsets) of a table: rocksdb.filter.size and SplitFacts.
Result<FilterFacts> SplitFilterFacts(const rocksdb::SstReader& sst, double n) {
  BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::FilterEncoding kind, TableEncoding(sst));
  BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstFilterStats stats, rocksdb::ComputeSstFilterStats(sst));
  FilterFacts facts = SplitFacts(
      stats, sst.properties() ? sst.properties()->Number("rocksdb.filter.size").value_or(0) : 0, n);
  facts.format = RocksDbFormatOf(kind);
  return facts;
}

}  // namespace

Result<FilterFacts> NewPartitionedFilterFacts(ByteSpan old_table, ByteSpan filter,
                                              std::uint64_t filter_offset, std::uint64_t index_size,
                                              const std::string& path, std::uint64_t keys) {
  constexpr std::uint64_t kTrailer = blocktable::kBlockTrailerSize;
  if (filter.size() < index_size + kTrailer) {
    return Status::Internal(path + ": the rewrite's partitioned filter is shorter than its index");
  }
  // The old table's reader decodes the index entries as the rewrite encoded them (the same
  // index settings); nothing of its filter is read.
  rocksdb::SstOpenOptions open;
  open.verify_filter_checksum = false;
  BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader old,
                              rocksdb::SstReader::Open(old_table, path, open));
  const std::uint64_t index_at = filter.size() - kTrailer - index_size;
  BLOOMCODEC_ASSIGN_OR_RETURN(
      blocktable::Block index,
      blocktable::Block::Parse(blocktable::BlockContents::View(filter.subspan(index_at, index_size),
                                                               filter_offset + index_at),
                               path, "filter partition index",
                               blocktable::BlockFooterLayout::kRocksDb));
  std::vector<ByteSpan> partitions;
  std::uint64_t bytes = index_size;  // rocksdb.filter.size: the contents, without trailers
  BLOOMCODEC_RETURN_IF_ERROR(
      old.ForEachIndexEntry(index, [&](ByteSpan, const blocktable::BlockHandle& h) -> Status {
        if (h.offset < filter_offset || h.size > index_at ||
            h.offset - filter_offset > index_at - h.size) {
          return Status::Internal(path + ": a rewritten filter partition lies outside the filter");
        }
        partitions.push_back(filter.subspan(h.offset - filter_offset, h.size));
        bytes += h.size;
        return Status();
      }));
  BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstFilterStats stats,
                              rocksdb::FullFilterStats(partitions, path));
  return SplitFacts(stats, bytes, static_cast<double>(keys));
}

Result<FilterFacts> NewFilterFacts(const LsmDatabase& db, ByteSpan table, const std::string& path,
                                   std::uint64_t keys) {
  const FilterFacts facts;  // no filter
  if (db.family == LsmFamily::kRocksDb) {
    BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::SstReader sst, rocksdb::SstReader::Open(table, path));
    if (!sst.filter()) return facts;
    // A prefix table's filter holds its entries, which the table records (a rebuilt one: ours).
    if (RecordsPrefixExtractor(sst)) {
      keys = sst.properties()->Number("rocksdb.num.filter_entries").value_or(keys);
    }
    if (sst.filter()->placement != rocksdb::FilterPlacement::kFull) {
      return SplitFilterFacts(sst, static_cast<double>(keys));
    }
    return FilterBlockFacts(db, sst.filter()->contents.bytes(), path, keys);
  }
  leveldb::TableOpenOptions open;
  open.key_kind = KeyKind::kUser;
  BLOOMCODEC_ASSIGN_OR_RETURN(leveldb::TableReader t,
                              leveldb::TableReader::Open(table, path, open));
  if (!t.filter()) return facts;
  return FilterBlockFacts(db, t.filter()->contents.bytes(), path, keys);
}

Result<FilterFacts> FilterBlockFacts(const LsmDatabase& db, ByteSpan bytes, const std::string& path,
                                     std::uint64_t keys) {
  FilterFacts facts;
  const double n = static_cast<double>(keys);
  if (db.family == LsmFamily::kRocksDb) {
    facts.bytes = bytes.size();
    BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::FullFilterReader f,
                                rocksdb::FullFilterReader::Parse(bytes, path));
    facts.format = f.kind() == rocksdb::FullFilterKind::kRibbon        ? "rocksdb-ribbon"
                   : f.kind() == rocksdb::FullFilterKind::kLegacyBloom ? "rocksdb-bloom-legacy"
                                                                       : "rocksdb-bloom";
    facts.fp_rate = f.kind() == rocksdb::FullFilterKind::kRibbon
                        ? rocksdb::RibbonExpectedFpRate(f)
                        : BloomFpRate(static_cast<double>(f.bit_count()), f.hash_count(), n);
    return facts;
  }
  const ByteSpan b = bytes;
  facts.bytes = b.size();
  // LevelDB's filter block: the filters, their u32 offsets, the array's offset, base_lg.
  if (b.size() < 5) return facts;
  const std::size_t at = b.size() - 5;
  const std::uint32_t array =
      b[at] | b[at + 1] << 8 | b[at + 2] << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
  if (array == 0 || array > at) return facts;
  const std::size_t filters = (at - array) / 4;
  std::uint32_t first_end = array;
  if (filters > 1) {
    const std::size_t o = array + 4;
    first_end = b[o] | b[o + 1] << 8 | b[o + 2] << 16 | static_cast<std::uint32_t>(b[o + 3]) << 24;
    if (first_end == 0 || first_end > array) return facts;
  }
  const double k = b[first_end - 1];
  facts.fp_rate = BloomFpRate(8.0 * static_cast<double>(array - filters), k, n);
  return facts;
}

}  // namespace bloomcodec::repair_internal

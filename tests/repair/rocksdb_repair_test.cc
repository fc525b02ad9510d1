// Repairs of databases written by RocksDB 7.8.3 (Debian's librocksdb), reopened by it with
// paranoid checks and SST unique-id verification: two column families, tables at several
// levels, format_version 2 to 5, with and without crc32c file checksums. After a repair every
// key reads with its value, the live tables are the new ones at the old ones' levels, block and
// file checksums verify, the tables' filter sizes changed; a repair killed at each of its
// file-system steps leaves a database RocksDB opens with all old or all new tables. A database
// RocksDB has open in another process is refused.
#include <fcntl.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/file_checksum.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "bloomcodec/repair.h"
#include "lsmrepair/database_lock.h"
#include "lsmrepair/repair_transaction.h"
#include "lsmrepair/table_rewriters.h"
#include "repair/repair_harness.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"
#include "support/test_support.h"

namespace bloomcodec::repair_test {
namespace {

// (column family, key) -> value.
using Contents = std::map<std::pair<std::string, std::string>, std::string>;
// table number -> (column family, level).
using LiveFiles = std::map<std::uint64_t, std::pair<std::string, int>>;

constexpr std::uint32_t kKeys = 6000;

struct Config {
  int format_version = 5;
  bool file_checksums = false;
  bool partitioned_filters = false;  // partition_filters with a two-level index
  bool two_level_index = false;      // a two-level index above a full filter
  bool prefix_extractor = false;     // a 4-byte fixed prefix extractor
};

::rocksdb::Options MakeOptions(const Config& config) {
  ::rocksdb::Options options;
  options.create_missing_column_families = true;
  options.disable_auto_compactions = true;
  options.write_buffer_size = 64 << 10;
  options.target_file_size_base = 32 << 10;
  options.paranoid_checks = true;
  options.verify_sst_unique_id_in_manifest = true;
  if (config.file_checksums) {
    options.file_checksum_gen_factory = ::rocksdb::GetFileChecksumGenCrc32cFactory();
  }
  ::rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(::rocksdb::NewBloomFilterPolicy(10));
  table.block_size = 1024;
  table.format_version = config.format_version;
  if (config.partitioned_filters) {
    table.partition_filters = true;
    table.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.metadata_block_size = 256;  // several partitions per table
  }
  if (config.two_level_index) {
    table.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.metadata_block_size = 256;
  }
  if (config.prefix_extractor) {
    options.prefix_extractor.reset(::rocksdb::NewFixedPrefixTransform(4));
  }
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

struct OpenDb {
  std::unique_ptr<::rocksdb::DB> db;
  std::vector<::rocksdb::ColumnFamilyHandle*> handles;
  ~OpenDb() {
    for (auto* h : handles) (void)db->DestroyColumnFamilyHandle(h);
    if (db) (void)db->Close();
  }
};

std::unique_ptr<OpenDb> Open(const std::string& dir, const Config& config, bool create = false) {
  ::rocksdb::Options options = MakeOptions(config);
  options.create_if_missing = create;
  std::vector<::rocksdb::ColumnFamilyDescriptor> families{
      {::rocksdb::kDefaultColumnFamilyName, options}, {"cf1", options}};
  auto out = std::make_unique<OpenDb>();
  ::rocksdb::DB* raw = nullptr;
  const ::rocksdb::Status s = ::rocksdb::DB::Open(options, dir, families, &out->handles, &raw);
  EXPECT_TRUE(s.ok()) << dir << ": " << s.ToString();
  if (!s.ok()) return nullptr;
  out->db.reset(raw);
  return out;
}

LiveFiles Live(::rocksdb::DB& db) {
  std::vector<::rocksdb::LiveFileMetaData> files;
  db.GetLiveFilesMetaData(&files);
  LiveFiles out;
  for (const auto& f : files) out[f.file_number] = {f.column_family_name, f.level};
  return out;
}

std::set<std::uint64_t> Numbers(const LiveFiles& live) {
  std::set<std::uint64_t> out;
  for (const auto& [n, where] : live) out.insert(n);
  return out;
}

// Level 0 (two tables, the newer overwriting keys of the older and of deeper levels), levels 1
// and 3 in the default column family; levels 0 and 2 in cf1; every memtable flushed (a reopen
// writes no table).
Contents WriteDatabase(const std::string& dir, const Config& config) {
  Contents want;
  std::unique_ptr<OpenDb> open = Open(dir, config, true);
  if (!open) return want;
  ::rocksdb::DB& db = *open->db;
  std::mt19937 rng(11);
  auto put = [&](int cf, std::uint32_t from, std::uint32_t to, std::uint32_t step) {
    for (std::uint32_t i = from; i < to; i += step) {
      std::string value(30 + rng() % 50, static_cast<char>('a' + rng() % 26));
      EXPECT_TRUE(db.Put(::rocksdb::WriteOptions(), open->handles[cf], Key(i), value).ok());
      want[{cf == 0 ? "default" : "cf1", Key(i)}] = value;
    }
    EXPECT_TRUE(db.Flush(::rocksdb::FlushOptions(), open->handles[cf]).ok());
  };
  auto compact_to = [&](int cf, int level) {
    ::rocksdb::CompactRangeOptions deep;
    deep.change_level = true;
    deep.target_level = level;
    EXPECT_TRUE(db.CompactRange(deep, open->handles[cf], nullptr, nullptr).ok());
  };
  put(0, 0, kKeys, 1);
  compact_to(0, 3);
  put(0, 1000, 3000, 2);
  std::vector<::rocksdb::LiveFileMetaData> files;
  db.GetLiveFilesMetaData(&files);
  std::vector<std::string> names;
  for (const auto& f : files) {
    if (f.level == 0 && f.column_family_name == "default") names.push_back(f.name);
  }
  EXPECT_TRUE(db.CompactFiles(::rocksdb::CompactionOptions(), open->handles[0], names, 1).ok());
  put(0, 1500, 2500, 3);
  for (std::uint32_t i = 1600; i < 1700; ++i) {
    EXPECT_TRUE(db.Delete(::rocksdb::WriteOptions(), open->handles[0], Key(i)).ok());
    want.erase({"default", Key(i)});
  }
  EXPECT_TRUE(db.Flush(::rocksdb::FlushOptions(), open->handles[0]).ok());
  put(1, 0, 3000, 1);
  compact_to(1, 2);
  put(1, 500, 1500, 4);
  return want;
}

void ExpectContents(OpenDb& open, const Contents& want) {
  std::size_t found = 0;
  for (int cf = 0; cf < 2; ++cf) {
    const std::string name = cf == 0 ? "default" : "cf1";
    for (std::uint32_t i = 0; i < kKeys; ++i) {
      std::string value;
      const ::rocksdb::Status s =
          open.db->Get(::rocksdb::ReadOptions(), open.handles[cf], Key(i), &value);
      const auto it = want.find({name, Key(i)});
      if (it == want.end()) {
        EXPECT_TRUE(s.IsNotFound()) << name << " " << Key(i) << ": " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << name << " " << Key(i) << ": " << s.ToString();
        EXPECT_EQ(value, it->second);
        ++found;
      }
    }
  }
  EXPECT_EQ(found, want.size());
}

// Filter bytes of the live tables, per the table properties RocksDB reads.
std::uint64_t FilterBytes(OpenDb& open) {
  std::uint64_t total = 0;
  for (auto* h : open.handles) {
    ::rocksdb::TablePropertiesCollection props;
    EXPECT_TRUE(open.db->GetPropertiesOfAllTables(h, &props).ok());
    for (const auto& [name, p] : props) total += p->filter_size;
  }
  return total;
}

lsmrepair::RepairOptions Bits(double bits_per_key) {
  lsmrepair::RepairOptions options;
  options.flavor = manifest::Flavor::kRocksDb;
  options.rewrite = lsmrepair::RocksDbFilterRewrite(bits_per_key);
  options.check = lsmrepair::RocksDbTableCheck();
  return options;
}

class RocksDbRepair : public ::testing::TestWithParam<Config> {};

TEST_P(RocksDbRepair, EveryFilterReplacedAndRocksDbReadsEveryKey) {
  const Config config = GetParam();
  testing::TempDir dir;
  const std::string db = dir.path() + "/db";
  const Contents want = WriteDatabase(db, config);
  LiveFiles before;
  std::uint64_t old_filters = 0;
  {
    std::unique_ptr<OpenDb> open = Open(db, config);
    ASSERT_TRUE(open);
    before = Live(*open->db);
    old_filters = FilterBytes(*open);
    std::vector<::rocksdb::LiveFileMetaData> files;
    open->db->GetLiveFilesMetaData(&files);
    for (const auto& f : files) {
      EXPECT_EQ(f.file_checksum_func_name,
                config.file_checksums ? "FileChecksumCrc32c" : "Unknown");
    }
  }
  std::set<int> levels;
  for (const auto& [n, where] : before) levels.insert(where.second);
  ASSERT_GE(levels.size(), 4u) << "levels 0, 1, 2 and 3";
  Result<lsmrepair::RepairResult> r = lsmrepair::RepairDatabase(db, Bits(15));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->switched);
  LiveFiles expected;
  for (const lsmrepair::TableOutcome& t : r->tables) {
    EXPECT_EQ(t.left_alone, "") << t.old_path;
    expected[t.new_number] = before.at(t.old_number);
  }
  EXPECT_EQ(expected.size(), before.size());
  std::unique_ptr<OpenDb> open = Open(db, config);
  ASSERT_TRUE(open) << "RocksDB (paranoid checks, unique ids verified) refused the repair";
  EXPECT_EQ(Live(*open->db), expected);
  ExpectContents(*open, want);
  const ::rocksdb::Status blocks = open->db->VerifyChecksum();
  EXPECT_TRUE(blocks.ok()) << blocks.ToString();
  if (config.file_checksums) {
    // Every live file's crc32c against the MANIFEST's (the repair recomputed them).
    const ::rocksdb::Status files = open->db->VerifyFileChecksums(::rocksdb::ReadOptions());
    EXPECT_TRUE(files.ok()) << files.ToString();
  }
  std::vector<::rocksdb::LiveFileMetaData> metadata;
  open->db->GetLiveFilesMetaData(&metadata);
  for (const auto& f : metadata) {
    EXPECT_EQ(f.file_checksum.empty(), !config.file_checksums) << f.name;
  }
  const std::uint64_t new_filters = FilterBytes(*open);
  std::printf("format_version %d%s: filter bytes %llu at 10 bits per key, %llu at 15\n",
              config.format_version, config.file_checksums ? ", crc32c file checksums" : "",
              static_cast<unsigned long long>(old_filters),
              static_cast<unsigned long long>(new_filters));
  EXPECT_NEAR(static_cast<double>(new_filters) / old_filters, 1.5, 0.1);
}

INSTANTIATE_TEST_SUITE_P(FormatVersions, RocksDbRepair,
                         ::testing::Values(Config{2, false}, Config{3, true}, Config{4, false},
                                           Config{5, false}, Config{5, true}),
                         [](const auto& info) {
                           return "format_version_" + std::to_string(info.param.format_version) +
                                  (info.param.file_checksums ? "_crc32c" : "");
                         });

TEST(RocksDbRepairKilled, AtEveryStepOpensWithAllOldOrAllNewTables) {
  const Config config{5, true};
  testing::TempDir dir;
  const std::string original = dir.path() + "/db";
  const std::string db = dir.path() + "/killed";
  const Contents want = WriteDatabase(original, config);
  auto live_of = [&](const std::string& d) {
    std::unique_ptr<OpenDb> open = Open(d, config);
    return open ? Numbers(Live(*open->db)) : std::set<std::uint64_t>{};
  };
  CopyDatabase(original, db);
  const std::set<std::uint64_t> before = live_of(db);
  auto repair = [&] {
    lsmrepair::RepairOptions options = Bits(15);
    options.no_backup = true;
    return lsmrepair::RepairDatabase(db, options).ok();
  };
  CopyDatabase(original, db);
  const ChildRun whole = RunInChild(0, repair);
  ASSERT_FALSE(whole.killed);
  ASSERT_EQ(whole.exit_code, 0);
  const int steps = static_cast<int>(whole.done.size());
  const int commit = CommitStep(whole.done);
  ASSERT_GT(commit, 0);
  const std::set<std::uint64_t> after = live_of(db);
  ASSERT_EQ(after.size(), before.size());
  ASSERT_GT(*after.begin(), *before.rbegin());
  int old_seen = 0, new_seen = 0;
  const std::vector<int> points = KillPoints(whole.done, commit);
  const int old_points = static_cast<int>(
      std::count_if(points.begin(), points.end(), [&](int n) { return n <= commit; }));
  for (int n : points) {
    CopyDatabase(original, db);
    const ChildRun run = RunInChild(n, repair);
    ASSERT_TRUE(run.killed) << "step " << n;
    std::unique_ptr<OpenDb> open = Open(db, config);
    ASSERT_TRUE(open) << "killed before step " << n << " (" << run.killed_at.step << " "
                      << run.killed_at.path << ")";
    const std::set<std::uint64_t> live = Numbers(Live(*open->db));
    EXPECT_EQ(live, n <= commit ? before : after)
        << "killed before step " << n << " (" << run.killed_at.step << " " << run.killed_at.path
        << ")";
    (live == before ? old_seen : new_seen)++;
    ExpectContents(*open, want);
    EXPECT_TRUE(open->db->VerifyFileChecksums(::rocksdb::ReadOptions()).ok());
  }
  EXPECT_EQ(old_seen, old_points);
  EXPECT_EQ(new_seen, static_cast<int>(points.size()) - old_points);
  PrintKillFigures("RocksDB 7.8.3", steps, commit, old_seen, new_seen);
}

// The holder process (this binary run with --hold DIR, see main): RocksDB opens the database,
// "open" on standard output says so, and it stays open until standard input ends.
int HoldDatabase(const std::string& dir) {
  std::unique_ptr<OpenDb> open = Open(dir, Config{});
  if (!open || ::write(1, "open", 4) != 4) return 1;
  DatabaseHolder::WaitForRelease();
  return 0;
}

TEST(RocksDbRepairLock, RefusesADatabaseRocksDbHasOpenInAnotherProcess) {
  testing::TempDir dir;
  const std::string db = dir.path() + "/db";
  ASSERT_FALSE(WriteDatabase(db, Config{}).empty());
  // A fresh process (exec, not only fork: RocksDB's thread pools do not survive a fork).
  DatabaseHolder holder(
      [&] { ::execl("/proc/self/exe", "repair_rocksdb_test", "--hold", db.c_str(), nullptr); },
      "open");
  ASSERT_TRUE(holder.held()) << "RocksDB did not open the database in the holder";
  ExpectRefusedWhileHeld(db, holder, "fcntl",
                         [&] { return lsmrepair::RepairDatabase(db, Bits(15)).status(); });
  EXPECT_TRUE(holder.Release());
  Result<lsmrepair::DatabaseLock> lock = lsmrepair::DatabaseLock::Acquire(db);
  EXPECT_TRUE(lock.ok()) << lock.status().ToString();
}

// The filter policy RocksDB reports for every live file ("rocksdb.filter.policy").
std::map<std::string, int> PolicyCounts(OpenDb& open) {
  std::map<std::string, int> out;
  for (auto* h : open.handles) {
    ::rocksdb::TablePropertiesCollection props;
    EXPECT_TRUE(open.db->GetPropertiesOfAllTables(h, &props).ok());
    for (const auto& [name, p] : props) ++out[p->filter_policy_name];
  }
  return out;
}

// The repair command's library entry (bloomcodec/repair.h) on one database.
Result<RepairReport> RepairDb(const std::string& db, const RepairOptions& options) {
  const std::vector<std::string> paths{db};
  return RepairPaths(paths, options);
}

// Every table rebuilt at `bits` bits per key, no backup kept.
RepairOptions EveryTableAt(double bits) {
  RepairOptions options;
  options.bits_per_key = bits;
  options.no_backup = true;
  return options;
}

// RepairPaths plans and runs the repair of a RocksDB database: --to rocksdb-ribbon (then back to
// rocksdb-bloom at 12 bits per key) on format_version 5 with crc32c file checksums; RocksDB
// 7.8.3 reopens it with paranoid checks and unique-id verification, reads every key and reports
// the new policy of every live file.
TEST(RocksDbRepairCommand, ToRibbonAndBackRocksDbReadsEveryKeyAndReportsThePolicy) {
  const Config config{5, true};
  testing::TempDir dir;
  const std::string db = dir.path() + "/db";
  const Contents want = WriteDatabase(db, config);
  struct Step {
    std::string to;
    std::optional<double> bits;
    std::string policy;
  } steps[] = {{"rocksdb-ribbon", std::nullopt, "ribbonfilter"},
               {"rocksdb-bloom", 12, "bloomfilter"}};
  for (const Step& step : steps) {
    RepairOptions options;
    options.to = step.to;
    options.bits_per_key = step.bits.value_or(10);
    options.no_backup = true;
    Result<RepairReport> report = DryRunThenRepair(db, options);  // the dry run's figures too
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->damaged, 0u);
    EXPECT_EQ(report->rebuilt, report->tables.size());
    for (const TableRepair& t : report->tables) {
      EXPECT_EQ(t.family, "rocksdb");
      EXPECT_EQ(t.action, "repaired") << t.path << " " << t.damage;
      EXPECT_EQ(t.new_format, step.to) << t.path;
    }
    std::unique_ptr<OpenDb> open = Open(db, config);
    ASSERT_TRUE(open) << "RocksDB (paranoid checks, unique ids verified) refused the repair";
    ExpectContents(*open, want);
    EXPECT_TRUE(open->db->VerifyChecksum().ok());
    EXPECT_TRUE(open->db->VerifyFileChecksums(::rocksdb::ReadOptions()).ok());
    const std::map<std::string, int> policies = PolicyCounts(*open);
    std::printf("--to %s: live files per filter policy:", step.to.c_str());
    for (const auto& [policy, n] : policies) std::printf(" %s %d", policy.c_str(), n);
    std::printf(", filter bytes %llu\n", static_cast<unsigned long long>(FilterBytes(*open)));
    ASSERT_EQ(policies.size(), 1u);
    EXPECT_EQ(policies.begin()->first, step.policy);
  }
}

// Without parameters a sound database is left as it is; a table whose filter was removed is the
// only one rebuilt, at its column family's recorded 10 bits per key.
TEST(RocksDbRepairCommand, OnlyTheTableWithoutAFilterIsRebuilt) {
  const Config config{4, false};
  testing::TempDir dir;
  const std::string db = dir.path() + "/db";
  const Contents want = WriteDatabase(db, config);
  const std::string current = ReadText(db + "/CURRENT");
  RepairOptions none;
  none.no_backup = true;
  Result<RepairReport> sound = RepairDb(db, none);
  ASSERT_TRUE(sound.ok()) << sound.status().ToString();
  for (const TableRepair& t : sound->tables) EXPECT_EQ(t.action, "sound") << t.path;
  EXPECT_EQ(ReadText(db + "/CURRENT"), current);

  lsmrepair::RepairOptions strip;
  strip.flavor = manifest::Flavor::kRocksDb;
  strip.rewrite = lsmrepair::RocksDbFilterRewrite(std::nullopt);
  strip.no_backup = true;
  bool chosen = false;
  strip.select = [&](const lsmrepair::TableToRepair& t) {
    if (chosen || t.meta.level == 0) return false;
    return chosen = true;
  };
  ASSERT_TRUE(lsmrepair::RepairDatabase(db, strip).ok());
  Result<RepairReport> fixed = RepairDb(db, none);
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
  EXPECT_EQ(fixed->rebuilt, 1u);
  for (const TableRepair& t : fixed->tables) {
    if (t.action == "sound") continue;
    EXPECT_EQ(t.action, "repaired") << t.path;
    EXPECT_EQ(t.reasons, std::vector<std::string>{"no-filter"});
    EXPECT_EQ(t.bits_per_key, 10.0) << t.sizing_basis;
    EXPECT_EQ(t.new_format, "rocksdb-bloom-legacy");
    EXPECT_GT(t.new_filter_bytes, 0u);
  }
  std::unique_ptr<OpenDb> open = Open(db, config);
  ASSERT_TRUE(open);
  ExpectContents(*open, want);
  EXPECT_EQ(PolicyCounts(*open),
            (std::map<std::string, int>{{"bloomfilter", static_cast<int>(fixed->tables.size())}}));
}

// --to is checked against the RocksDB release the OPTIONS file names: none, an unreadable
// version or one too old for the layout is refused before anything is written; --fp-chance is
// refused for an LSM database.
TEST(RocksDbRepairCommand, TargetsTheReaderCannotReadAreRefused) {
  testing::TempDir dir;
  const std::string db = dir.path() + "/db";
  WriteDatabase(db, Config{4, false});
  std::vector<std::string> options_files;
  for (const auto& e : fs::directory_iterator(db)) {
    if (e.path().filename().string().starts_with("OPTIONS-")) options_files.push_back(e.path());
  }
  ASSERT_FALSE(options_files.empty());
  const std::string current = ReadText(db + "/CURRENT");
  auto refused = [&](const RepairOptions& options, const std::string& says) {
    Result<RepairReport> r = RepairDb(db, options);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(says), std::string::npos) << r.status().message();
    EXPECT_EQ(ReadText(db + "/CURRENT"), current);
  };
  RepairOptions to_ribbon;
  to_ribbon.to = "rocksdb-ribbon";
  to_ribbon.bits_per_key = 10;
  RepairOptions to_leveldb = to_ribbon;
  to_leveldb.to = "leveldb-bloom";
  refused(to_leveldb, "full filters only");
  RepairOptions chance;
  chance.fp_chance = 0.01;
  refused(chance, "bits per key");
  // Every OPTIONS file says RocksDB 6.10, then garbage, then nothing.
  auto rewrite_options = [&](const std::string& version_line) {
    for (const std::string& f : options_files) {
      std::ofstream out(f, std::ios::trunc);
      out << "[Version]\n" << version_line << "\n[DBOptions]\n";
    }
  };
  rewrite_options("  rocksdb_version=6.10.2");
  refused(to_ribbon, "needs RocksDB 6.15");
  rewrite_options("  rocksdb_version=x.y");
  refused(to_ribbon, "needs RocksDB 6.15");
  for (const std::string& f : options_files) fs::remove(f);
  refused(to_ribbon, "does not say which RocksDB");
}

// The layout of a repaired table's new file.
struct RebuiltLayout {
  rocksdb::IndexType index;
  rocksdb::FilterPlacement placement;
};

// Every table of `report` repaired (a failure names the one that is not); its new file's layout.
std::vector<RebuiltLayout> RebuiltLayouts(const RepairReport& report) {
  std::vector<RebuiltLayout> out;
  for (const TableRepair& t : report.tables) {
    EXPECT_EQ(t.action, "repaired") << t.path << " " << t.damage;
    Result<InputFile> in = InputFile::Open(t.new_path);
    EXPECT_TRUE(in.ok()) << in.status().ToString();
    if (!in.ok()) continue;
    Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(in->bytes(), t.new_path);
    EXPECT_TRUE(sst.ok() && sst->filter()) << t.new_path;
    if (!sst.ok() || !sst->filter()) continue;
    out.push_back({sst->index_type(), sst->filter()->placement});
  }
  EXPECT_EQ(out.size(), report.tables.size());
  return out;
}

// RocksDB 7.8 reopens the repaired `db` with paranoid checks and unique ids verified, reads
// every key of `want` and finds every block's checksum right.
void ExpectRocksDbReadsEveryKey(const std::string& db, const Config& config, const Contents& want) {
  std::unique_ptr<OpenDb> open = Open(db, config);
  ASSERT_TRUE(open) << "RocksDB (paranoid checks, unique ids verified) refused the repair";
  ExpectContents(*open, want);
  EXPECT_TRUE(open->db->VerifyChecksum().ok());
}

// Tables with partitioned filters (written by RocksDB 7.8.3 with partition_filters and a
// two-level index) are rebuilt as partitioned filters beside a table with a full filter written
// later into the same database, and RocksDB reopens the database with paranoid checks and reads
// every key (rocksdb_partitioned_test.cc compares the partitions with RocksDB's own).
TEST(RocksDbRepairCommand, PartitionedAndFullFiltersAreRebuiltSideBySide) {
  const Config partitioned{5, false, true};
  const Config full{5, false, false};
  testing::TempDir dir;
  const std::string db = dir.path() + "/db";
  Contents want = WriteDatabase(db, partitioned);
  {
    std::unique_ptr<OpenDb> open = Open(db, full);
    ASSERT_TRUE(open);
    for (std::uint32_t i = 0; i < 400; i += 7) {
      const std::string value = "full-filter-" + std::to_string(i);
      ASSERT_TRUE(open->db->Put(::rocksdb::WriteOptions(), open->handles[0], Key(i), value).ok());
      want[{"default", Key(i)}] = value;
    }
    ASSERT_TRUE(open->db->Flush(::rocksdb::FlushOptions(), open->handles[0]).ok());
  }
  const RepairOptions options = EveryTableAt(12);
  Result<RepairReport> report = DryRunThenRepair(db, options);  // the dry run's figures too
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->damaged, 0u);
  EXPECT_EQ(report->rebuilt, report->tables.size());
  std::size_t partitioned_tables = 0;
  for (const RebuiltLayout& l : RebuiltLayouts(*report)) {
    if (l.placement == rocksdb::FilterPlacement::kPartitioned) ++partitioned_tables;
  }
  EXPECT_EQ(partitioned_tables + 1, report->tables.size());
  ExpectRocksDbReadsEveryKey(db, partitioned, want);
}

// Partitioned filters turned into Ribbon partitions (--to rocksdb-ribbon): the dry run reads the
// new filter's figures from the rewrite's partitions alone (never assembling the table), and
// they are the real repair's (DryRunThenRepair), the measured Ribbon rate included.
TEST(RocksDbRepairCommand, PartitionedFiltersToRibbonDryRunFiguresAreTheRepairs) {
  const Config partitioned{5, false, true};
  testing::TempDir dir;
  const std::string db = dir.path() + "/db";
  const Contents want = WriteDatabase(db, partitioned);
  RepairOptions options = EveryTableAt(10);
  options.to = "rocksdb-ribbon";
  Result<RepairReport> report = DryRunThenRepair(db, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->rebuilt, report->tables.size());
  for (const TableRepair& t : report->tables) {
    EXPECT_GT(t.new_filter_bytes, 0u) << t.path;
    EXPECT_TRUE(t.new_fp_rate.has_value()) << t.path;
  }
  for (const RebuiltLayout& l : RebuiltLayouts(*report)) {
    EXPECT_EQ(l.placement, rocksdb::FilterPlacement::kPartitioned);
  }
  ExpectRocksDbReadsEveryKey(db, partitioned, want);
}

// Tables with a two-level index above a full filter (index partitions without partition_filters)
// are rebuilt: the filter grows, the index partitions move after it and the index's top level
// is re-encoded; RocksDB reopens the database with paranoid checks and reads every key.
// (differential_test.cc compares such tables with RocksDB's own, byte for byte.)
TEST(RocksDbRepairCommand, TablesWithATwoLevelIndexAreRebuilt) {
  Config config;
  config.two_level_index = true;
  testing::TempDir dir;
  const std::string db = dir.path() + "/db";
  const Contents want = WriteDatabase(db, config);
  const RepairOptions options = EveryTableAt(14);
  Result<RepairReport> report = RepairDb(db, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_FALSE(report->tables.empty());
  EXPECT_EQ(report->rebuilt, report->tables.size());
  for (const TableRepair& t : report->tables) {
    EXPECT_GT(t.new_filter_bytes, t.old_filter_bytes) << t.path;
  }
  for (const RebuiltLayout& l : RebuiltLayouts(*report)) {
    EXPECT_EQ(l.index, rocksdb::IndexType::kTwoLevelIndexSearch);
    EXPECT_EQ(l.placement, rocksdb::FilterPlacement::kFull);
  }
  ExpectRocksDbReadsEveryKey(db, config, want);
}

// A prefix extractor puts each key's prefix in the filter beside the whole key, and a prefix
// seek asks for the prefix alone: the rebuilt filter holds both (rocksdb_prefix_test.cc holds
// its bytes against RocksDB's). Every table is rebuilt, its entries more than its keys, and
// RocksDB reads the database back.
TEST(RocksDbRepairCommand, TablesWithABuiltInPrefixExtractorAreRebuilt) {
  Config config;
  config.prefix_extractor = true;
  testing::TempDir dir;
  const std::string db = dir.path() + "/db";
  const Contents want = WriteDatabase(db, config);
  const RepairOptions options = EveryTableAt(14);
  Result<RepairReport> report = RepairDb(db, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_FALSE(report->tables.empty());
  EXPECT_EQ(report->rebuilt, report->tables.size());
  for (const TableRepair& t : report->tables) {
    EXPECT_EQ(t.action, "repaired") << t.path << (t.notes.empty() ? "" : t.notes.back());
    EXPECT_GT(t.new_filter_bytes, t.old_filter_bytes) << t.path;
  }
  std::unique_ptr<OpenDb> open = Open(db, config);
  ASSERT_TRUE(open);
  ExpectContents(*open, want);
}

// The rewrite reads a table's data blocks in runs of 128 (in parallel inside a pool) and joins
// them in file order: a user key whose versions (kept by snapshots) span the runs' boundaries is
// added to the filter once, as RocksDB's builder adds it. Rebuilt at the table's own 10 bits per
// key, the filter block and rocksdb.num.filter_entries are the ones RocksDB 7.8 wrote.
TEST(RocksDbRepairRewrite, AKeyRepeatedAcrossRunsOfBlocksIsAddedOnce) {
  testing::TempDir dir;
  ::rocksdb::Options options;
  options.create_if_missing = true;
  ::rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(::rocksdb::NewBloomFilterPolicy(10));
  table.block_size = 64;  // two or three entries a block: a few hundred blocks
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
  ::rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(::rocksdb::DB::Open(options, dir.path() + "/db", &raw).ok());
  std::unique_ptr<::rocksdb::DB> db(raw);
  std::vector<const ::rocksdb::Snapshot*> snapshots;
  auto versions = [&](const std::string& key, int n) {
    for (int v = 0; v < n; ++v) {
      ASSERT_TRUE(db->Put(::rocksdb::WriteOptions(), key, "value-" + std::to_string(v)).ok());
      snapshots.push_back(db->GetSnapshot());
    }
  };
  versions(Key(1), 500);
  for (std::uint32_t i = 2; i < 40; ++i) versions(Key(i), 1);
  versions(Key(40), 400);
  ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions()).ok());
  std::vector<::rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  for (const auto* snapshot : snapshots) db->ReleaseSnapshot(snapshot);
  ASSERT_TRUE(db->Close().ok());
  ASSERT_EQ(files.size(), 1u);
  const std::string path = dir.path() + "/db" + files[0].name;
  const std::string bytes = ReadText(path);
  const ByteSpan file(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  Result<rocksdb::SstReader> old = rocksdb::SstReader::Open(file, path);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  std::uint64_t blocks = 0;
  ASSERT_TRUE(old->ForEachDataBlock([&](ByteSpan, const auto&) {
                   ++blocks;
                   return Status();
                 })
                  .ok());
  ASSERT_GT(blocks, 2u * 128) << "the versions span several runs of blocks";
  Result<ByteVector> rewritten = rocksdb::RewriteSstFilter(*old, 10.0);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
  Result<rocksdb::SstReader> fresh = rocksdb::SstReader::Open(*rewritten, path + " (rewritten)");
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  ASSERT_TRUE(old->filter() && fresh->filter());
  const ByteSpan a = old->filter()->contents.bytes();
  const ByteSpan b = fresh->filter()->contents.bytes();
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
  EXPECT_EQ(old->properties()->Number("rocksdb.num.filter_entries"), 40u);  // keys 1 to 40
  EXPECT_EQ(fresh->properties()->Number("rocksdb.num.filter_entries"), 40u);
}

}  // namespace
}  // namespace bloomcodec::repair_test

// gtest's main, and the holder process of the lock test.
int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--hold") {
    return bloomcodec::repair_test::HoldDatabase(argv[2]);
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

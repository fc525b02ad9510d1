// `bloomcodec repair` as a process on LevelDB databases written by Debian's libleveldb 1.23 and
// reopened by it with paranoid checks: --dry-run changes nothing, --bits-per-key rebuilds every
// filter (every key still read), a sound database is left as it is, a table without a filter
// among tables with one is rebuilt alone, a damaged table is reported and left alone (exit 1),
// and the refusals (--to another layout, --fp-chance, a fractional --bits-per-key, a Pebble
// directory without its MANIFEST) exit 2 without writing.
#include <gtest/gtest.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cli/cli_runner.h"
#include "leveldb/table/table_reader.h"
#include "lsmrepair/repair_transaction.h"
#include "lsmrepair/table_rewriters.h"
#include "repair/cassandra_sstables.h"
#include "repair/repair_harness.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kKeys = 3000;

using repair_test::Key;

std::string Value(std::uint32_t i) {
  return std::string(20 + i % 40, static_cast<char>('a' + i % 26));
}

std::unique_ptr<::leveldb::DB> Open(const std::string& dir, bool create = false) {
  static const ::leveldb::FilterPolicy* policy = ::leveldb::NewBloomFilterPolicy(10);
  ::leveldb::Options options;
  options.create_if_missing = create;
  options.paranoid_checks = true;
  options.write_buffer_size = 64 << 10;
  options.max_file_size = 32 << 10;
  options.block_size = 1024;
  options.filter_policy = policy;
  ::leveldb::DB* raw = nullptr;
  const ::leveldb::Status s = ::leveldb::DB::Open(options, dir, &raw);
  EXPECT_TRUE(s.ok()) << dir << ": " << s.ToString();
  return std::unique_ptr<::leveldb::DB>(raw);
}

// Every key at a deeper level after a full compaction, a few in a level-0 table made when the
// log is replayed at the next open.
void WriteDatabase(const std::string& dir) {
  {
    std::unique_ptr<::leveldb::DB> db = Open(dir, true);
    for (std::uint32_t i = 0; i < kKeys; ++i) {
      EXPECT_TRUE(db->Put(::leveldb::WriteOptions(), Key(i), Value(i)).ok());
    }
    db->CompactRange(nullptr, nullptr);
    for (std::uint32_t i = 0; i < kKeys; i += 7) {
      EXPECT_TRUE(db->Put(::leveldb::WriteOptions(), Key(i), Value(i)).ok());
    }
  }
  std::unique_ptr<::leveldb::DB> db = Open(dir);  // the log becomes a level-0 table
}

// LevelDB (paranoid checks) opens the database and reads every key with its value.
void ExpectLevelDbReadsEveryKey(const std::string& dir) {
  std::unique_ptr<::leveldb::DB> db = Open(dir);
  ASSERT_TRUE(db) << "LevelDB refused the repaired database";
  std::uint32_t found = 0;
  for (std::uint32_t i = 0; i < kKeys; ++i) {
    std::string value;
    const ::leveldb::Status s = db->Get(::leveldb::ReadOptions(), Key(i), &value);
    ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
    EXPECT_EQ(value, Value(i));
    ++found;
  }
  EXPECT_EQ(found, kKeys);
}

// The database directory's files and bytes (the backup folder beside it is elsewhere).
std::map<std::string, ByteVector> Files(const std::string& dir) { return FilesUnder(dir); }

nlohmann::json Json(const CliRun& r) {
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

// The database's largest table file ("" when there is none).
std::string LargestTable(const std::string& db) {
  std::string victim;
  std::uintmax_t largest = 0;
  for (const auto& e : fs::directory_iterator(db)) {
    if (e.path().extension() == ".ldb" && e.file_size() > largest) {
      largest = e.file_size();
      victim = e.path().string();
    }
  }
  return victim;
}

// Writes `bytes` over the file at `path` in place (a damaged copy of the table).
// A database table's filter block: its bytes, and where it lies in the file.
struct FilterBlock {
  ByteVector bytes;
  std::uint64_t offset = 0;
};
FilterBlock FilterBlockOf(const ByteVector& table, const std::string& path) {
  leveldb::TableOpenOptions open;
  open.key_kind = KeyKind::kUser;
  Result<leveldb::TableReader> t = leveldb::TableReader::Open(table, path, open);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok() || !t->filter().has_value()) {
    ADD_FAILURE() << path << ": no filter block";
    return {};
  }
  const ByteSpan f = t->filter()->contents.bytes();
  return {ByteVector(f.begin(), f.end()), t->filter()->handle.offset};
}

void Overwrite(const std::string& path, const ByteVector& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  ASSERT_TRUE(f) << path;
  EXPECT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
}

class LevelDbRepairCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    original_ = new TempDir;
    WriteDatabase(original_->path() + "/db");
  }
  static void TearDownTestSuite() { delete original_; }
  // A fresh copy of the suite's database.
  std::string Copy() {
    const std::string db = tmp_.path() + "/db";
    fs::copy(original_->path() + "/db", db, fs::copy_options::recursive);
    fs::remove(db + "/LOCK");
    return db;
  }
  TempDir tmp_;
  static TempDir* original_;
};
TempDir* LevelDbRepairCli::original_ = nullptr;

TEST_F(LevelDbRepairCli, DryRunPlansEveryTableAndWritesNothing) {
  const std::string db = Copy();
  const auto before = Files(db);
  const CliRun r = RunCli({"repair", db, "--bits-per-key", "14", "--dry-run", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  ASSERT_TRUE(j["dry_run"].get<bool>());
  ASSERT_GE(j["tables"].size(), 2u);
  for (const auto& t : j["tables"]) {
    EXPECT_EQ(t["family"], "leveldb");
    EXPECT_EQ(t["action"], "planned") << t.dump();
    EXPECT_EQ(t["reasons"][0], "requested");
    EXPECT_EQ(t["new_format"], "leveldb-bloom");
    EXPECT_EQ(t["bits_per_key"].get<double>(), 14);
    EXPECT_GT(t["new_filter_bytes"].get<std::uint64_t>(),
              t["old_filter_bytes"].get<std::uint64_t>());
    EXPECT_LT(t["new_fp_rate"].get<double>(), t["old_fp_rate"].get<double>());
    EXPECT_GE(t["level"].get<int>(), 0);
  }
  EXPECT_GT(j["summary"]["filter_bytes_delta"].get<std::int64_t>(), 0);
  EXPECT_EQ(Files(db), before);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(tmp_.path())) entries += e.path() != db;
  EXPECT_EQ(entries, 0) << "no backup folder";
}

TEST_F(LevelDbRepairCli, BitsPerKeyRebuildsEveryFilterAndLevelDbReadsEveryKey) {
  const std::string db = Copy();
  const CliRun r = RunCli({"repair", db, "--bits-per-key", "14"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "standard error is a file, not a terminal: no progress lines";
  EXPECT_NE(r.out.find("repaired (requested)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("new filter: leveldb-bloom, 14 bits per key"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" tables, "), std::string::npos) << r.out;
  ExpectLevelDbReadsEveryKey(db);
  // The backup beside the database, never inside it.
  int backups = 0;
  for (const auto& e : fs::directory_iterator(tmp_.path())) {
    backups += e.path().filename().string().starts_with("db.bloomcodec-backup-");
  }
  EXPECT_EQ(backups, 1);
  // verify agrees, and a second repair without parameters finds nothing to do.
  EXPECT_EQ(RunCli({"verify", db}).exit_code, 0);
  const auto after = Files(db);
  const CliRun again = RunCli({"repair", db, "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const nlohmann::json second = Json(again);
  for (const auto& t : second["tables"]) EXPECT_EQ(t["action"], "sound") << t.dump();
  EXPECT_EQ(Files(db), after);
}

TEST_F(LevelDbRepairCli, ATableWithoutAFilterIsRebuiltAloneAtItsNeighboursSizing) {
  const std::string db = Copy();
  // Strip the filter of one table below level 0 with the library's transaction.
  lsmrepair::RepairOptions strip;
  strip.rewrite = lsmrepair::LevelDbFilterRewrite(std::nullopt);
  bool chosen = false;
  strip.select = [&](const lsmrepair::TableToRepair& t) {
    if (chosen || t.meta.level == 0) return false;
    return chosen = true;
  };
  strip.no_backup = true;
  ASSERT_TRUE(lsmrepair::RepairDatabase(db, strip).ok());
  const CliRun r = RunCli({"repair", db, "--json", "--no-backup"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int repaired = 0;
  const nlohmann::json doc = Json(r);
  for (const auto& t : doc["tables"]) {
    if (t["action"] == "repaired") {
      ++repaired;
      EXPECT_EQ(t["reasons"], nlohmann::json::array({"no-filter"})) << t.dump();
      EXPECT_EQ(t["old_filter_bytes"], 0);
      EXPECT_GT(t["new_filter_bytes"].get<std::uint64_t>(), 0u);
      EXPECT_EQ(t["bits_per_key"].get<double>(), 10) << t["sizing"];
    } else {
      EXPECT_EQ(t["action"], "sound") << t.dump();
    }
  }
  EXPECT_EQ(repaired, 1) << r.out;
  ExpectLevelDbReadsEveryKey(db);
}

TEST_F(LevelDbRepairCli, ADamagedTableIsReportedAndLeftAlone) {
  const std::string db = Copy();
  // The first data block of the largest table: a byte flipped (its checksum no longer matches).
  const std::string victim = LargestTable(db);
  ASSERT_FALSE(victim.empty());
  ByteVector bytes = ReadAll(victim);
  bytes[10] ^= 0x40;
  ASSERT_NO_FATAL_FAILURE(Overwrite(victim, bytes));
  const CliRun r = RunCli({"repair", db, "--bits-per-key", "12", "--json", "--no-backup"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  int damaged = 0;
  const nlohmann::json doc = Json(r);
  for (const auto& t : doc["tables"]) {
    if (t["path"] == victim) {
      EXPECT_EQ(t["action"], "damaged") << t.dump();
      ++damaged;
    }
  }
  EXPECT_EQ(damaged, 1) << r.out;
  EXPECT_EQ(ReadAll(victim), bytes) << "the damaged table is left as it was";
}

// A filter block that is damaged (its checksum no longer matches, its layout unreadable) is a
// `structure` finding of the filter, not damage of the table: repair without parameters
// rebuilds that table alone, and reports the keys the new filter holds and its fp rate, which
// verify could not count from the damaged filter.
TEST_F(LevelDbRepairCli, ADamagedFilterBlockIsRebuiltWithItsKeys) {
  const std::string db = Copy();
  const std::string victim = LargestTable(db);
  ASSERT_FALSE(victim.empty());
  ByteVector bytes = ReadAll(victim);
  std::uint64_t base_lg_at = 0;
  {
    Result<leveldb::TableReader> t = leveldb::TableReader::Open(bytes, victim);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    ASSERT_TRUE(t->filter().has_value());
    base_lg_at = t->filter()->handle.offset + t->filter()->handle.size - 1;
  }
  // The filter block's last byte, its base lg (11: a filter per 2 KiB of data), set to 40: the
  // block no longer says which filter covers which data block, so verify can ask it nothing.
  ASSERT_EQ(bytes[base_lg_at], 11);
  bytes[base_lg_at] = 40;
  ASSERT_NO_FATAL_FAILURE(Overwrite(victim, bytes));
  const CliRun planned = RunCli({"repair", db, "--dry-run", "--json"});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  const nlohmann::json plan = Json(planned);
  for (const auto& t : plan["tables"]) {
    if (t["path"] != victim) continue;
    EXPECT_EQ(t["action"], "planned") << t.dump();
    EXPECT_GT(t["keys"].get<std::uint64_t>(), 100u) << t.dump();
  }
  const CliRun r = RunCli({"repair", db, "--json", "--no-backup"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  int rebuilt = 0;
  const nlohmann::json doc = Json(r);
  for (const auto& t : doc["tables"]) {
    if (t["action"] != "repaired") continue;
    ++rebuilt;
    EXPECT_EQ(t["path"], victim) << t.dump();
    EXPECT_EQ(t["reasons"], nlohmann::json::array({"structure"})) << t.dump();
    EXPECT_GT(t["keys"].get<std::uint64_t>(), 100u) << t.dump();
    EXPECT_GT(t["new_fp_rate"].get<double>(), 0.0) << t.dump();
    EXPECT_LT(t["new_fp_rate"].get<double>(), 0.05) << t.dump();
  }
  EXPECT_EQ(rebuilt, 1) << r.out;
  ExpectLevelDbReadsEveryKey(db);
  const CliRun after = RunCli({"verify", db});
  EXPECT_EQ(after.exit_code, 0) << after.out << after.err;
}

// A filter block failing its checksum in a database of one table (no sibling to size it by): the
// filter is rebuilt at its writer's bits per key, read from its geometry (9 bits per key gives 6
// probes, as 10 does: the bits a key tell them apart), back to the bytes LevelDB wrote.
TEST_F(LevelDbRepairCli, AFilterFailingItsChecksumIsRebuiltAtItsWritersBitsPerKey) {
  const std::string db = tmp_.path() + "/nine";
  {
    const std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(9));
    ::leveldb::Options options;
    options.create_if_missing = true;
    options.filter_policy = policy.get();
    ::leveldb::DB* raw = nullptr;
    ASSERT_TRUE(::leveldb::DB::Open(options, db, &raw).ok());
    const std::unique_ptr<::leveldb::DB> writer(raw);
    for (std::uint32_t i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(writer->Put(::leveldb::WriteOptions(), Key(i), Value(i)).ok());
    }
    writer->CompactRange(nullptr, nullptr);
  }
  fs::remove(db + "/LOCK");
  const std::string table = LargestTable(db);
  ByteVector bytes = ReadAll(table);
  const FilterBlock written = FilterBlockOf(bytes, table);
  ASSERT_FALSE(written.bytes.empty());
  bytes[written.offset + 40] ^= 0x08;  // a bit of the first filter's array
  ASSERT_NO_FATAL_FAILURE(Overwrite(table, bytes));
  const CliRun r = RunCli({"repair", db, "--json", "--no-backup"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json doc = Json(r);
  ASSERT_EQ(doc["tables"].size(), 1u) << r.out;
  const nlohmann::json& t = doc["tables"][0];
  EXPECT_EQ(t["action"], "repaired") << t.dump();
  EXPECT_EQ(t["reasons"], nlohmann::json::array({"structure"})) << t.dump();
  EXPECT_EQ(t["bits_per_key"], 9.0) << t.dump();
  EXPECT_NE(t["sizing"].get<std::string>().find("estimated from the damaged filter"),
            std::string::npos)
      << t.dump();
  const std::string rebuilt = t["new_path"].get<std::string>();
  EXPECT_EQ(FilterBlockOf(ReadAll(rebuilt), rebuilt).bytes, written.bytes)
      << "not the filter LevelDB wrote";
  ExpectLevelDbReadsEveryKey(db);
}

TEST_F(LevelDbRepairCli, RefusalsWriteNothing) {
  const std::string db = Copy();
  CliDir pebble;
  pebble.Write("marker.format-version.000001.013", "");
  pebble.Write("marker.manifest.000001.MANIFEST-000001", "");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"repair", db, "--to", "rocksdb-ribbon"}, "reads only the filter its policy names"},
      {{"repair", db, "--to", "leveldb-bloom-legacy"}, "1.18 and later"},
      {{"repair", db, "--fp-chance", "0.01"}, "bits per key"},
      {{"repair", db, "--bits-per-key", "10.5"}, "whole number"},
      {{"repair", db, "--bits-per-key", "0"}, "from 1 to 100"},
      // A Pebble directory whose marker names a MANIFEST that is not there.
      {{"repair", pebble.path()}, "needs it whole"},
  };
  const auto before = Files(db);
  for (const Case& c : cases) {
    const CliRun r = RunCli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args.back();
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  EXPECT_EQ(Files(db), before);
}

// Progress per table on a terminal (tables done of those planned, and their bytes); nothing
// with --json on the same terminal, nor in a pipe (BitsPerKeyRebuildsEveryFilter...).
TEST_F(LevelDbRepairCli, ProgressPerTableOnATerminalOnly) {
  const std::string db = Copy();
  const CliRun planned = RunCli({"repair", db, "--bits-per-key", "13", "--dry-run", "--json"});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  const std::size_t tables = Json(planned)["tables"].size();
  ASSERT_GE(tables, 2u);
  const CliRun r = RunCliOnTerminal({"repair", db, "--bits-per-key", "13", "--no-backup"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string all = std::to_string(tables) + " of " + std::to_string(tables);
  EXPECT_NE(r.err.find(db + ": repaired 1 of " + std::to_string(tables) + " tables ("),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(db + ": repaired " + all + " tables ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" MB) ..."), std::string::npos) << r.err;
  EXPECT_TRUE(r.err.ends_with("\r\033[K")) << "the line is erased at the end";
  const CliRun json = RunCliOnTerminal({"repair", db, "--bits-per-key", "12", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.err, "");
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out;
}

}  // namespace
}  // namespace bloomcodec::testing

// The Node.js writers as witnesses of `bloomcodec repair` (issue 30): a database written by
// RocksDB 9.7 (@nxtedition/rocksdb), RocksDB 10.5.1 (rocksdb-native) or Mojang's LevelDB
// (leveldb-zlib), all installed into build/npm by scripts/install-deps, is repaired by the CLI
// three times in a row (Mojang: twice), and after each repair the same writer opens it again:
//   1. a byte of one table's filter block flipped, then `repair` without parameters: exactly
//      that table is rebuilt (reason `structure`), the others are `sound`;
//   2. `repair --bits-per-key 14`: every table rebuilt, the filters larger;
//   3. RocksDB only: `repair --to rocksdb-ribbon` (both versions' OPTIONS allow Ribbon).
// RocksDB's reopen (tests/rocksdb_witness/write_db.js read=1) runs with paranoid_checks and
// verify_sst_unique_id_in_manifest on: neither binding takes them as options, so RocksDB's
// defaults (both true) stand, and the test reads them back from the OPTIONS file that the open
// writes. Every key written must be found (a filter denying one would lose it) and no absent key;
// the live tables RocksDB lists (property rocksdb.sstables) must be the ones the repair
// reported, at their levels; RocksDB's sum of their filter sizes (rocksdb.aggregated-table-
// properties) must equal the repair's; the filter policy of every live file
// (rocksdb.filter.policy) is read by our SST reader from the files RocksDB names, as neither
// binding gives per-file table properties. That RocksDB used the new filters: RocksDB 10.5.1's
// statistics count lookups a filter answered (bloom.filter.useful > 0 for the absent keys, one
// full.true.positive per key); RocksDB 9.7's binding has no statistics, but with
// cacheIndexAndFilterBlocks its block cache holds one filter block per live table. Mojang's
// LevelDB opens the repaired database and Gets every key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bloomcodec/input_file.h"
#include "bloomcodec/verify.h"
#include "cli/cli_runner.h"
#include "crash/kill_harness.h"
#include "leveldb/table/table_reader.h"
#include "rocksdb/sst/sst_reader.h"
#include "support/test_support.h"

namespace bloomcodec::repair_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CliDir;
using testing::CliRun;
using testing::RunCli;

constexpr int kKeys = 1500;
// tests/mojang/witness.js loads the binding from the folder this names.
constexpr const char* kLevelDbZlib = "LEVELDB_ZLIB=" BLOOMCODEC_NPM_MODULES "/leveldb-zlib";

std::string WitnessKey(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%08d", i * 3);
  return buf;
}

// Runs a witness script under Node.js; its last line of output (the scripts print one result).
std::string RunNode(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/env", kLevelDbZlib, BLOOMCODEC_NODE};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string out;
  const int rc = crash_test::RunProgram(argv, out);
  EXPECT_EQ(rc, 0) << out;
  std::vector<std::string> lines = testing::SplitLines(out);
  return lines.empty() ? std::string() : lines.back();
}

// `bloomcodec repair DB ARGS --json --no-backup`, which must succeed; its tables.
json Repair(const std::string& db, std::vector<std::string> args) {
  args.insert(args.begin(), {"repair", db});
  args.insert(args.end(), {"--json", "--no-backup"});
  const CliRun r = RunCli(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const json doc = json::parse(r.out, nullptr, false);
  return doc.is_object() ? doc["tables"] : json::array();
}

std::uint64_t NumberOf(const std::string& path) {
  return std::stoull(fs::path(path).stem().string());
}

// The live tables a repair leaves, number -> level: each table's new file, or its own.
std::map<std::uint64_t, int> LiveAfter(const json& tables) {
  std::map<std::uint64_t, int> out;
  for (const json& t : tables) {
    const bool replaced = t["new_path"].is_string();
    out[NumberOf(replaced ? t["new_path"].get<std::string>() : t["path"].get<std::string>())] =
        t["level"].get<int>();
  }
  return out;
}

// Expects every table repaired, or (`one_damaged`) the one table whose filter was damaged
// repaired for its `structure` finding and every other `sound`.
void ExpectActions(const json& tables, bool one_damaged) {
  int repaired = 0;
  for (const json& t : tables) {
    const std::string action = t["action"].get<std::string>();
    if (action == "repaired") ++repaired;
    if (!one_damaged) {
      EXPECT_EQ(action, "repaired") << t.dump();
    } else if (action == "repaired") {
      EXPECT_EQ(t["reasons"], json::array({"structure"})) << t.dump();
    } else {
      EXPECT_EQ(action, "sound") << t.dump();
    }
  }
  EXPECT_EQ(repaired, one_damaged ? 1 : static_cast<int>(tables.size()));
}

// The sum of the new filters' sizes the repair reports; nullopt unless it rebuilt every table
// (a table found sound is not measured).
std::optional<std::uint64_t> FilterBytesOf(const json& tables) {
  std::uint64_t sum = 0;
  for (const json& t : tables) {
    if (t["action"] != "repaired") return std::nullopt;
    sum += t["new_filter_bytes"].get<std::uint64_t>();
  }
  return sum;
}

// Flips a byte in the middle of the filter block of the database's newest table (the highest
// number: were it an older level-0 table, the newer ones would be renumbered with it).
void DamageNewestFilter(const std::string& db, const std::string& extension) {
  std::set<std::string> tables;
  for (const auto& e : fs::directory_iterator(db)) {
    if (e.path().extension() == extension) tables.insert(e.path().string());
  }
  ASSERT_FALSE(tables.empty()) << db;
  const std::string path = *tables.rbegin();
  Result<InputFile> in = InputFile::Open(path);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  std::uint64_t at = 0;
  if (extension == ".sst") {
    Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(in->bytes(), path);
    ASSERT_TRUE(sst.ok() && sst->filter()) << path;
    at = sst->filter()->handle.offset + sst->filter()->handle.size / 2;
  } else {
    Result<leveldb::TableReader> t = leveldb::TableReader::Open(in->bytes(), path);
    ASSERT_TRUE(t.ok() && t->filter()) << path;
    at = t->filter()->handle.offset + t->filter()->handle.size / 2;
  }
  testing::FlipBitsAt(path, at, 0x10);
}

// The newest OPTIONS file's text (RocksDB writes one at every open).
std::string NewestOptions(const std::string& db) {
  std::string newest;
  for (const auto& e : fs::directory_iterator(db)) {
    const std::string name = e.path().filename().string();
    // OPTIONS-NNNNNN: the numbers have the same width, so the name orders them.
    if (name.starts_with("OPTIONS-") && name > fs::path(newest).filename().string()) {
      newest = e.path().string();
    }
  }
  return testing::ReadAnyText(newest);
}

class RocksDbWitness {
 public:
  explicit RocksDbWitness(std::string engine) : engine_(std::move(engine)) {
    std::string hex;
    for (int i = 0; i < kKeys; ++i) hex += ToHex(AsBytes(WitnessKey(i))) + "\n";
    keys_ = dir_.Write("keys.txt", hex);
    db_ = dir_.Path("db");
  }
  const std::string& db() const { return db_; }

  void Write() {
    RunNode({BLOOMCODEC_ROCKSDB_WITNESS, BLOOMCODEC_NPM_MODULES, engine_, db_, keys_});
  }

  // The writer reopens the database after a repair whose tables are `tables`; every live file
  // must carry `policy`.
  void Check(const json& tables, const std::string& policy) {
    const std::string line = RunNode(
        {BLOOMCODEC_ROCKSDB_WITNESS, BLOOMCODEC_NPM_MODULES, engine_, db_, keys_, "read=1"});
    const json r = json::parse(line, nullptr, false);
    ASSERT_TRUE(r.is_object()) << line;
    EXPECT_EQ(r["found"], kKeys) << line;
    EXPECT_EQ(r["of"], kKeys) << line;
    EXPECT_EQ(r["absent_found"], 0) << line;
    std::map<std::uint64_t, int> live;
    for (const json& t : r["live"]) live[t[1].get<std::uint64_t>()] = t[0].get<int>();
    EXPECT_EQ(live, LiveAfter(tables)) << line;
    std::uint64_t filter_bytes = 0;
    for (const auto& [number, level] : live) {
      char name[32];
      std::snprintf(name, sizeof name, "/%06llu.sst", static_cast<unsigned long long>(number));
      Result<InputFile> in = InputFile::Open(db_ + name);
      ASSERT_TRUE(in.ok()) << in.status().ToString();
      Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(in->bytes(), db_ + name);
      ASSERT_TRUE(sst.ok() && sst->properties() && sst->filter()) << name;
      EXPECT_EQ(sst->properties()->String("rocksdb.filter.policy"), policy) << name;
      filter_bytes += sst->filter()->handle.size;
    }
    EXPECT_EQ(r["filter_bytes"], filter_bytes) << line;
    if (const auto reported = FilterBytesOf(tables)) {
      EXPECT_EQ(r["filter_bytes"], *reported) << line;
    }
    if (engine_ == "rocksdb9") {
      EXPECT_EQ(r["cached_filters"], live.size()) << line;
    } else {
      EXPECT_GT(r["useful"].get<int>(), 0) << line;
      EXPECT_EQ(r["true_positive"], kKeys) << line;
    }
    const std::string options = NewestOptions(db_);
    EXPECT_NE(options.find("paranoid_checks=true"), std::string::npos);
    EXPECT_NE(options.find("verify_sst_unique_id_in_manifest=true"), std::string::npos);
    std::printf("%s: %zu live tables, filter bytes %s, %s\n", engine_.c_str(), live.size(),
                r["filter_bytes"].dump().c_str(), line.c_str());
  }

 private:
  std::string engine_;
  CliDir dir_;
  std::string keys_, db_;
};

void RepairAndReopenRocksDb(const std::string& engine) {
  ASSERT_NE(std::string(BLOOMCODEC_NODE), "") << "Node.js is missing: run scripts/install-deps";
  RocksDbWitness w(engine);
  ASSERT_NO_FATAL_FAILURE(w.Write());
  ASSERT_NO_FATAL_FAILURE(DamageNewestFilter(w.db(), ".sst"));
  const json damaged = Repair(w.db(), {});
  ExpectActions(damaged, true);
  ASSERT_NO_FATAL_FAILURE(w.Check(damaged, "bloomfilter"));
  const json larger = Repair(w.db(), {"--bits-per-key", "14"});
  ExpectActions(larger, false);
  for (const json& t : larger) EXPECT_GT(t["new_filter_bytes"], t["old_filter_bytes"]);
  ASSERT_NO_FATAL_FAILURE(w.Check(larger, "bloomfilter"));
  const json ribbon = Repair(w.db(), {"--to", "rocksdb-ribbon"});
  ExpectActions(ribbon, false);
  for (const json& t : ribbon) EXPECT_EQ(t["new_format"], "rocksdb-ribbon");
  ASSERT_NO_FATAL_FAILURE(w.Check(ribbon, "ribbonfilter"));
}

TEST(RepairNodeWitness, RocksDb97ReopensEveryRepairAndGetsEveryKey) {
  RepairAndReopenRocksDb("rocksdb9");
}

TEST(RepairNodeWitness, RocksDb1051ReopensEveryRepairAndGetsEveryKey) {
  RepairAndReopenRocksDb("rocksdb10");
}

TEST(RepairNodeWitness, MojangLevelDbReopensEveryRepairAndGetsEveryKey) {
  CliDir dir;
  const std::string db = dir.Path("db");
  // witness.js write prints every key it wrote, one a line; kept for its read.
  std::string out;
  ASSERT_EQ(crash_test::RunProgram({"/usr/bin/env", kLevelDbZlib, BLOOMCODEC_NODE,
                                    BLOOMCODEC_MOJANG_WITNESS, "write", db, "30", "2000"},
                                   out),
            0)
      << out;
  const std::string keys = dir.Write("keys.txt", out);
  const std::size_t written = testing::SplitLines(out).size();
  ASSERT_GT(written, 1000u);
  const std::string want = "found " + std::to_string(written) + " of " + std::to_string(written);
  ASSERT_NO_FATAL_FAILURE(DamageNewestFilter(db, ".ldb"));
  const json damaged = Repair(db, {});
  ExpectActions(damaged, true);
  EXPECT_EQ(RunNode({BLOOMCODEC_MOJANG_WITNESS, "read", db, keys}), want);
  const json larger = Repair(db, {"--bits-per-key", "14"});
  ExpectActions(larger, false);
  for (const json& t : larger) EXPECT_GT(t["new_filter_bytes"], t["old_filter_bytes"]);
  EXPECT_EQ(RunNode({BLOOMCODEC_MOJANG_WITNESS, "read", db, keys}), want);
  // Our verify agrees: every table's filter holds every key, nothing is left to repair.
  Result<VerifyReport> v = VerifyPaths(std::vector<std::string>{db}, VerifyOptions());
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  for (const FileReport& f : v->files) {
    for (const Finding& x : f.findings) EXPECT_NE(x.severity, Severity::kError) << f.path;
  }
}

}  // namespace
}  // namespace bloomcodec::repair_test

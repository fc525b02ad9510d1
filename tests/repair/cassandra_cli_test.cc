// `bloomcodec repair` as a process on Cassandra data directories written by
// tests/repair/cassandra_sstables.cc: what it rebuilds (the bytes `bloomcodec build` writes for
// the sstable's keys; cassandra_oracle_test proves those are Cassandra's), what --dry-run and
// --json show, and its exit statuses for a damaged table, a live process, an LSM database whose
// MANIFEST is missing and the LSM-only options.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.h"
#include "repair/cassandra_sstables.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;

std::string Hex(const ByteVector& key) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : key) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// What `bloomcodec build` writes for these keys at `fp` in 4.0's layout.
ByteVector BuiltFilter(const CliDir& dir, const std::vector<ByteVector>& keys, double fp) {
  std::string lines;
  for (const ByteVector& k : keys) lines += Hex(k) + "\n";
  const std::string key_file = dir.Write("keys.hex", lines);
  const CliRun r =
      RunCli({"build", "--format", "cassandra-4.0", "--keys", key_file, "--key-format", "hex",
              "--fp-chance", std::to_string(fp), "-o", dir.Path("built-Filter.db")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ReadAll(dir.Path("built-Filter.db"));
}

// Every file of the data directory except the snapshots the repair made.
std::map<std::string, ByteVector> LiveFiles(const std::string& dir) {
  std::map<std::string, ByteVector> files = FilesUnder(dir);
  std::erase_if(files, [](const auto& f) { return f.first.starts_with("snapshots/"); });
  return files;
}

TEST(RepairCli, SaturatedFilterOfADataDirectoryIsRebuiltAsBuildWritesIt) {
  TempDir tmp;
  SstableRecipe recipe;
  recipe.keys = 300;
  const MadeSstable s = MakeSstable(tmp.path(), recipe);
  const auto before = FilesUnder(s.table_dir);
  ASSERT_EQ(before.at("nb-1-big-Filter.db").size(), 16u);
  const CliRun r = RunCli({"repair", tmp.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("repaired"), std::string::npos) << r.out;
  CliDir work;
  const ByteVector expected = BuiltFilter(work, s.keys, 0.01);
  const auto after = LiveFiles(s.table_dir);
  EXPECT_EQ(after.at("nb-1-big-Filter.db"), expected);
  for (const auto& [name, bytes] : before) {
    if (name != "nb-1-big-Filter.db") EXPECT_EQ(after.at(name), bytes) << name;
  }
  // The old Filter.db is in the run's snapshot.
  bool kept = false;
  for (const auto& [name, bytes] : FilesUnder(s.table_dir)) {
    if (name.starts_with("snapshots/") && name.ends_with("nb-1-big-Filter.db")) {
      kept = bytes == before.at("nb-1-big-Filter.db");
    }
  }
  EXPECT_TRUE(kept);
  // A second run finds nothing wrong.
  const CliRun again = RunCli({"repair", tmp.path(), "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["tables"][0]["action"], "sound");
}

TEST(RepairCli, DryRunChangesNothingAndJsonCarriesThePlan) {
  TempDir tmp;
  const MadeSstable s = MakeSstable(tmp.path(), SstableRecipe{});
  const auto before = FilesUnder(tmp.path());
  const CliRun text = RunCli({"repair", tmp.path(), "--dry-run", "--fp-chance", "0.001"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("planned"), std::string::npos) << text.out;
  const CliRun r = RunCli({"repair", tmp.path(), "--dry-run", "--fp-chance", "0.001", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(FilesUnder(tmp.path()), before);  // every byte of every file, no file added
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_TRUE(doc["dry_run"].get<bool>());
  ASSERT_EQ(doc["tables"].size(), 1u);
  const nlohmann::json& t = doc["tables"][0];
  EXPECT_EQ(t["action"], "planned");
  EXPECT_EQ(t["format"], "cassandra-4.0");
  EXPECT_EQ(t["keys"], s.keys.size());
  EXPECT_EQ(t["old_filter_bytes"], 16u);
  CliDir work;
  EXPECT_EQ(t["new_filter_bytes"], BuiltFilter(work, s.keys, 0.001).size());
  EXPECT_EQ(t["fp_chance"], 0.001);
  EXPECT_TRUE(t["statistics_rewritten"].get<bool>());
  EXPECT_LT(t["new_fp_rate"].get<double>(), 0.002);
  EXPECT_EQ(t["old_fp_rate"].get<double>(), 1.0);  // every bit set
  bool requested = false, saturated = false;
  for (const auto& why : t["reasons"]) {
    requested |= why == "requested";
    saturated |= why != "requested";
  }
  EXPECT_TRUE(requested);
  EXPECT_TRUE(saturated);  // verify's own finding about the saturated filter
  EXPECT_EQ(doc["summary"]["rebuilt"], 1u);
}

TEST(RepairCli, ATableWithADamagedIndexIsLeftUntouchedWithExit1) {
  TempDir tmp;
  SstableRecipe damaged;
  const MadeSstable s = MakeSstable(tmp.path(), damaged);
  ByteVector index = ReadAll(s.prefix + "Index.db");
  index.resize(index.size() - 3);  // the last entry cut short
  WriteAll(s.prefix + "Index.db", index);
  const auto before = FilesUnder(tmp.path());
  const CliRun r = RunCli({"repair", tmp.path(), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(FilesUnder(tmp.path()), before);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["tables"][0]["action"], "damaged");
  EXPECT_FALSE(doc["tables"][0]["damage"].get<std::string>().empty());
  EXPECT_EQ(doc["summary"]["damaged"], 1u);
}

TEST(RepairCli, AProcessHoldingAComponentRefusesWithExit2) {
  TempDir tmp;
  const MadeSstable s = MakeSstable(tmp.path(), SstableRecipe{});
  const auto before = FilesUnder(tmp.path());
  // This test process is another process for the command: a node with Index.db open.
  const int fd = ::open((s.prefix + "Index.db").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  const CliRun r = RunCli({"repair", tmp.path()});
  ::close(fd);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("Index.db"), std::string::npos) << r.err;
  EXPECT_EQ(FilesUnder(tmp.path()), before);
}

TEST(RepairCli, UsageRefusals) {
  TempDir tmp;
  MakeSstable(tmp.path(), SstableRecipe{});
  CliDir db;
  db.Write("CURRENT", "MANIFEST-000001\n");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"repair"}, "PATH is required"},
      {{"repair", db.path()}, "MANIFEST"},
      {{"repair", tmp.path(), "--bits-per-key", "10"}, "take --fp-chance"},
      {{"repair", tmp.path(), "--to", "cassandra-4.0"}, "keeps its version's filter layout"},
      {{"repair", tmp.path(), "--backup", db.path(), "--no-backup"}, "alternatives"},
      {{"repair", tmp.path(), "--fp-chance", "0"}, "--fp-chance"},
      {{"repair", tmp.path() + "/missing"}, "missing"},
  };
  const auto before = FilesUnder(tmp.path());
  for (const Case& c : cases) {
    const CliRun r = RunCli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args.back();
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  EXPECT_EQ(FilesUnder(tmp.path()), before);
}

TEST(RepairCli, BackupDirectoryHoldsTheOldFilesUnderTheTablesFolder) {
  TempDir tmp;
  const MadeSstable s = MakeSstable(tmp.path(), SstableRecipe{});
  const ByteVector old_filter = ReadAll(s.prefix + "Filter.db");
  const std::string backup = tmp.path() + "/backup";
  fs::create_directory(backup);
  const CliRun r = RunCli({"repair", tmp.path() + "/ks", "--backup", backup});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string table = fs::path(s.table_dir).filename().string();
  EXPECT_EQ(ReadAll(backup + "/" + table + "/nb-1-big-Filter.db"), old_filter);
  EXPECT_FALSE(fs::exists(s.table_dir + "/snapshots"));
}

}  // namespace
}  // namespace bloomcodec::testing

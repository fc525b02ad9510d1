// Databases written by RocksDB 9.7 (@nxtedition/rocksdb) and RocksDB 10.5.1 (rocksdb-native) from
// random keys and options: for every SST, the full filter bloomcodec builds from the table's keys
// with the table's options is byte-identical to RocksDB's (optimize_filters_for_memory on too, as
// RocksDB with glibc's allocator writes it; the tables that also equal the build for the option
// off are counted), every key written is in some
// table and passes its filter, and `bloomcodec verify` of the database directory reports it
// healthy.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bloomcodec/input_file.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "cli/cli_runner.h"
#include "rocksdb/sst/prefix_extractor.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::rocksdb {
namespace {

namespace fs = std::filesystem;
using testing::CliDir;
using testing::RunCli;

struct Case {
  std::string name;
  std::string engine;  // rocksdb9 | rocksdb10
  std::vector<std::string> options;
  double bits_per_key;
  bool ribbon;
  bool optimize_for_memory;
  std::uint32_t format_version;
  std::size_t keys;
  unsigned seed;
  std::string prefix = {};  // RocksDB's name of a built-in prefix extractor (rocksdb9 only)
};

struct Tally {
  int tables = 0;
  int identical = 0;
  int ribbon_tables = 0;
  int dictionary_tables = 0;    // with a rocksdb.compression_dict block (zstd data blocks)
  int identical_as_if_off = 0;  // optimize_filters_for_memory on: equal to the build for off
  int option_told = 0;          // inspect could tell optimize_filters_for_memory (on / off)
  std::size_t keys_compared = 0;
};

std::string Hex(ByteSpan b) { return ToHex(b); }

// The witnesses must be installed (scripts/install-deps); a missing one fails, never skips.
void RequireWitnesses() {
  ASSERT_STRNE(BLOOMCODEC_NODE, "")
      << "Node.js not found when configuring: run scripts/install-deps";
  for (const char* pkg : {"@nxtedition/rocksdb", "rocksdb-native"}) {
    ASSERT_TRUE(fs::exists(fs::path(BLOOMCODEC_NPM_MODULES) / pkg / "package.json"))
        << pkg << " is not installed in " << BLOOMCODEC_NPM_MODULES
        << ": run scripts/install-deps (it installs the npm test oracles into build/npm)";
  }
}

std::vector<std::string> RandomKeys(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::set<std::string> keys;
  while (keys.size() < n) {
    std::string k(1 + rng() % 24, '\0');
    for (char& c : k) c = static_cast<char>(rng() & 0xff);
    keys.insert(k);
  }
  return {keys.begin(), keys.end()};
}

void WriteDb(const Case& c, const std::vector<std::string>& keys, const CliDir& dir,
             const std::string& db) {
  std::string hex;
  for (const std::string& k : keys) hex += Hex(AsBytes(k)) + "\n";
  const std::string keys_file = dir.Write("keys.txt", hex);
  std::string cmd = std::string(BLOOMCODEC_NODE) + " " + BLOOMCODEC_WITNESS_SCRIPT + " " +
                    BLOOMCODEC_NPM_MODULES + " " + c.engine + " " + db + " " + keys_file;
  for (const std::string& o : c.options) cmd += " " + o;
  if (!c.prefix.empty()) cmd += " prefix=" + c.prefix;
  cmd += " > " + dir.Path("node.out") + " 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_EQ(rc, 0) << cmd << "\n" << testing::ReadAnyText(dir.Path("node.out"));
}

void CheckTable(const Case& c, const std::string& path, std::set<std::string>& seen, Tally& tally) {
  Result<InputFile> in = InputFile::Open(path);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  SstOpenOptions options;
  options.verify_checksums = true;
  Result<SstReader> sst = SstReader::Open(in->bytes(), path, options);
  ASSERT_TRUE(sst.ok()) << sst.status().ToString();
  EXPECT_EQ(sst->footer().format_version, c.format_version) << path;
  ASSERT_TRUE(sst->footer().context_checksums()) << path;
  ASSERT_TRUE(sst->filter().has_value()) << path;
  ASSERT_EQ(sst->filter()->placement, FilterPlacement::kFull) << path;
  // The user keys, each once, in file order (as RocksDB's builder adds them to the filter).
  KeyList keys;
  std::string last;
  bool any = false;
  ASSERT_TRUE(sst->ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) {
                   const ByteSpan user = UserKeyOf(key);
                   const std::string u(reinterpret_cast<const char*>(user.data()), user.size());
                   if (any && u == last) return Status();
                   keys.Add(user);
                   seen.insert(u);
                   last = u;
                   any = true;
                   return Status();
                 })
                  .ok());
  ASSERT_FALSE(keys.empty()) << path;
  const ByteSpan stored = sst->filter()->contents.bytes();
  ASSERT_GE(stored.size(), 5u);
  // The metadata's first byte: -1 (0xff) FastLocalBloom, -2 (0xfe) Ribbon.
  const std::uint8_t marker = stored[stored.size() - 5];
  ASSERT_TRUE(marker == 0xff || (c.ribbon && marker == 0xfe)) << path << " marker " << +marker;
  const FilterEncoding encoding =
      marker == 0xfe ? FilterEncoding::kRibbon : FilterEncoding::kFastLocalBloom;
  // What RocksDB's full filter builder adds, key by key: the prefix (in the extractor's domain,
  // unless equal to the previous prefix), then the whole key (whole-key filtering is on).
  KeyList entries;
  std::optional<PrefixExtractor> prefix;
  if (!c.prefix.empty()) {
    prefix = PrefixExtractor::FromPropertyName(c.prefix);
    ASSERT_TRUE(prefix.has_value()) << c.prefix;
    ASSERT_EQ(sst->properties()->String("rocksdb.prefix.extractor.name"), c.prefix) << path;
  }
  ByteVector last_prefix;
  bool any_prefix = false;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (prefix && prefix->InDomain(keys[i])) {
      const ByteSpan p = prefix->Transform(keys[i]);
      if (!any_prefix || !std::equal(p.begin(), p.end(), last_prefix.begin(), last_prefix.end())) {
        entries.Add(p);
        last_prefix.assign(p.begin(), p.end());
        any_prefix = true;
      }
    }
    entries.Add(keys[i]);
  }
  Result<ByteVector> built =
      BuildFullFilter(encoding, c.bits_per_key, entries, c.optimize_for_memory);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const bool identical = std::equal(built->begin(), built->end(), stored.begin(), stored.end());
  EXPECT_TRUE(identical) << path << ": " << keys.size() << " keys, built " << built->size()
                         << " bytes, RocksDB's " << stored.size();
  if (c.optimize_for_memory) {
    Result<ByteVector> off = BuildFullFilter(encoding, c.bits_per_key, entries, false);
    ASSERT_TRUE(off.ok());
    tally.identical_as_if_off +=
        std::equal(off->begin(), off->end(), stored.begin(), stored.end()) ? 1 : 0;
  }
  // inspect tells the option where the probe count shows it, and never the wrong value.
  if (!prefix && encoding == FilterEncoding::kFastLocalBloom) {
    testing::CliRun i = RunCli({"inspect", path, "--json"});
    ASSERT_EQ(i.exit_code, 0) << i.err;
    const std::string told = nlohmann::json::parse(i.out)["files"][0]["filter"].value(
        "optimize_filters_for_memory", std::string("missing"));
    EXPECT_NE(told, c.optimize_for_memory ? "off" : "on") << path;
    EXPECT_NE(told, "missing") << path;
    tally.option_told += told == (c.optimize_for_memory ? "on" : "off") ? 1 : 0;
  }
  tally.tables++;
  tally.dictionary_tables += sst->compression_dictionary().empty() ? 0 : 1;
  tally.identical += identical ? 1 : 0;
  tally.ribbon_tables += encoding == FilterEncoding::kRibbon ? 1 : 0;
  tally.keys_compared += keys.size();
  // Every key of the table passes its filter.
  std::vector<std::uint8_t> answers(keys.size());
  ASSERT_TRUE(sst->MayContainBatch(keys, answers).ok());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(answers[i], 1) << path << ": key " << Hex(keys[i]) << " fails the filter";
    if (prefix && prefix->InDomain(keys[i])) {
      Result<bool> held = sst->FilterHolds(prefix->Transform(keys[i]), keys[i]);
      ASSERT_TRUE(held.ok() && *held) << path << ": the prefix of " << Hex(keys[i]);
    }
  }
}

void RunCase(const Case& c) {
  RequireWitnesses();
  CliDir dir;
  const std::string db = dir.Path("db");
  const std::vector<std::string> keys = RandomKeys(c.keys, c.seed);
  ASSERT_NO_FATAL_FAILURE(WriteDb(c, keys, dir, db));
  std::set<std::string> seen;
  Tally tally;
  std::vector<std::string> tables;
  for (const auto& e : fs::directory_iterator(db)) {
    if (e.path().extension() == ".sst") tables.push_back(e.path().string());
  }
  // rocksdb10 flushes every 500 keys (several tables); rocksdb9's background compactions merge a
  // varying number of them.
  ASSERT_GE(tables.size(), c.engine == "rocksdb10" ? 2u : 1u) << "a small memtable: tables";
  for (const std::string& t : tables) ASSERT_NO_FATAL_FAILURE(CheckTable(c, t, seen, tally));
  // Every key written is in some table.
  for (const std::string& k : keys) {
    ASSERT_TRUE(seen.count(k)) << "key " << Hex(AsBytes(k)) << " is in no table";
  }
  EXPECT_EQ(tally.identical, tally.tables);
  // bloom_before_level -1: Ribbon on every level, flushes included.
  if (c.ribbon) EXPECT_EQ(tally.ribbon_tables, tally.tables);
  // zstd with max_dict_bytes: compacted tables carry a dictionary their data blocks need.
  if (std::find(c.options.begin(), c.options.end(), "compression=1") != c.options.end()) {
    EXPECT_GE(tally.dictionary_tables, 1);
  }
  // verify of the directory: healthy.
  testing::CliRun v = RunCli({"verify", db});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  for (const std::string& line : testing::SplitLines(v.out)) {
    EXPECT_FALSE(line.starts_with("error") || line.starts_with("warn")) << line;
  }
  EXPECT_NE(v.out.find(std::to_string(tables.size()) + " ok"), std::string::npos) << v.out;
  std::printf(
      "[witness] %s: %d tables (%d Ribbon, %d with a compression dictionary), %zu keys "
      "compared, %d/%d filters byte-identical",
      c.name.c_str(), tally.tables, tally.ribbon_tables, tally.dictionary_tables,
      tally.keys_compared, tally.identical, tally.tables);
  if (c.optimize_for_memory) {
    std::printf(" (%d/%d also equal to the build with the option off)", tally.identical_as_if_off,
                tally.tables);
  }
  std::printf("; inspect told optimize_filters_for_memory for %d", tally.option_told);
  std::printf("\n");
}

TEST(RocksDbWitness, RocksDb97BloomZstdDictionary) {
  RunCase({"9.7 bloom:10 zstd+dict",
           "rocksdb9",
           {"filter=bloom:10", "compression=1", "optimize_filters_for_memory=0"},
           10,
           false,
           false,
           6,
           20000,
           1});
}

TEST(RocksDbWitness, RocksDb97RibbonLevels) {
  RunCase({"9.7 ribbon:9 levelled",
           "rocksdb9",
           {"filter=ribbon:9", "compaction=level", "optimize_filters_for_memory=0"},
           9,
           true,
           false,
           6,
           8000,
           2});
}

TEST(RocksDbWitness, RocksDb97BloomOptimizeForMemory) {
  RunCase({"9.7 bloom:10 optimize_filters_for_memory",
           "rocksdb9",
           {"filter=bloom:10", "optimize_filters_for_memory=1"},
           10,
           false,
           true,
           6,
           6000,
           3});
}

TEST(RocksDbWitness, RocksDb97FixedPrefix) {
  RunCase({"9.7 bloom:10 rocksdb.FixedPrefix.3",
           "rocksdb9",
           {"filter=bloom:10", "optimize_filters_for_memory=0"},
           10,
           false,
           false,
           6,
           6000,
           7,
           "rocksdb.FixedPrefix.3"});
}

TEST(RocksDbWitness, RocksDb97CappedPrefixRibbon) {
  RunCase({"9.7 ribbon:10 rocksdb.CappedPrefix.2",
           "rocksdb9",
           {"filter=ribbon:10", "optimize_filters_for_memory=0"},
           10,
           true,
           false,
           6,
           6000,
           8,
           "rocksdb.CappedPrefix.2"});
}

TEST(RocksDbWitness, PrefixExtractorOptionReplacesTheRecordedOne) {
  RequireWitnesses();
  CliDir dir;
  const std::string db = dir.Path("db");
  const Case c{"",   "rocksdb9", {"filter=bloom:10"},    10, false, false, 6,
               3000, 9,          "rocksdb.FixedPrefix.3"};
  ASSERT_NO_FATAL_FAILURE(WriteDb(c, RandomKeys(c.keys, c.seed), dir, db));
  std::string table;
  for (const auto& e : fs::directory_iterator(db)) {
    if (e.path().extension() == ".sst") table = e.path().string();
  }
  ASSERT_FALSE(table.empty());
  // The recorded extractor and the same one given: healthy.
  EXPECT_EQ(RunCli({"verify", table}).exit_code, 0);
  EXPECT_EQ(RunCli({"verify", table, "--prefix-extractor", "fixed:3"}).exit_code, 0);
  // Another one: its 1-byte prefixes were never added, so most keys are false negatives.
  testing::CliRun wrong = RunCli({"verify", table, "--prefix-extractor", "capped:1"});
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out;
  EXPECT_NE(wrong.out.find("false negatives"), std::string::npos) << wrong.out;
  // Bad spellings and directories are refused before anything is read.
  testing::CliRun bad = RunCli({"verify", table, "--prefix-extractor", "fixed:0"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("fixed:N, capped:N"), std::string::npos) << bad.err;
  testing::CliRun directory = RunCli({"verify", db, "--prefix-extractor", "noop"});
  EXPECT_EQ(directory.exit_code, 2);
  EXPECT_NE(directory.err.find("is a directory"), std::string::npos) << directory.err;
}

TEST(RocksDbWitness, RocksDb105FormatVersion6) {
  RunCase({"10.5 fv6 bloom:10",
           "rocksdb10",
           {"filter=bloom:10", "format_version=6", "optimize_filters_for_memory=0"},
           10,
           false,
           false,
           6,
           6000,
           4});
}

TEST(RocksDbWitness, RocksDb105FormatVersion7Ribbon) {
  RunCase({"10.5 fv7 ribbon:8",
           "rocksdb10",
           {"filter=ribbon:8", "format_version=7", "optimize_filters_for_memory=0"},
           8,
           true,
           false,
           7,
           6000,
           5});
}

TEST(RocksDbWitness, RocksDb105FormatVersion7OptimizeForMemory) {
  RunCase({"10.5 fv7 bloom:12 optimize_filters_for_memory",
           "rocksdb10",
           {"filter=bloom:12", "format_version=7", "optimize_filters_for_memory=1"},
           12,
           false,
           true,
           7,
           6000,
           6});
}

}  // namespace
}  // namespace bloomcodec::rocksdb

// Databases written by RocksDB 9.7 (@nxtedition/rocksdb) and RocksDB 10.5.1 (rocksdb-native) from
// random keys and options: for every SST, the full filter bloomcodec builds from the table's keys
// with the table's options is byte-identical to RocksDB's (optimize_filters_for_memory on too, as
// RocksDB with glibc's allocator writes it; the tables that also equal the build for the option
// off are counted), every key written is in some
// table and passes its filter, and `bloomcodec verify` of the database directory reports it
// healthy, with the live tables at the levels RocksDB's current version has them. Fixed cases,
// then RapidCheck properties drawing keys and options at random.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bloomcodec/input_file.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "cli/cli_runner.h"
#include "leveldb_table/rc_bounded.h"
#include "rocksdb/filter_sizing.h"
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
  double bits_per_key = 10;
  bool ribbon = false;
  bool optimize_for_memory = false;
  std::uint32_t format_version = 6;
  std::size_t keys = 0;
  unsigned seed = 0;
  std::string prefix = {};  // RocksDB's name of a built-in prefix extractor (rocksdb9 only)
  bool drawn = false;       // a RapidCheck case: a few keys may make a single table, and no
                            // table need be large enough to carry a compression dictionary
};

// Totals over the runs of a property, printed at its end.
struct Totals {
  int runs = 0;
  int tables = 0;
  int identical = 0;
  int levels_compared = 0;  // live tables whose level verify and RocksDB agree on
  int ribbon_tables = 0;
  int allocator_sized = 0;  // Ribbon + optimize_filters_for_memory: sized by glibc's grant
  int bloom_instead = 0;    // Ribbon configured, RocksDB wrote the smaller FastLocalBloom filter
  int dictionary_tables = 0;
  std::size_t keys_written = 0;
  std::size_t keys_compared = 0;
};

struct Tally {
  int tables = 0;
  int identical = 0;
  int ribbon_tables = 0;
  int dictionary_tables = 0;    // with a rocksdb.compression_dict block (zstd data blocks)
  int identical_as_if_off = 0;  // optimize_filters_for_memory on: equal to the build for off
  int option_told = 0;          // inspect could tell optimize_filters_for_memory (on / off)
  int allocator_sized = 0;      // Ribbon + optimize_filters_for_memory: sized by the allocator
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
  for (const std::string& k : keys) hex += (k.empty() ? std::string("-") : Hex(AsBytes(k))) + "\n";
  const std::string keys_file = dir.Write("keys.txt", hex);
  std::string cmd = std::string(BLOOMCODEC_NODE) + " " + BLOOMCODEC_WITNESS_SCRIPT + " " +
                    BLOOMCODEC_NPM_MODULES + " " + c.engine + " " + db + " " + keys_file;
  for (const std::string& o : c.options) cmd += " " + o;
  if (!c.prefix.empty()) cmd += " prefix=" + c.prefix;
  cmd += " > " + dir.Path("node.out") + " 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_EQ(rc, 0) << cmd << "\n" << testing::ReadAnyText(dir.Path("node.out"));
}

// The sizes (trailer included) RocksDB's AllocateMaybeRounding can give a filter whose target
// size is `target`, `granule` being the builder's rounding (Ribbon 16, FastLocalBloom 64): the
// target or a cut (3/4, 13/16, 7/8, 15/16 of the payload, rounded down) while the balance is
// negative, and for Ribbon each of those one segment larger when glibc grants 16 more bytes.
std::set<std::size_t> AllocatorSizes(std::size_t target, std::size_t granule) {
  constexpr std::size_t kMetadata = 5;
  const std::size_t payload = target - kMetadata;
  std::set<std::size_t> sizes = {target};
  const std::pair<std::size_t, std::size_t> cuts[] = {{3, 4}, {13, 16}, {7, 8}, {15, 16}};
  for (const auto& [num, den] : cuts) {
    sizes.insert((num * payload / den) / granule * granule + kMetadata);
  }
  if (granule == 16) {
    for (std::size_t size : std::set<std::size_t>(sizes)) sizes.insert(size + 16);
  }
  return sizes;
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
  // Built with the configured policy: a Ribbon build falls back to FastLocalBloom where RocksDB
  // does (small filters where Bloom is smaller), so identity checks that choice too.
  const FilterEncoding encoding =
      c.ribbon ? FilterEncoding::kRibbon : FilterEncoding::kFastLocalBloom;
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
  // Ribbon with optimize_filters_for_memory: RocksDB sizes the filter by what glibc's
  // malloc_usable_size grants, and glibc hands over a chunk 16 bytes larger when splitting off
  // the rest would leave less than its minimum chunk: one more 16-byte Ribbon segment, which
  // makes the process's rounding balance negative, and later filters (Ribbon or its Bloom
  // fallback) may then be cut to 3/4, 13/16, 7/8 or 15/16 (FORMAT.md). That depends on the
  // heap's history, not on the table: such a filter must have one of those sizes, never our
  // size with other bytes, and rebuilt at its size from the table's keys it is RocksDB's filter
  // byte for byte.
  bool allocator_sized =
      !identical && c.ribbon && c.optimize_for_memory && stored.size() != built->size() &&
      AllocatorSizes(built->size(), marker == 0xfe ? 16 : 64).count(stored.size()) > 0;
  if (allocator_sized) {
    Result<ByteVector> at_size =
        BuildMemoryOptimizedFilterAtSize(encoding, c.bits_per_key, entries, stored.size());
    ASSERT_TRUE(at_size.ok()) << path << ": " << at_size.status().ToString();
    allocator_sized = std::equal(at_size->begin(), at_size->end(), stored.begin(), stored.end());
    EXPECT_TRUE(allocator_sized) << path << ": rebuilt at RocksDB's size (" << stored.size()
                                 << " bytes) the filter differs from RocksDB's";
  }
  EXPECT_TRUE(identical || allocator_sized)
      << path << ": " << keys.size() << " keys, built " << built->size() << " bytes, RocksDB's "
      << stored.size();
  if (c.optimize_for_memory) {
    Result<ByteVector> off = BuildFullFilter(encoding, c.bits_per_key, entries, false);
    ASSERT_TRUE(off.ok());
    tally.identical_as_if_off +=
        std::equal(off->begin(), off->end(), stored.begin(), stored.end()) ? 1 : 0;
  }
  // inspect tells the option where the probe count shows it, and never the wrong value.
  if (!prefix && marker == 0xff && !allocator_sized) {
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
  tally.allocator_sized += allocator_sized ? 1 : 0;
  tally.ribbon_tables += marker == 0xfe ? 1 : 0;
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

// The table number of a file name NNNNNN.sst.
std::uint64_t TableNumber(const std::string& path) {
  return std::stoull(fs::path(path).stem().string());
}

void RunCase(const Case& c, const std::vector<std::string>& keys, Totals* totals = nullptr) {
  RequireWitnesses();
  CliDir dir;
  const std::string db = dir.Path("db");
  ASSERT_NO_FATAL_FAILURE(WriteDb(c, keys, dir, db));
  // write_db.js's last line: the live tables of RocksDB's current version, [[level, number]...].
  const std::vector<std::string> node_lines =
      testing::SplitLines(testing::ReadAnyText(dir.Path("node.out")));
  ASSERT_FALSE(node_lines.empty());
  const nlohmann::json written = nlohmann::json::parse(node_lines.back());
  std::set<std::pair<int, std::uint64_t>> live;
  for (const auto& t : written.at("live")) {
    live.emplace(t.at(0).get<int>(), t.at(1).get<std::uint64_t>());
  }
  std::set<std::string> seen;
  Tally tally;
  std::vector<std::string> tables;
  for (const auto& e : fs::directory_iterator(db)) {
    if (e.path().extension() == ".sst") tables.push_back(e.path().string());
  }
  // rocksdb10 flushes every 500 keys (several tables); rocksdb9's background compactions merge a
  // varying number of them.
  ASSERT_GE(tables.size(), c.engine == "rocksdb10" && !c.drawn ? 2u : 1u)
      << "a small memtable: tables";
  // The .sst files left in the directory are RocksDB's live tables (it deleted the others).
  std::set<std::uint64_t> live_numbers, file_numbers;
  for (const auto& [level, number] : live) live_numbers.insert(number);
  for (const std::string& t : tables) file_numbers.insert(TableNumber(t));
  EXPECT_EQ(live_numbers, file_numbers) << "RocksDB's live tables and the .sst files differ";
  for (const std::string& t : tables) ASSERT_NO_FATAL_FAILURE(CheckTable(c, t, seen, tally));
  // Every key written is in some table.
  for (const std::string& k : keys) {
    ASSERT_TRUE(seen.count(k)) << "key " << Hex(AsBytes(k)) << " is in no table";
  }
  EXPECT_EQ(tally.identical + tally.allocator_sized, tally.tables);
  // bloom_before_level -1: Ribbon on every level, flushes included (drawn cases may have tables
  // small enough for RocksDB to write the smaller FastLocalBloom filter instead).
  if (c.ribbon && !c.drawn) {
    EXPECT_EQ(tally.ribbon_tables, tally.tables);
  }
  // zstd with max_dict_bytes: compacted tables carry a dictionary their data blocks need.
  if (!c.drawn &&
      std::find(c.options.begin(), c.options.end(), "compression=1") != c.options.end()) {
    EXPECT_GE(tally.dictionary_tables, 1);
  }
  // verify of the directory: healthy.
  testing::CliRun v = RunCli({"verify", db});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  for (const std::string& line : testing::SplitLines(v.out)) {
    EXPECT_FALSE(line.starts_with("error") || line.starts_with("warn")) << line;
  }
  EXPECT_NE(v.out.find(std::to_string(tables.size()) + " ok"), std::string::npos) << v.out;
  // verify --json: every live table read through the MANIFEST at RocksDB's level, healthy.
  testing::CliRun vj = RunCli({"verify", db, "--json"});
  EXPECT_EQ(vj.exit_code, 0) << vj.out << vj.err;
  std::set<std::pair<int, std::uint64_t>> verified;
  const nlohmann::json report = nlohmann::json::parse(vj.out);
  for (const auto& f : report.at("files")) {
    const std::string path = f.at("path").get<std::string>();
    EXPECT_EQ(f.at("status"), "ok") << path;
    EXPECT_EQ(f.value("group_role", std::string()), "live") << path;
    for (const auto& finding : f.at("findings")) {
      EXPECT_TRUE(finding.at("severity") != "error" && finding.at("severity") != "warning")
          << path << ": " << finding.dump();
    }
    EXPECT_TRUE(f.contains("level")) << path << ": not read through the MANIFEST";
    verified.emplace(f.value("level", -1), TableNumber(path));
  }
  EXPECT_EQ(verified, live) << "verify's tables and levels are not RocksDB's";
  std::printf(
      "[witness] %s: %d tables (%d Ribbon, %d with a compression dictionary), %zu keys "
      "compared, %d/%d filters byte-identical",
      c.name.c_str(), tally.tables, tally.ribbon_tables, tally.dictionary_tables,
      tally.keys_compared, tally.identical, tally.tables);
  if (c.optimize_for_memory) {
    std::printf(" (%d/%d also equal to the build with the option off)", tally.identical_as_if_off,
                tally.tables);
  }
  if (tally.allocator_sized > 0) {
    std::printf(", %d sized by the allocator (Ribbon, optimize_filters_for_memory)",
                tally.allocator_sized);
  }
  std::printf("; inspect told optimize_filters_for_memory for %d", tally.option_told);
  std::printf("; %zu live tables at levels as RocksDB has them\n",
              verified == live ? live.size() : 0);
  if (totals != nullptr) {
    totals->runs++;
    totals->tables += tally.tables;
    totals->identical += tally.identical;
    totals->allocator_sized += tally.allocator_sized;
    totals->ribbon_tables += tally.ribbon_tables;
    totals->bloom_instead += c.ribbon ? tally.tables - tally.ribbon_tables : 0;
    totals->dictionary_tables += tally.dictionary_tables;
    totals->levels_compared += verified == live ? static_cast<int>(live.size()) : 0;
    totals->keys_written += keys.size();
    totals->keys_compared += tally.keys_compared;
  }
}

void RunCase(const Case& c) { RunCase(c, RandomKeys(c.keys, c.seed)); }

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

// ---- RapidCheck properties: random keys, random options ----
//
// Each run writes a whole database through Node.js (about a second), so each property runs a
// fixed, small number of cases whatever RC_PARAMS says (its seed applies: RC_PARAMS="seed=N"
// replays a run). Shrinking is off: every step would write a database again; the drawn case is
// printed instead.

// Keys drawn from a seed: `count` distinct keys (fewer where the lengths allow fewer) of 0 to
// `max_length` random bytes (all 256 byte values), so with short lengths many keys share
// prefixes and the empty key is often among them.
std::vector<std::string> DrawnKeys(std::size_t count, std::size_t max_length, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::set<std::string> keys;
  for (std::size_t tries = 0; keys.size() < count && tries < 8 * count; ++tries) {
    std::string k(rng() % (max_length + 1), '\0');
    for (char& ch : k) ch = static_cast<char>(rng() & 0xff);
    keys.insert(k);
  }
  return {keys.begin(), keys.end()};
}

// Draws a case for `engine`: keys, filter policy and bits, options; runs it; stops the property
// at the first failure (the gtest failures say what, RapidCheck prints the drawn case).
void DrawAndRun(const std::string& engine, Totals& totals) {
  // Sizes spread over the whole range from the first run on (not grown with RapidCheck's size).
  const std::size_t count =
      *rc::gen::resize(100, rc::gen::inRange<std::size_t>(2, 8001)).as("keys");
  const std::size_t max_length = *rc::gen::element<std::size_t>(1, 2, 4, 12, 40).as("max length");
  const std::uint32_t key_seed = *rc::gen::arbitrary<std::uint32_t>().as("key seed");
  const bool ribbon = *rc::gen::arbitrary<bool>().as("ribbon");
  const int bits = *rc::gen::resize(100, rc::gen::inRange(1, 21)).as("bits per key");
  const bool ofm = *rc::gen::arbitrary<bool>().as("optimize_filters_for_memory");
  const int block_size = *rc::gen::element(256, 1024, 4096, 16384).as("block size");
  Case c;
  c.name = engine + " drawn";
  c.engine = engine;
  c.bits_per_key = bits;
  c.ribbon = ribbon;
  c.optimize_for_memory = ofm;
  c.drawn = true;
  c.options = {std::string("filter=") + (ribbon ? "ribbon:" : "bloom:") + std::to_string(bits),
               std::string("optimize_filters_for_memory=") + (ofm ? "1" : "0"),
               "block_size=" + std::to_string(block_size)};
  if (engine == "rocksdb9") {
    c.format_version = 6;
    if (*rc::gen::arbitrary<bool>().as("zstd with a dictionary")) {
      c.options.push_back("compression=1");
    } else {
      c.options.push_back("compression=0");
    }
    // memtableMemoryBudget (a quarter of it per memtable): smaller means more flushes and
    // compactions, which write the zstd dictionaries.
    c.options.push_back(
        "memtable=" +
        std::to_string(*rc::gen::element(32 * 1024, 64 * 1024, 256 * 1024).as("memtable budget")));
    c.options.push_back(std::string("compaction=") +
                        *rc::gen::element<std::string>("level", "universal").as("compaction"));
    // Each kind in 1 run of 3, whatever RapidCheck's size.
    const int kind = *rc::gen::element(0, 1, 2).as("prefix extractor: none, fixed, capped");
    if (kind > 0) {
      const int n = *rc::gen::resize(100, rc::gen::inRange(1, 9)).as("prefix length");
      c.prefix = std::string(kind == 1 ? "rocksdb.FixedPrefix." : "rocksdb.CappedPrefix.") +
                 std::to_string(n);
    }
  } else {
    c.format_version = *rc::gen::element<std::uint32_t>(6, 7).as("format_version");
    c.options.push_back("format_version=" + std::to_string(c.format_version));
    c.options.push_back(
        "memtable=" +
        std::to_string(*rc::gen::element(16 * 1024, 64 * 1024).as("write buffer size")));
  }
  const std::vector<std::string> keys = DrawnKeys(count, max_length, key_seed);
  c.keys = keys.size();
  c.seed = key_seed;
  RC_TAG("format_version " + std::to_string(c.format_version), ribbon ? "Ribbon" : "Bloom",
         ofm ? "optimize_filters_for_memory" : "not optimized for memory",
         c.prefix.empty() ? "no prefix extractor" : c.prefix.substr(0, c.prefix.rfind('.')));
  RunCase(c, keys, &totals);
  RC_ASSERT(!::testing::Test::HasFailure());
}

// Runs of each property (a run takes about half a second).
constexpr int kPropertyRuns = 8;

void PrintTotals(const std::string& engine, const Totals& t) {
  std::printf(
      "[witness] %s property: %d runs, %d tables (%d filters byte-identical, %d sized by the "
      "allocator; %d Ribbon, %d FastLocalBloom where Ribbon was asked for, %d with a compression "
      "dictionary), %zu keys written, %zu keys compared, %d live tables at RocksDB's level\n",
      engine.c_str(), t.runs, t.tables, t.identical, t.allocator_sized, t.ribbon_tables,
      t.bloom_instead, t.dictionary_tables, t.keys_written, t.keys_compared, t.levels_compared);
}

TEST(RocksDbWitnessProperty, RocksDb97RandomKeysAndOptions) {
  RequireWitnesses();
  Totals totals;
  bloomcodec::leveldb::testing_support::CheckBounded(
      kPropertyRuns, rc::detail::configuration().testParams.maxSize,
      [&] { DrawAndRun("rocksdb9", totals); }, /*shrink=*/false);
  PrintTotals("9.7", totals);
  EXPECT_EQ(totals.identical + totals.allocator_sized, totals.tables);
  EXPECT_EQ(totals.runs, kPropertyRuns);
}

TEST(RocksDbWitnessProperty, RocksDb105RandomKeysAndOptions) {
  RequireWitnesses();
  Totals totals;
  bloomcodec::leveldb::testing_support::CheckBounded(
      kPropertyRuns, rc::detail::configuration().testParams.maxSize,
      [&] { DrawAndRun("rocksdb10", totals); }, /*shrink=*/false);
  PrintTotals("10.5.1", totals);
  EXPECT_EQ(totals.identical + totals.allocator_sized, totals.tables);
  EXPECT_EQ(totals.runs, kPropertyRuns);
}

}  // namespace
}  // namespace bloomcodec::rocksdb

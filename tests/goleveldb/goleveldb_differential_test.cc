// Differential tests against goleveldb itself (Debian's golang-github-syndtr-goleveldb-dev, built
// at build time into the oracle of oracle.go):
// * filters: for random keys and bits_per_key (the uint8 wrap of k included), goleveldb-bloom's
//   build writes the bytes goleveldb's generator writes, and its probe answers every probe as
//   goleveldb's Contains does;
// * databases written by goleveldb with random keys, values and options (bits per key, block
//   size, compression none/snappy; small write buffers and tables so compactions make levels):
//   every table is read as goleveldb's (writer goleveldb), every filter of every table answers
//   every probe as goleveldb's Contains, the filter block rebuilt from the table's keys with
//   goleveldb's policy is the table's own byte for byte, and `bloomcodec verify` reports the
//   database healthy (exit 0, writer goleveldb) while inspect and probe --writer agree;
// * the live tables and their levels verify reads from CURRENT and the MANIFEST are the ones
//   goleveldb's own view lists (DB.GetProperty("leveldb.sstables"), the database opened
//   read-only so that nothing compacts under it);
// * `convert --to leveldb-table --bits-per-key N` of every table of a goleveldb database keeps a
//   filter goleveldb reads: with the MANIFEST rebuilt by leveldb.RecoverFile, goleveldb Gets every
//   key through our filters (its Contains is called and says "absent" for absent keys); with
//   `--filter-for leveldb` the tables carry LevelDB 1.18's filter, which goleveldb never asks,
//   and `--filter-for goleveldb` of those gives goleveldb's back, byte for byte.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bloomcodec/input_file.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "cli/cli_runner.h"
#include "formats/leveldb/family.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "leveldb_table/rc_bounded.h"
#include "manifest/db_checks.h"

namespace bloomcodec::leveldb {
namespace {

using bloomcodec::testing::CliDir;
using bloomcodec::testing::CliRun;
using bloomcodec::testing::RunCli;
using bloomcodec::testing::SplitLines;
using testing_support::CheckBounded;

// Runs the oracle with `args`; its standard output, split into lines.
std::vector<std::string> Oracle(const std::vector<std::string>& args) {
  CliDir out;
  std::string command = GOLEVELDB_ORACLE;
  for (const std::string& a : args) command += " '" + a + "'";
  command += " > '" + out.Path("stdout") + "'";
  const int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << command;
  std::ifstream in(out.Path("stdout"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string HexLine(ByteSpan key) { return key.empty() ? "-" : ToHex(key); }

std::string WriteKeys(const CliDir& dir, const std::string& name, const KeyList& keys) {
  std::string text;
  for (std::size_t i = 0; i < keys.size(); ++i) text += HexLine(keys[i]) + "\n";
  return dir.Write(name, text);
}

// Random keys of 0 .. max_len bytes, any byte values (tails >= 0x80 are where goleveldb's hash
// differs from LevelDB 1.17's).
KeyList RandomKeys(std::mt19937_64& rng, std::size_t n, std::size_t max_len) {
  KeyList keys;
  std::uniform_int_distribution<std::size_t> len(0, max_len);
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::size_t i = 0; i < n; ++i) {
    ByteVector k(len(rng));
    for (auto& b : k) b = static_cast<std::uint8_t>(byte(rng));
    keys.Add(k);
  }
  return keys;
}

std::string Answers(std::span<const std::uint8_t> answers) {
  std::string s;
  for (std::uint8_t a : answers) s += a ? '1' : '0';
  return s;
}

TEST(GoLevelDbFilter, BuildAndProbeAsGoLevelDbForRandomKeysAndBitsPerKey) {
  const FormatCodec* go = Codec(FormatId::kGoLevelDbBloom);
  ASSERT_EQ(go->name(), "goleveldb-bloom");
  std::set<int> ks;
  CheckBounded(25, 100, [&] {
    // Small and usual bits_per_key, and some where goleveldb's uint8 k wraps (372 -> 256 -> 1).
    const int bpk =
        *rc::gen::oneOf(rc::gen::inRange(0, 50), rc::gen::element(371, 372, 373, 380, 400, 1000));
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto n = *rc::gen::inRange<std::size_t>(0, 400);
    std::mt19937_64 rng(seed);
    const KeyList keys = RandomKeys(rng, n, 12);
    KeyList probes = RandomKeys(rng, 300, 12);
    for (std::size_t i = 0; i < keys.size(); i += 3) probes.Add(keys[i]);
    CliDir dir;
    const auto lines = Oracle({"filter", std::to_string(bpk), WriteKeys(dir, "keys", keys),
                               WriteKeys(dir, "probes", probes)});
    RC_ASSERT(lines.size() == 2u);
    FilterParams params;
    params.bits_per_key = bpk;
    auto built = go->Build(keys, params);
    RC_ASSERT(built.ok());
    RC_ASSERT(ToHex(*built) == lines[0]);
    ks.insert(built->back());
    std::vector<std::uint8_t> answers(probes.size());
    RC_ASSERT(go->Probe(*built, "built", probes, {}, answers).ok());
    RC_ASSERT(Answers(answers) == lines[1]);
    RC_TAG(bpk >= 100 ? "k wraps" : "usual bits_per_key");
  });
  // The k of the wrapped bits_per_key differ from LevelDB's (30 from 44 bits per key on).
  EXPECT_TRUE(ks.count(1));
}

TEST(GoLevelDbFilter, ProbeAnswersAsContainsForAnyFilterBytes) {
  // Arbitrary bytes are a filter to Contains too: short ones, k = 0, k > 30, k >= 0x80.
  std::mt19937_64 rng(15);
  KeyList filters = RandomKeys(rng, 60, 40);
  filters.Add(ByteVector{});
  filters.Add(ByteVector{0x00});
  filters.Add(ByteVector{0xff, 0x00});
  filters.Add(ByteVector{0xff, 0xff, 31});
  filters.Add(ByteVector{0xff, 0xff, 0x80});
  const KeyList probes = RandomKeys(rng, 200, 9);
  CliDir dir;
  const auto lines =
      Oracle({"contains", WriteKeys(dir, "filters", filters), WriteKeys(dir, "probes", probes)});
  ASSERT_EQ(lines.size(), filters.size());
  const FormatCodec* go = Codec(FormatId::kGoLevelDbBloom);
  for (std::size_t i = 0; i < filters.size(); ++i) {
    std::vector<std::uint8_t> answers(probes.size());
    ASSERT_TRUE(go->Probe(filters[i], "filter", probes, {}, answers).ok());
    EXPECT_EQ(Answers(answers), lines[i]) << "filter " << ToHex(filters[i]);
  }
}

struct DbOptions {
  int bits_per_key;
  int block_size;
  std::string compression;
};

// The writer a goleveldb table's keys prove: goleveldb's hash differs from LevelDB 1.17's only on
// a user key with a tail byte (the last size % 4) >= 0x80. A table without one (goleveldb's
// compactions can leave a table of two keys) names both writers, as it must.
std::string ExpectedWriter(const TableReader& table) {
  bool telling = false;
  const Status walked =
      table.ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) {
        const ByteSpan user = key.first(key.size() >= 8 ? key.size() - 8 : 0);
        for (std::size_t i = user.size() - user.size() % 4; i < user.size(); ++i) {
          if (user[i] >= 0x80) telling = true;
        }
        return Status();
      });
  EXPECT_TRUE(walked.ok()) << walked.ToString();
  return telling ? "goleveldb" : "leveldb-1.17-or-goleveldb";
}

std::string ExpectedWriter(const std::string& path) {
  auto in = InputFile::Open(path);
  EXPECT_TRUE(in.ok()) << in.status().ToString();
  if (!in.ok()) return "";
  TableOpenOptions open;
  open.key_kind = KeyKind::kUser;
  auto table = TableReader::Open(in->bytes(), path, open);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return table.ok() ? ExpectedWriter(*table) : "";
}

// One database written by goleveldb, checked table by table and through the command line.
void CheckDatabase(std::uint64_t seed, int keys, const DbOptions& o) {
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(keys) + " keys, bpk " +
               std::to_string(o.bits_per_key) + ", block " + std::to_string(o.block_size) + ", " +
               o.compression);
  CliDir dir;
  const std::string db = dir.Path("db");
  const auto stats =
      Oracle({"db", db, std::to_string(seed % 2147483647), std::to_string(keys),
              std::to_string(o.bits_per_key), std::to_string(o.block_size), o.compression});
  // goleveldb's own view: tables on more than one level.
  int levels_with_tables = 0;
  for (const std::string& line : stats) {
    int level = -1, tables = 0;
    if (std::sscanf(line.c_str(), " %d | %d", &level, &tables) == 2 && tables > 0) {
      ++levels_with_tables;
    }
  }
  EXPECT_GE(levels_with_tables, 2) << "goleveldb's levels:\n" << ::testing::PrintToString(stats);

  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15u);
  KeyList probes = RandomKeys(rng, 400, 24);
  std::vector<std::string> tables;
  for (const auto& e : std::filesystem::directory_iterator(db)) {
    if (e.path().extension() == ".ldb") tables.push_back(e.path().string());
  }
  std::sort(tables.begin(), tables.end());
  ASSERT_GE(tables.size(), 2u);
  KeyList filters;
  std::map<std::string, std::string> expected_writer;
  for (const std::string& path : tables) {
    SCOPED_TRACE(path);
    auto in = InputFile::Open(path);
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    TableOpenOptions open;
    open.key_kind = KeyKind::kUser;
    open.verify_checksums = true;
    auto table = TableReader::Open(in->bytes(), path, open);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    ASSERT_TRUE(table->filter().has_value());
    expected_writer[path] = ExpectedWriter(*table);
    EXPECT_EQ(table->writer(), expected_writer[path]);
    auto entries = table->Verify();
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    // goleveldb's policy rebuilds the table's filter block byte for byte from its keys.
    auto rewritten = RewriteTableFilter(*table, BloomPolicy::GoLevelDb(o.bits_per_key));
    ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
    auto again = TableReader::Open(*rewritten, path + " (rewritten)", open);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    ASSERT_TRUE(again->filter().has_value());
    const ByteSpan mine = again->filter()->contents.bytes();
    const ByteSpan theirs = table->filter()->contents.bytes();
    EXPECT_TRUE(std::equal(mine.begin(), mine.end(), theirs.begin(), theirs.end()))
        << "filter block of " << theirs.size() << " bytes differs";
    auto layout = ParseFilterBlockLayout(theirs, path);
    ASSERT_TRUE(layout.ok()) << layout.status().ToString();
    for (const FilterRange& r : layout->filters) {
      if (!r.empty()) filters.Add(theirs.subspan(r.start, r.size()));
    }
    // Probes of its own user keys as well.
    ASSERT_TRUE(table
                    ->ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) {
                      if (rng() % 8 == 0) probes.Add(UserKeyOf(key));
                      return Status();
                    })
                    .ok());
  }
  // Every filter of every table answers every probe as goleveldb's Contains.
  const auto lines =
      Oracle({"contains", WriteKeys(dir, "filters", filters), WriteKeys(dir, "probes", probes)});
  ASSERT_EQ(lines.size(), filters.size());
  const FormatCodec* go = Codec(FormatId::kGoLevelDbBloom);
  std::size_t positives = 0;
  for (std::size_t i = 0; i < filters.size(); ++i) {
    std::vector<std::uint8_t> answers(probes.size());
    ASSERT_TRUE(go->Probe(filters[i], "filter", probes, {}, answers).ok());
    const std::string mine = Answers(answers);
    EXPECT_EQ(mine, lines[i]) << "filter " << i;
    positives += std::count(mine.begin(), mine.end(), '1');
  }
  EXPECT_GT(positives, 0u);
  std::cout << tables.size() << " tables on " << levels_with_tables << " levels, " << filters.size()
            << " filters, " << probes.size() << " probes, " << positives
            << " 'may contain' answers, all as goleveldb's\n";

  // The command line: verify healthy, each table with the writer its keys prove; inspect and probe
  // agree.
  const CliRun verify = RunCli({"verify", db, "--json"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  const auto report = nlohmann::json::parse(verify.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << verify.out;
  std::size_t checked = 0;
  for (const auto& f : report["files"]) {
    if (f.value("format", "") != "leveldb-table") continue;
    EXPECT_EQ(f.value("writer", ""), expected_writer[f.value("path", "")]) << f.dump();
    ++checked;
  }
  EXPECT_EQ(checked, tables.size());
  const std::string table = tables.front();
  const CliRun inspect = RunCli({"inspect", table, "--json"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const auto facts = nlohmann::json::parse(inspect.out, nullptr, false);
  ASSERT_FALSE(facts.is_discarded());
  EXPECT_EQ(facts["files"][0]["filter"]["writer"], expected_writer[table]);
  EXPECT_EQ(facts["files"][0]["filter"]["filter_format"], "goleveldb-bloom");
  std::string cli_keys;  // the command line's hex keys: an empty line is the empty key
  for (std::size_t i = 0; i < probes.size(); ++i) cli_keys += ToHex(probes[i]) + "\n";
  const std::string probe_file = dir.Write("cli-probes", cli_keys);
  const CliRun decided =
      RunCli({"probe", table, "--keys", probe_file, "--key-format", "hex", "--json"});
  const CliRun forced = RunCli({"probe", table, "--keys", probe_file, "--key-format", "hex",
                                "--writer", "goleveldb", "--json"});
  ASSERT_EQ(decided.exit_code, 0) << decided.err;
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(decided.out, forced.out);
  const CliRun legacy = RunCli({"probe", table, "--keys", probe_file, "--key-format", "hex",
                                "--writer", "leveldb-1.17", "--json"});
  EXPECT_EQ(legacy.exit_code, 0) << legacy.err;
  EXPECT_NE(legacy.out, decided.out) << "1.17's hash answers some stored key differently";
  const CliRun wrong =
      RunCli({"probe", table, "--keys", probe_file, "--key-format", "hex", "--writer", "leveldb"});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("leveldb.BuiltinBloomFilter2"), std::string::npos) << wrong.err;
  const CliRun verify_forced = RunCli({"verify", table, "--writer", "goleveldb", "--json"});
  EXPECT_EQ(verify_forced.exit_code, 0) << verify_forced.out << verify_forced.err;
}

TEST(GoLevelDbDatabase, RandomDatabasesAreReadAsGoLevelDbReadsThem) {
  const std::vector<DbOptions> options = {
      {10, 4096, "snappy"},
      {7, 1024, "none"},
      {16, 512, "snappy"},
      {1, 2048, "none"},
  };
  std::mt19937_64 rng(20261124);
  for (const DbOptions& o : options) CheckDatabase(rng(), 12000, o);
}

// goleveldb's own view of a closed database's live tables: table number -> level.
std::map<std::uint64_t, int> GoLevelDbView(const std::string& db) {
  std::map<std::uint64_t, int> view;
  for (const std::string& line : Oracle({"sstables", db})) {
    int level = -1;
    unsigned long long number = 0;
    if (std::sscanf(line.c_str(), "%d %llu", &level, &number) == 2) view[number] = level;
  }
  return view;
}

std::map<std::uint64_t, int> OurView(const VerifyReport& report) {
  std::map<std::uint64_t, int> view;
  for (const auto& [key, level] : manifest_test::LevelsOf(report)) view[key.second] = level;
  return view;
}

// A database goleveldb wrote, closed: verify's live tables and levels are goleveldb's, and the
// database is healthy.
void CheckLiveTables(std::uint64_t seed, int keys, const DbOptions& o) {
  SCOPED_TRACE("seed " + std::to_string(seed) + ", bpk " + std::to_string(o.bits_per_key));
  CliDir dir;
  const std::string db = dir.Path("db");
  Oracle({"db", db, std::to_string(seed % 2147483647), std::to_string(keys),
          std::to_string(o.bits_per_key), std::to_string(o.block_size), o.compression});
  const std::map<std::uint64_t, int> theirs = GoLevelDbView(db);
  std::set<int> levels;
  for (const auto& [number, level] : theirs) levels.insert(level);
  EXPECT_GE(levels.size(), 2u) << "goleveldb's view has one level only";

  const VerifyReport report = manifest_test::Verify(db);
  EXPECT_EQ(OurView(report), theirs);
  EXPECT_EQ(report.summary.errors, 0u);
  std::size_t live = 0, obsolete = 0;
  for (const FileReport& f : report.files) {
    EXPECT_FALSE(manifest_test::HasFinding(f, "missing-table", Severity::kError)) << f.path;
    if (f.group_role != GroupRole::kLive || f.level < 0) {
      ++obsolete;
      continue;
    }
    ++live;
    const std::string writer = ExpectedWriter(f.path);
    EXPECT_EQ(f.writer, writer) << f.path;
    EXPECT_EQ(f.false_negative_count, 0u) << f.path;
    // A table whose keys cannot tell goleveldb from LevelDB 1.17 is a warning that says so.
    EXPECT_EQ(f.worst(), writer == "goleveldb" ? Severity::kInfo : Severity::kWarning) << f.path;
  }
  std::size_t live_groups = 0;
  for (const GroupSummary& g : report.summary.groups) {
    if (g.role != GroupRole::kLive) continue;
    ++live_groups;
    EXPECT_FALSE(g.manifest.empty()) << "the levels come from the MANIFEST";
    EXPECT_EQ(g.levels.size(), levels.size());
  }
  EXPECT_EQ(live_groups, 1u);
  EXPECT_EQ(live, theirs.size());
  std::cout << live << " live tables on " << levels.size() << " levels as goleveldb lists them, "
            << obsolete << " other files\n";
}

TEST(GoLevelDbDatabase, VerifyListsTheLiveTablesAndLevelsGoLevelDbSees) {
  const std::vector<DbOptions> options = {
      {10, 4096, "snappy"},
      {6, 1024, "none"},
      {14, 2048, "snappy"},
  };
  std::mt19937_64 rng(1515);
  for (const DbOptions& o : options) CheckLiveTables(rng(), 12000, o);
}

struct Recheck {
  std::uint64_t keys = 0, found = 0, contains = 0, negatives = 0, tables = 0;
};

Recheck RecheckWithGoLevelDb(const std::string& orig, const std::string& copy) {
  Recheck r;
  const auto lines = Oracle({"recheck", orig, copy, "99"});
  EXPECT_EQ(lines.size(), 1u);
  if (lines.size() == 1) {
    unsigned long long k, f, c, n, t;
    EXPECT_EQ(std::sscanf(lines[0].c_str(),
                          "keys %llu found %llu contains %llu negatives %llu "
                          "tables %llu",
                          &k, &f, &c, &n, &t),
              5)
        << lines[0];
    r = {k, f, c, n, t};
  }
  return r;
}

// Every table of a goleveldb database rewritten by `convert` into a copy of the database.
std::vector<std::string> RewriteTables(const std::string& db, const std::string& copy,
                                       const std::vector<std::string>& extra) {
  std::filesystem::copy(db, copy, std::filesystem::copy_options::recursive);
  std::vector<std::string> tables;
  for (const auto& e : std::filesystem::directory_iterator(db)) {
    if (e.path().extension() != ".ldb") continue;
    const std::string out = copy + "/" + e.path().filename().string();
    std::vector<std::string> args = {
        "convert", e.path().string(), "--to", "leveldb-table", "--bits-per-key", "14", "-o", out};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliRun r = RunCli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    tables.push_back(out);
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

TEST(GoLevelDbRewrite, RewrittenTablesKeepAFilterGoLevelDbReads) {
  CliDir dir;
  const std::string db = dir.Path("db");
  Oracle({"db", db, "424242", "8000", "10", "2048", "snappy"});

  // Decided from the keys: every table's new filter is goleveldb's, under goleveldb's name (the
  // writer named as its keys prove it).
  const std::vector<std::string> tables = RewriteTables(db, dir.Path("copy"), {});
  ASSERT_GE(tables.size(), 2u);
  for (const std::string& path : tables) {
    SCOPED_TRACE(path);
    auto in = InputFile::Open(path);
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    TableOpenOptions open;
    open.verify_checksums = true;
    auto table = TableReader::Open(in->bytes(), path, open);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    ASSERT_TRUE(table->filter().has_value());
    EXPECT_EQ(table->filter()->metaindex_key, "filter.leveldb.BuiltinBloomFilter");
    EXPECT_EQ(table->writer(), ExpectedWriter(*table));
    // The filter block is goleveldb's for 14 bits per key (k = 9 in every filter).
    auto again = RewriteTableFilter(*table, BloomPolicy::GoLevelDb(14));
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_TRUE(std::equal(again->begin(), again->end(), in->bytes().begin(), in->bytes().end()));
  }
  // The writer forced: the same bytes.
  CliDir forced_dir;
  const std::vector<std::string> forced =
      RewriteTables(db, forced_dir.Path("copy"), {"--writer", "goleveldb"});
  ASSERT_EQ(forced.size(), tables.size());
  for (std::size_t i = 0; i < tables.size(); ++i) {
    EXPECT_EQ(manifest_test::ReadFile(forced[i]), manifest_test::ReadFile(tables[i])) << forced[i];
  }

  // goleveldb itself, the MANIFEST rebuilt from the rewritten tables, Gets every key through
  // our filters.
  const Recheck ours = RecheckWithGoLevelDb(db, dir.Path("copy"));
  EXPECT_GT(ours.keys, 1000u);
  EXPECT_EQ(ours.found, ours.keys);
  EXPECT_GT(ours.contains, ours.keys) << "goleveldb consults the rewritten filters";
  EXPECT_GT(ours.negatives, 0u);
  EXPECT_GE(ours.tables, tables.size());
  const VerifyReport report = manifest_test::Verify(dir.Path("copy"));
  EXPECT_EQ(report.summary.errors, 0u);
  for (const FileReport& f : report.files) {
    if (f.group_role == GroupRole::kLive && f.level >= 0) {
      EXPECT_EQ(f.writer, ExpectedWriter(f.path)) << f.path;
    }
  }
  std::cout << tables.size() << " tables rewritten; goleveldb found " << ours.found << " of "
            << ours.keys << " keys, asked our filters " << ours.contains << " times, "
            << ours.negatives << " 'absent'\n";

  // The control: LevelDB 1.18's name (what a 1.17 table is upgraded to) is one goleveldb ignores.
  CliDir legacy_dir;
  RewriteTables(db, legacy_dir.Path("copy"), {"--writer", "leveldb-1.17"});
  const Recheck ignored = RecheckWithGoLevelDb(db, legacy_dir.Path("copy"));
  EXPECT_EQ(ignored.found, ignored.keys);
  EXPECT_EQ(ignored.contains, 0u);
}

// --filter-for moves a goleveldb database's tables to LevelDB 1.18's filter (which goleveldb
// ignores) and back to goleveldb's (which it consults again), whoever wrote the input.
TEST(GoLevelDbRewrite, FilterForMovesTablesBetweenGoLevelDbAndLevelDb) {
  CliDir dir;
  const std::string db = dir.Path("db");
  Oracle({"db", db, "434343", "8000", "10", "2048", "snappy"});
  const std::vector<std::string> to_leveldb =
      RewriteTables(db, dir.Path("leveldb"), {"--filter-for", "leveldb"});
  ASSERT_GE(to_leveldb.size(), 2u);
  for (const std::string& path : to_leveldb) {
    SCOPED_TRACE(path);
    auto in = InputFile::Open(path);
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    TableOpenOptions open;
    open.verify_checksums = true;
    auto table = TableReader::Open(in->bytes(), path, open);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    ASSERT_TRUE(table->filter().has_value());
    EXPECT_EQ(table->filter()->metaindex_key, "filter.leveldb.BuiltinBloomFilter2");
    auto again = RewriteTableFilter(*table, BloomPolicy::Current(14));
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_TRUE(std::equal(again->begin(), again->end(), in->bytes().begin(), in->bytes().end()));
  }
  // Back from those tables, and as a plain rewrite of goleveldb's own: the same bytes.
  const std::vector<std::string> back =
      RewriteTables(dir.Path("leveldb"), dir.Path("back"), {"--filter-for", "goleveldb"});
  const std::vector<std::string> kept = RewriteTables(db, dir.Path("kept"), {});
  ASSERT_EQ(back.size(), kept.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(manifest_test::ReadFile(back[i]), manifest_test::ReadFile(kept[i])) << back[i];
  }

  const Recheck ignored = RecheckWithGoLevelDb(db, dir.Path("leveldb"));
  EXPECT_EQ(ignored.found, ignored.keys);
  EXPECT_EQ(ignored.contains, 0u) << "goleveldb ignores LevelDB 1.18's filters";
  const Recheck consulted = RecheckWithGoLevelDb(db, dir.Path("back"));
  EXPECT_GT(consulted.keys, 1000u);
  EXPECT_EQ(consulted.found, consulted.keys);
  EXPECT_GT(consulted.contains, consulted.keys) << "goleveldb consults the filters again";
}

TEST(GoLevelDbRewrite, WriterOnlyForLevelDbTables) {
  CliDir dir;
  const std::string filter = dir.Path("f.bin");
  const CliRun built = RunCli({"build", "--format", "leveldb-bloom", "--keys",
                               dir.Write("k", "a\nb\n"), "--bits-per-key", "10", "-o", filter});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const CliRun r = RunCli({"convert", filter, "--format", "leveldb-bloom", "--to",
                           "goleveldb-bloom", "--writer", "goleveldb", "-o", dir.Path("g.bin")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--writer applies to LevelDB tables"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace bloomcodec::leveldb

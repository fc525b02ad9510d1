// convert: lossless re-framings and splits, rebuilds from keys against the golden filters, and
// the refusals that keep a conversion from losing keys.
#include <gtest/gtest.h>

#include <filesystem>

#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "cassandra/index_db.h"
#include "codec/byte_writer.h"
#include "convert_support.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

std::string Cli(const std::string& relative) { return FixtureForCli(relative); }

TEST(ConvertFraming, CassandraFilterGainsAndLosesTheRowLengthPrefix) {
  CliDir dir;
  for (const std::string& n : FixtureNames("cassandra-1.0/filters", ".Filter.db")) {
    SCOPED_TRACE(n);
    const ByteVector filter = ReadFixture("cassandra-1.0/filters/" + n);
    CliRun r = RunCli({"convert", Cli("cassandra-1.0/filters/" + n), "--format", "cassandra-1.0",
                       "--to", "cassandra-1.0-row", "-o", dir.Path("row.bin")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ByteVector expected;
    ByteWriter(expected).PutBigI32(static_cast<std::int32_t>(filter.size()));
    expected.insert(expected.end(), filter.begin(), filter.end());
    EXPECT_EQ(ReadAnyFile(dir.Path("row.bin")), expected);
    r = RunCli({"convert", dir.Path("row.bin"), "--format", "cassandra-1.0-row", "--to",
                "cassandra-1.0", "-o", dir.Path("back.Filter.db")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("back.Filter.db")), filter);
  }
}

TEST(ConvertFraming, GoldenRowFiltersUnframeAndReframeIdentically) {
  CliDir dir;
  for (const std::string& n : FixtureNames("cassandra-1.0/rowfilter", ".bin")) {
    SCOPED_TRACE(n);
    CliRun r = RunCli({"convert", Cli("cassandra-1.0/rowfilter/" + n), "--format",
                       "cassandra-1.0-row", "--to", "cassandra-1.0", "-o", dir.Path("f.db")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const ByteVector row = ReadFixture("cassandra-1.0/rowfilter/" + n);
    EXPECT_EQ(ReadAnyFile(dir.Path("f.db")), ByteVector(row.begin() + 4, row.end()));
    r = RunCli({"convert", dir.Path("f.db"), "--format", "cassandra-1.0", "--to",
                "cassandra-1.0-row", "-o", dir.Path("row.bin")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("row.bin")), row);
  }
}

TEST(ConvertSplit, FilterBlocksSplitIntoTheirFiltersAndJoinBackIdentically) {
  int split_blocks = 0;
  for (const std::string& n : FixtureNames("leveldb/tables", ".filterblock.bin")) {
    SCOPED_TRACE(n);
    const std::string stem = n.substr(0, n.size() - std::string(".filterblock.bin").size());
    if (stem.find("legacy_v117") != std::string::npos) continue;  // its own test below
    if (ReadFixture("leveldb/tables/" + n).empty()) continue;     // a table without a filter
    TsvTable filters = ReadTsvFixture("leveldb/tables/" + stem + ".filters.tsv");
    CliDir dir;
    const std::string out = dir.Path("split") + "/";
    auto report = RunJson({"convert", Cli("leveldb/tables/" + n), "--format",
                           "leveldb-filter-block", "--to", "leveldb-bloom", "-o", out, "--json"});
    EXPECT_EQ(report["how"], "lossless");
    ASSERT_EQ(report["files"].size(), filters.rows.size() + 1);  // + filters.json
    EXPECT_EQ(report["files"].back()["path"], dir.Path("split") + "/filters.json");
    const ByteVector block = ReadFixture("leveldb/tables/" + n);
    for (std::size_t i = 0; i < filters.rows.size(); ++i) {
      const std::size_t start = std::stoul(filters.At(i, "start"));
      const std::size_t limit = std::stoul(filters.At(i, "limit"));
      char name[32];
      std::snprintf(name, sizeof name, "filter-%03zu", i);
      EXPECT_EQ(ReadAnyFile(dir.Path("split/") + name),
                ByteVector(block.begin() + start, block.begin() + limit))
          << name;
    }
    CliRun join = RunCli({"convert", dir.Path("split/filters.json"), "--to", "leveldb-filter-block",
                          "-o", dir.Path("joined.bin")});
    ASSERT_EQ(join.exit_code, 0) << join.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("joined.bin")), block);
    ++split_blocks;
  }
  EXPECT_GE(split_blocks, 10);
}

TEST(ConvertSplit, ATablesFilterExtractsAndSplitsWithItsOwnHash) {
  CliDir dir;
  const std::string modern = Cli("leveldb/tables/db_bpk10_snappy_bs1024__000005.ldb");
  CliRun r = RunCli({"convert", modern, "--to", "leveldb-filter-block", "-o", dir.Path("fb.bin")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("fb.bin")),
            ReadFixture("leveldb/tables/db_bpk10_snappy_bs1024__000005.filterblock.bin"));

  // LevelDB 1.17's filter: its filters carry the signed-tail hash, so they split only as
  // leveldb-bloom-legacy; as leveldb-bloom (or a 1.18 filter block) the bits would mean
  // something else.
  const std::string legacy = Cli("leveldb/tables/tb_legacy_v117_signed_bpk10_bs256.ldb");
  r = RunCli({"convert", legacy, "--to", "leveldb-bloom", "-o", dir.Path("wrong") + "/"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("leveldb-bloom-legacy"), std::string::npos) << r.err;
  r = RunCli({"convert", legacy, "--to", "leveldb-filter-block", "-o", dir.Path("wrong.bin")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("1.17"), std::string::npos) << r.err;
  r = RunCli({"convert", legacy, "--to", "leveldb-bloom-legacy", "-o", dir.Path("old") + "/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunCli({"convert", dir.Path("old/filters.json"), "--to", "leveldb-filter-block", "-o",
              dir.Path("old.bin")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("old.bin")),
            ReadFixture("leveldb/tables/tb_legacy_v117_signed_bpk10_bs256.filterblock.bin"));
}

TEST(ConvertSplit, SeveralFiltersNeedADirectoryAndTheListNamesExistingFiles) {
  CliDir dir;
  CliRun r =
      RunCli({"convert", Cli("leveldb/tables/tb_bpk10_none_bs64.filterblock.bin"), "--format",
              "leveldb-filter-block", "--to", "leveldb-bloom", "-o", dir.Path("one.bin")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-o DIR/"), std::string::npos) << r.err;

  r = RunCli({"convert", Cli("leveldb/tables/tb_bpk10_none_bs64.filterblock.bin"), "--format",
              "leveldb-filter-block", "--to", "leveldb-bloom", "-o", dir.Path("s") + "/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::remove(dir.Path("s/filter-001"));
  r = RunCli({"convert", dir.Path("s/filters.json"), "--to", "leveldb-filter-block", "-o",
              dir.Path("j.bin")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("filter-001"), std::string::npos) << r.err;
}

// Splits written before the list was called filters.json have it as manifest.json: the same
// document, joined as before.
TEST(ConvertSplit, AnOldSplitsManifestJsonStillJoins) {
  CliDir dir;
  const std::string block = Cli("leveldb/tables/tb_bpk10_none_bs64.filterblock.bin");
  CliRun r = RunCli({"convert", block, "--format", "leveldb-filter-block", "--to", "leveldb-bloom",
                     "-o", dir.Path("old") + "/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.Path("old/manifest.json")));
  std::filesystem::rename(dir.Path("old/filters.json"), dir.Path("old/manifest.json"));
  r = RunCli({"convert", dir.Path("old/manifest.json"), "--to", "leveldb-filter-block", "-o",
              dir.Path("joined.bin")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("joined.bin")),
            ReadFixture("leveldb/tables/tb_bpk10_none_bs64.filterblock.bin"));
}

TEST(ConvertRebuild, LegacyCassandraRebuiltAsV10EqualsBuildV10FilterOfTheSameKeys) {
  CliDir dir;
  for (const char* name : {"legacy_n10_b15", "legacy_n1000_b15", "legacy_n5000_b15"}) {
    SCOPED_TRACE(name);
    const std::string base = std::string("cassandra-1.0/legacy/") + name;
    auto report =
        RunJson({"convert", Cli(base + ".Filter.db"), "--format", "cassandra-legacy", "--to",
                 "cassandra-1.0", "--buckets-per-element", "15", "--keys", Cli(base + ".keys.txt"),
                 "--key-format", "hex", "-o", dir.Path("v10.db"), "--json"});
    EXPECT_EQ(report["how"], "rebuilt");
    const std::string keys_text = ReadFixtureText(base + ".keys.txt");
    auto keys = ParseKeyFile(AsBytes(keys_text), KeyFormat::kHex, "keys");  // hex lines
    ASSERT_TRUE(keys.ok());
    EXPECT_EQ(report["keys"].get<std::size_t>(), keys->size());
    auto spec = cassandra::SizeForBucketsPerElement(static_cast<std::int64_t>(keys->size()), 15);
    ASSERT_TRUE(spec.ok());
    auto expected = cassandra::BuildV10Filter(*keys, *spec);
    ASSERT_TRUE(expected.ok());
    EXPECT_EQ(ReadAnyFile(dir.Path("v10.db")), *expected);

    // The same keys read from an Index.db (the SSTable's own key list).
    auto index = cassandra::WriteIndexDb(*keys);
    ASSERT_TRUE(index.ok());
    const std::string index_path = dir.Write("Standard1-e-1-Index.db", *index);
    CliRun r = RunCli({"convert", Cli(base + ".Filter.db"), "--format", "cassandra-legacy", "--to",
                       "cassandra-1.0", "--buckets-per-element", "15", "--index", index_path, "-o",
                       dir.Path("from-index.db")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("from-index.db")), *expected);
  }
}

TEST(ConvertRebuild, LevelDb117FilterRebuiltWithThe118HashEqualsTheGolden123Filter) {
  CliDir dir;
  const std::string keys_hex = ReadFixtureText("leveldb/raw/keys.hex");
  for (int n : {1, 10, 100, 1000, 10000}) {
    SCOPED_TRACE(n);
    const std::string keys =
        dir.Write("keys.hex", FirstLines(keys_hex, static_cast<std::size_t>(n)));
    const std::string name = "bpk10_n" + std::to_string(n) + ".bin";
    CliRun r =
        RunCli({"convert", Cli("leveldb/raw/legacy_v1.17_signed_char/filters/" + name), "--format",
                "leveldb-bloom-legacy", "--to", "leveldb-bloom", "--bits-per-key", "10", "--keys",
                keys, "--key-format", "hex", "-o", dir.Path("new.bin")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("rebuilt"), std::string::npos);
    EXPECT_EQ(ReadAnyFile(dir.Path("new.bin")), ReadFixture("leveldb/raw/filters/" + name));
  }
}

TEST(ConvertRefusal, WithoutKeysWhereTheBitsCannotCarryOverSaysWhichKeySourceIsNeeded) {
  CliDir dir;
  CliRun r = RunCli({"convert", Cli("cassandra-1.0/legacy/legacy_n10_b15.Filter.db"), "--format",
                     "cassandra-legacy", "--to", "cassandra-1.0", "--buckets-per-element", "15",
                     "-o", dir.Path("x")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--keys"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--index"), std::string::npos) << r.err;
  EXPECT_EQ(LineCount(r.err), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir.Path("x")));

  r = RunCli({"convert", Cli("leveldb/raw/legacy_v1.17_signed_char/filters/bpk10_n100.bin"),
              "--format", "leveldb-bloom-legacy", "--to", "leveldb-bloom", "-o", dir.Path("y")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--keys"), std::string::npos) << r.err;
  // Same format, new size: still a rebuild.
  r = RunCli({"convert", Cli("leveldb/raw/filters/bpk10_n100.bin"), "--format", "leveldb-bloom",
              "--to", "leveldb-bloom", "--bits-per-key", "20", "-o", dir.Path("z")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("new parameters"), std::string::npos) << r.err;
}

TEST(ConvertRefusal, KeysThatAreNotTheInputFiltersKeysAreRefusedUnlessForced) {
  CliDir dir;
  // The probes of the golden data are absent from the filter (most answer 0).
  const std::string keys_hex = ReadFixtureText("leveldb/raw/probes.hex");
  const std::string keys = dir.Write("probes.hex", FirstLines(keys_hex, 50));
  const std::string in = Cli("leveldb/raw/legacy_v1.17_signed_char/filters/bpk10_n1000.bin");
  CliRun r =
      RunCli({"convert", in, "--format", "leveldb-bloom-legacy", "--to", "leveldb-bloom",
              "--bits-per-key", "10", "--keys", keys, "--key-format", "hex", "-o", dir.Path("x")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("are absent from"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.Path("x")));

  auto report = RunJson({"convert", in, "--format", "leveldb-bloom-legacy", "--to", "leveldb-bloom",
                         "--bits-per-key", "10", "--keys", keys, "--key-format", "hex", "-o",
                         dir.Path("x"), "--force", "--json"});
  EXPECT_EQ(report["how"], "rebuilt");
  ASSERT_FALSE(report["warnings"].empty());
  EXPECT_NE(report["warnings"][0].get<std::string>().find("absent"), std::string::npos);
}

// Keys from an Index.db are counted by entry, not by line.
TEST(ConvertRefusal, AnotherSstablesIndexIsRefusedNamingTheFirstEntry) {
  CliDir dir;
  CliRun r = RunCli({"convert", Cli("demo/cassandra-data/Keyspace1/Standard1-hc-1-Filter.db"),
                     "--to", "cassandra-1.0", "--buckets-per-element", "10", "--index",
                     Cli("demo/cassandra-data/Keyspace1/Standard2-hc-5-Index.db"), "-o",
                     dir.Path("x.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("(the first is entry "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("line"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.Path("x.db")));
}

TEST(ConvertRefusal, NeverOverwritesAnInputOrTheKeyFile) {
  CliDir dir;
  const ByteVector original = ReadFixture("cassandra-1.0/filters/n10_b15.Filter.db");
  const std::string in = dir.Write("f.db", original);
  CliRun r =
      RunCli({"convert", in, "--format", "cassandra-1.0", "--to", "cassandra-1.0", "-o", in});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("refusing to overwrite"), std::string::npos) << r.err;
  std::filesystem::create_hard_link(in, dir.Path("link.db"));
  r = RunCli({"convert", in, "--format", "cassandra-1.0", "--to", "cassandra-1.0", "-o",
              dir.Path("link.db")});
  EXPECT_EQ(r.exit_code, 2);
  const std::string keys =
      dir.Write("keys.txt", ReadFixtureText("cassandra-1.0/filters/keys_n10.txt"));
  r = RunCli({"convert", Cli("cassandra-1.0/legacy/legacy_n10_b15.Filter.db"), "--format",
              "cassandra-legacy", "--to", "cassandra-1.0", "--buckets-per-element", "15", "--keys",
              keys, "-o", keys});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("refusing to overwrite"), std::string::npos) << r.err;
  EXPECT_EQ(ReadAnyFile(in), original);
}

TEST(ConvertRefusal, UsageErrorsNameWhatIsMissing) {
  CliDir dir;
  const std::string in = Cli("cassandra-1.0/filters/n10_b15.Filter.db");
  CliRun r = RunCli({"convert", in, "--format", "cassandra-1.0", "-o", dir.Path("x")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--to"), std::string::npos) << r.err;
  r = RunCli({"convert", in, "--format", "cassandra-1.0", "--to", "cassandra-1.0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-o"), std::string::npos) << r.err;
  r = RunCli({"convert", in, "--to", "cassandra-1.0", "-o", dir.Path("x")});  // no --format
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;
  r = RunCli({"convert", in, "--format", "cassandra-1.0", "--to", "leveldb-table", "--no-filter",
              "-o", dir.Path("x")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--no-filter"), std::string::npos) << r.err;
}

TEST(ConvertGzip, GzippedInputsAreReadAndDotGzOutputsWritten) {
  CliDir dir;
  // keys_n100000.txt and the 100000-key filter are bundled gzipped.
  CliRun r = RunCli({"convert", FixtureForCli("leveldb/tables/db_bpk10_snappy_bs1024__000005.ldb"),
                     "--to", "leveldb-filter-block", "-o", dir.Path("fb.bin.gz")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const ByteVector raw = ReadAnyFile(dir.Path("fb.bin.gz"));
  EXPECT_EQ(raw, ReadFixture("leveldb/tables/db_bpk10_snappy_bs1024__000005.filterblock.bin"));
  // Really gzip on disk: the magic bytes.
  std::FILE* f = std::fopen(dir.Path("fb.bin.gz").c_str(), "rb");
  ASSERT_NE(f, nullptr);
  unsigned char magic[2] = {0, 0};
  EXPECT_EQ(std::fread(magic, 1, 2, f), 2u);
  std::fclose(f);
  EXPECT_EQ(magic[0], 0x1f);
  EXPECT_EQ(magic[1], 0x8b);
  // And read back (a gzipped dump too).
  CliRun dump =
      RunCli({"dump", dir.Path("fb.bin.gz"), "--format", "leveldb-filter-block", "--json"});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  dir.Write("d.json", dump.out);
  r = RunCli(
      {"convert", dir.Path("d.json"), "--to", "leveldb-filter-block", "-o", dir.Path("x.gz")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("x.gz")), raw);
}

TEST(ConvertReport, JsonSaysWhatWasWrittenAndHow) {
  CliDir dir;
  auto report =
      RunJson({"convert", Cli("cassandra-1.0/filters/n10_b15.Filter.db"), "--format",
               "cassandra-1.0", "--to", "cassandra-1.0-row", "-o", dir.Path("r.bin"), "--json"});
  EXPECT_EQ(report["input_format"], "cassandra-1.0");
  EXPECT_EQ(report["format"], "cassandra-1.0-row");
  EXPECT_EQ(report["output"], dir.Path("r.bin"));
  EXPECT_EQ(report["how"], "lossless");
  EXPECT_EQ(report["bytes"].get<std::size_t>(), ReadAnyFile(dir.Path("r.bin")).size());
  EXPECT_TRUE(report["warnings"].is_array());
  EXPECT_FALSE(report.contains("keys"));
}

}  // namespace
}  // namespace bloomcodec::testing

namespace bloomcodec::testing {
namespace {

TEST(ConvertRebuild, FromTableUsesTheTablesStoredKeys) {
  CliDir dir;
  TsvTable t = ReadTsvFixture("leveldb/tables/tb_bpk10_none_bs64.keys.tsv");
  std::string hex;
  for (std::size_t i = 0; i < t.rows.size(); ++i) hex += t.At(i, "key_hex") + "\n";
  const std::string keys = dir.Write("keys.hex", hex);
  auto report = RunJson({"convert", FixtureForCli("leveldb/tables/tb_bpk10_none_bs64.ldb"), "--to",
                         "leveldb-bloom", "--bits-per-key", "10", "--from-table", "-o",
                         dir.Path("all.bin"), "--json"});
  EXPECT_EQ(report["how"], "rebuilt");
  EXPECT_EQ(report["key_source"], "table");
  EXPECT_EQ(report["keys"].get<std::size_t>(), t.rows.size());
  CliRun built = RunCli({"build", "--format", "leveldb-bloom", "--keys", keys, "--key-format",
                         "hex", "--bits-per-key", "10", "-o", dir.Path("built.bin")});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("all.bin")), ReadAnyFile(dir.Path("built.bin")));

  CliRun r = RunCli({"convert", FixtureForCli("leveldb/raw/filters/bpk10_n100.bin"), "--format",
                     "leveldb-bloom", "--to", "leveldb-bloom", "--bits-per-key", "5",
                     "--from-table", "-o", dir.Path("x")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("leveldb-table input"), std::string::npos) << r.err;
}

TEST(ConvertRebuild, TooFewKeysForTheFillAreRefusedUnlessForced) {
  CliDir dir;
  const std::string keys =
      dir.Write("ten.hex", FirstLines(ReadFixtureText("cassandra-1.0/filters/keys_n1000.txt"), 10));
  std::vector<std::string> args = {"convert",
                                   FixtureForCli("cassandra-1.0/filters/n1000_b15.Filter.db"),
                                   "--format",
                                   "cassandra-1.0",
                                   "--to",
                                   "cassandra-legacy",
                                   "--buckets-per-element",
                                   "15",
                                   "--keys",
                                   keys,
                                   "--key-format",
                                   "hex",
                                   "-o",
                                   dir.Path("legacy.db")};
  // 10 of the 1000 keys: the other 990 would be lost.
  CliRun refused = RunCli(args);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("suggests about"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir.Path("legacy.db")));
  args.push_back("--force");
  args.push_back("--json");
  auto report = RunJson(args);
  EXPECT_EQ(report["how"], "rebuilt");
  ASSERT_EQ(report["warnings"].size(), 1u);
  EXPECT_NE(report["warnings"][0].get<std::string>().find("suggests about"), std::string::npos);
  // With all of them: no warning, and the result is the golden legacy filter's layout.
  const std::string all =
      dir.Write("all.hex", ReadFixtureText("cassandra-1.0/filters/keys_n1000.txt"));
  report =
      RunJson({"convert", FixtureForCli("cassandra-1.0/filters/n1000_b15.Filter.db"), "--format",
               "cassandra-1.0", "--to", "cassandra-legacy", "--buckets-per-element", "15", "--keys",
               all, "--key-format", "hex", "-o", dir.Path("legacy.db"), "--json"});
  EXPECT_TRUE(report["warnings"].empty());
  EXPECT_EQ(report["keys"], 1000);
}

TEST(ConvertSplit, AOneFilterBlockConvertsToItsSingleFilter) {
  CliDir dir;
  const std::string keys = dir.Write("k.txt", "alpha\nbeta\ngamma\n");
  ASSERT_EQ(RunCli({"build", "--format", "leveldb-filter-block", "--keys", keys, "--bits-per-key",
                    "10", "-o", dir.Path("block.bin")})
                .exit_code,
            0);
  ASSERT_EQ(RunCli({"build", "--format", "leveldb-bloom", "--keys", keys, "--bits-per-key", "10",
                    "-o", dir.Path("bloom.bin")})
                .exit_code,
            0);
  CliRun r = RunCli({"convert", dir.Path("block.bin"), "--format", "leveldb-filter-block", "--to",
                     "leveldb-bloom", "-o", dir.Path("one.bin")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("one.bin")), ReadAnyFile(dir.Path("bloom.bin")));
}

}  // namespace
}  // namespace bloomcodec::testing

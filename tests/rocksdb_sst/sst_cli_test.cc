// rocksdb-sst through the command line: probe, inspect, verify (one SST, a damaged one, a
// RocksDB database directory), dump and its round trip, bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "cli/cli_runner.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

const std::string kRibbon = "rocksdb-sst/sst_ribbon_fv5_bpk10";
const std::string kSnappy = "rocksdb-sst/sst_fastlocal_bloom_fv5_bpk10_snappy_crc32c";

TEST(RocksDbSstCli, ProbeWithoutFormatAnswersAsRocksDbFilterReader) {
  for (const std::string& name : {kRibbon, kSnappy}) {
    CliDir dir;
    const TsvTable probes = ReadTsvFixture(name + ".probes.tsv");
    std::string keys, expected;
    for (std::size_t i = 0; i < probes.rows.size(); ++i) {
      keys += probes.At(i, "key_hex") + "\n";
      expected += probes.At(i, "may_match_direct") + "\n";
    }
    CliRun r = RunCli({"probe", FixtureForCli(name + ".sst"), "--keys", dir.Write("k", keys),
                       "--key-format", "hex"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, expected);
  }
}

TEST(RocksDbSstCli, InspectJsonShowsFooterPropertiesAndFilter) {
  CliRun r = RunCli({"inspect", FixtureForCli(kSnappy + ".sst"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  ASSERT_TRUE(doc.contains("files")) << r.out;
  const Json& f = doc.at("files").at(0);
  EXPECT_EQ(f["format"], "rocksdb-sst");
  EXPECT_EQ(f["footer"]["format_version"], 5);
  EXPECT_EQ(f["footer"]["checksum"], "crc32c");
  EXPECT_EQ(f["footer"]["metaindex"]["offset"], 45861);
  EXPECT_EQ(f["properties"]["rocksdb.num.entries"], 1000);
  EXPECT_EQ(f["properties"]["rocksdb.compression"], "Snappy");
  EXPECT_EQ(f["filter"]["metaindex_key"], "fullfilter.rocksdb.BuiltinBloomFilter");
  EXPECT_EQ(f["filter"]["handle"]["offset"], 43057);
  EXPECT_EQ(f["filter"]["handle"]["size"], 1285);
  EXPECT_EQ(f["num_data_blocks"], f["properties"]["rocksdb.num.data.blocks"]);
  ASSERT_FALSE(f["data_blocks"].empty());
  // RocksDB keeps a Snappy result only when it saves enough; most blocks here are compressed.
  int snappy = 0;
  for (const Json& b : f["data_blocks"]) snappy += b["compression"] == "Snappy" ? 1 : 0;
  EXPECT_GT(snappy, 0);
}

TEST(RocksDbSstCli, VerifyFromTablePassesAndADamagedBlockFails) {
  CliDir dir;
  CliRun ok = RunCli({"verify", FixtureForCli(kRibbon + ".sst"), "--from-table", "--json"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err << ok.out;
  const Json report = Json::parse(ok.out);
  EXPECT_EQ(report["files"][0]["keys_checked"], 3000);
  EXPECT_EQ(report["files"][0]["false_negative_count"], 0);

  ByteVector bytes = ReadFixture(kRibbon + ".sst");
  bytes[100] ^= 0x20;  // inside the first data block
  const std::string damaged = dir.Write("000009.sst", bytes);
  CliRun bad = RunCli({"verify", damaged, "--json"});
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  const Json b = Json::parse(bad.out);
  ASSERT_FALSE(b["files"][0]["findings"].empty());
  EXPECT_EQ(b["files"][0]["findings"][0]["kind"], "structure");
  EXPECT_NE(b["files"][0]["findings"][0]["message"].get<std::string>().find("xxh3 checksum"),
            std::string::npos);
}

TEST(RocksDbSstCli, VerifyDatabaseDirectoryCombinesEveryTablesRate) {
  CliDir dir;
  const std::string db = dir.Path("db");
  fs::create_directories(db);
  dir.Write("db/CURRENT", "MANIFEST-000004\n");
  dir.Write("db/MANIFEST-000004", "");
  dir.Write("db/OPTIONS-000007", "[Version]\n");
  dir.Write("db/000010.sst", ReadFixture(kRibbon + ".sst"));
  dir.Write("db/000011.sst", ReadFixture(kSnappy + ".sst"));
  // The MANIFEST CURRENT names is empty: a "manifest" error on it (exit 1), after which verify
  // falls back to the directory listing and still combines every table's rate.
  CliRun r = RunCli({"verify", db, "--json"});
  ASSERT_EQ(r.exit_code, 1) << r.err << r.out;
  const Json doc = Json::parse(r.out);
  ASSERT_EQ(doc["files"].size(), 3u);
  EXPECT_EQ(doc["files"][0]["path"], db + "/MANIFEST-000004");
  EXPECT_EQ(doc["files"][0]["findings"][0]["kind"], "manifest");
  EXPECT_EQ(doc["files"][0]["group"], "");
  double keep = 1;
  for (const Json& f : doc["files"]) {
    if (f["path"] == db + "/MANIFEST-000004") continue;
    EXPECT_EQ(f["format"], "rocksdb-sst");
    EXPECT_GT(f["keys_checked"].get<int>(), 0);
    keep *= 1 - f["fp_rate"].get<double>();
  }
  ASSERT_EQ(doc["summary"]["groups"].size(), 1u);
  EXPECT_EQ(doc["summary"]["groups"][0]["tables"], 2);
  EXPECT_NEAR(doc["summary"]["groups"][0]["combined_fp_rate"].get<double>(), 1 - keep, 1e-12);
  CliRun text = RunCli({"verify", db});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("falls back to the directory listing"), std::string::npos);
  EXPECT_NE(text.out.find("000010.sst"), std::string::npos);
  EXPECT_NE(text.out.find("000011.sst"), std::string::npos);
}

TEST(RocksDbSstCli, DumpConvertsBackToTheSameBytes) {
  CliDir dir;
  CliRun d = RunCli({"dump", FixtureForCli(kSnappy + ".sst"), "--json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const std::string dump = dir.Write("dump.json", d.out);
  const std::string out = dir.Path("back.sst");
  CliRun c = RunCli({"convert", dump, "--to", "rocksdb-sst", "-o", out});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(ReadAnyFile(out), ReadFixture(kSnappy + ".sst"));
}

TEST(RocksDbSstCli, TruncatedFileIsExitTwoWithOneMessageNamingTheByte) {
  CliDir dir;
  ByteVector bytes = ReadFixture(kRibbon + ".sst");
  bytes.resize(bytes.size() - 20);
  const std::string cut = dir.Write("cut.sst", bytes);
  CliRun r = RunCli({"inspect", cut, "--format", "rocksdb-sst"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(LineCount(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("cut.sst"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("byte"), std::string::npos) << r.err;
}

TEST(RocksDbSstCli, LevelDbTablesStayLevelDbWithoutFormat) {
  // A LevelDB table ends in the magic RocksDB calls its legacy block-based one: without --format
  // it is a leveldb-table; with --format rocksdb-sst it is read as RocksDB reads it (fv 0). A
  // database's table (internal keys): RocksDB 7.8 opens those (leveldb_tables_read_by_rocksdb).
  const std::string table = FixtureForCli("leveldb/tables/db_bpk10_snappy_bs1024__000005.ldb");
  CliRun plain = RunCli({"inspect", table, "--json"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  Json p = Json::parse(plain.out);
  EXPECT_EQ(p.at("files").at(0).at("format"), "leveldb-table");
  CliRun as_rocks = RunCli({"inspect", table, "--format", "rocksdb-sst", "--json"});
  ASSERT_EQ(as_rocks.exit_code, 0) << as_rocks.err;
  Json r = Json::parse(as_rocks.out);
  const Json& f = r.at("files").at(0);
  EXPECT_EQ(f["footer"]["format_version"], 0);
  EXPECT_EQ(f["footer"]["legacy_magic"], true);
  EXPECT_TRUE(f["filter"].is_null());  // RocksDB never uses a LevelDB filter
  EXPECT_TRUE(f["properties"].is_null());
  // Its keys read as RocksDB iterates them: the golden count of visible entries is 2000 (no
  // older versions in this table), each one data-block entry.
  CliRun v = RunCli({"verify", table, "--format", "rocksdb-sst", "--json"});
  EXPECT_EQ(v.exit_code, 0) << v.err << v.out;  // a warning (no filter RocksDB uses) only
  const Json vr = Json::parse(v.out);
  EXPECT_EQ(vr["files"][0]["keys_checked"], 2000);
  EXPECT_EQ(vr["files"][0]["findings"][0]["kind"], "unsupported");
}
// A TableBuilder table of plain keys (no 8-byte tags): librocksdb aborts on it
// (leveldb_tables_read_by_rocksdb.tsv); verify reports it as damage with the offset of the
// first short key.
TEST(RocksDbSstCli, PlainKeyLevelDbTableFailsVerifyAsRocksDbSst) {
  const std::string table = FixtureForCli("leveldb/tables/tb_bpk10_snappy_bs256.ldb");
  CliRun r = RunCli({"verify", table, "--format", "rocksdb-sst", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const Json doc = Json::parse(r.out);
  const Json& finding = doc["files"][0]["findings"][0];
  EXPECT_EQ(finding["kind"], "structure");
  EXPECT_TRUE(finding["offset"].is_number());
  EXPECT_NE(finding["message"].get<std::string>().find("internal key of at least 8 bytes"),
            std::string::npos)
      << r.out;
}

// build: the golden keys with --bits-per-key 10 give an SST whose filter block is the one
// RocksDB's SstFileWriter wrote for them (FastLocalBloom, format_version 5), and whose keys
// read back as written.
TEST(RocksDbSstCli, BuildCarriesTheOriginalsFilterBlock) {
  CliDir dir;
  const std::string name = "rocksdb-sst/sst_fastlocal_bloom_fv5_bpk10";
  const std::string out = dir.Path("built.sst");
  CliRun b =
      RunCli({"build", "--format", "rocksdb-sst", "--keys", FixtureForCli(name + ".keys.hex"),
              "--key-format", "hex", "--bits-per-key", "10", "-o", out});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  CliRun i = RunCli({"inspect", out, "--json"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  const Json doc = Json::parse(i.out);
  const Json& f = doc.at("files").at(0);
  EXPECT_EQ(f["format"], "rocksdb-sst");
  const ByteVector built = ReadAnyFile(out);
  const std::uint64_t at = f["filter"]["handle"]["offset"].get<std::uint64_t>();
  const std::uint64_t size = f["filter"]["handle"]["size"].get<std::uint64_t>();
  ASSERT_LE(at + size, built.size());
  const ByteVector golden = ReadFixture(name + ".filter.bin");
  EXPECT_EQ(ByteVector(built.begin() + at, built.begin() + at + size), golden);
  CliRun v =
      RunCli({"verify", out, "--keys", FixtureForCli(name + ".keys.hex"), "--key-format", "hex"});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

// convert rewrites an SST's filter from its own keys (replace, remove), keeping its keys; the
// rewritten file verifies; rocksdb-sst --from-table gives the keys to other formats.
TEST(RocksDbSstCli, ConvertReplacesAndRemovesTheFilter) {
  CliDir dir;
  const std::string in = FixtureForCli(kSnappy + ".sst");
  const std::string five = dir.Path("000020.sst");
  CliRun r = RunCli({"convert", in, "--to", "rocksdb-sst", "--bits-per-key", "5", "-o", five});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json i = Json::parse(RunCli({"inspect", five, "--json"}).out);
  const Json& f = i.at("files").at(0);
  EXPECT_EQ(f["filter"]["filter"]["num_probes"], 3);  // millibits 5000 -> 3 probes
  EXPECT_EQ(f["properties"]["rocksdb.num.entries"], 1000);
  EXPECT_EQ(f["properties"]["rocksdb.filter.size"], f["filter"]["handle"]["size"]);
  CliRun v = RunCli({"verify", five, "--from-table"});
  EXPECT_EQ(v.exit_code, 0) << v.out;

  const std::string none = dir.Path("000021.sst");
  r = RunCli({"convert", in, "--to", "rocksdb-sst", "--no-filter", "-o", none});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  CliRun probe = RunCli({"probe", none, "--keys", dir.Write("k", "absent-key\n")});
  EXPECT_EQ(probe.out, "1\n");  // no filter: every key may be present
  const Json vn = Json::parse(RunCli({"verify", none, "--json"}).out);
  EXPECT_EQ(vn["files"][0]["findings"][0]["kind"], "no-filter");
  EXPECT_EQ(vn["summary"]["groups"][0]["combined_fp_rate"], 1.0);

  // --keys does not apply: the filter is rebuilt from the SST's own keys.
  CliRun bad = RunCli({"convert", in, "--to", "rocksdb-sst", "--bits-per-key", "5", "--keys",
                       dir.Write("k2", "a\n"), "-o", dir.Path("x.sst")});
  EXPECT_EQ(bad.exit_code, 2);
}

// An SST's full filter carries over as a raw RocksDB filter (lossless), and --from-table rebuilds
// one from the SST's keys: both are the golden filter block.
TEST(RocksDbSstCli, FilterBlockToRawFilterLosslessAndRebuilt) {
  CliDir dir;
  const std::string name = "rocksdb-sst/sst_fastlocal_bloom_fv5_bpk10";
  const ByteVector golden = ReadFixture(name + ".filter.bin");
  const std::string lossless = dir.Path("lossless.bin");
  CliRun a =
      RunCli({"convert", FixtureForCli(name + ".sst"), "--to", "rocksdb-bloom", "-o", lossless});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(ReadAnyFile(lossless), golden);
  const std::string rebuilt = dir.Path("rebuilt.bin");
  CliRun b = RunCli({"convert", FixtureForCli(name + ".sst"), "--to", "rocksdb-bloom",
                     "--bits-per-key", "10", "--from-table", "-o", rebuilt});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(ReadAnyFile(rebuilt), golden);
}

// format_version 6 and 7 (RocksDB 9.7 and 10.5.1 wrote the fixtures, keys key000..): every
// subcommand that reads an SST.
TEST(RocksDbSstCli, FormatVersion6And7ThroughEverySubcommand) {
  struct Table {
    std::string name;
    int format_version;
    int keys;
    std::string to;  // the raw filter format of its full filter
  };
  for (const Table& t :
       {Table{"rocksdb-sst/witness_fv6_rocksdb9.7_ribbon10.sst", 6, 20, "rocksdb-ribbon"},
        Table{"rocksdb-sst/witness_fv7_rocksdb10.5_bloom10.sst", 7, 10, "rocksdb-bloom"}}) {
    CliDir dir;
    const std::string sst = FixtureForCli(t.name);
    CliRun i = RunCli({"inspect", sst, "--json"});
    ASSERT_EQ(i.exit_code, 0) << i.err;
    const Json f = Json::parse(i.out).at("files").at(0);
    EXPECT_EQ(f["footer"]["format_version"], t.format_version);
    EXPECT_EQ(f["footer"]["index_in_metaindex"], true);
    EXPECT_EQ(f["footer"]["base_context_checksum"].get<std::string>().size(), 10u);
    EXPECT_GT(f["footer"]["index"]["size"].get<int>(), 0);
    EXPECT_EQ(f["compression_dictionary_bytes"], 0);
    bool index_role = false;
    for (const Json& m : f["metaindex"]) index_role |= m["key"] == "rocksdb.index";
    EXPECT_TRUE(index_role);

    std::string keys;
    for (int k = 0; k < t.keys; ++k) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "key%03d\n", k);
      keys += buf;
    }
    CliRun p = RunCli({"probe", sst, "--keys", dir.Write("keys", keys)});
    ASSERT_EQ(p.exit_code, 0) << p.err;
    std::string every_key_may_match;
    for (int k = 0; k < t.keys; ++k) every_key_may_match += "1\n";
    EXPECT_EQ(p.out, every_key_may_match);

    CliRun v = RunCli({"verify", sst});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    EXPECT_NE(v.out.find(std::to_string(t.keys) + " keys checked, 0 false negatives"),
              std::string::npos)
        << v.out;

    CliRun d = RunCli({"dump", sst, "--json"});
    ASSERT_EQ(d.exit_code, 0) << d.err;
    EXPECT_EQ(Json::parse(d.out)["footer"]["format_version"], t.format_version);

    // The filter out as a raw filter, and rebuilt from the table's keys: the same bytes.
    const std::string lossless = dir.Path("lossless.bin");
    CliRun a = RunCli({"convert", sst, "--to", t.to, "-o", lossless});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    const std::string rebuilt = dir.Path("rebuilt.bin");
    CliRun b = RunCli(
        {"convert", sst, "--to", t.to, "--bits-per-key", "10", "--from-table", "-o", rebuilt});
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(ReadAnyFile(rebuilt), ReadAnyFile(lossless));

    // Its filter rewritten: the moved blocks keep valid context checksums.
    const std::string rewritten = dir.Path("rewritten.sst");
    CliRun r =
        RunCli({"convert", sst, "--to", "rocksdb-sst", "--bits-per-key", "6", "-o", rewritten});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    CliRun rv = RunCli({"verify", rewritten});
    EXPECT_EQ(rv.exit_code, 0) << rv.out << rv.err;
  }
}

}  // namespace
}  // namespace bloomcodec::testing

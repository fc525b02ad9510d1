// The command line on RocksDB full filters, against RocksDB 7.8.3's golden output: build
// reproduces FilterBitsBuilder::Finish, probe the reader's answers (whichever of the three names
// is given: the trailer decides), hash the two hashes, size the lengths RocksDB allocates, and
// inspect / dump / verify / convert on those filters.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

const std::vector<std::string> kFormats = {"rocksdb-bloom-legacy", "rocksdb-bloom",
                                           "rocksdb-ribbon"};

std::string FormatOf(const TsvTable& t, std::size_t row) {
  if (t.At(row, "kind") == "ribbon") return "rocksdb-ribbon";
  return std::stoi(t.At(row, "format_version")) < 5 ? "rocksdb-bloom-legacy" : "rocksdb-bloom";
}

std::string AnswerLines(const std::string& answers) {
  std::string lines;
  for (char a : answers) lines += std::string(1, a) + "\n";
  return lines;
}

class KeyPrefixes {
 public:
  explicit KeyPrefixes(const CliDir& dir)
      : dir_(dir), all_(ReadFixtureText("leveldb/raw/keys.hex")) {}
  const std::string& For(const std::string& n) {
    auto it = files_.find(n);
    if (it != files_.end()) return it->second;
    return files_[n] = dir_.Write("keys_" + n + ".hex", FirstLines(all_, std::stoul(n)));
  }

 private:
  const CliDir& dir_;
  std::string all_;
  std::map<std::string, std::string> files_;
};

nlohmann::json Json(const CliRun& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(RocksdbCli, BuildAndProbeReproduceEveryGoldenFilter) {
  const TsvTable t = ReadTsvFixture("rocksdb/raw_filters.tsv");
  ASSERT_EQ(t.rows.size(), 78u);
  CliDir dir;
  KeyPrefixes prefixes(dir);
  const std::string probes = FixtureForCli("leveldb/raw/probes.hex");
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::string file = "rocksdb/" + t.At(i, "file");
    const std::string format = FormatOf(t, i);
    CliRun built = RunCli({"build", "--format", format, "--keys", prefixes.For(t.At(i, "num_keys")),
                           "--key-format", "hex", "--bits-per-key", t.At(i, "bits_per_key"), "-o",
                           dir.Path("f.bin")});
    ASSERT_EQ(built.exit_code, 0) << file << ": " << built.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("f.bin")), ReadFixture(file)) << file;
    // RocksDB's reader goes by the trailer: every name gives its answers.
    for (const std::string& name : kFormats) {
      CliRun r = RunCli({"probe", FixtureForCli(file), "--format", name, "--keys", probes,
                         "--key-format", "hex"});
      ASSERT_EQ(r.exit_code, 0) << file << ": " << r.err;
      EXPECT_EQ(r.out, AnswerLines(t.At(i, "probe_answers"))) << file << " as " << name;
    }
  }
}

TEST(RocksdbCli, EdgeFiltersAnswerAsRocksdb) {
  const TsvTable t = ReadTsvFixture("rocksdb/edge_filters.tsv");
  CliDir dir;
  const std::string probes = FixtureForCli("leveldb/raw/probes.hex");
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::string f = dir.Write(t.At(i, "name") + ".bin", HexBytes(t.At(i, "filter_hex")));
    CliRun r =
        RunCli({"probe", f, "--format", "rocksdb-bloom", "--keys", probes, "--key-format", "hex"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, AnswerLines(t.At(i, "probe_answers"))) << t.At(i, "name");
  }
}

TEST(RocksdbCli, HashPrintsBothHashesAsUnsignedDecimals) {
  const TsvTable t = ReadTsvFixture("rocksdb/hash_vectors.tsv");
  std::string keys, legacy, wide;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    keys += t.At(i, "data_hex") + "\n";
    legacy += std::to_string(std::stoul(t.At(i, "hash32_seed_bc9f1d34"), nullptr, 16)) + "\n";
    wide += std::to_string(std::stoull(t.At(i, "hash64_xxph3"), nullptr, 16)) + "\n";
  }
  CliDir dir;
  const std::string k = dir.Write("k.hex", keys);
  CliRun a =
      RunCli({"hash", "--format", "rocksdb-bloom-legacy", "--keys", k, "--key-format", "hex"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, legacy);
  for (const char* f : {"rocksdb-bloom", "rocksdb-ribbon"}) {
    CliRun b = RunCli({"hash", "--format", f, "--keys", k, "--key-format", "hex"});
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(b.out, wide) << f;
  }
  // JSON keeps the 64-bit values exact.
  const nlohmann::json j = Json(
      RunCli({"hash", "--format", "rocksdb-bloom", "--keys", k, "--key-format", "hex", "--json"}));
  EXPECT_EQ(j["hashes"][1][0].get<std::uint64_t>(),
            std::stoull(t.At(1, "hash64_xxph3"), nullptr, 16));
}

TEST(RocksdbCli, SizeGivesTheLengthRocksdbWrites) {
  const TsvTable t = ReadTsvFixture("rocksdb/raw_filters.tsv");
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const nlohmann::json j =
        Json(RunCli({"size", "--format", FormatOf(t, i), "--expected-keys", t.At(i, "num_keys"),
                     "--bits-per-key", t.At(i, "bits_per_key"), "--json"}));
    EXPECT_EQ(j["file_bytes"].get<std::uint64_t>(), std::stoull(t.At(i, "filter_len")))
        << t.At(i, "file");
    if (FormatOf(t, i) != "rocksdb-ribbon") {
      // The trailer's probe count (legacy: first byte; FastLocalBloom: third).
      const ByteVector trailer = HexBytes(t.At(i, "trailer_hex"));
      EXPECT_EQ(j["hash_count"].get<int>(),
                FormatOf(t, i) == "rocksdb-bloom" ? trailer[2] : trailer[0]);
    }
  }
}

TEST(RocksdbCli, InspectReportsTheTrailer) {
  const nlohmann::json ribbon =
      Json(RunCli({"inspect", FixtureForCli("rocksdb/raw_filters/ribbon_fv5_bpk10_n10000.bin"),
                   "--format", "rocksdb-ribbon", "--json"}))["files"][0];
  EXPECT_EQ(ribbon["kind"], "ribbon");
  EXPECT_EQ(ribbon["seed"], 184);
  EXPECT_EQ(ribbon["num_blocks"], 81);
  EXPECT_FALSE(ribbon.contains("kind_note"));
  EXPECT_GE(ribbon["policy"]["sized_for_keys_max"].get<double>(), 10000);
  EXPECT_LE(ribbon["policy"]["sized_for_keys_min"].get<double>(), 10000);

  // A Ribbon policy's small filter is FastLocalBloom: inspect says so, probe reads it as such.
  const nlohmann::json small =
      Json(RunCli({"inspect", FixtureForCli("rocksdb/raw_filters/ribbon_fv5_bpk10_n100.bin"),
                   "--format", "rocksdb-ribbon", "--json"}))["files"][0];
  EXPECT_EQ(small["kind"], "fast_local_bloom");
  EXPECT_NE(small["kind_note"].get<std::string>().find("small key counts"), std::string::npos);
  EXPECT_EQ(small["num_probes"], 6);

  const nlohmann::json legacy = Json(
      RunCli({"inspect", FixtureForCli("rocksdb/raw_filters/legacy_bloom_fv4_bpk10_n10000.bin"),
              "--format", "rocksdb-bloom-legacy", "--json"}))["files"][0];
  EXPECT_EQ(legacy["kind"], "legacy_bloom");
  EXPECT_EQ(legacy["num_lines"], 197);
  EXPECT_EQ(legacy["num_probes"], 6);
  EXPECT_NEAR(legacy["estimated_keys"].get<double>(), 10000, 500);
  EXPECT_LE(legacy["policy"]["bits_per_key_min"].get<int>(), 10);
  EXPECT_GE(legacy["policy"]["bits_per_key_max"].get<int>(), 10);

  const nlohmann::json fast = Json(
      RunCli({"inspect", FixtureForCli("rocksdb/raw_filters/fastlocal_bloom_fv5_bpk16_n10000.bin"),
              "--format", "rocksdb-bloom", "--json"}))["files"][0];
  EXPECT_EQ(fast["kind"], "fast_local_bloom");
  EXPECT_EQ(fast["num_probes"], 9);
  EXPECT_NEAR(fast["estimated_keys"].get<double>(), 10000, 500);
  EXPECT_LE(fast["policy"]["bits_per_key_min"].get<double>(), 16);
  EXPECT_GE(fast["policy"]["bits_per_key_max"].get<double>(), 16);
}

TEST(RocksdbCli, DumpConvertsBackByteForByte) {
  const TsvTable t = ReadTsvFixture("rocksdb/raw_filters.tsv");
  CliDir dir;
  for (std::size_t i = 0; i < t.rows.size(); i += 3) {
    const std::string file = "rocksdb/" + t.At(i, "file");
    CliRun d = RunCli({"dump", FixtureForCli(file), "--format", FormatOf(t, i), "--json"});
    ASSERT_EQ(d.exit_code, 0) << d.err;
    const std::string json = dir.Write("d.json", d.out);
    CliRun c = RunCli({"convert", json, "--to", FormatOf(t, i), "-o", dir.Path("back.bin")});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("back.bin")), ReadFixture(file)) << file;
  }
  // Hand-edited: the trailer composed from its decoded fields.
  nlohmann::json doc = nlohmann::json::parse(
      RunCli({"dump", FixtureForCli("rocksdb/raw_filters/ribbon_fv5_bpk10_n1000.bin"), "--format",
              "rocksdb-ribbon", "--json"})
          .out);
  doc.erase("trailer_hex");
  CliRun c = RunCli({"convert", dir.Write("e.json", doc.dump()), "--to", "rocksdb-ribbon", "-o",
                     dir.Path("e.bin")});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("e.bin")),
            ReadFixture("rocksdb/raw_filters/ribbon_fv5_bpk10_n1000.bin"));
  doc["filter_bytes"] = 1;
  CliRun bad = RunCli({"convert", dir.Write("bad.json", doc.dump()), "--to", "rocksdb-ribbon", "-o",
                       dir.Path("bad.bin")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("filter_bytes"), std::string::npos) << bad.err;
}

TEST(RocksdbCli, VerifyFindsFalseNegativesAndReservedTrailers) {
  CliDir dir;
  KeyPrefixes prefixes(dir);
  const std::string filter = FixtureForCli("rocksdb/raw_filters/ribbon_fv5_bpk10_n1000.bin");
  CliRun ok = RunCli({"verify", filter, "--format", "rocksdb-ribbon", "--keys",
                      prefixes.For("1000"), "--key-format", "hex"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  // The first 2000 keys: the last 1000 were never added, and Ribbon rejects nearly all of them.
  CliRun bad = RunCli({"verify", filter, "--format", "rocksdb-ribbon", "--keys",
                       prefixes.For("2000"), "--key-format", "hex", "--json"});
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("false-negative"), std::string::npos) << bad.out;
  // Reserved marker: RocksDB matches everything, a warning.
  CliRun reserved = RunCli({"verify", dir.Write("r.bin", HexBytes("0000000000fd00000000")),
                            "--format", "rocksdb-bloom"});
  EXPECT_EQ(reserved.exit_code, 0) << reserved.out;
  EXPECT_NE(reserved.out.find("missing-filter"), std::string::npos) << reserved.out;
}

TEST(RocksdbCli, ConvertCarriesOverOrRebuilds) {
  CliDir dir;
  KeyPrefixes prefixes(dir);
  // A Ribbon policy's small FastLocalBloom filter already is an rocksdb-bloom filter.
  CliRun same =
      RunCli({"convert", FixtureForCli("rocksdb/raw_filters/ribbon_fv5_bpk10_n100.bin"), "--format",
              "rocksdb-ribbon", "--to", "rocksdb-bloom", "-o", dir.Path("s.bin"), "--json"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(nlohmann::json::parse(same.out)["how"], "lossless");
  EXPECT_EQ(ReadAnyFile(dir.Path("s.bin")),
            ReadFixture("rocksdb/raw_filters/fastlocal_bloom_fv5_bpk10_n100.bin"));
  // Ribbon -> FastLocalBloom needs the keys, and gives RocksDB's filter for them.
  CliRun refused =
      RunCli({"convert", FixtureForCli("rocksdb/raw_filters/ribbon_fv5_bpk10_n1000.bin"),
              "--format", "rocksdb-ribbon", "--to", "rocksdb-bloom", "-o", dir.Path("x.bin")});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--keys"), std::string::npos) << refused.err;
  CliRun rebuilt =
      RunCli({"convert", FixtureForCli("rocksdb/raw_filters/ribbon_fv5_bpk10_n1000.bin"),
              "--format", "rocksdb-ribbon", "--to", "rocksdb-bloom", "--bits-per-key", "10",
              "--keys", prefixes.For("1000"), "--key-format", "hex", "-o", dir.Path("b.bin")});
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("b.bin")),
            ReadFixture("rocksdb/raw_filters/fastlocal_bloom_fv5_bpk10_n1000.bin"));
  // From a LevelDB filter to RocksDB's legacy encoding and back.
  CliRun from_leveldb =
      RunCli({"convert", FixtureForCli("leveldb/raw/filters/bpk10_n1000.bin"), "--format",
              "leveldb-bloom", "--to", "rocksdb-bloom-legacy", "--bits-per-key", "10", "--keys",
              prefixes.For("1000"), "--key-format", "hex", "-o", dir.Path("l.bin")});
  ASSERT_EQ(from_leveldb.exit_code, 0) << from_leveldb.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("l.bin")),
            ReadFixture("rocksdb/raw_filters/legacy_bloom_fv4_bpk10_n1000.bin"));
  CliRun to_leveldb =
      RunCli({"convert", dir.Path("l.bin"), "--format", "rocksdb-bloom-legacy", "--to",
              "leveldb-bloom", "--bits-per-key", "10", "--keys", prefixes.For("1000"),
              "--key-format", "hex", "-o", dir.Path("back.bin")});
  ASSERT_EQ(to_leveldb.exit_code, 0) << to_leveldb.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("back.bin")), ReadFixture("leveldb/raw/filters/bpk10_n1000.bin"));
}

TEST(RocksdbCli, BadParametersAreUsageErrors) {
  CliDir dir;
  const std::string keys = dir.Write("k.txt", "a\nb\n");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"build", "--format", "rocksdb-bloom", "--keys", keys, "--bits-per-key", "0.4", "-o",
            dir.Path("o")},
           {"build", "--format", "rocksdb-ribbon", "--keys", keys, "--fp-chance", "0.01", "-o",
            dir.Path("o")},
           {"build", "--format", "rocksdb-bloom-legacy", "--keys", keys, "-o", dir.Path("o")},
           {"size", "--format", "rocksdb-bloom", "--bits-per-key", "10"},
           {"probe", dir.Write("f.bin", "\xff\x00\x06\x00\x00\x00"), "--keys", keys}}) {
    CliRun r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[2] << ": " << r.out;
    EXPECT_EQ(LineCount(r.err), 1u) << r.err;
  }
}

}  // namespace
}  // namespace bloomcodec::testing

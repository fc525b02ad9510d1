// The command line against the LevelDB golden data: build reproduces the filters of
// NewBloomFilterPolicy(B)->CreateFilter (1.23 and the 1.17 signed-char code), probe the answers
// of KeyMayMatch and of the table read path, hash the bloom hash, size the filter length.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

const std::string kRaw = "leveldb/raw/";

// The golden filter for N keys was built from the first N lines of keys.hex; writes those
// prefixes once per test into `dir` and returns the key file for each N.
class KeyPrefixes {
 public:
  explicit KeyPrefixes(const CliDir& dir) : dir_(dir), all_(ReadFixtureText(kRaw + "keys.hex")) {}
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

std::string AnswerLines(const std::string& answers) {
  std::string lines;
  for (char a : answers) lines += std::string(1, a) + "\n";
  return lines;
}

// Builds and probes every filter listed in FOLDER/filters.tsv with `format`.
void ExpectFiltersReproduced(const std::string& format, const std::string& folder) {
  TsvTable filters = ReadTsvFixture(folder + "filters.tsv");
  ASSERT_GE(filters.rows.size(), 20u);
  CliDir dir;
  KeyPrefixes prefixes(dir);
  std::string probes = FixtureForCli(kRaw + "probes.hex");
  for (std::size_t i = 0; i < filters.rows.size(); ++i) {
    std::string name = filters.At(i, "file");
    CliRun built =
        RunCli({"build", "--format", format, "--keys", prefixes.For(filters.At(i, "num_keys")),
                "--key-format", "hex", "--bits-per-key", filters.At(i, "bits_per_key"), "-o",
                dir.Path("filter.bin")});
    ASSERT_EQ(built.exit_code, 0) << name << ": " << built.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("filter.bin")), ReadFixture(folder + name)) << name;

    CliRun r = RunCli({"probe", FixtureForCli(folder + name), "--format", format, "--keys", probes,
                       "--key-format", "hex"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, AnswerLines(filters.At(i, "probe_answers"))) << name;
  }
}

TEST(LevelDbCli, BuildAndProbeReproduceLevelDb123Filters) {
  ExpectFiltersReproduced("leveldb-bloom", kRaw);
}

TEST(LevelDbCli, BuildAndProbeReproduceLevelDb117SignedCharFilters) {
  ExpectFiltersReproduced("leveldb-bloom-legacy", kRaw + "legacy_v1.17_signed_char/");
}

// A filter block built from keys alone holds them in one filter, for data block offset 0: the
// golden LevelDB 1.23 filter of those keys, then its u32 offset 0, the offset array's position
// and base_lg 11; no keys, no filter (LevelDB generates none). Probes through the block's
// reader answer as the golden filter did.
TEST(LevelDbCli, FilterBlocksFrameTheGoldenFiltersAndAnswerAsThey) {
  TsvTable filters = ReadTsvFixture(kRaw + "filters.tsv");
  CliDir dir;
  KeyPrefixes prefixes(dir);
  const std::string probes = FixtureForCli(kRaw + "probes.hex");
  int checked = 0;
  for (std::size_t i = 0; i < filters.rows.size(); i += 3) {
    const std::string name = filters.At(i, "file");
    const ByteVector filter = ReadFixture(kRaw + name);
    ByteVector expected;
    const bool empty = filters.At(i, "num_keys") == "0";
    if (!empty) expected = filter;
    auto put32 = [&](std::uint32_t v) {
      for (int b = 0; b < 4; ++b) expected.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
    };
    if (!empty) put32(0);
    put32(empty ? 0 : static_cast<std::uint32_t>(filter.size()));
    expected.push_back(11);
    CliRun built =
        RunCli({"build", "--format", "leveldb-filter-block", "--keys",
                prefixes.For(filters.At(i, "num_keys")), "--key-format", "hex", "--bits-per-key",
                filters.At(i, "bits_per_key"), "-o", dir.Path("block.bin")});
    ASSERT_EQ(built.exit_code, 0) << name << ": " << built.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("block.bin")), expected) << name;
    if (empty) continue;
    CliRun r = RunCli({"probe", dir.Path("block.bin"), "--format", "leveldb-filter-block", "--keys",
                       probes, "--key-format", "hex"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, AnswerLines(filters.At(i, "probe_answers"))) << name;
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

TEST(LevelDbCli, ProbeJsonAnswersMatchTheGoldenString) {
  TsvTable filters = ReadTsvFixture(kRaw + "filters.tsv");
  std::size_t row = 0;
  while (row < filters.rows.size() && filters.At(row, "file") != "filters/bpk10_n1000.bin") ++row;
  ASSERT_LT(row, filters.rows.size());
  std::string filter = FixtureForCli(kRaw + "filters/bpk10_n1000.bin");
  CliRun r = RunCli({"probe", filter, "--format", "leveldb-bloom", "--keys",
                     FixtureForCli(kRaw + "probes.hex"), "--key-format", "hex", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["format"], "leveldb-bloom");
  EXPECT_EQ(doc["file"], filter);
  EXPECT_EQ(doc["keys"], 5000);
  EXPECT_EQ(doc["positives"].dump(), filters.At(row, "probe_positives"));
  EXPECT_EQ(doc["answers"], filters.At(row, "probe_answers"));
}

TEST(LevelDbCli, HashReproducesBothTailFlavours) {
  TsvTable vectors = ReadTsvFixture(kRaw + "hash_vectors.tsv");
  std::string keys, current, legacy;
  int rows = 0;
  for (std::size_t i = 0; i < vectors.rows.size(); ++i) {
    if (vectors.At(i, "seed") != "bc9f1d34") continue;  // the bloom seed: what the filter hashes
    keys += vectors.At(i, "data_hex") + "\n";
    current += std::to_string(std::stoul(vectors.At(i, "hash_leveldb_1_23"), nullptr, 16)) + "\n";
    legacy +=
        std::to_string(std::stoul(vectors.At(i, "hash_legacy_signed_tail"), nullptr, 16)) + "\n";
    ++rows;
  }
  ASSERT_GE(rows, 300);
  ASSERT_NE(current, legacy);  // the signed tail really changes some hashes
  CliDir dir;
  std::string key_file = dir.Write("k.hex", keys);
  CliRun r =
      RunCli({"hash", "--format", "leveldb-bloom", "--keys", key_file, "--key-format", "hex"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, current);
  r = RunCli(
      {"hash", "--format", "leveldb-bloom-legacy", "--keys", key_file, "--key-format", "hex"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, legacy);
  // --json: one unsigned integer per key, in key order.
  r = RunCli(
      {"hash", "--format", "leveldb-bloom", "--keys", key_file, "--key-format", "hex", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  ASSERT_EQ(doc["hashes"].size(), static_cast<std::size_t>(rows));
  std::string from_json;
  for (const auto& h : doc["hashes"]) {
    ASSERT_EQ(h.size(), 1u);
    EXPECT_TRUE(h[0].is_number_unsigned());
    from_json += h[0].dump() + "\n";
  }
  EXPECT_EQ(from_json, current);
}

TEST(LevelDbCli, SizeHumanOutputPrintsBitsPerKeyAsAPlainNumber) {
  for (const char* bpk : {"10", "100", "7"}) {
    CliRun r = RunCli(
        {"size", "--format", "leveldb-bloom", "--expected-keys", "1000", "--bits-per-key", bpk});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("bits per key          " + std::string(bpk) + "\n"), std::string::npos)
        << r.out;
  }
}

TEST(LevelDbCli, SizeMatchesTheKTable) {
  TsvTable k_table = ReadTsvFixture(kRaw + "k_table.tsv");
  ASSERT_GE(k_table.rows.size(), 50u);
  for (std::size_t i = 0; i < k_table.rows.size(); i += 3) {
    for (const auto& [n, column] : {std::pair{"0", "filter_len_for_0_keys"},
                                    {"1", "filter_len_for_1_key"},
                                    {"100", "filter_len_for_100_keys"}}) {
      std::string bpk = k_table.At(i, "bits_per_key");
      CliRun r = RunCli({"size", "--format", "leveldb-bloom", "--expected-keys", n,
                         "--bits-per-key", bpk, "--json"});
      ASSERT_EQ(r.exit_code, 0) << bpk << " " << n << ": " << r.err;
      nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
      ASSERT_FALSE(doc.is_discarded()) << r.out;
      long long file_bytes = std::stoll(k_table.At(i, column));
      EXPECT_EQ(doc["hash_count"].dump(), k_table.At(i, "k")) << bpk;
      EXPECT_EQ(doc["file_bytes"], file_bytes) << bpk << " " << n;
      EXPECT_EQ(doc["bits"], (file_bytes - 1) * 8) << bpk << " " << n;
      EXPECT_EQ(doc["bits_per_key"], std::stod(bpk));
      EXPECT_FALSE(doc.contains("words"));
      EXPECT_FALSE(doc.contains("buckets_per_element"));
    }
  }
}

TEST(LevelDbCli, ParametersTheFormatDoesNotTakeAreRefused) {
  CliRun r = RunCli(
      {"size", "--format", "leveldb-bloom", "--expected-keys", "100", "--fp-chance", "0.01"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--fp-chance"), std::string::npos) << r.err;
  EXPECT_EQ(LineCount(r.err), 1u) << r.err;
}

TEST(LevelDbCli, BuildWritesGzipWhenAskedAndStdoutForDash) {
  CliDir dir;
  KeyPrefixes prefixes(dir);
  ByteVector golden = ReadFixture(kRaw + "filters/bpk10_n1000.bin");
  std::vector<std::string> common = {
      "build",        "--format", "leveldb-bloom",  "--keys", prefixes.For("1000"),
      "--key-format", "hex",      "--bits-per-key", "10",     "-o"};
  std::vector<std::string> gz = common;
  gz.push_back(dir.Path("filter.bin.gz"));
  CliRun r = RunCli(gz);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream f(dir.Path("filter.bin.gz"), std::ios::binary);
  char magic[2] = {};
  f.read(magic, 2);
  EXPECT_EQ(static_cast<unsigned char>(magic[0]), 0x1f);  // the gzip magic: compressed on disk
  EXPECT_EQ(static_cast<unsigned char>(magic[1]), 0x8b);
  EXPECT_EQ(ReadAnyFile(dir.Path("filter.bin.gz")), golden);

  std::vector<std::string> to_stdout = common;
  to_stdout.push_back("-");
  r = RunCli(to_stdout);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ByteVector(r.out.begin(), r.out.end()), golden);
  // Standard output cannot carry both the filter and a JSON report.
  to_stdout.push_back("--json");
  r = RunCli(to_stdout);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--json"), std::string::npos) << r.err;
}

TEST(LevelDbCli, BuildJsonReportsWhatWasWritten) {
  CliDir dir;
  KeyPrefixes prefixes(dir);
  CliRun r =
      RunCli({"build", "--format", "leveldb-bloom", "--keys", prefixes.For("1000"), "--key-format",
              "hex", "--bits-per-key", "10", "-o", dir.Path("f.bin"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["output"], dir.Path("f.bin"));
  EXPECT_EQ(doc["format"], "leveldb-bloom");
  EXPECT_EQ(doc["keys"], 1000);
  const ByteVector golden = ReadFixture(kRaw + "filters/bpk10_n1000.bin");
  EXPECT_EQ(doc["file_bytes"], golden.size());
  EXPECT_EQ(ReadAnyFile(dir.Path("f.bin")), golden);
}

// A table written directly by TableBuilder: the answer of Table::InternalGet's read path.
TEST(LevelDbCli, ProbeOfATableFollowsTheOriginalReadPath) {
  const std::string base = "leveldb/tables/tb_bpk10_none_bs64";
  TsvTable probes = ReadTsvFixture(base + ".probes.tsv");
  ASSERT_GT(probes.rows.size(), 1000u);
  std::string keys, expected;
  for (std::size_t i = 0; i < probes.rows.size(); ++i) {
    keys += probes.At(i, "key_hex") + "\n";
    // Past the last index entry there is no block to ask: the original answers "not found".
    expected +=
        probes.At(i, "data_block_offset") == "-1" ? "0\n" : probes.At(i, "key_may_match") + "\n";
  }
  CliDir dir;
  CliRun r = RunCli({"probe", FixtureForCli(base + ".ldb"), "--keys", dir.Write("p.hex", keys),
                     "--key-format", "hex", "--key-kind", "plain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected);
}

// A database's table, bundled gzipped (read through gzip by the CLI): probes are user keys,
// looked up as DB::Get does; every golden probe of this database reached this one table.
TEST(LevelDbCli, ProbeOfADatabaseTableAnswersAsDbGet) {
  const std::string db = "leveldb/tables/db_bpk10_snappy_bs1024";
  TsvTable probes = ReadTsvFixture(db + ".probes.tsv");
  ASSERT_GT(probes.rows.size(), 1000u);
  std::string keys, expected;
  std::size_t positives = 0;
  for (std::size_t i = 0; i < probes.rows.size(); ++i) {
    ASSERT_EQ(probes.At(i, "table"), "db_bpk10_snappy_bs1024__000005") << i;
    keys += probes.At(i, "user_key_hex") + "\n";
    expected += probes.At(i, "key_may_match");
    positives += probes.At(i, "key_may_match") == "1";
  }
  CliDir dir;
  std::string table = FixtureForCli(db + "__000005.ldb");
  CliRun r =
      RunCli({"probe", table, "--format", "leveldb-table", "--keys", dir.Write("p.hex", keys),
              "--key-format", "hex", "--key-kind", "user", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["format"], "leveldb-table");
  EXPECT_EQ(doc["positives"], positives);
  EXPECT_EQ(doc["answers"], expected);
}

}  // namespace
}  // namespace bloomcodec::testing

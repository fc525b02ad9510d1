// The command line on the 1.2 - 5.0 formats, run as a process against the golden data: build,
// probe, hash, size, inspect, dump/convert, and verify of single files and data directories
// (Index.db files written by our writer in each version's layout).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cassandra/bti/partitions_db.h"
#include "cassandra/index_db.h"
#include "cli/cli_runner.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;
using cassandra::IndexEntryForm;

const std::string kDir = "cassandra-murmur3/";
const std::vector<std::pair<std::string, std::string>> kVariants = {
    {"v1_2_to_2_2", "cassandra-1.2"}, {"v3_x", "cassandra-3.0"}, {"v4_0_to_5_0", "cassandra-4.0"}};

TEST(CassandraMurmur3Cli, BuildAndProbeEveryGoldenFilter) {
  const TsvTable t = ReadTsvFixture(kDir + "filters.tsv");
  CliDir dir;
  int built = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (t.At(i, "result") != "BLOOM") continue;
    std::string format;
    for (const auto& [folder, name] : kVariants) {
      if (folder == t.At(i, "variant")) format = name;
    }
    const std::string stem =
        t.At(i, "variant") + "/n" + t.At(i, "num_keys") + "_fp" + t.At(i, "fp_chance");
    const std::string out = dir.Path("out" + std::to_string(i));
    CliRun b = RunCli({"build", "--format", format, "--keys",
                       FixtureForCli(kDir + "keys/keys_n" + t.At(i, "num_keys") + ".txt"),
                       "--key-format", "hex", "--fp-chance", t.At(i, "fp_chance"), "-o", out});
    ASSERT_EQ(b.exit_code, 0) << stem << ": " << b.err;
    EXPECT_EQ(ReadAnyFile(out), ReadFixture(kDir + stem + ".Filter.db")) << stem;
    CliRun p = RunCli({"probe", FixtureForCli(kDir + stem + ".Filter.db"), "--format", format,
                       "--keys", FixtureForCli(kDir + "keys/probes.txt"), "--key-format", "hex"});
    ASSERT_EQ(p.exit_code, 0) << p.err;
    EXPECT_EQ(p.out, ReadFixtureText(kDir + stem + ".probe_results.txt")) << stem;
    ++built;
  }
  EXPECT_EQ(built, 45);
}

TEST(CassandraMurmur3Cli, AlwaysPresentBuildAndSize) {
  CliDir dir;
  const std::string keys = FixtureForCli(kDir + "keys/keys_n10.txt");
  CliRun b4 = RunCli({"build", "--format", "cassandra-4.0", "--keys", keys, "--key-format", "hex",
                      "--fp-chance", "1.0", "-o", dir.Path("ap")});
  ASSERT_EQ(b4.exit_code, 0) << b4.err;
  EXPECT_TRUE(fs::exists(dir.Path("ap")));
  EXPECT_EQ(fs::file_size(dir.Path("ap")), 0u);
  CliRun b3 = RunCli({"build", "--format", "cassandra-3.0", "--keys", keys, "--key-format", "hex",
                      "--fp-chance", "1.0", "-o", dir.Path("no")});
  EXPECT_EQ(b3.exit_code, 2);
  EXPECT_NE(b3.err.find("no Filter.db"), std::string::npos) << b3.err;
  EXPECT_FALSE(fs::exists(dir.Path("no")));
  CliRun s = RunCli({"size", "--format", "cassandra-1.2", "--expected-keys", "10", "--fp-chance",
                     "1.0", "--json"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const Json j = Json::parse(s.out);
  EXPECT_EQ(j["always_present"], true);
  EXPECT_EQ(j["writes_filter_file"], false);
  EXPECT_EQ(j["file_bytes"], 0);
  CliRun p = RunCli({"probe", FixtureForCli(kDir + "v4_0_to_5_0/n10_fp1.0.Filter.db"), "--format",
                     "cassandra-4.0", "--keys", FixtureForCli(kDir + "keys/probes.txt"),
                     "--key-format", "hex"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(std::count(p.out.begin(), p.out.end(), '1'), 5000);
}

TEST(CassandraMurmur3Cli, HashPrintsBothSignedHalvesOfEveryVector) {
  const TsvTable t = ReadTsvFixture(kDir + "murmur3_vectors.tsv");
  std::string keys, expected;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    keys += t.At(i, "key_hex") + "\n";
    expected += t.At(i, "h0_dec") + "\t" + t.At(i, "h1_dec") + "\n";
  }
  CliDir dir;
  for (const auto& [folder, format] : kVariants) {
    CliRun r =
        RunCli({"hash", "--format", format, "--keys", dir.Write("k", keys), "--key-format", "hex"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, expected) << format;
  }
}

TEST(CassandraMurmur3Cli, SizeMatchesTheGoldenRowsAndRefusals) {
  CliRun ok = RunCli({"size", "--format", "cassandra-3.0", "--expected-keys", "1000", "--fp-chance",
                      "0.01", "--json"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const Json j = Json::parse(ok.out);
  EXPECT_EQ(j["hash_count"], 5);
  EXPECT_EQ(j["buckets_per_element"], 10);
  EXPECT_EQ(j["words"], 157);
  EXPECT_EQ(j["bits"], 10048);
  EXPECT_EQ(j["file_bytes"], 1264);
  CliRun big = RunCli({"size", "--format", "cassandra-4.0", "--expected-keys", "10000000000",
                       "--fp-chance", "0.0001"});
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_NE(big.err.find("Bloom filter size is > 16GB, reduce the bloom_filter_fp_chance"),
            std::string::npos)
      << big.err;
  CliRun low = RunCli(
      {"size", "--format", "cassandra-1.2", "--expected-keys", "5", "--fp-chance", "0.00001"});
  EXPECT_EQ(low.exit_code, 2);
  EXPECT_NE(low.err.find("Unable to satisfy 1.0E-5 with 20 buckets per element"), std::string::npos)
      << low.err;
}

TEST(CassandraMurmur3Cli, InspectDumpAndConvert) {
  CliDir dir;
  const std::string v3 = FixtureForCli(kDir + "v3_x/n1000_fp0.01.Filter.db");
  CliRun i = RunCli({"inspect", v3, "--format", "cassandra-3.0", "--json"});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  const Json doc = Json::parse(i.out);
  const Json& one = doc["files"][0];
  EXPECT_EQ(one["hash_count"], 5);
  EXPECT_EQ(one["word_count"], 157);
  EXPECT_EQ(one["capacity_bits"], 10048);
  EXPECT_EQ(one["sizing"]["buckets_per_element"], 10);
  EXPECT_NEAR(one["estimated_keys"].get<double>(), 1000, 60);
  // dump -> convert back: the same bytes.
  CliRun d = RunCli({"dump", v3, "--format", "cassandra-3.0", "--json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const std::string dump = dir.Write("dump.json", d.out);
  CliRun back = RunCli({"convert", dump, "-o", dir.Path("back.db"), "--to", "cassandra-3.0"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("back.db")), ReadFixture(kDir + "v3_x/n1000_fp0.01.Filter.db"));
  // 3.0 -> 4.0 lossless, the format taken from a BIG file name.
  const std::string named =
      dir.Write("me-1-big-Filter.db", ReadFixture(kDir + "v3_x/n1000_fp0.01.Filter.db"));
  CliRun c =
      RunCli({"convert", named, "-o", dir.Path("nb-1-big-Filter.db"), "--to", "cassandra-4.0"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("nb-1-big-Filter.db")),
            ReadFixture(kDir + "v4_0_to_5_0/n1000_fp0.01.Filter.db"));
  // 4.0 -> 1.2 needs keys; with --index of the sstable, a rebuild.
  CliRun refused = RunCli({"convert", dir.Path("nb-1-big-Filter.db"), "-o", dir.Path("x"), "--to",
                           "cassandra-1.2", "--fp-chance", "0.01"});
  EXPECT_EQ(refused.exit_code, 2);
  const KeyList keys = ReadHexKeysFixture(kDir + "keys/keys_n1000.txt");
  std::vector<std::int64_t> positions(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) positions[k] = static_cast<std::int64_t>(k) * 100;
  auto index = cassandra::WriteIndexDb(keys, positions, IndexEntryForm::kVIntPositionAndPromoted);
  ASSERT_TRUE(index.ok());
  const std::string index_path = dir.Write("nb-1-big-Index.db", *index);
  CliRun rebuilt = RunCli({"convert", dir.Path("nb-1-big-Filter.db"), "-o", dir.Path("v12.db"),
                           "--to", "cassandra-1.2", "--fp-chance", "0.01", "--index", index_path});
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("v12.db")),
            ReadFixture(kDir + "v1_2_to_2_2/n1000_fp0.01.Filter.db"));
}

// One sstable: its golden Filter.db and an Index.db of its keys in the version's layout.
void PutMurmur3Sstable(const std::string& dir, const std::string& prefix, const std::string& filter,
                       const KeyList& keys, IndexEntryForm form) {
  WriteFileAt(dir + "/" + prefix + "Filter.db", ReadFixture(filter));
  std::vector<std::int64_t> positions(keys.size());
  std::vector<std::uint32_t> promoted(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    positions[k] = static_cast<std::int64_t>(k) * 300;
    promoted[k] = static_cast<std::uint32_t>(k % 3 == 0 ? 40 : 0);
  }
  auto index = cassandra::WriteIndexDb(keys, positions, form, promoted);
  ASSERT_TRUE(index.ok());
  WriteFileAt(dir + "/" + prefix + "Index.db", *index);
}

TEST(CassandraMurmur3Cli, VerifyDataDirectoriesOfEveryEra) {
  CliDir dir;
  const KeyList k1000 = ReadHexKeysFixture(kDir + "keys/keys_n1000.txt");
  const KeyList k10 = ReadHexKeysFixture(kDir + "keys/keys_n10.txt");
  const std::string data = dir.Path("data");
  PutMurmur3Sstable(data + "/ks/cf", "ks-cf-ic-1-", kDir + "v1_2_to_2_2/n1000_fp0.01.Filter.db",
                    k1000, IndexEntryForm::kLongPositionAndPromoted);
  PutMurmur3Sstable(data + "/ks/old-0123456789abcdef0123456789abcdef", "lb-2-big-",
                    kDir + "v1_2_to_2_2/n10_fp0.1.Filter.db", k10,
                    IndexEntryForm::kLongPositionAndPromoted);
  const std::string tbl = data + "/ks/tbl-0123456789abcdef0123456789abcdef";
  PutMurmur3Sstable(tbl, "mc-3-big-", kDir + "v3_x/n1000_fp0.1.Filter.db", k1000,
                    IndexEntryForm::kVIntPositionAndPromoted);
  PutMurmur3Sstable(tbl, "nb-4-big-", kDir + "v4_0_to_5_0/n1000_fp0.01.Filter.db", k1000,
                    IndexEntryForm::kVIntPositionAndPromoted);
  PutMurmur3Sstable(tbl, "nb-3g7k_0ft4_2x1kg2nfkfl0htlkmc-big-",
                    kDir + "v4_0_to_5_0/n10_fp0.01.Filter.db", k10,
                    IndexEntryForm::kVIntPositionAndPromoted);
  // A BTI sstable: a filter, no Index.db; its keys through Partitions.db (each key whole as its
  // trie prefix) into an uncompressed Data.db.
  WriteFileAt(tbl + "/da-5-bti-Filter.db",
              ReadFixture(kDir + "v4_0_to_5_0/n1000_fp0.001.Filter.db"));
  {
    std::vector<ByteVector> sorted;
    for (std::size_t i = 0; i < k1000.size(); ++i) {
      sorted.emplace_back(k1000[i].begin(), k1000[i].end());
    }
    std::sort(sorted.begin(), sorted.end());
    ByteVector data_db;
    std::vector<cassandra::bti::PartitionEntry> entries;
    for (const ByteVector& key : sorted) {
      // A terminator byte keeps every prefix from being a prefix of another.
      ByteVector prefix = key;
      prefix.push_back(0);
      entries.push_back({prefix, std::nullopt, ~static_cast<std::int64_t>(data_db.size())});
      data_db.push_back(static_cast<std::uint8_t>(key.size() >> 8));
      data_db.push_back(static_cast<std::uint8_t>(key.size()));
      data_db.insert(data_db.end(), key.begin(), key.end());
    }
    Result<ByteVector> trie =
        cassandra::bti::WritePartitionsDb(entries, sorted.front(), sorted.back());
    ASSERT_TRUE(trie.ok());
    WriteFileAt(tbl + "/da-5-bti-Partitions.db", *trie);
    WriteFileAt(tbl + "/da-5-bti-Data.db", data_db);
  }
  const Json doc = VerifyJson({data}, 0);
  const Json& ic = FileEndingWith(doc, "ks-cf-ic-1-Filter.db");
  EXPECT_EQ(ic["format"], "cassandra-1.2");
  EXPECT_EQ(ic["keys_checked"], 1000);
  EXPECT_EQ(Kinds(ic), std::vector<std::string>{});
  const Json& lb = FileEndingWith(doc, "lb-2-big-Filter.db");
  EXPECT_EQ(lb["format"], "cassandra-1.2");
  EXPECT_EQ(lb["keys_checked"], 10);
  const Json& mc = FileEndingWith(doc, "mc-3-big-Filter.db");
  EXPECT_EQ(mc["format"], "cassandra-3.0");
  EXPECT_EQ(mc["keys_checked"], 1000);
  EXPECT_EQ(mc["group"], "ks/tbl");
  const Json& nb = FileEndingWith(doc, "nb-4-big-Filter.db");
  EXPECT_EQ(nb["format"], "cassandra-4.0");
  EXPECT_EQ(nb["keys_checked"], 1000);
  EXPECT_EQ(FileEndingWith(doc, "kfl0htlkmc-big-Filter.db")["keys_checked"], 10);
  const Json& da = FileEndingWith(doc, "da-5-bti-Filter.db");
  EXPECT_EQ(da["format"], "cassandra-4.0");
  EXPECT_EQ(da["keys_checked"], 1000);
  EXPECT_EQ(Kinds(da), std::vector<std::string>{"key-source"});
  EXPECT_EQ(doc["summary"]["errors"], 0);

  // Index.db of the wrong keys: false negatives, exit 1.
  PutMurmur3Sstable(tbl, "nb-6-big-", kDir + "v4_0_to_5_0/n10_fp0.01.Filter.db", k1000,
                    IndexEntryForm::kVIntPositionAndPromoted);
  const Json bad = VerifyJson({data}, 1);
  EXPECT_EQ(FileEndingWith(bad, "nb-6-big-Filter.db")["status"], "error");
}

// Cassandra 4.0 wrote some na sstables with 3.x's serializer (big-endian longs): the na reader
// answers their keys "absent", and verify says which layout answers every key.
TEST(CassandraMurmur3Cli, AFilterInAnotherEraLayoutNamesTheLayoutThatAnswersEveryKey) {
  CliDir dir;
  const std::string keys_path = FixtureForCli(kDir + "keys/keys_n1000.txt");
  const KeyList keys = ReadHexKeysFixture(kDir + "keys/keys_n1000.txt");
  const std::string built = dir.Path("v30.db");
  CliRun b = RunCli({"build", "--format", "cassandra-3.0", "--keys", keys_path, "--key-format",
                     "hex", "--fp-chance", "0.01", "-o", built});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const std::string data = dir.Path("data");
  const std::string tbl = data + "/ks/t-0123456789abcdef0123456789abcdef";
  PutMurmur3Sstable(tbl, "na-1-big-", kDir + "v4_0_to_5_0/n1000_fp0.01.Filter.db", keys,
                    IndexEntryForm::kVIntPositionAndPromoted);
  WriteFileAt(tbl + "/na-1-big-Filter.db", ReadAnyFile(built));
  const Json doc = VerifyJson({data}, 1);
  const Json& na = FileEndingWith(doc, "na-1-big-Filter.db");
  EXPECT_EQ(na["format"], "cassandra-4.0");
  EXPECT_EQ(na["keys_checked"], 1000);
  EXPECT_GT(na["false_negative_count"].get<int>(), 900);
  ASSERT_EQ(Kinds(na), std::vector<std::string>{"false-negative"});
  const Json& finding = na["findings"][0];
  EXPECT_EQ(finding["severity"], "error");
  EXPECT_EQ(finding["answers_every_key_as"], "cassandra-3.0");
  EXPECT_NE(finding["message"].get<std::string>().find("cassandra-3.0"), std::string::npos);
  CliRun text = RunCli({"verify", data});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("read as cassandra-3.0 every key is present"), std::string::npos)
      << text.out;

  // A genuinely damaged filter (its bits cleared) answers under no layout: nothing is named.
  ByteVector damaged = ReadAnyFile(built);
  std::fill(damaged.begin() + 8, damaged.begin() + 8 + (damaged.size() - 8) / 2, 0);
  WriteFileAt(tbl + "/na-1-big-Filter.db", damaged);
  const Json bad = VerifyJson({data}, 1);
  const Json& bad_na = FileEndingWith(bad, "na-1-big-Filter.db");
  EXPECT_GT(bad_na["false_negative_count"].get<int>(), 0);
  for (const Json& f : bad_na["findings"]) {
    EXPECT_FALSE(f.contains("answers_every_key_as")) << f.dump();
    EXPECT_EQ(f["message"].get<std::string>().find("read as"), std::string::npos) << f.dump();
  }
  // The sstable's own version's filter answers every key: no false negative to explain.
  PutMurmur3Sstable(tbl, "na-1-big-", kDir + "v4_0_to_5_0/n1000_fp0.01.Filter.db", keys,
                    IndexEntryForm::kVIntPositionAndPromoted);
  EXPECT_EQ(FileEndingWith(VerifyJson({data}, 0), "na-1-big-Filter.db")["status"], "ok");
}

TEST(CassandraMurmur3Cli, VerifySingleFilesWithKeysOrIndex) {
  CliDir dir;
  const std::string f =
      dir.Write("ma-1-big-Filter.db", ReadFixture(kDir + "v3_x/n1000_fp0.01.Filter.db"));
  const Json with_keys = VerifyJson(
      {f, "--keys", FixtureForCli(kDir + "keys/keys_n1000.txt"), "--key-format", "hex"}, 0);
  EXPECT_EQ(with_keys["files"][0]["keys_checked"], 1000);
  EXPECT_EQ(with_keys["files"][0]["format"], "cassandra-3.0");
  // The same file read as 1.2 (old order): most keys are false negatives.
  const Json wrong =
      VerifyJson({f, "--format", "cassandra-1.2", "--keys",
                  FixtureForCli(kDir + "keys/keys_n1000.txt"), "--key-format", "hex"},
                 1);
  EXPECT_EQ(wrong["files"][0]["status"], "error");
  // A BTI filter with an Index.db given by hand: raw keys, 3.0+ entries (as "da" sorts before
  // the versions whose keys were stored encoded, the version alone would mislead).
  const KeyList keys = ReadHexKeysFixture(kDir + "keys/keys_n1000.txt");
  std::vector<std::int64_t> positions(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) positions[k] = static_cast<std::int64_t>(k) * 9;
  auto index = cassandra::WriteIndexDb(keys, positions, IndexEntryForm::kVIntPositionAndPromoted);
  ASSERT_TRUE(index.ok());
  const std::string da =
      dir.Write("da-1-bti-Filter.db", ReadFixture(kDir + "v4_0_to_5_0/n1000_fp0.01.Filter.db"));
  const Json bti = VerifyJson({da, "--index", dir.Write("keys-Index.db", *index)}, 0);
  EXPECT_EQ(bti["files"][0]["keys_checked"], 1000);
  EXPECT_EQ(bti["files"][0]["format"], "cassandra-4.0");
  // K = 22: Cassandra's lookups throw; a structure error that says so, and probe refuses.
  ByteVector k22 = ReadFixture(kDir + "v3_x/n10_fp0.01.Filter.db");
  k22[3] = 22;
  const std::string k22_path = dir.Write("mc-7-big-Filter.db", k22);
  const Json k22_doc = VerifyJson({k22_path}, 1);
  EXPECT_EQ(Kinds(k22_doc["files"][0]), std::vector<std::string>{"structure"});
  CliRun k22_probe = RunCli({"probe", k22_path, "--keys", dir.Write("one", "x\n")});
  EXPECT_EQ(k22_probe.exit_code, 2);
  EXPECT_NE(k22_probe.err.find("ArrayIndexOutOfBoundsException"), std::string::npos)
      << k22_probe.err;
  // A truncated Filter.db is a structure error at its offset.
  ByteVector cut = ReadFixture(kDir + "v3_x/n1000_fp0.01.Filter.db");
  cut.resize(100);
  const std::string t = dir.Write("mb-2-big-Filter.db", cut);
  const Json trunc = VerifyJson({t}, 1);
  EXPECT_EQ(Kinds(trunc["files"][0]), std::vector<std::string>{"structure"});
}

}  // namespace
}  // namespace bloomcodec::testing

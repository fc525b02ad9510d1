// verify on Cassandra data directories and single Filter.db files, run as a process. The
// directories are built here: golden Filter.db files (made by Cassandra 1.0's own classes) and
// Index.db files written in the 1.0 layout for the keys each filter was built from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "bloomcodec/cassandra/v10_filter.h"
#include "cassandra/index_db.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kKeys1000 = "cassandra-1.0/filters/keys_n1000.txt";

class CassandraDir : public ::testing::Test {
 protected:
  void SetUp() override {
    keys1000_ = ReadHexKeysFixture(kKeys1000);
    keys10_ = ReadHexKeysFixture("cassandra-1.0/filters/keys_n10.txt");
    legacy_keys_ = ReadHexKeysFixture("cassandra-1.0/legacy/legacy_n1000_b15.keys.txt");
    ks_ = dir_.Path("data/Keyspace1");
    PutSstable(ks_, "Standard1-hc-1-", "cassandra-1.0/filters/n1000_b15.Filter.db", keys1000_);
    PutSstable(ks_, "Standard1-hc-2-", "cassandra-1.0/filters/n1000_fp0.01.Filter.db", keys1000_);
    PutSstable(ks_, "Standard1-e-3-", "cassandra-1.0/legacy/legacy_n1000_b15.Filter.db",
               legacy_keys_);
    PutSstable(dir_.Path("data/Keyspace2/Users"), "Keyspace2-Users-hf-7-",
               "cassandra-1.0/filters/n10_b15.Filter.db", keys10_);
  }
  std::string Data() const { return dir_.Path("data"); }
  std::string Filter(int generation, const std::string& version = "hc") const {
    return ks_ + "/Standard1-" + version + "-" + std::to_string(generation) + "-Filter.db";
  }
  std::string Index(int generation, const std::string& version = "hc") const {
    return ks_ + "/Standard1-" + version + "-" + std::to_string(generation) + "-Index.db";
  }

  CliDir dir_;
  std::string ks_;
  KeyList keys1000_, keys10_, legacy_keys_;
};

TEST_F(CassandraDir, HealthyDirectoryIsClean) {
  Json doc = VerifyJson({Data()}, 0);
  ASSERT_EQ(doc["files"].size(), 4u);
  for (const Json& f : doc["files"]) {
    EXPECT_EQ(f["status"], "ok") << f.dump(1);
    EXPECT_EQ(f["false_negative_count"], 0);
    EXPECT_TRUE(f["false_negatives"].empty());
    // The fp rate is (bits set / bits)^k of the filter itself.
    double ratio = f["bits_set"].get<double>() / f["bits"].get<double>();
    EXPECT_NEAR(f["fp_rate"].get<double>(), std::pow(ratio, f["hash_count"].get<int>()), 1e-12);
    EXPECT_EQ(f["sized_keys"].get<double>(), f["keys_checked"].get<double>());
  }
  const Json& hc1 = FileEndingWith(doc, "Standard1-hc-1-Filter.db");
  EXPECT_EQ(hc1["format"], "cassandra-1.0");
  EXPECT_EQ(hc1["version"], "hc");
  EXPECT_EQ(hc1["keys_checked"], 1000);
  EXPECT_EQ(hc1["hash_count"], 10);
  EXPECT_EQ(hc1["bits"], 15040);  // 64 * W, W = 235 for 1000 keys at 15 buckets per element
  EXPECT_NEAR(hc1["estimated_keys"].get<double>(), 1000, 50);
  const Json& legacy = FileEndingWith(doc, "Standard1-e-3-Filter.db");
  EXPECT_EQ(legacy["format"], "cassandra-legacy");
  EXPECT_EQ(legacy["keys_checked"], legacy_keys_.size());
  const Json& users = FileEndingWith(doc, "Keyspace2-Users-hf-7-Filter.db");
  EXPECT_EQ(users["group"], "Keyspace2/Users");  // 1.1 names carry the keyspace
  EXPECT_EQ(users["keys_checked"], 10);

  const Json& summary = doc["summary"];
  EXPECT_EQ(summary["files"], 4);
  EXPECT_EQ(summary["ok"], 4);
  EXPECT_EQ(summary["errors"], 0);
  ASSERT_EQ(summary["groups"].size(), 2u);
  EXPECT_EQ(summary["groups"][0]["name"], "Keyspace1/Standard1");
  EXPECT_EQ(summary["groups"][0]["tables"], 3);
  EXPECT_NEAR(summary["groups"][0]["combined_fp_rate"].get<double>(),
              CombinedFromFiles(doc, "Keyspace1/Standard1"), 1e-15);
  EXPECT_NEAR(summary["groups"][1]["combined_fp_rate"].get<double>(),
              CombinedFromFiles(doc, "Keyspace2/Users"), 1e-15);

  CliRun text = RunCli({"verify", Data()});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("summary: 4 files: 4 ok, 0 with warnings, 0 with errors"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("Keyspace1/Standard1: 3 tables"), std::string::npos) << text.out;
}

TEST_F(CassandraDir, AClearedBitIsReportedAsExactlyTheKeysItLoses) {
  ByteVector filter = ReadFixture("cassandra-1.0/filters/n1000_b15.Filter.db");
  // Clear set bits one at a time until some Index.db keys are lost; the expected false negatives
  // are the keys the damaged filter (V10Filter, proven on the golden data) answers 0 for.
  std::vector<std::string> expected;
  for (std::size_t byte = 8; byte < filter.size() && expected.empty(); ++byte) {
    if (filter[byte] == 0) continue;
    filter[byte] &= static_cast<std::uint8_t>(filter[byte] - 1);  // lowest set bit cleared
    auto parsed = cassandra::V10Filter::Parse(filter, "f");
    ASSERT_TRUE(parsed.ok());
    for (std::size_t i = 0; i < keys1000_.size(); ++i) {
      if (!parsed->MayContain(keys1000_[i])) expected.push_back(ToHex(keys1000_[i]));
    }
  }
  ASSERT_FALSE(expected.empty());
  WriteFileAt(Filter(1), filter);

  Json doc = VerifyJson({Data()}, 1);
  const Json& f = FileEndingWith(doc, "Standard1-hc-1-Filter.db");
  EXPECT_EQ(f["status"], "error");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"false-negative"});
  EXPECT_EQ(f["false_negative_count"], expected.size());
  EXPECT_EQ(f["false_negatives"].get<std::vector<std::string>>(), expected);
  EXPECT_EQ(f["findings"][0]["severity"], "error");
  EXPECT_EQ(doc["summary"]["errors"], 1);
  EXPECT_EQ(doc["summary"]["ok"], 3);
  EXPECT_EQ(FileEndingWith(doc, "Standard1-hc-2-Filter.db")["status"], "ok");

  CliRun text = RunCli({"verify", Data()});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("false negatives: " + expected.front()), std::string::npos) << text.out;
}

TEST_F(CassandraDir, ATruncatedFilterIsAStructureErrorAtItsOffset) {
  ByteVector filter = ReadFixture("cassandra-1.0/filters/n1000_fp0.01.Filter.db");
  filter.resize(100);
  WriteFileAt(Filter(2), filter);
  Json doc = VerifyJson({Data()}, 1);
  const Json& f = FileEndingWith(doc, "Standard1-hc-2-Filter.db");
  EXPECT_EQ(f["status"], "error");
  ASSERT_EQ(Kinds(f), std::vector<std::string>{"structure"});
  EXPECT_TRUE(f["findings"][0].contains("offset")) << f.dump(1);
  EXPECT_LE(f["findings"][0]["offset"].get<std::uint64_t>(), 100u);
  EXPECT_EQ(doc["summary"]["errors"], 1);
}

TEST_F(CassandraDir, AMissingFilterIsAWarningWithReadRateOne) {
  fs::remove(Filter(2));
  Json doc = VerifyJson({Data()}, 0);  // warnings alone: exit 0
  const Json& f = FileEndingWith(doc, "Standard1-hc-2-Filter.db");
  EXPECT_EQ(f["status"], "warning");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"missing-filter"});
  EXPECT_EQ(f["fp_rate"], 1.0);
  EXPECT_EQ(doc["summary"]["warnings"], 1);
  EXPECT_EQ(doc["summary"]["groups"][0]["combined_fp_rate"], 1.0);
  CliRun text = RunCli({"verify", Data()});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("warning missing-filter"), std::string::npos) << text.out;
}

TEST_F(CassandraDir, AnIndexTruncatedMidEntryIsAnErrorAtTheEntryAndEarlierKeysAreChecked) {
  ByteVector index = ReadAnyFile(Index(1));
  // Entry i starts at the sum of 2 + |key| + 8 over the entries before it. Cut inside the
  // position of entry 600.
  std::uint64_t start = 0;
  for (std::size_t i = 0; i < 600; ++i) start += 2 + keys1000_[i].size() + 8;
  const std::uint64_t position_at = start + 2 + keys1000_[600].size();
  index.resize(position_at + 3);
  WriteFileAt(Index(1), index);
  Json doc = VerifyJson({Data()}, 1);
  const Json& f = FileEndingWith(doc, "Standard1-hc-1-Filter.db");
  EXPECT_EQ(f["status"], "error");
  ASSERT_EQ(Kinds(f), std::vector<std::string>{"index"});
  EXPECT_EQ(f["findings"][0]["offset"], position_at);
  EXPECT_NE(f["findings"][0]["message"].get<std::string>().find("entry 600"), std::string::npos);
  EXPECT_EQ(f["keys_checked"], 600);
  // A damaged index says nothing about the sizing: the filter's own size and K judge the fill.
  EXPECT_EQ(f["sized_keys_from"], "parameters");
  EXPECT_GE(f["sized_keys"].get<double>(), 1000);
}

TEST_F(CassandraDir, TrailingBytesAreAWarningAtTheEndOfTheWords) {
  ByteVector filter = ReadFixture("cassandra-1.0/filters/n1000_b15.Filter.db");
  const std::uint64_t end = filter.size();
  filter.insert(filter.end(), {1, 2, 3});
  WriteFileAt(Filter(1), filter);
  Json doc = VerifyJson({Data()}, 0);
  const Json& f = FileEndingWith(doc, "Standard1-hc-1-Filter.db");
  EXPECT_EQ(f["status"], "warning");
  ASSERT_EQ(Kinds(f), std::vector<std::string>{"trailing-bytes"});
  EXPECT_EQ(f["findings"][0]["offset"], end);
}

TEST_F(CassandraDir, AFilterFullerThanItsIndexAllowsIsOverfilled) {
  KeyList fewer;
  for (std::size_t i = 0; i < 300; ++i) fewer.Add(keys1000_[i]);
  auto index = cassandra::WriteIndexDb(fewer);
  ASSERT_TRUE(index.ok());
  WriteFileAt(Index(1), *index);
  Json doc = VerifyJson({Data()}, 1);
  const Json& f = FileEndingWith(doc, "Standard1-hc-1-Filter.db");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"overfilled"});
  EXPECT_EQ(f["sized_keys"], 300);
  EXPECT_EQ(f["sized_keys_from"], "index");
  EXPECT_GT(f["estimated_keys"].get<double>(), 900);

  // Saturated: every word 0xff. The estimate is infinite; it is said so, never cast to a count
  // (which printed "estimated keys 0").
  ByteVector full = ReadFixture("cassandra-1.0/filters/n1000_b15.Filter.db");
  std::fill(full.begin() + cassandra::V10Filter::kHeaderBytes, full.end(), 0xff);
  WriteFileAt(Filter(1), full);
  Json sat = VerifyJson({Data()}, 1);
  const Json& s = FileEndingWith(sat, "Standard1-hc-1-Filter.db");
  EXPECT_EQ(Kinds(s), std::vector<std::string>{"overfilled"});
  EXPECT_TRUE(s["estimated_keys"].is_null());
  const std::string message = s["findings"][0]["message"];
  EXPECT_NE(message.find("saturated (every bit set)"), std::string::npos) << message;
  EXPECT_EQ(message.find("estimated keys 0"), std::string::npos) << message;
}

TEST_F(CassandraDir, LegacyTemporaryAndMissingComponents) {
  // Version b without its Filter.db (0.4 - 0.7 beta always wrote one; 1.0 rebuilds it).
  ByteVector b_index = HexBytes(
      "0005"
      "31323a6b31"
      "0000000000000000");  // "12:k1"
  WriteFileAt(ks_ + "/Standard3-b-8-Index.db", b_index);
  // A temporary sstable is not checked; a Filter.db without an Index.db is an error.
  WriteFileAt(ks_ + "/Standard1-tmp-hc-9-Filter.db",
              ReadFixture("cassandra-1.0/filters/n10_b15.Filter.db"));
  WriteFileAt(ks_ + "/Standard4-hc-10-Filter.db",
              ReadFixture("cassandra-1.0/filters/n10_b15.Filter.db"));
  Json doc = VerifyJson({Data()}, 1);
  // "12" is not the MD5 token of "k1": an order-preserving partitioner's key "12:k1".
  const Json& b8 = FileEndingWith(doc, "Standard3-b-8-Filter.db");
  EXPECT_EQ(Kinds(b8), (std::vector<std::string>{"partitioner", "missing-filter"}));
  EXPECT_NE(b8["findings"][0]["message"].get<std::string>().find("order-preserving"),
            std::string::npos);
  EXPECT_EQ(b8["format"], "cassandra-0.6");
  EXPECT_EQ(b8["status"], "warning");
  EXPECT_EQ(Kinds(FileEndingWith(doc, "Standard1-tmp-hc-9-Filter.db")),
            std::vector<std::string>{"temporary"});
  const Json& no_index = FileEndingWith(doc, "Standard4-hc-10-Filter.db");
  EXPECT_EQ(Kinds(no_index), std::vector<std::string>{"missing-index"});
  EXPECT_EQ(no_index["status"], "error");
  EXPECT_EQ(doc["summary"]["errors"], 1);
  // RandomPartitioner's "<MD5 of the key as a non-negative BigInteger>:<key>" is told apart.
  const std::string random_key = "98073695634084475067589428723892808230:k1";
  ByteVector random_index = {0, static_cast<std::uint8_t>(random_key.size())};
  random_index.insert(random_index.end(), random_key.begin(), random_key.end());
  random_index.resize(random_index.size() + 8, 0);
  WriteFileAt(ks_ + "/Standard3-b-8-Index.db", random_index);
  Json random = VerifyJson({Data()}, 1);
  const Json& rb8 = FileEndingWith(random, "Standard3-b-8-Filter.db");
  EXPECT_EQ(Kinds(rb8), (std::vector<std::string>{"partitioner", "missing-filter"}));
  EXPECT_NE(rb8["findings"][0]["message"].get<std::string>().find("RandomPartitioner"),
            std::string::npos);
  // A version-b Index.db whose first entry is cut short is damaged (read as RandomPartitioner's,
  // the default of those releases).
  WriteFileAt(ks_ + "/Standard3-b-8-Index.db", HexBytes("0005"
                                                        "6b31"));
  Json bad = VerifyJson({Data()}, 1);
  EXPECT_EQ(Kinds(FileEndingWith(bad, "Standard3-b-8-Filter.db")),
            (std::vector<std::string>{"partitioner", "index", "missing-filter"}));
}

TEST_F(CassandraDir, HashCountsOutsideWhatCassandraWritesAreWarnings) {
  // K = 0: Cassandra's empty filter, every key present (so no false negatives either).
  PutSstable(ks_, "Standard5-hc-11-", "cassandra-1.0/filters/empty_filter.Filter.db", keys10_);
  // K = 25, no Cassandra sizing chooses it; a consistent filter of the 10 keys otherwise.
  auto many = cassandra::V10Filter::Create(25, 16);
  ASSERT_TRUE(many.ok());
  many->AddAll(keys10_);
  WriteFileAt(ks_ + "/Standard6-hc-12-Filter.db", std::move(*many).TakeSerialized());
  auto index = cassandra::WriteIndexDb(keys10_);
  ASSERT_TRUE(index.ok());
  WriteFileAt(ks_ + "/Standard6-hc-12-Index.db", *index);
  // A Cassandra 1.2 sstable is read as cassandra-1.2, its Index.db in the 1.2 entry layout.
  const KeyList murmur3_keys = ReadHexKeysFixture("cassandra-murmur3/keys/keys_n10.txt");
  WriteFileAt(ks_ + "/Standard7-ia-13-Filter.db",
              ReadFixture("cassandra-murmur3/v1_2_to_2_2/n10_fp0.01.Filter.db"));
  std::vector<std::int64_t> murmur3_positions(murmur3_keys.size());
  for (std::size_t i = 0; i < murmur3_keys.size(); ++i)
    murmur3_positions[i] = static_cast<std::int64_t>(i) * 64;
  auto murmur3_index = cassandra::WriteIndexDb(murmur3_keys, murmur3_positions,
                                               cassandra::IndexEntryForm::kLongPositionAndPromoted);
  ASSERT_TRUE(murmur3_index.ok());
  WriteFileAt(ks_ + "/Standard7-ia-13-Index.db", *murmur3_index);
  Json doc = VerifyJson({Data()}, 0);
  const Json& empty = FileEndingWith(doc, "Standard5-hc-11-Filter.db");
  EXPECT_EQ(Kinds(empty), std::vector<std::string>{"hash-count"});
  EXPECT_EQ(empty["status"], "warning");
  EXPECT_EQ(empty["keys_checked"], 10);
  EXPECT_EQ(empty["fp_rate"], 1.0);
  const Json& k25 = FileEndingWith(doc, "Standard6-hc-12-Filter.db");
  EXPECT_EQ(Kinds(k25), std::vector<std::string>{"hash-count"});
  EXPECT_EQ(k25["hash_count"], 25);
  const Json& v12 = FileEndingWith(doc, "Standard7-ia-13-Filter.db");
  EXPECT_EQ(Kinds(v12), std::vector<std::string>{});
  EXPECT_EQ(v12["format"], "cassandra-1.2");
  EXPECT_EQ(v12["keys_checked"], 10);
  EXPECT_EQ(doc["summary"]["errors"], 0);
}

TEST_F(CassandraDir, SingleFilesWithIndexOrKeys) {
  Json with_index = VerifyJson({Filter(1), "--index", Index(1)}, 0);
  ASSERT_EQ(with_index["files"].size(), 1u);
  EXPECT_EQ(with_index["files"][0]["keys_checked"], 1000);
  EXPECT_EQ(with_index["files"][0]["sized_keys"], 1000);

  // Without a key source, the Index.db beside the Filter.db.
  Json beside = VerifyJson({Filter(1)}, 0);
  EXPECT_EQ(beside["files"][0]["keys_checked"], 1000);
  EXPECT_EQ(beside["files"][0]["sized_keys"], 1000);
  fs::copy_file(Filter(1), dir_.Path("alone-Filter.db"));
  Json alone = VerifyJson({dir_.Path("alone-Filter.db"), "--format", "cassandra-1.0"}, 0);
  EXPECT_EQ(alone["files"][0]["keys_checked"], 0);
  // No keys: the fill is judged against the most keys its size and K allow.
  EXPECT_EQ(alone["files"][0]["sized_keys_from"], "parameters");
  EXPECT_GE(alone["files"][0]["sized_keys"].get<double>(), 1000);
  EXPECT_EQ(alone["files"][0]["bits"], 15040);

  Json with_keys =
      VerifyJson({Filter(1), "--keys", FixturePath(kKeys1000), "--key-format", "hex"}, 0);
  EXPECT_EQ(with_keys["files"][0]["keys_checked"], 1000);
  EXPECT_EQ(with_keys["files"][0]["sized_keys"], 1000);  // the keys given are the count
  EXPECT_EQ(with_keys["files"][0]["sized_keys_from"], "keys");

  // Keys the filter never saw: the golden probes answered 0 are false negatives when claimed.
  // (probes.tsv: key_hex TAB answer, no header line)
  std::string claimed;
  std::vector<std::string> absent;
  for (const std::string& line :
       SplitLines(ReadFixtureText("cassandra-1.0/filters/n1000_b15.probes.tsv"))) {
    if (absent.size() < 5 && line.ends_with("\t0"))
      absent.push_back(line.substr(0, line.size() - 2));
  }
  ASSERT_EQ(absent.size(), 5u);
  for (const std::string& k : absent) claimed += k + "\n";
  claimed += ToHex(keys1000_[0]) + "\n";
  Json doc = VerifyJson(
      {Filter(1), "--keys", dir_.Write("claimed.hex", claimed), "--key-format", "hex"}, 1);
  EXPECT_EQ(doc["files"][0]["keys_checked"], 6);
  EXPECT_EQ(doc["files"][0]["false_negatives"].get<std::vector<std::string>>(), absent);

  // The legacy filter of version e, through its Index.db.
  Json legacy = VerifyJson({Filter(3, "e"), "--index", Index(3, "e")}, 0);
  EXPECT_EQ(legacy["files"][0]["format"], "cassandra-legacy");
  EXPECT_EQ(legacy["files"][0]["keys_checked"], legacy_keys_.size());
}

TEST_F(CassandraDir, UsageAndUnreadableInputsExitTwo) {
  auto expect_2 = [](std::vector<std::string> args, const std::string& needle) {
    args.insert(args.begin(), "verify");
    CliRun r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(LineCount(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  };
  expect_2({}, "PATH is required");
  expect_2({dir_.Path("nope")}, "nope");
  expect_2({Data(), "--index", Index(1)}, "directory");
  expect_2({Data(), "--format", "cassandra-legacy"}, "apply to single files");
  expect_2({Data(), "--key-kind", "plain"}, "apply to single files");
  expect_2({Filter(1), "--index", dir_.Path("missing-Index.db")}, "missing-Index.db");
  expect_2({Filter(1), "--keys", dir_.Path("no-keys.txt")}, "no-keys.txt");
  expect_2({Filter(1), "--from-table"}, "--from-table");
  expect_2({Filter(1), "--keys", FixturePath(kKeys1000), "--index", Index(1)}, "alternatives");
  fs::create_directories(dir_.Path("empty"));
  expect_2({dir_.Path("empty")}, "nothing to verify");
  expect_2({dir_.Write("mystery.bin", "0123456789")}, "--format");
}

}  // namespace
}  // namespace bloomcodec::testing

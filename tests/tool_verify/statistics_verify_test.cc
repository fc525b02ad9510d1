// verify's fill check on every path, run as a process: single Cassandra filters with keys given
// or none (judged by what their size and K allow), raw LevelDB filters, filter blocks and row
// filters (the codec path). A saturated filter (every bit set) is always a finding.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bloomcodec/cassandra/v10_filter.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

constexpr const char* kKeys1000 = "cassandra-1.0/filters/keys_n1000.txt";

// Every byte from `from` to `end_trim` bytes before the end set to 0xff: all bits of the filter.
ByteVector Saturated(ByteVector bytes, std::size_t from, std::size_t end_trim = 0) {
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(from),
            bytes.end() - static_cast<std::ptrdiff_t>(end_trim), 0xff);
  return bytes;
}

std::string FirstKeys(const std::string& fixture, std::size_t n) {
  std::string out;
  std::vector<std::string> lines = SplitLines(ReadFixtureText(fixture));
  for (std::size_t i = 0; i < n && i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

TEST(VerifyStatistics, ASaturatedCassandraFilterIsOverfilledWithKeysOrWithout) {
  CliDir dir;
  // Not an sstable name: no Index.db beside it is looked for.
  const std::string path =
      dir.Write("saturated.bin", Saturated(ReadFixture("cassandra-1.0/filters/n1000_b15.Filter.db"),
                                           cassandra::V10Filter::kHeaderBytes));
  Json with_keys = VerifyJson(
      {path, "--format", "cassandra-1.0", "--keys", FixturePath(kKeys1000), "--key-format", "hex"},
      1);
  const Json& f = with_keys["files"][0];
  EXPECT_EQ(f["status"], "error");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"overfilled"});
  EXPECT_EQ(f["false_negative_count"], 0);  // every key "may contain": no false negative
  EXPECT_EQ(f["sized_keys"], 1000);
  EXPECT_EQ(f["sized_keys_from"], "keys");
  EXPECT_EQ(f["fill_ratio"], 1.0);
  EXPECT_EQ(f["fp_rate"], 1.0);
  EXPECT_TRUE(f["estimated_keys"].is_null());  // infinite

  Json alone = VerifyJson({path, "--format", "cassandra-1.0"}, 1);
  EXPECT_EQ(Kinds(alone["files"][0]), std::vector<std::string>{"overfilled"});
  EXPECT_EQ(alone["files"][0]["sized_keys_from"], "parameters");
  EXPECT_GE(alone["files"][0]["sized_keys"].get<double>(), 1000);

  // The estimate of a saturated filter is infinite: said so, never cast to a count.
  CliRun text = RunCli({"verify", path, "--format", "cassandra-1.0"});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("saturated (every bit set)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("estimated keys 0"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("~inf"), std::string::npos) << text.out;
}

TEST(VerifyStatistics, ACassandraFilterFullerThanItsSizeAllowsIsOverfilledWithoutKeys) {
  // The bits and K of getFilter(1000, 15), holding 5000 keys: no sizing of these bits and K
  // is for that many.
  auto filter = cassandra::V10Filter::Create(10, 235);
  ASSERT_TRUE(filter.ok());
  KeyList keys;
  for (int i = 0; i < 5000; ++i) keys.Add("key-" + std::to_string(i));
  filter->AddAll(keys);
  CliDir dir;
  const std::string path = dir.Write("crowded.bin", std::move(*filter).TakeSerialized());
  Json doc = VerifyJson({path, "--format", "cassandra-1.0"}, 1);
  const Json& f = doc["files"][0];
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"overfilled"});
  EXPECT_EQ(f["sized_keys_from"], "parameters");
  EXPECT_LT(f["sized_keys"].get<double>(), 5000);
  EXPECT_GT(f["estimated_keys"].get<double>(), 4000);
  EXPECT_NE(f["findings"][0]["message"].get<std::string>().find("allowed by its size and K"),
            std::string::npos);
  // The golden filter of 1000 keys is within what its size allows.
  Json golden = VerifyJson(
      {FixturePath("cassandra-1.0/filters/n1000_b15.Filter.db"), "--format", "cassandra-1.0"}, 0);
  EXPECT_EQ(golden["files"][0]["status"], "ok");
  EXPECT_EQ(golden["files"][0]["sized_keys_from"], "parameters");
}

TEST(VerifyStatistics, RawLevelDbFiltersHaveStatisticsAndASaturatedOneIsOverfilled) {
  const std::string fixture = "leveldb/raw/filters/bpk10_n1000.bin";
  Json healthy = VerifyJson({FixturePath(fixture), "--format", "leveldb-bloom"}, 0);
  const Json& h = healthy["files"][0];
  const ByteVector bytes = ReadFixture(fixture);
  EXPECT_EQ(h["bits"], (bytes.size() - 1) * 8);
  EXPECT_EQ(h["hash_count"], 6);
  EXPECT_GT(h["fill_ratio"].get<double>(), 0.3);
  EXPECT_LT(h["fill_ratio"].get<double>(), 0.7);
  EXPECT_GT(h["fp_rate"].get<double>(), 0);
  EXPECT_LT(h["fp_rate"].get<double>(), 0.05);
  EXPECT_EQ(h["sized_keys_from"], "parameters");

  CliDir dir;
  const std::string path = dir.Write("full.bin", Saturated(bytes, 0, 1));  // keep the k byte
  for (const char* format : {"leveldb-bloom", "leveldb-bloom-legacy"}) {
    Json doc = VerifyJson({path, "--format", format}, 1);
    const Json& f = doc["files"][0];
    EXPECT_EQ(Kinds(f), std::vector<std::string>{"overfilled"}) << format;
    EXPECT_EQ(f["fill_ratio"], 1.0);
    EXPECT_EQ(f["fp_rate"], 1.0);
    EXPECT_EQ(f["findings"][0]["offset"], 0);
  }
}

TEST(VerifyStatistics, KeysGivenToARawFilterAreTheCountItIsJudgedAgainst) {
  CliDir dir;
  const std::string keys = FixturePath(kKeys1000);
  const std::string filter = dir.Path("f.bin");
  CliRun built = RunCli({"build", "--format", "leveldb-bloom", "--keys", keys, "--key-format",
                         "hex", "--bits-per-key", "10", "-o", filter});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  Json all =
      VerifyJson({filter, "--format", "leveldb-bloom", "--keys", keys, "--key-format", "hex"}, 0);
  EXPECT_EQ(all["files"][0]["sized_keys"], 1000);
  EXPECT_EQ(all["files"][0]["sized_keys_from"], "keys");
  // Claimed to hold 100 keys, it holds the bits of 1000.
  Json few = VerifyJson({filter, "--format", "leveldb-bloom", "--keys",
                         dir.Write("few.hex", FirstKeys(kKeys1000, 100)), "--key-format", "hex"},
                        1);
  EXPECT_EQ(Kinds(few["files"][0]), std::vector<std::string>{"overfilled"});
  EXPECT_EQ(few["files"][0]["sized_keys"], 100);
}

TEST(VerifyStatistics, FilterBlocksAndRowFiltersAreJudgedToo) {
  CliDir dir;
  const std::string keys = FixturePath(kKeys1000);
  const std::string block = dir.Path("block.bin");
  ASSERT_EQ(RunCli({"build", "--format", "leveldb-filter-block", "--keys", keys, "--key-format",
                    "hex", "--bits-per-key", "10", "-o", block})
                .exit_code,
            0);
  Json healthy = VerifyJson({block, "--format", "leveldb-filter-block"}, 0);
  EXPECT_FALSE(healthy["files"][0]["bits"].is_null());
  EXPECT_GT(healthy["files"][0]["fp_rate"].get<double>(), 0);
  // One filter at 0, then its u32 offset, the array offset and base_lg (9 bytes); the filter's
  // last byte is k.
  const std::string full = dir.Write("full-block.bin", Saturated(ReadAnyFile(block), 0, 10));
  Json doc = VerifyJson({full, "--format", "leveldb-filter-block"}, 1);
  EXPECT_EQ(Kinds(doc["files"][0]), std::vector<std::string>{"overfilled"});
  EXPECT_EQ(doc["files"][0]["fp_rate"], 1.0);
  // A layout the strict parser refuses is a structure finding, not a silent "may match".
  ByteVector bad = ReadAnyFile(block);
  bad[bad.size() - 5] = 0xff;  // the array offset now points past the block
  Json broken =
      VerifyJson({dir.Write("bad-block.bin", bad), "--format", "leveldb-filter-block"}, 1);
  EXPECT_EQ(Kinds(broken["files"][0]), std::vector<std::string>{"structure"});

  const std::string row = dir.Path("row.bin");
  ASSERT_EQ(RunCli({"build", "--format", "cassandra-1.0-row", "--keys", keys, "--key-format", "hex",
                    "-o", row})
                .exit_code,
            0);
  Json row_ok =
      VerifyJson({row, "--format", "cassandra-1.0-row", "--keys", keys, "--key-format", "hex"}, 0);
  EXPECT_EQ(row_ok["files"][0]["sized_keys"], 1000);
  EXPECT_FALSE(row_ok["files"][0]["fill_ratio"].is_null());
  const std::string row_full = dir.Write(
      "row-full.bin", Saturated(ReadAnyFile(row), 4 + cassandra::V10Filter::kHeaderBytes));
  Json row_bad = VerifyJson({row_full, "--format", "cassandra-1.0-row"}, 1);
  EXPECT_EQ(Kinds(row_bad["files"][0]), std::vector<std::string>{"overfilled"});
}

}  // namespace
}  // namespace bloomcodec::testing

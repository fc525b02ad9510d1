// verify's summary groups, run as a process: snapshot and backup copies kept out of the live
// column family, damaged files counted as p = 1, sstables whose filter is rebuilt at load kept in
// their group but not counted, and a LevelDB 1.17 filter counted as a 1.18+ reader sees it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bloomcodec/cassandra/java_string.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;

const Json& Group(const Json& doc, const std::string& name) {
  for (const Json& g : doc["summary"]["groups"]) {
    if (g["name"] == name) return g;
  }
  ADD_FAILURE() << "no group " << name << " in " << doc["summary"].dump(1);
  static const Json none = Json::object();
  return none;
}

class GroupsDir : public ::testing::Test {
 protected:
  void SetUp() override {
    keys1000_ = ReadHexKeysFixture("cassandra-1.0/filters/keys_n1000.txt");
    keys10_ = ReadHexKeysFixture("cassandra-1.0/filters/keys_n10.txt");
    ks_ = dir_.Path("data/Keyspace1");
    PutSstable(ks_, "Standard1-hc-1-", "cassandra-1.0/filters/n1000_b15.Filter.db", keys1000_);
    PutSstable(ks_, "Standard1-hc-2-", "cassandra-1.0/filters/n1000_fp0.01.Filter.db", keys1000_);
    PutSstable(dir_.Path("data/Keyspace2/Users"), "Keyspace2-Users-hf-7-",
               "cassandra-1.0/filters/n10_b15.Filter.db", keys10_);
  }
  std::string Data() const { return dir_.Path("data"); }

  CliDir dir_;
  std::string ks_;
  KeyList keys1000_, keys10_;
};

TEST_F(GroupsDir, SnapshotsAndBackupsAreCheckedButKeptOutOfTheLiveGroups) {
  const Json before = VerifyJson({Data()}, 0);
  const double live_standard1 = Group(before, "Keyspace1/Standard1")["combined_fp_rate"];
  const double live_users = Group(before, "Keyspace2/Users")["combined_fp_rate"];
  // 1.0 layout: <ks>/snapshots/<tag>/ and <ks>/backups/; 1.1: the same below <ks>/<cf>/, whose
  // file names carry keyspace and column family (and so would join the live group by name).
  PutSstable(ks_ + "/snapshots/1700000000-pre", "Standard1-hc-1-",
             "cassandra-1.0/filters/n1000_b15.Filter.db", keys1000_);
  PutSstable(ks_ + "/backups", "Standard1-hc-3-", "cassandra-1.0/filters/n1000_b15.Filter.db",
             keys1000_);
  PutSstable(dir_.Path("data/Keyspace2/Users/snapshots/t1"), "Keyspace2-Users-hf-7-",
             "cassandra-1.0/filters/n10_b15.Filter.db", keys10_);
  const Json doc = VerifyJson({Data()}, 0);
  EXPECT_EQ(doc["summary"]["files"], 6);
  ASSERT_EQ(doc["summary"]["groups"].size(), 5u) << doc["summary"].dump(1);
  const Json& live = Group(doc, "Keyspace1/Standard1");
  EXPECT_EQ(live["role"], "live");
  EXPECT_EQ(live["tables"], 2);
  EXPECT_DOUBLE_EQ(live["combined_fp_rate"].get<double>(), live_standard1);
  EXPECT_DOUBLE_EQ(Group(doc, "Keyspace2/Users")["combined_fp_rate"].get<double>(), live_users);
  EXPECT_EQ(Group(doc, "Keyspace2/Users")["tables"], 1);
  EXPECT_EQ(Group(doc, "Keyspace1/Standard1 (snapshot 1700000000-pre)")["role"], "snapshot");
  EXPECT_EQ(Group(doc, "Keyspace1/Standard1 (backups)")["role"], "backup");
  EXPECT_EQ(Group(doc, "Keyspace2/Users (snapshot t1)")["role"], "snapshot");
  const Json& copy = FileEndingWith(doc, "snapshots/t1/Keyspace2-Users-hf-7-Filter.db");
  EXPECT_EQ(copy["status"], "ok");
  EXPECT_EQ(copy["keys_checked"], 10);  // verified like any sstable
  EXPECT_EQ(copy["group_role"], "snapshot");

  CliRun text = RunCli({"verify", Data()});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("Keyspace1/Standard1 (backups): backup copy, no read consults it"),
            std::string::npos)
      << text.out;
  // No fake column family named after the snapshot's tag.
  EXPECT_EQ(text.out.find("  1700000000-pre/Standard1:"), std::string::npos) << text.out;
}

TEST_F(GroupsDir, DamagedFilesCountAsRateOneInTheirGroup) {
  ByteVector filter = ReadFixture("cassandra-1.0/filters/n1000_fp0.01.Filter.db");
  filter.resize(100);
  WriteFileAt(ks_ + "/Standard1-hc-2-Filter.db", filter);
  const Json doc = VerifyJson({Data()}, 1);
  EXPECT_TRUE(FileEndingWith(doc, "Standard1-hc-2-Filter.db")["fp_rate"].is_null());
  const Json& g = Group(doc, "Keyspace1/Standard1");
  EXPECT_EQ(g["tables"], 2);
  EXPECT_EQ(g["damaged"], 1);
  EXPECT_EQ(g["combined_fp_rate"], 1.0);
  EXPECT_EQ(Group(doc, "Keyspace2/Users")["damaged"], 0);
  CliRun text = RunCli({"verify", Data()});
  EXPECT_NE(text.out.find("Keyspace1/Standard1: 2 tables, a read sees fp rate 1 "),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("1 damaged counted as p = 1"), std::string::npos) << text.out;
}

// A 0.6 filter of one key (the whole Index.db string, hashed as getBytes("UTF-16")).
ByteVector OneStringFilter(std::u16string_view key) {
  KeyList hashed;
  hashed.Add(ByteSpan(cassandra::JavaUtf16Bytes(key)));
  auto spec = cassandra::StringFilterSizeForBucketsPerElement(1, 15);
  EXPECT_TRUE(spec.ok());
  auto bytes = cassandra::BuildLegacyFilter(hashed, *spec);
  EXPECT_TRUE(bytes.ok());
  return *bytes;
}

TEST_F(GroupsDir, AVersionBSstableCountsInItsColumnFamilyGroupByItsFilter) {
  WriteFileAt(ks_ + "/Standard3-b-8-Index.db", HexBytes("0005"
                                                        "31323a6b31"
                                                        "0000000000000000"));
  WriteFileAt(ks_ + "/Standard3-b-8-Filter.db", OneStringFilter(u"12:k1"));
  WriteFileAt(ks_ + "/Standard1-b-9-Index.db", HexBytes("0005"
                                                        "31323a6b32"
                                                        "0000000000000000"));
  WriteFileAt(ks_ + "/Standard1-b-9-Filter.db", OneStringFilter(u"12:k2"));
  const Json doc = VerifyJson({Data()}, 0);
  const Json& b8 = FileEndingWith(doc, "Standard3-b-8-Filter.db");
  EXPECT_EQ(b8["group"], "Keyspace1/Standard3");
  EXPECT_EQ(b8["format"], "cassandra-0.6");
  EXPECT_EQ(b8["keys_checked"], 1);
  EXPECT_EQ(FileEndingWith(doc, "Standard1-b-9-Filter.db")["group"], "Keyspace1/Standard1");
  const Json& alone = Group(doc, "Keyspace1/Standard3");
  EXPECT_EQ(alone["tables"], 1);
  EXPECT_EQ(alone["combined_fp_rate"], b8["fp_rate"]);
  const Json& mixed = Group(doc, "Keyspace1/Standard1");
  EXPECT_EQ(mixed["tables"], 3);
  EXPECT_NEAR(mixed["combined_fp_rate"].get<double>(),
              CombinedFromFiles(doc, "Keyspace1/Standard1"), 1e-15);
}

TEST(VerifyGroups, ALevelDb117FilterCountsAsRateOneForTheAssumedReader) {
  CliDir dir;
  fs::create_directories(dir.Path("t"));
  const std::string legacy = dir.Path("t/000001.ldb");
  const std::string current = dir.Path("t/000002.ldb");
  WriteFileAt(legacy, ReadFixture("leveldb/tables/tb_legacy_v117_signed_bpk10_bs256.ldb"));
  WriteFileAt(current, ReadFixture("leveldb/tables/tb_bpk10_snappy_bs256.ldb"));
  const Json doc = VerifyJson({legacy, current, "--key-kind", "plain"}, 0);
  const Json& old = FileEndingWith(doc, "000001.ldb");
  EXPECT_EQ(Kinds(old), std::vector<std::string>{"unsupported"});
  EXPECT_LT(old["fp_rate"].get<double>(), 0.1);  // the filter itself is fine...
  const Json& g = Group(doc, dir.Path("t"));
  EXPECT_EQ(g["tables"], 2);
  EXPECT_EQ(g["ignored_filters"], 1);
  EXPECT_EQ(g["combined_fp_rate"], 1.0);  // ...but LevelDB 1.18+ never looks it up
  CliRun text = RunCli({"verify", legacy, current, "--key-kind", "plain"});
  EXPECT_NE(text.out.find("LevelDB 1.18+ reader is assumed"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace bloomcodec::testing

// convert --to leveldb-table: a table's filter block added, replaced or removed, then opened by
// the ORIGINAL LevelDB 1.23 (Table::Open, a full iteration, Table::InternalGet for every key with
// a policy that records each KeyMayMatch call).
#include <gtest/gtest.h>
#include <leveldb/db.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "convert_support.h"
#include "leveldb_table/leveldb_harness.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

using leveldb_test::RecordingPolicy;
using leveldb_test::StringSource;

std::vector<std::string> TableKeys(const std::string& keys_tsv) {
  TsvTable t = ReadTsvFixture(keys_tsv);
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ByteVector k = HexBytes(t.At(i, "key_hex"));
    keys.emplace_back(AsChars(k));
  }
  return keys;
}

struct Lookup {
  std::string key;
  bool found = false;
};

void SaveIfSameKey(void* arg, const ::leveldb::Slice& k, const ::leveldb::Slice&) {
  auto* l = static_cast<Lookup*>(arg);
  if (k.ToString() == l->key) l->found = true;
}

// What LevelDB 1.23 does with `table` (plain keys): every entry in order, every key found
// through InternalGet, and the KeyMayMatch calls that lookup made.
struct OriginalRead {
  std::size_t entries = 0;
  std::size_t found = 0;
  std::size_t filter_calls = 0;
  std::size_t filter_said_absent = 0;
  std::set<std::string> filters_used;
};

OriginalRead ReadWithLevelDb(const ByteVector& table, const std::vector<std::string>& keys,
                             int policy_bits) {
  RecordingPolicy policy(policy_bits);
  ::leveldb::Options options;
  options.filter_policy = &policy;
  const std::string bytes(AsChars(table));
  StringSource source(bytes);
  ::leveldb::Table* raw = nullptr;
  ::leveldb::Status s = ::leveldb::Table::Open(options, &source, bytes.size(), &raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  OriginalRead read;
  if (!s.ok()) return read;
  std::unique_ptr<::leveldb::Table> t(raw);
  std::unique_ptr<::leveldb::Iterator> it(t->NewIterator(::leveldb::ReadOptions()));
  std::size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) {
    if (i < keys.size()) {
      EXPECT_EQ(it->key().ToString(), keys[i]) << i;
    }
  }
  EXPECT_TRUE(it->status().ok());
  read.entries = i;
  for (const std::string& k : keys) {
    Lookup l{k};
    EXPECT_TRUE(::leveldb::TableCache::BloomcodecInternalGet(t.get(), ::leveldb::ReadOptions(),
                                                             ::leveldb::Slice(k), &l, SaveIfSameKey)
                    .ok());
    read.found += l.found;
  }
  read.filter_calls = policy.calls.size();
  for (const auto& c : policy.calls) {
    read.filter_said_absent += !c.result;
    read.filters_used.insert(c.filter);
  }
  return read;
}

// The raw filters of a table's filter block, split by convert.
std::set<std::string> FiltersOf(const std::string& table_path, const std::string& bloom) {
  CliDir dir;
  CliRun r = RunCli({"convert", table_path, "--to", bloom, "-o", dir.Path("s") + "/"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> filters;
  auto list = nlohmann::ordered_json::parse(ReadAnyText(dir.Path("s/filters.json")));
  for (const auto& f : list["filters"]) {
    const ByteVector b = ReadAnyFile(dir.Path("s/") + f["file"].get<std::string>());
    if (!b.empty()) filters.insert(std::string(AsChars(b)));
  }
  return filters;
}

TEST(TableConvert, AFilterAddedToATableWithoutOneIsUsedByLevelDb) {
  CliDir dir;
  const std::vector<std::string> keys = TableKeys("leveldb/tables/tb_nofilter_bs1024.keys.tsv");
  const std::string in = FixtureForCli("leveldb/tables/tb_nofilter_bs1024.ldb");
  OriginalRead before =
      ReadWithLevelDb(ReadFixture("leveldb/tables/tb_nofilter_bs1024.ldb"), keys, 10);
  EXPECT_EQ(before.filter_calls, 0u);

  auto report = RunJson({"convert", in, "--to", "leveldb-table", "--bits-per-key", "10", "-o",
                         dir.Path("with.ldb"), "--json"});
  EXPECT_EQ(report["how"], "rewritten");
  EXPECT_EQ(report["keys"].get<std::size_t>(), keys.size());
  const ByteVector out = ReadAnyFile(dir.Path("with.ldb"));
  OriginalRead after = ReadWithLevelDb(out, keys, 10);
  EXPECT_EQ(after.entries, keys.size());
  EXPECT_EQ(after.found, keys.size());
  EXPECT_EQ(after.filter_calls, keys.size());  // one KeyMayMatch per lookup: the filter is used
  EXPECT_EQ(after.filter_said_absent, 0u);
  // The filters LevelDB consulted are the ones in our new filter block.
  const std::set<std::string> ours = FiltersOf(dir.Path("with.ldb"), "leveldb-bloom");
  for (const std::string& f : after.filters_used) EXPECT_TRUE(ours.count(f));
  EXPECT_FALSE(ours.empty());
}

TEST(TableConvert, AReplacedFilterHasTheNewSizeAndIsUsed) {
  CliDir dir;
  const std::vector<std::string> keys = TableKeys("leveldb/tables/tb_bpk10_none_bs64.keys.tsv");
  const std::string in = FixtureForCli("leveldb/tables/tb_bpk10_none_bs64.ldb");
  CliRun r = RunCli({"convert", in, "--to", "leveldb-table", "--bits-per-key", "20", "-o",
                     dir.Path("bpk20.ldb")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rewritten"), std::string::npos);
  const ByteVector out = ReadAnyFile(dir.Path("bpk20.ldb"));
  OriginalRead read = ReadWithLevelDb(out, keys, 20);
  EXPECT_EQ(read.entries, keys.size());
  EXPECT_EQ(read.found, keys.size());
  EXPECT_EQ(read.filter_calls, keys.size());
  EXPECT_EQ(read.filter_said_absent, 0u);
  const std::set<std::string> ours = FiltersOf(dir.Path("bpk20.ldb"), "leveldb-bloom");
  for (const std::string& f : read.filters_used) {
    EXPECT_TRUE(ours.count(f));
    EXPECT_EQ(static_cast<unsigned char>(f.back()), 13);  // k of 20 bits per key
  }
  // The data blocks and the index are untouched: the same keys in the same blocks.
  auto before = RunJson({"inspect", in, "--json"})["files"][0];
  auto after = RunJson({"inspect", dir.Path("bpk20.ldb"), "--json"})["files"][0];
  EXPECT_EQ(before["data_blocks"], after["data_blocks"]);
  EXPECT_EQ(before["filter"]["num_filters"], after["filter"]["num_filters"]);
}

TEST(TableConvert, ARemovedFilterLeavesATableLevelDbReadsWithoutFilterCalls) {
  CliDir dir;
  const std::vector<std::string> keys = TableKeys("leveldb/tables/tb_bpk10_none_bs64.keys.tsv");
  CliRun r = RunCli({"convert", FixtureForCli("leveldb/tables/tb_bpk10_none_bs64.ldb"), "--to",
                     "leveldb-table", "--no-filter", "-o", dir.Path("none.ldb")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  OriginalRead read = ReadWithLevelDb(ReadAnyFile(dir.Path("none.ldb")), keys, 10);
  EXPECT_EQ(read.entries, keys.size());
  EXPECT_EQ(read.found, keys.size());
  EXPECT_EQ(read.filter_calls, 0u);
  auto doc = RunJson({"inspect", dir.Path("none.ldb"), "--json"})["files"][0];
  EXPECT_TRUE(doc["filter"].is_null());
  EXPECT_TRUE(doc["metaindex"].empty());
}

TEST(TableConvert, ALegacyFilterIsWrittenUnderThe117NameThatLevelDb118Ignores) {
  CliDir dir;
  const std::vector<std::string> keys = TableKeys("leveldb/tables/tb_bpk10_none_bs64.keys.tsv");
  CliRun r =
      RunCli({"convert", FixtureForCli("leveldb/tables/tb_bpk10_none_bs64.ldb"), "--to",
              "leveldb-table", "--bits-per-key", "10", "--legacy-1.17", "-o", dir.Path("old.ldb")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  OriginalRead read = ReadWithLevelDb(ReadAnyFile(dir.Path("old.ldb")), keys, 10);
  EXPECT_EQ(read.found, keys.size());
  EXPECT_EQ(read.filter_calls, 0u);  // 1.23 looks for ...Filter2 only
  auto doc = RunJson({"inspect", dir.Path("old.ldb"), "--json"})["files"][0];
  EXPECT_EQ(doc["filter"]["metaindex_key"], "filter.leveldb.BuiltinBloomFilter");
  EXPECT_EQ(doc["filter"]["legacy_v117"], true);
  EXPECT_NE(doc["filter"]["note"].get<std::string>().find("ignore"), std::string::npos);
}

// --filter-for names the reader, whoever wrote the input: a 1.18 table given goleveldb's filter
// is one LevelDB 1.23 no longer consults, and given 1.18's again, one it does.
TEST(TableConvert, FilterForWritesTheFilterOfTheReaderNamed) {
  CliDir dir;
  const std::vector<std::string> keys = TableKeys("leveldb/tables/tb_bpk10_none_bs64.keys.tsv");
  const std::string in = FixtureForCli("leveldb/tables/tb_bpk10_none_bs64.ldb");
  CliRun r = RunCli({"convert", in, "--to", "leveldb-table", "--bits-per-key", "10", "--filter-for",
                     "goleveldb", "-o", dir.Path("go.ldb")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  OriginalRead go = ReadWithLevelDb(ReadAnyFile(dir.Path("go.ldb")), keys, 10);
  EXPECT_EQ(go.found, keys.size());
  EXPECT_EQ(go.filter_calls, 0u);  // 1.23 looks for ...Filter2 only
  auto doc = RunJson({"inspect", dir.Path("go.ldb"), "--json"})["files"][0];
  EXPECT_EQ(doc["filter"]["metaindex_key"], "filter.leveldb.BuiltinBloomFilter");
  EXPECT_EQ(doc["filter"]["filter_format"], "goleveldb-bloom");

  r = RunCli({"convert", dir.Path("go.ldb"), "--to", "leveldb-table", "--bits-per-key", "10",
              "--filter-for", "leveldb", "-o", dir.Path("back.ldb")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  OriginalRead back = ReadWithLevelDb(ReadAnyFile(dir.Path("back.ldb")), keys, 10);
  EXPECT_EQ(back.found, keys.size());
  EXPECT_EQ(back.filter_calls, keys.size());
  EXPECT_EQ(back.filter_said_absent, 0u);
  // The same filter block as a plain rewrite of the 1.18 input: nothing of goleveldb's is left.
  r = RunCli({"convert", in, "--to", "leveldb-table", "--bits-per-key", "10", "-o",
              dir.Path("plain.ldb")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadAnyFile(dir.Path("back.ldb")), ReadAnyFile(dir.Path("plain.ldb")));

  // It chooses what --legacy-1.17 chooses, needs --bits-per-key, and is for rewrites only.
  const std::string out = dir.Path("x.ldb");
  r = RunCli({"convert", in, "--to", "leveldb-table", "--filter-for", "goleveldb", "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--filter-for needs --bits-per-key N"), std::string::npos) << r.err;
  r = RunCli({"convert", in, "--to", "leveldb-table", "--bits-per-key", "10", "--legacy-1.17",
              "--filter-for", "goleveldb", "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give one"), std::string::npos) << r.err;
  r = RunCli({"convert", in, "--to", "leveldb-bloom", "--filter-for", "leveldb", "-o",
              dir.Path("split") + "/"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--filter-for rewrites a table's filter"), std::string::npos) << r.err;
  r = RunCli({"convert", in, "--to", "leveldb-table", "--bits-per-key", "10", "--filter-for",
              "rocksdb", "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--filter-for: expected one of"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(TableConvert, A117TableUpgradedTo118GetsAFilterLevelDb123Uses) {
  CliDir dir;
  const std::string base = "leveldb/tables/tb_legacy_v117_signed_bpk10_bs256";
  const std::vector<std::string> keys = TableKeys(base + ".keys.tsv");
  OriginalRead before = ReadWithLevelDb(ReadFixture(base + ".ldb"), keys, 10);
  EXPECT_EQ(before.filter_calls, 0u);  // 1.23 ignores the 1.17 filter
  CliRun r = RunCli({"convert", FixtureForCli(base + ".ldb"), "--to", "leveldb-table",
                     "--bits-per-key", "10", "-o", dir.Path("new.ldb")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  OriginalRead after = ReadWithLevelDb(ReadAnyFile(dir.Path("new.ldb")), keys, 10);
  EXPECT_EQ(after.found, keys.size());
  EXPECT_EQ(after.filter_calls, keys.size());
  EXPECT_EQ(after.filter_said_absent, 0u);
  auto doc = RunJson({"inspect", dir.Path("new.ldb"), "--json"})["files"][0];
  ASSERT_EQ(doc["metaindex"].size(), 1u);  // the 1.17 entry is gone
  EXPECT_EQ(doc["metaindex"][0]["key"], "filter.leveldb.BuiltinBloomFilter2");
}

TEST(TableConvert, ADatabaseTablesFilterIsRebuiltOverItsUserKeys) {
  CliDir dir;
  const std::string base = "leveldb/tables/db_bpk10_snappy_bs1024__000005";
  CliRun r = RunCli({"convert", FixtureForCli(base + ".ldb"), "--to", "leveldb-table",
                     "--bits-per-key", "5", "-o", dir.Path("db.ldb")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every user key probes 1 through the read path, as DB::Get would find it.
  TsvTable t = ReadTsvFixture(base + ".keys.tsv");
  std::string user_keys;
  const int col = t.Column("user_key_hex") >= 0 ? t.Column("user_key_hex") : t.Column("key_hex");
  ASSERT_GE(col, 0);
  for (const auto& row : t.rows) {
    std::string hex = row[static_cast<std::size_t>(col)];
    if (t.Column("user_key_hex") < 0) hex.resize(hex.size() >= 16 ? hex.size() - 16 : 0);
    user_keys += hex + "\n";
  }
  auto probe = RunJson({"probe", dir.Path("db.ldb"), "--keys", dir.Write("u.hex", user_keys),
                        "--key-format", "hex", "--key-kind", "user", "--json"});
  EXPECT_EQ(probe["positives"], probe["keys"]);
  auto doc = RunJson({"inspect", dir.Path("db.ldb"), "--json"})["files"][0];
  EXPECT_EQ(doc["key_kind"], "user");
  EXPECT_EQ(doc["filter"]["filters"][0]["hash_count"], 3);  // k of 5 bits per key
}

// The database case end to end: a database written by LevelDB 1.23 (10 bits per key), every
// table's filter rebuilt by convert with 5 bits per key and put back in place. The MANIFEST
// records each table's size, which the smaller filter changed, so LevelDB's own RepairDB
// rewrites it (what docs/cli.md tells operators to do). Reopened by LevelDB with the 5-bit
// policy, DB::Get finds every key (checksums verified) and every filter it consults is one of
// ours (k = 3, the last byte of each filter).
TEST(TableConvert, ADatabaseWithRewrittenFiltersIsReadByLevelDbThroughThem) {
  CliDir dir;
  const std::filesystem::path db_dir = dir.Path("db");
  std::vector<std::string> keys;
  for (int i = 0; i < 3000; ++i) keys.push_back("user-key-" + std::to_string(i * 7919 % 100003));
  {
    const std::unique_ptr<const ::leveldb::FilterPolicy> bloom10(
        ::leveldb::NewBloomFilterPolicy(10));
    ::leveldb::Options options;
    options.create_if_missing = true;
    options.filter_policy = bloom10.get();
    options.write_buffer_size = 64 * 1024;  // several tables
    ::leveldb::DB* raw = nullptr;
    ASSERT_TRUE(::leveldb::DB::Open(options, db_dir.string(), &raw).ok());
    std::unique_ptr<::leveldb::DB> db(raw);
    for (const std::string& k : keys) {
      ASSERT_TRUE(db->Put(::leveldb::WriteOptions(), k, "value of " + k).ok());
    }
    db->CompactRange(nullptr, nullptr);
  }
  int tables = 0;
  for (const auto& entry : std::filesystem::directory_iterator(db_dir)) {
    if (entry.path().extension() != ".ldb") continue;
    const std::string table = entry.path().string();
    CliRun r = RunCli({"convert", table, "--to", "leveldb-table", "--bits-per-key", "5",
                       "--key-kind", "user", "-o", table + ".new"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::filesystem::rename(table + ".new", table);
    ++tables;
  }
  ASSERT_GE(tables, 1);

  RecordingPolicy bloom5(5);
  ::leveldb::Options options;
  options.filter_policy = &bloom5;
  options.paranoid_checks = true;
  ::leveldb::Status s = ::leveldb::RepairDB(db_dir.string(), options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ::leveldb::DB* raw = nullptr;
  s = ::leveldb::DB::Open(options, db_dir.string(), &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<::leveldb::DB> db(raw);
  ::leveldb::ReadOptions read;
  read.verify_checksums = true;
  for (const std::string& k : keys) {
    std::string value;
    s = db->Get(read, k, &value);
    ASSERT_TRUE(s.ok()) << k << ": " << s.ToString();
    EXPECT_EQ(value, "value of " + k);
  }
  ASSERT_GE(bloom5.calls.size(), keys.size());  // every Get asked a filter
  std::size_t rejected = 0;
  for (const auto& c : bloom5.calls) {
    ASSERT_FALSE(c.filter.empty());
    EXPECT_EQ(static_cast<unsigned char>(c.filter.back()), 3u);  // k of 5 bits per key: ours
    EXPECT_TRUE(c.result) << c.key;                              // stored keys are never rejected
  }
  // Keys never written but inside the tables' key ranges (else Version::Get asks no table): our
  // filters turn most of them away before any block read.
  const std::set<std::string> written(keys.begin(), keys.end());
  int absent = 0;
  for (int j = 0; j < 100003 && absent < 2000; ++j) {
    const std::string k = "user-key-" + std::to_string(j);
    if (written.count(k)) continue;
    std::string value;
    s = db->Get(read, k, &value);
    EXPECT_TRUE(s.IsNotFound()) << k << ": " << s.ToString();
    ++absent;
  }
  for (const auto& c : bloom5.calls) rejected += !c.result;
  EXPECT_GT(rejected, 1000u);
}

TEST(TableConvert, WithoutParametersATableIsCopiedAndKeysDoNotApply) {
  CliDir dir;
  const std::string in = FixtureForCli("leveldb/tables/tb_bpk10_none_bs64.ldb");
  auto report =
      RunJson({"convert", in, "--to", "leveldb-table", "-o", dir.Path("c.ldb"), "--json"});
  EXPECT_EQ(report["how"], "lossless");
  EXPECT_EQ(ReadAnyFile(dir.Path("c.ldb")), ReadFixture("leveldb/tables/tb_bpk10_none_bs64.ldb"));
  CliRun r = RunCli({"convert", in, "--to", "leveldb-table", "--bits-per-key", "10", "--keys",
                     dir.Write("k", "a\n"), "-o", dir.Path("d.ldb")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("own keys"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace bloomcodec::testing

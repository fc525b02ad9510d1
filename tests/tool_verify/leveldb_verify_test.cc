// verify on LevelDB database directories and single tables, run as a process. The database is
// written by the ORIGINAL LevelDB (libleveldb 1.23); damaged copies are made by editing its
// tables, and what a damaged filter loses is judged by LevelDB's own bloom policy.
#include <gtest/gtest.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "blocktable/crc32c.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "codec/byte_writer.h"
#include "leveldb/table/table_reader.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;

// One database for the whole suite (building it is the slow part); each test copies it.
class LevelDbDir : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    source_ = new CliDir();
    policy_ = ::leveldb::NewBloomFilterPolicy(10);
    ::leveldb::Options options;
    options.create_if_missing = true;
    options.filter_policy = policy_;
    options.write_buffer_size = 64 << 10;
    options.max_file_size = 48 << 10;
    options.compression = ::leveldb::kNoCompression;
    ::leveldb::DB* raw = nullptr;
    ASSERT_TRUE(::leveldb::DB::Open(options, source_->Path("db"), &raw).ok());
    std::unique_ptr<::leveldb::DB> db(raw);
    std::mt19937_64 rng(7);
    keys_ = new std::vector<std::string>();
    for (int i = 0; i < 6000; ++i) {
      std::string key = "user:" + std::to_string(rng() % 1000000000) + ":" + std::to_string(i);
      keys_->push_back(key);
      // ~3.6 MB of values: LevelDB cuts compaction output near its file size target, so the
      // database ends with several tables.
      ASSERT_TRUE(db->Put({}, key, std::string(500 + rng() % 200, 'v')).ok());
    }
    db->CompactRange(nullptr, nullptr);
  }
  static void TearDownTestSuite() {
    delete source_;
    delete policy_;
    delete keys_;
  }

  void SetUp() override {
    fs::copy(source_->Path("db"), dir_.Path("db"), fs::copy_options::recursive);
    for (const auto& e : fs::directory_iterator(dir_.Path("db"))) {
      if (e.path().extension() == ".ldb") tables_.push_back(e.path().string());
    }
    std::sort(tables_.begin(), tables_.end());
    ASSERT_GE(tables_.size(), 3u);
  }
  std::string Db() const { return dir_.Path("db"); }

  static CliDir* source_;
  static const ::leveldb::FilterPolicy* policy_;
  static std::vector<std::string>* keys_;
  CliDir dir_;
  std::vector<std::string> tables_;
};
CliDir* LevelDbDir::source_ = nullptr;
const ::leveldb::FilterPolicy* LevelDbDir::policy_ = nullptr;
std::vector<std::string>* LevelDbDir::keys_ = nullptr;

TEST_F(LevelDbDir, HealthyDatabaseIsClean) {
  Json doc = VerifyJson({Db()}, 0);
  ASSERT_EQ(doc["files"].size(), tables_.size());
  std::uint64_t checked = 0;
  for (const Json& f : doc["files"]) {
    EXPECT_EQ(f["status"], "ok") << f.dump(1);
    EXPECT_EQ(f["format"], "leveldb-table");
    EXPECT_EQ(f["version"], "leveldb.BuiltinBloomFilter2");
    EXPECT_EQ(f["group"], Db());
    EXPECT_EQ(f["false_negative_count"], 0);
    EXPECT_EQ(f["hash_count"], 6);  // 10 bits per key: k = 10 * 0.69
    EXPECT_GT(f["fp_rate"].get<double>(), 0);
    EXPECT_LT(f["fp_rate"].get<double>(), 0.05);
    EXPECT_NEAR(f["estimated_keys"].get<double>(), f["sized_keys"].get<double>(),
                0.1 * f["sized_keys"].get<double>());
    checked += f["keys_checked"].get<std::uint64_t>();
  }
  // Every key was written once and compacted: one entry each.
  EXPECT_EQ(checked, keys_->size());
  ASSERT_EQ(doc["summary"]["groups"].size(), 1u);
  EXPECT_EQ(doc["summary"]["groups"][0]["tables"], tables_.size());
  // The MANIFEST gives the levels: a read consults every level-0 table and one table per level
  // above, the level's key-weighted mean rate.
  std::map<int, std::pair<double, double>> levels;  // level -> (sum of p * keys, keys)
  double level0_miss = 1;
  for (const Json& f : doc["files"]) {
    ASSERT_TRUE(f.contains("level")) << f.dump(1);
    const int level = f["level"].get<int>();
    const double p = f["fp_rate"].get<double>(), keys = f["keys_checked"].get<double>();
    if (level == 0) level0_miss *= 1 - p;
    levels[level].first += p * keys;
    levels[level].second += keys;
  }
  double miss = level0_miss;
  for (const auto& [level, sums] : levels) {
    if (level > 0) miss *= 1 - sums.first / sums.second;
  }
  EXPECT_EQ(doc["summary"]["groups"][0]["levels"].size(), levels.size());
  EXPECT_NEAR(doc["summary"]["groups"][0]["combined_fp_rate"].get<double>(), 1 - miss, 1e-15);
  // Less than every table taken as consulted (what the figure is without a MANIFEST).
  EXPECT_LT(doc["summary"]["groups"][0]["combined_fp_rate"].get<double>(),
            CombinedFromFiles(doc, Db()));
}

TEST_F(LevelDbDir, ABadBlockChecksumIsAStructureErrorOfThatTableOnly) {
  ByteVector table = ReadAnyFile(tables_[1]);
  table[20] ^= 0x10;  // inside the first data block
  WriteFileAt(tables_[1], table);
  Json doc = VerifyJson({Db()}, 1);
  const Json& f = FileEndingWith(doc, fs::path(tables_[1]).filename().string());
  EXPECT_EQ(f["status"], "error");
  ASSERT_EQ(Kinds(f), std::vector<std::string>{"structure"});
  EXPECT_NE(f["findings"][0]["message"].get<std::string>().find("CRC-32C"), std::string::npos)
      << f.dump(1);
  EXPECT_TRUE(f["findings"][0].contains("offset"));
  EXPECT_EQ(doc["summary"]["errors"], 1);
  EXPECT_EQ(doc["summary"]["ok"], tables_.size() - 1);
}

TEST_F(LevelDbDir, ATruncatedTableIsAStructureError) {
  ByteVector table = ReadAnyFile(tables_[0]);
  table.resize(table.size() / 2);
  WriteFileAt(tables_[0], table);
  Json doc = VerifyJson({Db()}, 1);
  const Json& f = FileEndingWith(doc, fs::path(tables_[0]).filename().string());
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"structure"});
  EXPECT_EQ(doc["summary"]["errors"], 1);
}

// Zeroes the bit array of filter 0 (keeping its k byte) and rewrites the filter block's CRC, so
// that only the filter is wrong. Returns the user keys of the data blocks filter 0 serves.
std::vector<std::string> ZeroFirstFilter(const std::string& path) {
  ByteVector bytes = ReadAnyFile(path);
  std::vector<std::string> served;
  {
    leveldb::TableOpenOptions options;
    options.key_kind = KeyKind::kUser;
    auto table = leveldb::TableReader::Open(bytes, path, options);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (!table.ok()) return served;
    const auto& tf = *table->filter();
    auto layout = leveldb::ParseFilterBlockLayout(tf.contents.bytes(), path);
    EXPECT_TRUE(layout.ok());
    EXPECT_EQ(tf.contents.compression(), blocktable::BlockCompression::kNone);
    const leveldb::FilterRange r = layout->filters[0];
    EXPECT_GT(r.size(), 1u);
    const std::uint64_t start = tf.handle.offset + r.start;
    std::fill(bytes.begin() + start, bytes.begin() + start + r.size() - 1, 0);
    Status s =
        table->ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle& block) {
          if (layout->IndexFor(block.offset) == 0) {
            served.emplace_back(AsChars(leveldb::UserKeyOf(key)));
          }
          return Status();
        });
    EXPECT_TRUE(s.ok());
    // The trailer: type byte, then the masked CRC of contents + type.
    ByteSpan contents(bytes.data() + tf.handle.offset, tf.handle.size);
    const std::uint32_t crc = blocktable::BlockTrailerCrc(contents, 0);
    ByteVector le;
    ByteWriter(le).PutLittleU32(crc);
    std::copy(le.begin(), le.end(), bytes.begin() + tf.handle.offset + tf.handle.size + 1);
  }
  WriteFileAt(path, bytes);
  return served;
}

TEST_F(LevelDbDir, AZeroedFilterReportsTheKeysItLosesAsLevelDbWouldMissThem) {
  const std::string victim = tables_[2];
  std::vector<std::string> served = ZeroFirstFilter(victim);
  ASSERT_FALSE(served.empty());
  // LevelDB's own policy on the damaged filter: every key it served is now rejected.
  {
    ByteVector bytes = ReadAnyFile(victim);
    leveldb::TableOpenOptions options;
    options.key_kind = KeyKind::kUser;
    auto table = leveldb::TableReader::Open(bytes, victim, options);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    auto layout = leveldb::ParseFilterBlockLayout(table->filter()->contents.bytes(), victim);
    ASSERT_TRUE(layout.ok());
    ByteSpan filter = table->filter()->contents.bytes().subspan(layout->filters[0].start,
                                                                layout->filters[0].size());
    ::leveldb::Slice slice(reinterpret_cast<const char*>(filter.data()), filter.size());
    for (const std::string& k : served) EXPECT_FALSE(policy_->KeyMayMatch(k, slice)) << k;
  }
  Json doc = VerifyJson({Db()}, 1);
  const Json& f = FileEndingWith(doc, fs::path(victim).filename().string());
  EXPECT_EQ(f["status"], "error");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"false-negative"}) << f.dump(1);
  EXPECT_EQ(f["false_negative_count"], served.size());
  std::vector<std::string> listed;
  for (std::size_t i = 0; i < std::min<std::size_t>(served.size(), 20); ++i) {
    listed.push_back(ToHex(AsBytes(served[i])));
  }
  EXPECT_EQ(f["false_negatives"].get<std::vector<std::string>>(), listed);
  EXPECT_EQ(doc["summary"]["errors"], 1);
}

TEST_F(LevelDbDir, SingleTablesFromTableOrWithKeys) {
  Json own = VerifyJson({tables_[0], "--from-table"}, 0);
  ASSERT_EQ(own["files"].size(), 1u);
  const std::uint64_t entries = own["files"][0]["keys_checked"].get<std::uint64_t>();
  EXPECT_GT(entries, 0u);
  Json implicit = VerifyJson({tables_[0]}, 0);  // a table checks its own keys anyway
  EXPECT_EQ(implicit["files"][0]["keys_checked"], entries);

  // Keys the table holds (user keys, looked up as DB::Get does) are all present...
  std::set<std::string> in_table;
  {
    ByteVector bytes = ReadAnyFile(tables_[0]);
    leveldb::TableOpenOptions options;
    options.key_kind = KeyKind::kUser;
    auto table = leveldb::TableReader::Open(bytes, tables_[0], options);
    ASSERT_TRUE(table.ok());
    ASSERT_TRUE(table
                    ->ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) {
                      in_table.emplace(AsChars(leveldb::UserKeyOf(key)));
                      return Status();
                    })
                    .ok());
  }
  std::string text;
  for (const std::string& k : in_table) text += k + "\n";
  Json given =
      VerifyJson({tables_[0], "--keys", dir_.Write("in.txt", text), "--key-kind", "user"}, 0);
  EXPECT_EQ(given["files"][0]["keys_checked"], entries + in_table.size());
  // ...and a key past the table's last key is answered "absent": claimed present, it is listed.
  Json past =
      VerifyJson({tables_[0], "--keys", dir_.Write("past.txt", "zzzz\n"), "--key-kind", "user"}, 1);
  EXPECT_EQ(past["files"][0]["false_negatives"].get<std::vector<std::string>>(),
            std::vector<std::string>{"7a7a7a7a"});

  CliRun wrong = RunCli({"verify", tables_[0], "--index", tables_[1]});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("Index.db"), std::string::npos) << wrong.err;
}

TEST_F(LevelDbDir, SeveralPathsReportInTheOrderGiven) {
  Json doc = VerifyJson({tables_[2], tables_[0]}, 0);
  ASSERT_EQ(doc["files"].size(), 2u);
  EXPECT_EQ(doc["files"][0]["path"], tables_[2]);
  EXPECT_EQ(doc["files"][1]["path"], tables_[0]);
}

}  // namespace
}  // namespace bloomcodec::testing

// Databases written by the original RocksDB 7.8.3 (Debian's librocksdb) with two column families,
// automatic compactions off and explicit flushes and range compactions so that tables sit at
// several levels (deterministic): verify must list the live SSTs at the levels and column
// families GetLiveFilesMetaData gives, with their key ranges, and report a missing SST; inspect
// lists the same.
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <set>

#include "manifest/db_checks.h"
#include "manifest/manifest.h"

namespace bloomcodec::manifest_test {
namespace {

std::string Key(std::uint32_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%08u", i);
  return buf;
}

struct LibraryView {
  Levels levels;
  std::map<std::uint64_t, std::pair<std::string, std::string>> ranges;  // user keys
};

LibraryView WriteDatabase(const std::string& dir, std::uint32_t seed) {
  ::rocksdb::Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.disable_auto_compactions = true;
  options.write_buffer_size = 64 << 10;
  options.target_file_size_base = 32 << 10;
  ::rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(::rocksdb::NewBloomFilterPolicy(10));
  table.block_size = 1024;
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
  std::vector<::rocksdb::ColumnFamilyDescriptor> families{
      {::rocksdb::kDefaultColumnFamilyName, options}, {"cf1", options}};
  std::vector<::rocksdb::ColumnFamilyHandle*> handles;
  ::rocksdb::DB* raw = nullptr;
  const ::rocksdb::Status open = ::rocksdb::DB::Open(options, dir, families, &handles, &raw);
  EXPECT_TRUE(open.ok()) << open.ToString();
  std::unique_ptr<::rocksdb::DB> db(raw);
  std::mt19937 rng(seed);
  auto put_range = [&](::rocksdb::ColumnFamilyHandle* cf, std::uint32_t from, std::uint32_t to,
                       std::uint32_t step) {
    for (std::uint32_t i = from; i < to; i += step) {
      std::string value(40 + rng() % 60, static_cast<char>('a' + rng() % 26));
      EXPECT_TRUE(db->Put(::rocksdb::WriteOptions(), cf, Key(i), value).ok());
    }
    EXPECT_TRUE(db->Flush(::rocksdb::FlushOptions(), cf).ok());
  };
  ::rocksdb::CompactRangeOptions deep;
  deep.change_level = true;
  deep.target_level = 3;
  put_range(handles[0], 0, 8000, 1);
  EXPECT_TRUE(db->CompactRange(deep, handles[0], nullptr, nullptr).ok());
  put_range(handles[0], 2000, 4000, 2);
  // That flush's level-0 table compacted into level 1 (empty: nothing else is pulled in).
  std::vector<::rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  std::vector<std::string> level0;
  for (const auto& f : files) {
    if (f.level == 0 && f.column_family_name == "default") level0.push_back(f.name);
  }
  EXPECT_FALSE(level0.empty());
  const ::rocksdb::Status moved =
      db->CompactFiles(::rocksdb::CompactionOptions(), handles[0], level0, 1);
  EXPECT_TRUE(moved.ok()) << moved.ToString();
  put_range(handles[0], 5000, 6000, 3);  // stays in level 0
  put_range(handles[0], 6000, 7000, 5);  // another level-0 table
  put_range(handles[1], 0, 3000, 1);
  // A range deletion wider than the table's keys: its bounds are the MANIFEST's smallest and
  // largest, not a point key (no key-range finding may follow).
  EXPECT_TRUE(db->DeleteRange(::rocksdb::WriteOptions(), handles[1], Key(5000), Key(6000)).ok());
  EXPECT_TRUE(db->Put(::rocksdb::WriteOptions(), handles[1], Key(5500), "v").ok());
  EXPECT_TRUE(db->Flush(::rocksdb::FlushOptions(), handles[1]).ok());
  LibraryView view;
  std::vector<::rocksdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  for (const auto& f : live) {
    view.levels[{f.column_family_name, f.file_number}] = f.level;
    view.ranges[f.file_number] = {f.smallestkey, f.largestkey};
  }
  for (auto* h : handles) EXPECT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  EXPECT_TRUE(db->Close().ok());
  return view;
}

class RocksDbDatabase : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("manifest-rocksdb");
    want_ = new LibraryView(WriteDatabase(dir_->path() + "/db", 11));
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete want_;
  }
  static TempDir* dir_;
  static LibraryView* want_;
};
TempDir* RocksDbDatabase::dir_ = nullptr;
LibraryView* RocksDbDatabase::want_ = nullptr;

TEST_F(RocksDbDatabase, LiveSstsLevelsAndColumnFamiliesAsRocksDbSeesThem) {
  const std::string db = dir_->path() + "/db";
  std::set<int> levels;
  for (const auto& [k, level] : want_->levels) {
    if (k.first == "default") levels.insert(level);
  }
  ASSERT_GE(levels.size(), 3u) << "levels 0, 1 and 3 expected";
  const VerifyReport report = Verify(db);
  EXPECT_EQ(LevelsOf(report), want_->levels);
  EXPECT_EQ(report.summary.errors, 0u);
  EXPECT_EQ(report.summary.warnings, 0u);
  EXPECT_EQ(report.files.size(), want_->levels.size());
  // One group per column family; levels and the per-level rate.
  ASSERT_EQ(report.summary.groups.size(), 2u);
  const GroupSummary& g = report.summary.groups[0];
  EXPECT_EQ(g.name, db);
  EXPECT_EQ(g.levels.size(), levels.size());
  EXPECT_NEAR(g.combined_fp_rate, ExpectedLevelRate(report, db), 1e-12);
  // The summary lines, for the test log.
  const std::string text = VerifyReportText(report);
  std::printf("%s", text.substr(text.find("summary:")).c_str());
  EXPECT_EQ(report.summary.groups[1].name, db + ":cf1");
  // The key ranges RocksDB keeps are the tables' own (no key-range finding), and are the ones
  // inspect shows.
  Result<Document> doc = InspectDirectory(db);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ((*doc)["family"], "rocksdb");
  std::size_t seen = 0;
  for (const auto& cf : (*doc)["column_families"]) {
    for (const auto& level : cf["levels"]) {
      for (const auto& t : level["tables"]) {
        const auto& [smallest, largest] = want_->ranges.at(t["number"].get<std::uint64_t>());
        EXPECT_EQ(t["smallest"],
                  ToHex(ByteSpan(reinterpret_cast<const std::uint8_t*>(smallest.data()),
                                 smallest.size())));
        EXPECT_EQ(
            t["largest"],
            ToHex(ByteSpan(reinterpret_cast<const std::uint8_t*>(largest.data()), largest.size())));
        EXPECT_EQ(
            want_->levels.at({cf["name"].get<std::string>(), t["number"].get<std::uint64_t>()}),
            level["level"].get<int>());
        ++seen;
      }
    }
  }
  EXPECT_EQ(seen, want_->levels.size());
  // Written out for the fuzzer's seeds when asked (fixtures/manifest, see fixtures/README.md).
  if (const char* out = std::getenv("BLOOMCODEC_WRITE_MANIFEST_SEED")) {
    fs::copy_file(CurrentManifest(db), out, fs::copy_options::overwrite_existing);
  }
}

TEST_F(RocksDbDatabase, MissingSstIsAnErrorAndObsoleteCopyIsInfo) {
  TempDir t("manifest-rocksdb-damaged");
  const std::string db = t.path() + "/db";
  fs::copy(dir_->path() + "/db", db, fs::copy_options::recursive);
  const auto& [key, level] = *want_->levels.rbegin();
  const std::string path = db + "/" + manifest::TableFileName(key.second, "sst");
  fs::copy_file(path, db + "/" + manifest::TableFileName(800000, "sst"));
  ASSERT_TRUE(fs::remove(path));
  const VerifyReport report = Verify(db);
  const FileReport* f = ReportOf(report, path);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(HasFinding(*f, finding_kind::kMissingTable, Severity::kError));
  EXPECT_EQ(f->level, level);
  EXPECT_EQ(f->column_family, key.first);
  const FileReport* o = ReportOf(report, db + "/" + manifest::TableFileName(800000, "sst"));
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(HasFinding(*o, finding_kind::kObsolete, Severity::kInfo));
  EXPECT_EQ(report.summary.errors, 1u);
  // A damaged MANIFEST: an error at its offset, then the listing.
  const std::string manifest_path = CurrentManifest(db);
  std::string bytes = ReadFile(manifest_path);
  bytes[9] ^= 0x10;
  WriteFile(manifest_path, bytes);
  const VerifyReport damaged = Verify(db);
  const FileReport* m = ReportOf(damaged, manifest_path);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->findings.at(0).offset, 0u);
  EXPECT_TRUE(LevelsOf(damaged).empty());
}

}  // namespace
}  // namespace bloomcodec::manifest_test

// verify on a running LevelDB database: a compaction logs its new version in the MANIFEST and
// only then deletes the tables it replaced, so a MANIFEST read just before the deletion names
// tables that are gone a moment later. verify must read the MANIFEST again rather than report
// those tables missing. The race is made exact: the database is written by the original LevelDB,
// the MANIFEST as it was before the compaction is put back, and a hook replaces it with the
// current one right after verify opens it (the moment a compaction would log its edit).
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>

#include <memory>
#include <set>

#include "codec/read_log.h"
#include "manifest/db_checks.h"

namespace bloomcodec::manifest_test {
namespace {

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "live%07d", i);
  return buf;
}

std::set<std::string> TableFiles(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".ldb") out.insert(e.path().filename().string());
  }
  return out;
}

bool AnyFinding(const VerifyReport& report, std::string_view kind) {
  for (const FileReport& f : report.files) {
    for (const Finding& x : f.findings) {
      if (x.kind == kind) return true;
    }
  }
  return false;
}

TEST(LiveDatabase, AMissingTableOfAStaleManifestIsReadAgainNotReported) {
  TempDir tmp("manifest-live");
  const std::string db = tmp.path() + "/db";
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(10));
  std::string manifest_name, stale;
  std::set<std::string> before;
  {
    ::leveldb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 64 << 10;
    options.max_file_size = 32 << 10;
    options.filter_policy = policy.get();
    ::leveldb::DB* raw = nullptr;
    ASSERT_TRUE(::leveldb::DB::Open(options, db, &raw).ok());
    std::unique_ptr<::leveldb::DB> handle(raw);
    for (int i = 0; i < 4000; ++i) {
      ASSERT_TRUE(handle->Put({}, Key(i), std::string(80, 'a' + i % 26)).ok());
    }
    handle->CompactRange(nullptr, nullptr);
    manifest_name = ReadFile(db + "/CURRENT");
    manifest_name.pop_back();  // the newline
    stale = ReadFile(db + "/" + manifest_name);
    before = TableFiles(db);
    // New values for every key: the next full compaction replaces every table.
    for (int i = 0; i < 4000; ++i) {
      ASSERT_TRUE(handle->Put({}, Key(i), std::string(90, 'A' + i % 26)).ok());
    }
    handle->CompactRange(nullptr, nullptr);
  }
  const std::string manifest = db + "/" + manifest_name;
  const std::string current = ReadFile(manifest);
  ASSERT_NE(current, stale) << "the compaction must have logged an edit";
  std::size_t deleted = 0;
  const std::set<std::string> after = TableFiles(db);
  for (const std::string& t : before) deleted += after.count(t) == 0;
  ASSERT_GT(deleted, 0u) << "the compaction must have deleted tables the stale MANIFEST lists";

  // The stale MANIFEST alone (a database that really lost its tables): missing-table errors.
  WriteFile(manifest, stale);
  const VerifyReport lost = Verify(db);
  EXPECT_TRUE(AnyFinding(lost, finding_kind::kMissingTable));
  EXPECT_GT(lost.summary.errors, 0u);

  // The stale MANIFEST read, then the edit logged: read again, every live table found.
  int opens = 0;
  ReadLog::SetAfterOpenHookForTesting([&](const std::string& path) {
    if (fs::path(path).filename() != manifest_name || ++opens > 1) return;
    WriteFile(manifest + ".new", current);
    fs::rename(manifest + ".new", manifest);
  });
  const VerifyReport report = Verify(db);
  ReadLog::SetAfterOpenHookForTesting({});
  EXPECT_GE(opens, 2);
  EXPECT_FALSE(AnyFinding(report, finding_kind::kMissingTable));
  EXPECT_EQ(report.summary.errors, 0u);
  std::set<std::string> verified;
  for (const FileReport& f : report.files) {
    if (f.level >= 0) verified.insert(fs::path(f.path).filename().string());
  }
  EXPECT_EQ(verified, after);
}

}  // namespace
}  // namespace bloomcodec::manifest_test

// The backup a repair makes before it renames anything: a snapshot folder as nodetool snapshot
// makes it (hard links of every component, manifest.json of the version), or links under a
// directory; re-runs and conflicts.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <regex>
#include <string>

#include "cassandra/repair/backup.h"
#include "repair/cassandra_sstables.h"
#include "support/test_support.h"

namespace bloomcodec::cassandra {
namespace {

namespace fs = std::filesystem;

Descriptor Named(const std::string& name) {
  Result<Descriptor> d = ParseDescriptor(name);
  EXPECT_TRUE(d.ok()) << name;
  return *d;
}

std::string Text(const std::string& path) {
  const ByteVector b = testing::ReadAll(path);
  return std::string(b.begin(), b.end());
}

TEST(CassandraRepairBackup, TagIsOneSnapshotLoaderAccepts) {
  EXPECT_EQ(RepairSnapshotTag(0), "bloomcodec-repair-19700101T000000Z");
  EXPECT_EQ(RepairSnapshotTag(1782907200), "bloomcodec-repair-20260701T120000Z");
  // SnapshotLoader.SNAPSHOT_DIR_PATTERN's tag: [\w-]+
  EXPECT_TRUE(std::regex_match(RepairSnapshotTag(1782907200), std::regex("[A-Za-z0-9_-]+")));
}

TEST(CassandraRepairBackup, ManifestAsEachVersionWritesIt) {
  const std::string files[] = {"x-Data.db"};
  const std::time_t t = 1782907200;
  // 2.0 - 4.0 and ScyllaDB's own versions: the files only.
  for (const char* name : {"ks-cf-jb-1-Data.db", "la-1-big-Data.db", "me-1-big-Data.db",
                           "ms-1-big-Data.db", "na-1-big-Data.db"}) {
    EXPECT_EQ(SnapshotManifest(Named(name), files, t), "{\"files\":[\"x-Data.db\"]}") << name;
  }
  // 4.1: when it was taken, and no expiry.
  EXPECT_EQ(SnapshotManifest(Named("nb-1-big-Data.db"), files, t),
            "{\"files\":[\"x-Data.db\"],\"created_at\":\"2026-07-01T12:00:00Z\","
            "\"expires_at\":null}");
  // 5.0: and not ephemeral.
  for (const char* name : {"oa-1-big-Data.db", "da-1-bti-Data.db"}) {
    EXPECT_EQ(SnapshotManifest(Named(name), files, t),
              "{\"files\":[\"x-Data.db\"],\"created_at\":\"2026-07-01T12:00:00Z\","
              "\"expires_at\":null,\"ephemeral\":false}")
        << name;
  }
}

TEST(CassandraRepairBackup, SnapshotLinksEveryComponentAndListsEachSstable) {
  testing::TempDir tmp;
  testing::SstableRecipe one;
  const testing::MadeSstable a = testing::MakeSstable(tmp.path(), one);
  FileOps ops;
  const BackupTarget target = SnapshotBackup("bloomcodec-repair-20260701T120000Z");
  const Descriptor d = Named("nb-1-big-Data.db");
  ASSERT_TRUE(
      LinkBackup(target, d, a.table_dir, a.components, "nb-1-big-Data.db", 1782907200, ops).ok());
  const std::string folder = BackupFolder(target, a.table_dir);
  EXPECT_EQ(folder, a.table_dir + "/snapshots/bloomcodec-repair-20260701T120000Z");
  for (const std::string& c : a.components) {
    struct stat x {
    }, y{};
    ASSERT_EQ(::stat(c.c_str(), &x), 0);
    ASSERT_EQ(::stat((folder + "/" + fs::path(c).filename().string()).c_str(), &y), 0) << c;
    EXPECT_EQ(x.st_ino, y.st_ino) << c;
  }
  // The same run links the same files again (a re-run after a crash): nothing changes.
  ASSERT_TRUE(
      LinkBackup(target, d, a.table_dir, a.components, "nb-1-big-Data.db", 1782907300, ops).ok());
  // Another sstable of the table in the same run joins the manifest; created_at stays.
  const std::string other = a.table_dir + "/nb-2-big-Data.db";
  testing::WriteAll(other, ByteVector(10, 1));
  const std::string others[] = {other};
  ASSERT_TRUE(LinkBackup(target, d, a.table_dir, others, "nb-2-big-Data.db", 1782907999, ops).ok());
  EXPECT_EQ(Text(folder + "/manifest.json"),
            "{\"files\":[\"nb-1-big-Data.db\",\"nb-2-big-Data.db\"],\"created_at\":\"2026-07-"
            "01T12:00:00Z\",\"expires_at\":null}");
  // A name in the snapshot that already holds a file (an older copy: an interrupted attempt of
  // this run) is kept, never overwritten.
  testing::WriteAll(a.table_dir + "/nb-3-big-Data.db", ByteVector(3, 3));
  testing::WriteAll(folder + "/nb-3-big-Data.db", ByteVector(3, 4));
  const std::string third[] = {a.table_dir + "/nb-3-big-Data.db"};
  ASSERT_TRUE(LinkBackup(target, d, a.table_dir, third, "nb-3-big-Data.db", 0, ops).ok());
  EXPECT_EQ(Text(folder + "/nb-3-big-Data.db"), std::string(3, 4));
  // No temporary file of the manifest stays.
  for (const auto& e : fs::directory_iterator(folder)) {
    EXPECT_EQ(e.path().filename().string().find("bloomcodec_tmp"), std::string::npos);
  }
}

TEST(CassandraRepairBackup, VersionsBefore20GetNoManifest) {
  testing::TempDir tmp;
  const std::string dir = tmp.path() + "/Keyspace1";
  fs::create_directories(dir);
  testing::WriteAll(dir + "/Standard1-hc-1-Filter.db", ByteVector(16, 1));
  const std::string files[] = {dir + "/Standard1-hc-1-Filter.db"};
  FileOps ops;
  const BackupTarget t = SnapshotBackup("x");
  ASSERT_TRUE(
      LinkBackup(t, Named("Standard1-hc-1-Filter.db"), dir, files, "Standard1-hc-1-Data.db", 0, ops)
          .ok());
  EXPECT_TRUE(fs::exists(dir + "/snapshots/x/Standard1-hc-1-Filter.db"));
  EXPECT_FALSE(fs::exists(dir + "/snapshots/x/manifest.json"));
}

}  // namespace
}  // namespace bloomcodec::cassandra

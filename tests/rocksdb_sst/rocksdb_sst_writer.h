// One SST written by the original (librocksdb's SstFileWriter), for the tests that build their
// own options around it.
//
//   const std::string path = WriteSstWithRocksDb(dir.path(), options, sorted_keys);
//   const std::string table = WriteVersionedDatabaseTable(dir.path() + "/db", options, 1500, Key);
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"

namespace bloomcodec::testing {

// `keys` (in the order of the options' comparator, distinct) each with the value "v", written to
// DIR/000001.sst with `options`; returns the path. A refusal fails the calling test.
inline std::string WriteSstWithRocksDb(const std::string& dir, const ::rocksdb::Options& options,
                                       const std::vector<std::string>& keys) {
  const std::string path = dir + "/000001.sst";
  ::rocksdb::SstFileWriter writer(::rocksdb::EnvOptions(), options);
  EXPECT_TRUE(writer.Open(path).ok());
  for (const std::string& k : keys) EXPECT_TRUE(writer.Put(k, "v").ok());
  EXPECT_TRUE(writer.Finish().ok());
  return path;
}

// A database's table: `n` user keys (`key(i)`, in the options' order) written three times, the
// third time every seventh one (i % 7 == 3) deleted instead, with a snapshot after each round so
// that the flush keeps every version: a user key's versions straddle data blocks. The options
// need create_if_missing; DB_DIR must not exist. Returns the path of the one table flushed (""
// after a test failure).
template <typename KeyFn>
std::string WriteVersionedDatabaseTable(const std::string& db_dir,
                                        const ::rocksdb::Options& options, int n, KeyFn key) {
  ::rocksdb::DB* raw = nullptr;
  EXPECT_TRUE(::rocksdb::DB::Open(options, db_dir, &raw).ok());
  if (raw == nullptr) return "";
  std::unique_ptr<::rocksdb::DB> db(raw);
  std::vector<const ::rocksdb::Snapshot*> snapshots;
  for (int v = 0; v < 3; ++v) {
    for (int i = 0; i < n; ++i) {
      if (v == 2 && i % 7 == 3) {
        EXPECT_TRUE(db->Delete({}, key(i)).ok());
      } else {
        EXPECT_TRUE(db->Put({}, key(i), "v" + std::to_string(v)).ok());
      }
    }
    snapshots.push_back(db->GetSnapshot());
  }
  EXPECT_TRUE(db->Flush({}).ok());
  for (const ::rocksdb::Snapshot* s : snapshots) db->ReleaseSnapshot(s);
  db.reset();
  std::string path;
  for (const auto& e : std::filesystem::directory_iterator(db_dir)) {
    if (e.path().extension() == ".sst") path = e.path().string();
  }
  EXPECT_FALSE(path.empty()) << "no table in " << db_dir;
  return path;
}

}  // namespace bloomcodec::testing

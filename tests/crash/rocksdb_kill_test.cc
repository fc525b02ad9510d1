// Debian's RocksDB 7.8 (librocksdb, linked here only) killed with SIGKILL while it writes,
// flushes and compacts two column families: verify of the directory as left must report no
// error (leftover tables are info; a torn last MANIFEST record is read as RocksDB's recovery
// reads it), and RocksDB must open the directory again, as its default recovery mode
// (kPointInTimeRecovery) does, and read every key. BLOOMCODEC_KILL_ROUNDS raises the kills.
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <memory>

#include "crash/kill_harness.h"

namespace bloomcodec::crash_test {
namespace {

::rocksdb::Options Small() {
  ::rocksdb::Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  // Small buffers, tables and levels: flushes and compactions all the time.
  options.write_buffer_size = 32 << 10;
  options.target_file_size_base = 16 << 10;
  options.max_bytes_for_level_base = 64 << 10;
  options.level0_file_num_compaction_trigger = 2;
  options.max_background_jobs = 2;
  ::rocksdb::BlockBasedTableOptions table;
  table.block_size = 1024;
  table.filter_policy.reset(::rocksdb::NewBloomFilterPolicy(10));
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

std::vector<::rocksdb::ColumnFamilyDescriptor> Families(const ::rocksdb::Options& options) {
  return {{::rocksdb::kDefaultColumnFamilyName, options}, {"second", options}};
}

struct Opened {
  std::unique_ptr<::rocksdb::DB> db;
  std::vector<::rocksdb::ColumnFamilyHandle*> cfs;
  ~Opened() {
    for (auto* cf : cfs) db->DestroyColumnFamilyHandle(cf);
  }
};

bool Open(const std::string& dir, Opened& out) {
  const ::rocksdb::Options options = Small();
  ::rocksdb::DB* raw = nullptr;
  if (!::rocksdb::DB::Open(::rocksdb::DBOptions(options), dir, Families(options), &out.cfs, &raw)
           .ok()) {
    return false;
  }
  out.db.reset(raw);
  return true;
}

// Opens `dir` and writes to both families until killed, with deletes and a manual compaction of
// a random range every few thousand writes. Returns only when RocksDB refused something.
void WriteUntilKilled(const std::string& dir, std::uint32_t seed) {
  Opened o;
  if (!Open(dir, o)) return;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> key(0, 200000);
  char k[32], lo[32], hi[32];
  for (std::uint64_t i = 0;; ++i) {
    ::rocksdb::ColumnFamilyHandle* cf = o.cfs[i % 2];
    std::snprintf(k, sizeof k, "key%08u", key(rng));
    ::rocksdb::Status s = i % 7 == 0
                              ? o.db->Delete({}, cf, k)
                              : o.db->Put({}, cf, k, std::string(40 + rng() % 160, 'a' + i % 26));
    if (!s.ok()) return;
    if (i % 3000 == 2999) {
      const std::uint32_t a = key(rng);
      std::snprintf(lo, sizeof lo, "key%08u", a);
      std::snprintf(hi, sizeof hi, "key%08u", a + 40000);
      const ::rocksdb::Slice begin(lo), end(hi);
      o.db->CompactRange({}, cf, &begin, &end);
    }
  }
}

// In a child: RocksDB opens the directory as left and reads both families. 0 when it can.
int Reopen(const std::string& dir) {
  Opened o;
  if (!Open(dir, o)) return 1;
  for (auto* cf : o.cfs) {
    std::unique_ptr<::rocksdb::Iterator> it(o.db->NewIterator({}, cf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
    }
    if (!it->status().ok()) return 2;
  }
  return 0;
}

TEST(RocksDbKilled, VerifyFindsNoErrorAndRocksDbReopens) {
  TempDir dir("rocksdb");
  const std::string db = dir.path() + "/db";
  ASSERT_EQ(RunChild([&] {
              Opened o;
              return Open(db, o) ? 0 : 1;
            }),
            0);
  RunLinkedKillLoop(KillLoop("librocksdb 7.8", db, 2978, std::chrono::milliseconds(60),
                             std::chrono::milliseconds(500)),
                    WriteUntilKilled, Reopen);
}

}  // namespace
}  // namespace bloomcodec::crash_test

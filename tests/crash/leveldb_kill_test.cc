// Debian's LevelDB 1.23 (libleveldb, linked here only) killed with SIGKILL while it writes and
// compacts: each round a child opens the database, writes, deletes and compacts until it is
// killed at a moment drawn from a fixed seed; then verify of the directory as left must report
// no error (a half-written table no version references is a leftover, info; a torn last MANIFEST
// record is dropped as LevelDB's reader drops it), and LevelDB must open the directory again and
// read every key it holds. BLOOMCODEC_KILL_ROUNDS raises the number of kills for a soak.
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>
#include <leveldb/write_batch.h>

#include <memory>

#include "crash/kill_harness.h"

namespace bloomcodec::crash_test {
namespace {

::leveldb::Options Small(const ::leveldb::FilterPolicy* policy) {
  ::leveldb::Options options;
  options.create_if_missing = true;
  // Small buffers and tables: a flush every few hundred writes, compactions all the time.
  options.write_buffer_size = 32 << 10;
  options.max_file_size = 16 << 10;
  options.block_size = 1024;
  options.filter_policy = policy;
  return options;
}

// Opens `dir` and writes until killed: random keys and values, deletes, and a compaction of a
// random range every few thousand writes. Returns only when LevelDB refused something.
void WriteUntilKilled(const std::string& dir, std::uint32_t seed) {
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(10));
  ::leveldb::DB* raw = nullptr;
  if (!::leveldb::DB::Open(Small(policy.get()), dir, &raw).ok()) return;
  std::unique_ptr<::leveldb::DB> db(raw);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> key(0, 200000);
  char k[32], lo[32], hi[32];
  for (std::uint64_t i = 0;; ++i) {
    std::snprintf(k, sizeof k, "key%08u", key(rng));
    ::leveldb::Status s = i % 7 == 0 ? db->Delete({}, k)
                                     : db->Put({}, k, std::string(40 + rng() % 160, 'a' + i % 26));
    if (!s.ok()) return;
    if (i % 3000 == 2999) {
      const std::uint32_t a = key(rng);
      std::snprintf(lo, sizeof lo, "key%08u", a);
      std::snprintf(hi, sizeof hi, "key%08u", a + 40000);
      const ::leveldb::Slice begin(lo), end(hi);
      db->CompactRange(&begin, &end);
    }
  }
}

// In a child: LevelDB opens the directory as left and reads all of it. 0 when both succeed.
int Reopen(const std::string& dir) {
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(10));
  ::leveldb::Options options = Small(policy.get());
  options.create_if_missing = false;
  ::leveldb::DB* raw = nullptr;
  if (!::leveldb::DB::Open(options, dir, &raw).ok()) return 1;
  std::unique_ptr<::leveldb::DB> db(raw);
  std::unique_ptr<::leveldb::Iterator> it(db->NewIterator({}));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
  }
  return it->status().ok() ? 0 : 2;
}

TEST(LevelDbKilled, VerifyFindsNoErrorAndLevelDbReopens) {
  TempDir dir("leveldb");
  const std::string db = dir.path() + "/db";
  // The database exists before the first kill (a kill before CURRENT leaves no database).
  ASSERT_EQ(RunChild([&] {
              std::unique_ptr<const ::leveldb::FilterPolicy> p(::leveldb::NewBloomFilterPolicy(10));
              ::leveldb::DB* raw = nullptr;
              const bool ok = ::leveldb::DB::Open(Small(p.get()), db, &raw).ok();
              delete raw;
              return ok ? 0 : 1;
            }),
            0);
  RunLinkedKillLoop(KillLoop("libleveldb 1.23", db, 2911, std::chrono::milliseconds(40),
                             std::chrono::milliseconds(400)),
                    WriteUntilKilled, Reopen);
}

}  // namespace
}  // namespace bloomcodec::crash_test

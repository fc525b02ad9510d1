// Repairs of databases written by LevelDB 1.23 (Debian's libleveldb), reopened by it: the lock
// refuses a database a LevelDB process has open, a repair replaces the filters (every key still
// read with its value, the live tables the new ones, their filters the new policy's), and a
// repair killed at each of its file-system steps leaves a database LevelDB opens with all old
// or all new tables, every key there.
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "bloomcodec/input_file.h"
#include "bloomcodec/repair.h"
#include "leveldb/table/table_reader.h"
#include "lsmrepair/database_lock.h"
#include "lsmrepair/repair_transaction.h"
#include "lsmrepair/table_rewriters.h"
#include "repair/repair_harness.h"
#include "support/test_support.h"

namespace bloomcodec::repair_test {
namespace {

using Contents = std::map<std::string, std::string>;

std::unique_ptr<::leveldb::DB> Open(const std::string& dir, const ::leveldb::FilterPolicy* policy,
                                    bool create = false) {
  ::leveldb::Options options;
  options.create_if_missing = create;
  options.paranoid_checks = true;
  options.write_buffer_size = 64 << 10;
  options.max_file_size = 32 << 10;
  options.block_size = 1024;
  options.filter_policy = policy;
  ::leveldb::DB* raw = nullptr;
  const ::leveldb::Status s = ::leveldb::DB::Open(options, dir, &raw);
  EXPECT_TRUE(s.ok()) << dir << ": " << s.ToString();
  return std::unique_ptr<::leveldb::DB>(raw);
}

// The live table numbers LevelDB lists ("leveldb.sstables": " NUMBER:SIZE[...]" lines).
std::set<std::uint64_t> LiveTables(::leveldb::DB& db) {
  std::string text;
  EXPECT_TRUE(db.GetProperty("leveldb.sstables", &text));
  std::set<std::uint64_t> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.size() > 1 && line[0] == ' ') out.insert(std::stoull(line.substr(1, line.find(':'))));
  }
  return out;
}

// Tables at several levels, level 0 among them with overwrites and deletions of keys deeper
// levels hold (so that the newer level-0 table must win), the log empty at the end (a reopen
// writes no table). Returns what every key holds.
Contents WriteDatabase(const std::string& dir, const ::leveldb::FilterPolicy* policy) {
  Contents want;
  std::mt19937 rng(7);
  {
    std::unique_ptr<::leveldb::DB> db = Open(dir, policy, true);
    auto put = [&](std::uint32_t from, std::uint32_t to, std::uint32_t step) {
      for (std::uint32_t i = from; i < to; i += step) {
        std::string value(30 + rng() % 50, static_cast<char>('a' + rng() % 26));
        EXPECT_TRUE(db->Put(::leveldb::WriteOptions(), Key(i), value).ok());
        want[Key(i)] = value;
      }
    };
    put(0, 5000, 1);
    db->CompactRange(nullptr, nullptr);
    put(1000, 2400, 2);  // overwrites, flushed to level 0 when the write buffer fills
    for (std::uint32_t i = 1500; i < 1600; ++i) {
      EXPECT_TRUE(db->Delete(::leveldb::WriteOptions(), Key(i)).ok());
      want.erase(Key(i));
    }
    put(1550, 1700, 1);
  }
  // Where a memtable flush lands depends on the background compactions before it (LevelDB
  // pushes a table that overlaps no level-0 table deeper), but a log replayed at open always
  // becomes a level-0 table: two reopens, each after writes, make two of them whatever ran.
  {
    std::unique_ptr<::leveldb::DB> db = Open(dir, policy);
    for (std::uint32_t i = 1600; i < 1650; ++i) {
      const std::string value(40, static_cast<char>('a' + i % 26));
      EXPECT_TRUE(db->Put(::leveldb::WriteOptions(), Key(i), value).ok());
      want[Key(i)] = value;
    }
  }
  // The reopen writes the log's writes to a level-0 table and leaves an empty log; wait until
  // no compaction runs (fewer than 4 level-0 tables, levels far below their limits).
  std::unique_ptr<::leveldb::DB> db = Open(dir, policy);
  std::string last, now;
  for (int stable = 0, i = 0; stable < 10 && i < 1500; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(db->GetProperty("leveldb.sstables", &now));
    stable = now == last ? stable + 1 : 0;
    last = now;
  }
  return want;
}

// Every key read with its value, every deleted one absent.
void ExpectContents(::leveldb::DB& db, const Contents& want, std::uint32_t keys) {
  std::size_t found = 0;
  for (std::uint32_t i = 0; i < keys; ++i) {
    std::string value;
    const ::leveldb::Status s = db.Get(::leveldb::ReadOptions(), Key(i), &value);
    const auto it = want.find(Key(i));
    if (it == want.end()) {
      EXPECT_TRUE(s.IsNotFound()) << Key(i) << ": " << s.ToString();
    } else {
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
      EXPECT_EQ(value, it->second) << Key(i);
      ++found;
    }
  }
  EXPECT_EQ(found, want.size());
}
lsmrepair::RepairOptions Bits(int bits_per_key) {
  lsmrepair::RepairOptions options;
  options.flavor = manifest::Flavor::kLevelDb;
  options.rewrite = lsmrepair::LevelDbFilterRewrite(leveldb::BloomPolicy::Current(bits_per_key));
  options.check = lsmrepair::LevelDbTableCheck();
  return options;
}

class LevelDbRepair : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    policy_ = ::leveldb::NewBloomFilterPolicy(10);
    want_ = new Contents(WriteDatabase(dir_->path() + "/db", policy_));
  }
  static void TearDownTestSuite() {
    delete want_;
    delete policy_;
    delete dir_;
  }
  static testing::TempDir* dir_;
  static const ::leveldb::FilterPolicy* policy_;
  static Contents* want_;
};
testing::TempDir* LevelDbRepair::dir_ = nullptr;
const ::leveldb::FilterPolicy* LevelDbRepair::policy_ = nullptr;
Contents* LevelDbRepair::want_ = nullptr;

TEST_F(LevelDbRepair, LockRefusesADatabaseLevelDbHasOpenInAnotherProcess) {
  const std::string db = dir_->path() + "/locked";
  CopyDatabase(dir_->path() + "/db", db);
  {
    DatabaseHolder holder(
        [&] {
          std::unique_ptr<::leveldb::DB> open = Open(db, policy_);
          if (!open || ::write(1, "open", 4) != 4) return;
          DatabaseHolder::WaitForRelease();
        },
        "open");
    ASSERT_TRUE(holder.held()) << "LevelDB did not open the database in the holder";
    ExpectRefusedWhileHeld(db, holder, "fcntl",
                           [&] { return lsmrepair::DatabaseLock::Acquire(db).status(); });
    ExpectRefusedWhileHeld(db, holder, "fcntl",
                           [&] { return lsmrepair::RepairDatabase(db, Bits(14)).status(); });
    EXPECT_TRUE(holder.Release());
  }
  Result<lsmrepair::DatabaseLock> lock = lsmrepair::DatabaseLock::Acquire(db);
  EXPECT_TRUE(lock.ok()) << lock.status().ToString();
}

TEST_F(LevelDbRepair, EveryFilterReplacedAndLevelDbReadsEveryKey) {
  const std::string db = dir_->path() + "/repaired";
  CopyDatabase(dir_->path() + "/db", db);
  std::set<std::uint64_t> before;
  {
    std::unique_ptr<::leveldb::DB> open = Open(db, policy_);
    ASSERT_TRUE(open);
    before = LiveTables(*open);
  }
  ASSERT_GE(before.size(), 8u);
  const std::string old_manifest = CurrentManifestPath(db);
  Result<lsmrepair::RepairResult> r = lsmrepair::RepairDatabase(db, Bits(14));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->switched);
  ASSERT_EQ(r->tables.size(), before.size());
  std::set<std::uint64_t> fresh;
  std::uint64_t old_bytes = 0, new_bytes = 0;
  for (const lsmrepair::TableOutcome& t : r->tables) {
    EXPECT_EQ(t.left_alone, "") << t.old_path;
    // A table of a few keys keeps LevelDB's smallest filter (64 bits) at either setting.
    EXPECT_GE(t.new_size, t.old_size) << "14 bits per key take no less room than 10";
    old_bytes += t.old_size;
    new_bytes += t.new_size;
    EXPECT_FALSE(fs::exists(t.old_path));
    fresh.insert(t.new_number);
  }
  EXPECT_GT(new_bytes, old_bytes) << "14 bits per key take more room than 10";
  EXPECT_TRUE(CurrentManifestPath(db) == r->new_manifest);
  EXPECT_FALSE(fs::exists(old_manifest));
  // The backup: a dated folder beside the database, the old MANIFEST, CURRENT and tables in it.
  EXPECT_EQ(fs::path(r->backup_dir).parent_path(), fs::path(dir_->path()));
  EXPECT_TRUE(
      fs::path(r->backup_dir).filename().string().starts_with("repaired.bloomcodec-backup-"));
  EXPECT_TRUE(fs::exists(fs::path(r->backup_dir) / fs::path(old_manifest).filename()));
  EXPECT_EQ(ReadText(r->backup_dir + "/CURRENT"),
            fs::path(old_manifest).filename().string() + "\n");
  for (const lsmrepair::TableOutcome& t : r->tables) {
    EXPECT_TRUE(fs::exists(fs::path(r->backup_dir) / fs::path(t.old_path).filename()));
  }
  // The filters (read before LevelDB opens the database: its reads may start a compaction,
  // whose tables get LevelDB's own 10 bits per key).
  const std::uint64_t old_filters = FilterBytes(r->backup_dir, before);
  const std::uint64_t new_filters = FilterBytes(db, fresh);
  std::printf("filter bytes: %llu at 10 bits per key, %llu at 14\n",
              static_cast<unsigned long long>(old_filters),
              static_cast<unsigned long long>(new_filters));
  EXPECT_NEAR(static_cast<double>(new_filters) / old_filters, 1.4, 0.05);
  // A second repair with the same policy has nothing to change.
  Result<lsmrepair::RepairResult> again = lsmrepair::RepairDatabase(db, Bits(14));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->switched);
  EXPECT_EQ(again->tables.size(), fresh.size());
  for (const lsmrepair::TableOutcome& t : again->tables)
    EXPECT_EQ(t.left_alone, "nothing to change");
  EXPECT_EQ(CurrentManifestPath(db), r->new_manifest);
  // LevelDB, paranoid: the new tables, every key.
  std::unique_ptr<::leveldb::DB> open = Open(db, policy_);
  ASSERT_TRUE(open);
  EXPECT_EQ(LiveTables(*open), fresh);
  ExpectContents(*open, *want_, 5000);
}

// The repair command's library entry (RepairPaths): a dry run's figures are those of the repair
// that follows it, table by table; LevelDB reads every key of the repaired database.
TEST_F(LevelDbRepair, DryRunFiguresAreTheRepairs) {
  const std::string db = dir_->path() + "/dry-then-real";
  CopyDatabase(dir_->path() + "/db", db);
  RepairOptions options;
  options.bits_per_key = 14;
  options.no_backup = true;
  Result<RepairReport> report = DryRunThenRepair(db, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_GE(report->tables.size(), 8u);
  for (const TableRepair& t : report->tables) {
    EXPECT_EQ(t.action, "repaired") << t.path << " " << t.damage;
    EXPECT_GT(t.new_filter_bytes, 0u) << t.path;
  }
  std::unique_ptr<::leveldb::DB> open = Open(db, policy_);
  ASSERT_TRUE(open);
  ExpectContents(*open, *want_, 5000);
}

TEST_F(LevelDbRepair, ChosenLevel0TableBringsTheNewerOnes) {
  const std::string db = dir_->path() + "/level0";
  CopyDatabase(dir_->path() + "/db", db);
  lsmrepair::RepairOptions options = Bits(12);
  options.no_backup = true;
  std::uint64_t oldest0 = UINT64_MAX;
  std::size_t level0 = 0, deep = 0;
  Result<lsmrepair::RepairResult> probe = [&] {
    lsmrepair::RepairOptions count = options;
    count.select = [&](const lsmrepair::TableToRepair& t) {
      if (t.meta.level == 0)
        oldest0 = std::min(oldest0, t.meta.number), ++level0;
      else
        ++deep;
      return false;
    };
    return lsmrepair::RepairDatabase(db, count);
  }();
  ASSERT_TRUE(probe.ok());
  EXPECT_TRUE(probe->tables.empty());
  ASSERT_GE(level0, 2u) << "the database needs several level-0 tables";
  ASSERT_GE(deep, 1u);
  options.select = [&](const lsmrepair::TableToRepair& t) { return t.meta.number == oldest0; };
  Result<lsmrepair::RepairResult> r = lsmrepair::RepairDatabase(db, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->tables.size(), level0);
  EXPECT_EQ(r->backup_dir, "");
  std::uint64_t last_new = 0, last_old = 0;
  for (const lsmrepair::TableOutcome& t : r->tables) {
    EXPECT_EQ(t.level, 0);
    EXPECT_GT(t.old_number, last_old);
    EXPECT_GT(t.new_number, last_new);
    last_old = t.old_number;
    last_new = t.new_number;
  }
  std::unique_ptr<::leveldb::DB> open = Open(db, policy_);
  ASSERT_TRUE(open);
  ExpectContents(*open, *want_, 5000);
}

TEST_F(LevelDbRepair, KilledAtEveryStepOpensWithAllOldOrAllNewTables) {
  const std::string original = dir_->path() + "/db";
  const std::string db = dir_->path() + "/killed";
  std::set<std::uint64_t> before;
  {
    CopyDatabase(original, db);
    std::unique_ptr<::leveldb::DB> open = Open(db, policy_);
    ASSERT_TRUE(open);
    before = LiveTables(*open);
  }
  auto repair = [&] {
    lsmrepair::RepairOptions options = Bits(14);
    options.backup_dir = dir_->path() + "/killed-backup";
    return lsmrepair::RepairDatabase(db, options).ok();
  };
  // A whole run: its steps, and the tables it puts in.
  CopyDatabase(original, db);
  fs::remove_all(dir_->path() + "/killed-backup");
  const ChildRun whole = RunInChild(0, repair);
  ASSERT_FALSE(whole.killed);
  ASSERT_EQ(whole.exit_code, 0);
  const int steps = static_cast<int>(whole.done.size());
  const int commit = CommitStep(whole.done);
  ASSERT_GT(commit, 0);
  std::set<std::uint64_t> after;
  {
    std::unique_ptr<::leveldb::DB> open = Open(db, policy_);
    ASSERT_TRUE(open);
    after = LiveTables(*open);
  }
  ASSERT_EQ(after.size(), before.size());
  ASSERT_TRUE(*after.begin() > *before.rbegin());
  int old_seen = 0, new_seen = 0;
  const std::vector<int> points = KillPoints(whole.done, commit);
  const int old_points = static_cast<int>(
      std::count_if(points.begin(), points.end(), [&](int n) { return n <= commit; }));
  for (int n : points) {
    CopyDatabase(original, db);
    fs::remove_all(dir_->path() + "/killed-backup");
    const ChildRun run = RunInChild(n, repair);
    ASSERT_TRUE(run.killed) << "step " << n;
    ASSERT_EQ(static_cast<int>(run.done.size()), n - 1);
    std::unique_ptr<::leveldb::DB> open = Open(db, policy_);
    ASSERT_TRUE(open) << "killed before step " << n << " (" << run.killed_at.step << " "
                      << run.killed_at.path << ")";
    const std::set<std::uint64_t> live = LiveTables(*open);
    EXPECT_EQ(live, n <= commit ? before : after)
        << "killed before step " << n << " (" << run.killed_at.step << " " << run.killed_at.path
        << ")";
    (live == before ? old_seen : new_seen)++;
    ExpectContents(*open, *want_, 5000);
  }
  EXPECT_EQ(old_seen, old_points);
  EXPECT_EQ(new_seen, static_cast<int>(points.size()) - old_points);
  PrintKillFigures("LevelDB 1.23", steps, commit, old_seen, new_seen);
}

}  // namespace
}  // namespace bloomcodec::repair_test

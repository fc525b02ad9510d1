// Repairs of databases written by goleveldb (Debian's golang-github-syndtr-goleveldb-dev, through
// tests/goleveldb's oracle): the lock refuses a database goleveldb has open (its flock), a repair
// with goleveldb's own filter and its way of switching CURRENT (CURRENT.bak, CURRENT.N) gives a
// database goleveldb opens as a writer with every key there and its filter asked, and a repair
// killed at each of its file-system steps leaves a database goleveldb opens with all old or all
// new tables.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <set>

#include "bloomcodec/input_file.h"
#include "bloomcodec/repair.h"
#include "leveldb/table/table_reader.h"
#include "lsmrepair/repair_transaction.h"
#include "lsmrepair/table_rewriters.h"
#include "repair/repair_harness.h"
#include "support/test_support.h"

namespace bloomcodec::repair_test {
namespace {

// Runs the oracle; its standard output.
std::string Oracle(const std::vector<std::string>& args, const std::string& scratch) {
  std::string command = GOLEVELDB_ORACLE;
  for (const std::string& a : args) command += " '" + a + "'";
  command += " > '" + scratch + "/oracle.out'";
  const int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << command;
  return ReadText(scratch + "/oracle.out");
}

// goleveldb's live tables ("LEVEL NUMBER" lines of `oracle sstables`, read-only).
std::set<std::uint64_t> LiveTables(const std::string& db, const std::string& scratch) {
  std::set<std::uint64_t> out;
  std::istringstream in(Oracle({"sstables", db}, scratch));
  int level;
  std::uint64_t number;
  while (in >> level >> number) out.insert(number);
  return out;
}

struct SameKeys {
  long keys = -1, found = -2, contains = 0, negatives = 0, tables = 0;
};

// `oracle same`: goleveldb opens `copy` as a writer does and Gets every key of `orig`.
SameKeys Same(const std::string& orig, const std::string& copy, const std::string& scratch) {
  SameKeys s;
  const std::string line = Oracle({"same", orig, copy, "5"}, scratch);
  std::sscanf(line.c_str(), "keys %ld found %ld contains %ld negatives %ld tables %ld", &s.keys,
              &s.found, &s.contains, &s.negatives, &s.tables);
  return s;
}

lsmrepair::RepairOptions GoLevelDbBits(int bits_per_key) {
  lsmrepair::RepairOptions options;
  options.flavor = manifest::Flavor::kLevelDb;
  options.current = lsmrepair::CurrentStyle::kGoLevelDb;
  options.rewrite = lsmrepair::LevelDbFilterRewrite(leveldb::BloomPolicy::GoLevelDb(bits_per_key));
  options.check = lsmrepair::LevelDbTableCheck();
  return options;
}
class GoLevelDbRepair : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    Oracle({"db", dir_->path() + "/db", "424242", "6000", "10", "2048", "snappy"}, dir_->path());
  }
  static void TearDownTestSuite() { delete dir_; }
  static testing::TempDir* dir_;
};
testing::TempDir* GoLevelDbRepair::dir_ = nullptr;

TEST_F(GoLevelDbRepair, EveryFilterReplacedAndGoLevelDbReadsEveryKey) {
  const std::string scratch = dir_->path();
  const std::string db = scratch + "/repaired";
  CopyDatabase(scratch + "/db", db);
  const std::set<std::uint64_t> before = LiveTables(db, scratch);
  ASSERT_GE(before.size(), 4u);
  const std::string old_current = ReadText(db + "/CURRENT");
  Result<lsmrepair::RepairResult> r = lsmrepair::RepairDatabase(db, GoLevelDbBits(14));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->switched);
  std::set<std::uint64_t> fresh;
  for (const lsmrepair::TableOutcome& t : r->tables) {
    EXPECT_EQ(t.left_alone, "") << t.old_path;
    fresh.insert(t.new_number);
  }
  // goleveldb's setMeta: the CURRENT before the switch kept as CURRENT.bak.
  EXPECT_EQ(ReadText(db + "/CURRENT.bak"), old_current);
  EXPECT_EQ(LiveTables(db, scratch), fresh);
  const std::uint64_t old_filters = FilterBytes(r->backup_dir, before);
  const std::uint64_t new_filters = FilterBytes(db, fresh);
  std::printf("goleveldb filter bytes: %llu at 10 bits per key, %llu at 14\n",
              static_cast<unsigned long long>(old_filters),
              static_cast<unsigned long long>(new_filters));
  EXPECT_NEAR(static_cast<double>(new_filters) / old_filters, 1.4, 0.05);
  const SameKeys same = Same(scratch + "/db", db, scratch);
  EXPECT_GT(same.keys, 1000);
  EXPECT_EQ(same.found, same.keys);
  EXPECT_GT(same.negatives, 0) << "goleveldb did not use the new filters";
  EXPECT_EQ(same.tables, static_cast<long>(fresh.size()));
}

// The repair command's library entry (RepairPaths) tells goleveldb's database by its tables
// and repairs it as goleveldb writes: its filter, its switch of CURRENT; goleveldb reads every key.
TEST_F(GoLevelDbRepair, RepairPathsRepairsAGoLevelDbDatabaseAsGoLevelDb) {
  const std::string scratch = dir_->path();
  const std::string db = scratch + "/command";
  CopyDatabase(scratch + "/db", db);
  const std::string old_current = ReadText(db + "/CURRENT");
  RepairOptions options;
  options.bits_per_key = 14;
  options.no_backup = true;
  Result<RepairReport> report = DryRunThenRepair(db, options);  // the dry run's figures too
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_GE(report->tables.size(), 4u);
  for (const TableRepair& t : report->tables) {
    EXPECT_EQ(t.family, "goleveldb") << t.path;
    EXPECT_EQ(t.action, "repaired") << t.path << " " << t.damage;
    EXPECT_EQ(t.new_format, "goleveldb-bloom");
  }
  EXPECT_EQ(ReadText(db + "/CURRENT.bak"), old_current);
  const SameKeys same = Same(scratch + "/db", db, scratch);
  EXPECT_GT(same.keys, 1000);
  EXPECT_EQ(same.found, same.keys);
  EXPECT_EQ(same.tables, static_cast<long>(report->tables.size()));
}

TEST_F(GoLevelDbRepair, LockRefusesADatabaseGoLevelDbHasOpen) {
  const std::string db = dir_->path() + "/locked";
  CopyDatabase(dir_->path() + "/db", db);
  DatabaseHolder holder(
      [&] { ::execl(GOLEVELDB_ORACLE, GOLEVELDB_ORACLE, "hold", db.c_str(), nullptr); }, "open\n");
  ASSERT_TRUE(holder.held()) << "goleveldb did not open the database in the holder";
  ExpectRefusedWhileHeld(db, holder, "flock",
                         [&] { return lsmrepair::RepairDatabase(db, GoLevelDbBits(14)).status(); });
  EXPECT_TRUE(holder.Release());
  Result<lsmrepair::RepairResult> r = lsmrepair::RepairDatabase(db, GoLevelDbBits(14));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
}

TEST_F(GoLevelDbRepair, KilledAtEveryStepOpensWithAllOldOrAllNewTables) {
  const std::string scratch = dir_->path();
  const std::string original = scratch + "/db";
  const std::string db = scratch + "/killed";
  auto repair = [&] {
    lsmrepair::RepairOptions options = GoLevelDbBits(14);
    options.no_backup = true;
    return lsmrepair::RepairDatabase(db, options).ok();
  };
  CopyDatabase(original, db);
  const std::set<std::uint64_t> before = LiveTables(db, scratch);
  const ChildRun whole = RunInChild(0, repair);
  ASSERT_FALSE(whole.killed);
  ASSERT_EQ(whole.exit_code, 0);
  const int steps = static_cast<int>(whole.done.size());
  const int commit = CommitStep(whole.done, /*goleveldb=*/true);
  ASSERT_GT(commit, 0);
  const std::set<std::uint64_t> after = LiveTables(db, scratch);
  ASSERT_EQ(after.size(), before.size());
  int old_seen = 0, new_seen = 0;
  const std::vector<int> points = KillPoints(whole.done, commit);
  const int old_points = static_cast<int>(
      std::count_if(points.begin(), points.end(), [&](int n) { return n <= commit; }));
  for (int n : points) {
    CopyDatabase(original, db);
    const ChildRun run = RunInChild(n, repair);
    ASSERT_TRUE(run.killed) << "step " << n;
    const std::set<std::uint64_t> live = LiveTables(db, scratch);
    EXPECT_EQ(live, n <= commit ? before : after)
        << "killed before step " << n << " (" << run.killed_at.step << " " << run.killed_at.path
        << ")";
    (live == before ? old_seen : new_seen)++;
    const SameKeys same = Same(original, db, scratch);
    EXPECT_EQ(same.found, same.keys) << "killed before step " << n;
  }
  EXPECT_EQ(old_seen, old_points);
  EXPECT_EQ(new_seen, static_cast<int>(points.size()) - old_points);
  PrintKillFigures("goleveldb", steps, commit, old_seen, new_seen);
}

}  // namespace
}  // namespace bloomcodec::repair_test

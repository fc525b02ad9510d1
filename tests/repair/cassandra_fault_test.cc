// A repair killed at every step: a child process runs the transaction with FileOps that end the
// process (_exit, no cleanup, as a kill -9) at the N-th write, fsync, rename, link or mkdir, or
// in the middle of the N-th write, for every N (but the links in the middle of the backup's run
// of links, each the same step on another component: CI's time budget). After each death the sstable must be whole (every
// component there, every untouched component byte for byte), Filter.db and Statistics.db each
// the old or the new file and never the new Statistics.db beside the old Filter.db, a new
// Filter.db must verify with no error, the snapshot must hold only old files, our temporary
// files are the only other names; and a re-run must finish the job and leave none of them.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "cassandra/repair/repair.h"
#include "repair/cassandra_sstables.h"
#include "support/test_support.h"

namespace bloomcodec::cassandra {
namespace {

namespace fs = std::filesystem;

constexpr int kKilled = 77;

// Counts the steps; dies before step `kill_at` (1-based), or halfway through it when it is a
// write and `torn` is set.
class KillingOps final : public FileOps {
 public:
  KillingOps(int kill_at, bool torn) : kill_at_(kill_at), torn_(torn) {}
  int steps() const { return steps_; }
  int writes() const { return writes_; }
  // Step i (0-based) was a write.
  bool WasWrite(int i) const { return kinds_[static_cast<std::size_t>(i)] == 'w'; }
  // Step i (0-based) is a link between two more links: the same step as its neighbours on
  // another component of the backup, which the kill loop leaves out (CI's time budget).
  bool InsideARunOfLinks(int i) const {
    const std::size_t at = static_cast<std::size_t>(i);
    return at > 0 && at + 1 < kinds_.size() && kinds_[at - 1] == 'l' && kinds_[at] == 'l' &&
           kinds_[at + 1] == 'l';
  }

  Status Write(const std::string& path, ByteSpan bytes, const struct stat* like) override {
    ++writes_;
    kinds_.push_back('w');
    if (Due()) {
      if (torn_) (void)FileOps::Write(path, bytes.first(bytes.size() / 2), like);
      ::_exit(kKilled);
    }
    return FileOps::Write(path, bytes, like);
  }
  Status Fsync(const std::string& path) override {
    return Die('f') ? Status() : FileOps::Fsync(path);
  }
  Status FsyncDir(const std::string& dir) override {
    return Die('d') ? Status() : FileOps::FsyncDir(dir);
  }
  Status Rename(const std::string& from, const std::string& to) override {
    return Die('r') ? Status() : FileOps::Rename(from, to);
  }
  Status Link(const std::string& from, const std::string& to) override {
    return Die('l') ? Status() : FileOps::Link(from, to);
  }
  Status MakeDir(const std::string& dir, const struct stat* like) override {
    return Die('m') ? Status() : FileOps::MakeDir(dir, like);
  }
  Status Remove(const std::string& path) override {
    return Die('x') ? Status() : FileOps::Remove(path);
  }

 private:
  bool Due() { return ++steps_ == kill_at_; }
  bool Die(char kind) {
    kinds_.push_back(kind);
    if (Due()) ::_exit(kKilled);
    return false;
  }
  int kill_at_;
  bool torn_;
  int steps_ = 0;
  int writes_ = 0;
  std::string kinds_;
};

RepairRequest Request(const std::string& tag) {
  RepairRequest r;
  r.fp_chance = 0.001;  // Filter.db and Statistics.db both change
  r.backup = SnapshotBackup(tag);
  r.now = 1782907200;
  return r;
}

struct Tally {
  int old_old = 0, new_old = 0, new_new = 0;
  int with_temporaries = 0, with_snapshot = 0;
};

// The checks after a death (see the top), and the re-run.
void CheckAfterDeath(const std::string& run, const std::map<std::string, ByteVector>& pristine,
                     const std::map<std::string, ByteVector>& done, const std::string& what,
                     Tally& tally) {
  SCOPED_TRACE(what);
  const std::string table = run + "/ks/t-0123456789abcdef0123456789abcdef";
  const std::map<std::string, ByteVector> now = testing::FilesUnder(table);
  const std::string filter = "nb-1-big-Filter.db", stats = "nb-1-big-Statistics.db";
  bool temporaries = false, snapshot = false;
  for (const auto& [name, bytes] : now) {
    if (name.ends_with(kRepairTemporarySuffix)) {
      temporaries = true;
    } else if (name.starts_with("snapshots/")) {
      snapshot = true;
      const std::string base = fs::path(name).filename().string();
      if (base != "manifest.json") {
        EXPECT_EQ(bytes, pristine.at(base)) << name << " is not old";
      }
    } else {
      ASSERT_TRUE(pristine.count(name)) << "an unknown file " << name;
    }
  }
  for (const auto& [name, bytes] : pristine) {
    ASSERT_TRUE(now.count(name)) << name << " is missing";
    if (name == filter || name == stats) continue;
    EXPECT_EQ(now.at(name), bytes) << name << " changed";
  }
  const bool new_filter = now.at(filter) == done.at(filter);
  const bool new_stats = now.at(stats) == done.at(stats);
  ASSERT_TRUE(new_filter || now.at(filter) == pristine.at(filter)) << "a torn Filter.db";
  ASSERT_TRUE(new_stats || now.at(stats) == pristine.at(stats)) << "a torn Statistics.db";
  ASSERT_FALSE(new_stats && !new_filter) << "the new chance beside the old filter";
  (new_filter ? (new_stats ? tally.new_new : tally.new_old) : tally.old_old)++;
  tally.with_temporaries += temporaries;
  tally.with_snapshot += snapshot;
  if (new_filter) {
    Result<SstableSet> set = FindSstableSet(table + "/nb-1-big-Data.db");
    ASSERT_TRUE(set.ok());
    for (const Finding& f : VerifySstable(set->files).findings) {
      EXPECT_NE(f.severity, Severity::kError) << f.kind << ": " << f.message;
    }
  }
  // A re-run (another tag, as another run's would be) finishes the job and cleans up.
  FileOps ops;
  Result<RepairOutcome> again = RepairSstable(table + "/nb-1-big-Data.db", Request("rerun"), ops);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  const std::map<std::string, ByteVector> after = testing::FilesUnder(table);
  EXPECT_EQ(after.at(filter), done.at(filter));
  EXPECT_EQ(after.at(stats), done.at(stats));
  for (const auto& [name, bytes] : after) {
    EXPECT_FALSE(name.ends_with(kRepairTemporarySuffix)) << name << " left after the re-run";
  }
}

// Runs the repair in a child that dies at step `kill_at`; returns its exit status.
int RunChild(const std::string& path, int kill_at, bool torn) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    KillingOps ops(kill_at, torn);
    Result<RepairOutcome> out = RepairSstable(path, Request("first"), ops);
    ::_exit(out.ok() ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CassandraRepairFaults, AKillAtEveryStepLeavesAConsistentSstable) {
  testing::TempDir tmp;
  testing::SstableRecipe recipe;
  recipe.keys = 300;
  const std::string pristine_root = tmp.path() + "/pristine";
  const testing::MadeSstable s = testing::MakeSstable(pristine_root, recipe);
  const std::map<std::string, ByteVector> pristine = testing::FilesUnder(s.table_dir);
  // The whole run once, counting its steps, for the new files' bytes.
  const std::string full = tmp.path() + "/full";
  fs::copy(pristine_root, full, fs::copy_options::recursive);
  KillingOps counter(0, false);
  Result<RepairOutcome> out = RepairSstable(
      full + "/ks/t-0123456789abcdef0123456789abcdef/nb-1-big-Data.db", Request("first"), counter);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE(out->statistics_rewritten);
  const std::map<std::string, ByteVector> done =
      testing::FilesUnder(full + "/ks/t-0123456789abcdef0123456789abcdef");
  const int steps = counter.steps();
  ASSERT_GT(steps, 10);
  Tally tally;
  int kills = 0;
  for (int n = 1; n <= steps; ++n) {
    if (counter.InsideARunOfLinks(n - 1)) continue;
    for (bool torn : {false, true}) {
      if (torn && !counter.WasWrite(n - 1)) continue;  // only a write can be cut short
      const std::string run = tmp.path() + "/run-" + std::to_string(n) + (torn ? "t" : "");
      fs::copy(pristine_root, run, fs::copy_options::recursive);
      const int code =
          RunChild(run + "/ks/t-0123456789abcdef0123456789abcdef/nb-1-big-Data.db", n, torn);
      ASSERT_EQ(code, kKilled) << "step " << n;
      ++kills;
      CheckAfterDeath(run, pristine, done, "killed at step " + std::to_string(n), tally);
      fs::remove_all(run);
      if (HasFatalFailure()) return;
    }
  }
  // Every outcome a crash can leave was reached, the mixed one included.
  EXPECT_GT(tally.old_old, 0);
  EXPECT_GT(tally.new_old, 0);
  EXPECT_GT(tally.new_new, 0);
  EXPECT_GT(tally.with_temporaries, 0);
  std::printf(
      "[faults] %d steps (%d writes), %d kills (before each step but the links inside a run of "
      "links, and inside each write): "
      "old/old %d, new Filter.db/old Statistics.db %d, new/new %d; temporaries left %d times, "
      "a snapshot made %d times; every re-run completed\n",
      steps, counter.writes(), kills, tally.old_old, tally.new_old, tally.new_new,
      tally.with_temporaries, tally.with_snapshot);
}

}  // namespace
}  // namespace bloomcodec::cassandra

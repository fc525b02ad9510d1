// The live check: a child process holding a component open, or mapped with its descriptor
// closed, or open through another name of the same file, makes the check (and the whole repair)
// refuse, naming the process; with no holder it passes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "cassandra/repair/live_check.h"
#include "cassandra/repair/repair.h"
#include "repair/cassandra_sstables.h"
#include "support/test_support.h"

namespace bloomcodec::cassandra {
namespace {

enum class Hold { kOpen, kMapped };

// A child that holds `path` (as `how`) under the name `comm` until it is killed.
class Holder {
 public:
  Holder(const std::string& path, Hold how, const char* comm) {
    int ready[2];
    EXPECT_EQ(::pipe(ready), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]);
      ::prctl(PR_SET_NAME, comm);
      const int fd = ::open(path.c_str(), O_RDONLY);
      if (fd < 0) ::_exit(3);
      if (how == Hold::kMapped) {
        struct stat st {};
        ::fstat(fd, &st);
        void* m =
            ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) ::_exit(4);
        ::close(fd);  // only the mapping holds the file now
      }
      const char ok = 1;
      if (::write(ready[1], &ok, 1) != 1) ::_exit(5);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    char ok = 0;
    EXPECT_EQ(::read(ready[0], &ok, 1), 1);
    ::close(ready[0]);
  }
  ~Holder() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

TEST(CassandraRepairLiveCheck, AChildHoldingAComponentOpenOrMappedRefuses) {
  testing::TempDir tmp;
  const testing::MadeSstable s = testing::MakeSstable(tmp.path(), testing::SstableRecipe{});
  EXPECT_TRUE(CheckNotInUse(s.components).ok());
  {
    Holder h(s.prefix + "Index.db", Hold::kOpen, "holds-open");
    Result<HolderScan> scan = FindHolders(s.components);
    ASSERT_TRUE(scan.ok()) << scan.status().ToString();
    ASSERT_EQ(scan->holders.size(), 1u);
    EXPECT_EQ(scan->holders[0].pid, h.pid());
    EXPECT_EQ(scan->holders[0].comm, "holds-open");
    EXPECT_EQ(scan->holders[0].path, s.prefix + "Index.db");
    EXPECT_EQ(scan->holders[0].how, "open");
    const Status st = CheckNotInUse(s.components);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.code(), StatusCode::kRefused);
    EXPECT_NE(st.message().find("process " + std::to_string(h.pid()) + " (holds-open)"),
              std::string::npos)
        << st.message();
  }
  {
    Holder h(s.prefix + "Filter.db", Hold::kMapped, "holds-mapped");
    Result<HolderScan> scan = FindHolders(s.components);
    ASSERT_TRUE(scan.ok());
    ASSERT_EQ(scan->holders.size(), 1u);
    EXPECT_EQ(scan->holders[0].how, "mapped");
    EXPECT_EQ(scan->holders[0].comm, "holds-mapped");
    // The whole repair refuses, and the sstable stays as it was.
    const auto before = testing::FilesUnder(s.table_dir);
    FileOps ops;
    RepairRequest r;
    r.backup = SnapshotBackup("t");
    Result<RepairOutcome> out = RepairSstable(s.prefix + "Data.db", r, ops);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kRefused);
    EXPECT_NE(out.status().message().find("holds-mapped"), std::string::npos);
    EXPECT_EQ(testing::FilesUnder(s.table_dir), before);
  }
  {
    // The same file under another name (another mount or a hard link): found by its inode.
    const std::string other = tmp.path() + "/elsewhere";
    ASSERT_EQ(::link((s.prefix + "Statistics.db").c_str(), other.c_str()), 0);
    Holder h(other, Hold::kOpen, "other-name");
    const Status st = CheckNotInUse(s.components);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("other-name"), std::string::npos);
  }
  // Nobody holds anything any more.
  EXPECT_TRUE(CheckNotInUse(s.components).ok());
  Result<HolderScan> none = FindHolders(s.components);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->holders.empty());
  for (const FileHolder& u : none->unreadable) EXPECT_FALSE(LooksLikeANode(u.comm)) << u.pid;
}

// Our own mappings are never a reason to refuse: repair reads the sstable through them.
TEST(CassandraRepairLiveCheck, ThisProcessIsNotAHolder) {
  testing::TempDir tmp;
  const testing::MadeSstable s = testing::MakeSstable(tmp.path(), testing::SstableRecipe{});
  const int fd = ::open((s.prefix + "Data.db").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(CheckNotInUse(s.components).ok());
  ::close(fd);
}

}  // namespace
}  // namespace bloomcodec::cassandra

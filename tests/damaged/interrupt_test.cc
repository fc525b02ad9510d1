// Outputs are written to a temporary file beside OUT and renamed: a `build` killed by SIGTERM or
// SIGINT in the middle of writing leaves neither OUT nor the temporary file (the CLI's handler
// unlinks it before dying of the signal), and a completed build leaves OUT only.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "damaged/damaged_runner.h"

namespace bloomcodec::testing {
namespace {

ByteVector ReadAnyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return ByteVector(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool HasTemporary(const DamagedDir& dir) {
  for (const std::string& name : dir.List()) {
    if (name.find(".tmp.") != std::string::npos) return true;
  }
  return false;
}

// A 75 MB Filter.db (40 million expected keys at 15 buckets each) from one key: long enough to
// write and sync that the temporary file is seen on disk.
std::vector<std::string> BigBuild(const std::string& keys, const std::string& out) {
  return {"build", "--format",        "cassandra-1.0", "--keys", keys, "--buckets-per-element",
          "15",    "--expected-keys", "40000000",      "-o",     out};
}

TEST(Interrupt, CompletedBuildLeavesOnlyTheOutput) {
  DamagedDir dir;
  const std::string keys = dir.Write("keys.txt", std::string("k\n"));
  DamagedDir io;
  Child r = WaitChild(StartChild(BigBuild(keys, dir.Path("Filter.db")), io), io);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(HasTemporary(dir));
  EXPECT_EQ(::access(dir.Path("Filter.db").c_str(), F_OK), 0);
  // The memory measurement of these tests sees the child's own allocations: the 75 MB filter.
  EXPECT_GT(r.peak_rss_kib, 70 * 1024);
  EXPECT_LT(BaselineRssKib(), 70 * 1024);
  std::printf("baseline peak RSS of the CLI: %lld KiB; a 75 MB build: %lld KiB\n",
              static_cast<long long>(BaselineRssKib()), static_cast<long long>(r.peak_rss_kib));
}

void KillMidWrite(int signal_number) {
  int killed_mid_write = 0;
  for (int attempt = 0; attempt < 5 && killed_mid_write == 0; ++attempt) {
    DamagedDir dir;
    const std::string keys = dir.Write("keys.txt", std::string("k\n"));
    DamagedDir io;
    const pid_t pid = StartChild(BigBuild(keys, dir.Path("Filter.db")), io);
    ASSERT_GT(pid, 0);
    // Wait for the temporary file to appear, then interrupt.
    bool seen = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      if (HasTemporary(dir)) {
        seen = true;
        ::kill(pid, signal_number);
        break;
      }
      if (::access(dir.Path("Filter.db").c_str(), F_OK) == 0) break;  // finished first
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    Child r = WaitChild(pid, io);
    if (seen && r.term_signal == signal_number) {
      ++killed_mid_write;
      EXPECT_FALSE(HasTemporary(dir)) << "a temporary file survived the signal";
      EXPECT_NE(::access(dir.Path("Filter.db").c_str(), F_OK), 0) << "a partial output exists";
    } else {
      // Missed the window (the child finished): the output must then be whole and alone.
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_FALSE(HasTemporary(dir));
    }
  }
  EXPECT_GT(killed_mid_write, 0) << "never caught the child while it was writing";
}

// Inputs are never the output: `build -o` its key file and `convert -o` its input (also through
// a symbolic link) are refused before anything is written, and the input is left intact.
TEST(Outputs, NeverOverwriteAnInput) {
  DamagedDir dir;
  const std::string keys = dir.Write("keys.txt", std::string("a\nb\n"));
  Child r = RunChild({"build", "--format", "cassandra-1.0", "--keys", keys, "--buckets-per-element",
                      "15", "-o", keys});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("refusing to overwrite"), std::string::npos) << r.err;
  EXPECT_EQ(ReadAnyFile(keys), ByteVector({'a', '\n', 'b', '\n'}));

  const std::string filter = dir.Path("Filter.db");
  r = RunChild({"build", "--format", "cassandra-1.0", "--keys", keys, "--buckets-per-element", "15",
                "-o", filter});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const ByteVector original = ReadAnyFile(filter);
  const std::string link = dir.Path("link.db");
  ASSERT_EQ(::symlink(filter.c_str(), link.c_str()), 0);
  for (const std::string& out : {filter, link}) {
    r = RunChild(
        {"convert", filter, "--format", "cassandra-1.0", "--to", "cassandra-legacy", "-o", out});
    EXPECT_EQ(r.exit_code, 2) << out;
    EXPECT_NE(r.err.find("refusing to overwrite the input"), std::string::npos) << r.err;
    EXPECT_EQ(ReadAnyFile(filter), original);
    EXPECT_FALSE(HasTemporary(dir));
  }
}

TEST(Interrupt, SigtermDuringWriteLeavesNoPartialFile) { KillMidWrite(SIGTERM); }
TEST(Interrupt, SigintDuringWriteLeavesNoPartialFile) { KillMidWrite(SIGINT); }

}  // namespace
}  // namespace bloomcodec::testing

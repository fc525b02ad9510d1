#include "damaged/damaged_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace bloomcodec::testing {

DamagedDir::DamagedDir() {
  std::string pattern =
      std::filesystem::temp_directory_path().string() + "/bloomcodec-damaged-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
  path_ = pattern;
}

DamagedDir::~DamagedDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string DamagedDir::Write(const std::string& name, ByteSpan contents) const {
  std::string path = Path(name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(contents.data()),
            static_cast<std::streamsize>(contents.size()));
  if (!out) ADD_FAILURE() << "cannot write " << path;
  return path;
}

std::string DamagedDir::Write(const std::string& name, const std::string& contents) const {
  return Write(name, AsBytes(contents));
}

std::vector<std::string> DamagedDir::List() const {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path_)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

// Children are started by a small uninstrumented launcher (damaged_launcher.cc). Linux carries
// the RSS high-water mark of the image a process replaces into its ru_maxrss (exec keeps the
// larger one), and posix_spawn's child replaces a vfork of its parent: spawned from the test
// process itself, every child would report at least the test's own peak (and an ASan test's
// peak only grows, freed memory being quarantined). The launcher's image is a few MiB and
// constant, so a child's ru_maxrss is its own peak (or that small constant, which the baseline
// includes). Protocol: see damaged_launcher.cc.
namespace {

bool WriteAll(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool ReadAll(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool WriteString(int fd, const std::string& s) {
  const std::uint64_t n = s.size();
  return WriteAll(fd, &n, sizeof n) && WriteAll(fd, s.data(), s.size());
}

struct Launcher {
  int requests = -1;  // test -> launcher
  int replies = -1;   // launcher -> test
  Launcher() {
    int to_launcher[2], to_test[2];
    if (::pipe2(to_launcher, O_CLOEXEC) != 0 || ::pipe2(to_test, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_launcher[0], 0);
    posix_spawn_file_actions_adddup2(&actions, to_test[1], 1);
    std::string launcher = DAMAGED_LAUNCHER, cli = BLOOMCODEC_CLI;
    char* argv[] = {launcher.data(), cli.data(), nullptr};
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, launcher.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_launcher[0]);
    ::close(to_test[1]);
    if (rc != 0) return;
    requests = to_launcher[1];
    replies = to_test[0];
  }
};

Launcher& TheLauncher() {
  static Launcher launcher;
  return launcher;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

pid_t StartChild(const std::vector<std::string>& args, const DamagedDir& io) {
  Launcher& l = TheLauncher();
  const std::uint64_t argc = args.size();
  bool ok = l.requests >= 0 && WriteAll(l.requests, &argc, sizeof argc);
  for (const std::string& a : args) ok = ok && WriteString(l.requests, a);
  ok = ok && WriteString(l.requests, io.path());
  pid_t pid = -1;
  ok = ok && ReadAll(l.replies, &pid, sizeof pid);
  if (!ok || pid <= 0) {
    ADD_FAILURE() << "the launcher could not start " << BLOOMCODEC_CLI;
    return -1;
  }
  return pid;
}

Child WaitChild(pid_t pid, const DamagedDir& io) {
  Child r;
  if (pid <= 0) return r;
  std::int64_t reply[2] = {-1, 0};
  if (!ReadAll(TheLauncher().replies, reply, sizeof reply)) {
    ADD_FAILURE() << "the launcher did not report child " << pid;
    return r;
  }
  const int status = static_cast<int>(reply[0]);
  r.peak_rss_kib = reply[1];  // Linux: kilobytes, this child only
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    r.term_signal = WTERMSIG(status);
    r.exit_code = 128 + r.term_signal;
  }
  r.out = Slurp(io.Path(".stdout"));
  r.err = Slurp(io.Path(".stderr"));
  return r;
}

Child RunChild(const std::vector<std::string>& args) {
  DamagedDir io;
  return WaitChild(StartChild(args, io), io);
}

std::int64_t BaselineRssKib() {
  static const std::int64_t baseline = [] {
    DamagedDir dir;
    // A valid 16-byte Filter.db (K 1, W 1, no bits) and one key: the smallest real run.
    const std::uint8_t filter[16] = {0, 0, 0, 1, 0, 0, 0, 1};
    std::string file = dir.Write("Filter.db", ByteSpan(filter, sizeof filter));
    std::string keys = dir.Write("keys", std::string("k\n"));
    std::int64_t peak = 0;
    for (int i = 0; i < 3; ++i) {  // the largest of a few runs: RSS varies by a few pages
      Child r = RunChild({"probe", "--format", "cassandra-1.0", "--keys", keys, file});
      EXPECT_EQ(r.exit_code, 0) << r.err;
      peak = std::max(peak, r.peak_rss_kib);
    }
    return peak;
  }();
  return baseline;
}

std::int64_t RssBoundKib(std::uint64_t input_bytes) {
  return BaselineRssKib() + static_cast<std::int64_t>(4 * input_bytes / 1024) + 16 * 1024;
}

void ExpectCorruptMessage(const Child& r, const std::string& subcommand, const std::string& file,
                          std::uint64_t max_offset) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // One line: "bloomcodec SUB: FILE: byte N: expected ...".
  const std::string prefix = "bloomcodec " + subcommand + ": " + file + ": byte ";
  ASSERT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.back(), '\n') << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // The rest: "N: expected ...\n" with N an offset no larger than max_offset.
  const std::string rest = r.err.substr(prefix.size());
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  ASSERT_GT(digits, 0u) << r.err;
  ASSERT_LE(digits, 19u) << r.err;
  EXPECT_EQ(rest.compare(digits, 11, ": expected "), 0) << r.err;
  EXPECT_GT(rest.size(), digits + 12) << r.err;
  EXPECT_LE(std::stoull(rest.substr(0, digits)), max_offset) << r.err;
}

}  // namespace bloomcodec::testing

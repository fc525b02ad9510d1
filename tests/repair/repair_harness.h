// What the repair tests share: a repair run in a child process that is killed (SIGKILL) just
// before its N-th file-system step (the step hook of lsmrepair/durable_io.h), the trace of the
// steps it made, copies of database directories, the tests' keys and LevelDB tables' filter
// sizes.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bloomcodec/input_file.h"
#include "bloomcodec/repair.h"
#include "leveldb/table/table_reader.h"
#include "lsmrepair/durable_io.h"

namespace bloomcodec::repair_test {

namespace fs = std::filesystem;

struct StepTrace {
  std::string step;
  std::string path;
};

struct ChildRun {
  std::vector<StepTrace> done;  // the steps made, in order
  bool killed = false;          // stopped before step done.size() + 1
  StepTrace killed_at;
  int exit_code = -1;  // when not killed: 0 the repair succeeded, 1 it failed
};

namespace detail {
inline int g_pipe = -1;
inline int g_kill_at = 0;
inline int g_steps = 0;

inline void WriteAll(const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(g_pipe, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// In the child: each step is reported ("+ step path" done, "! step path" the one killed at).
inline void Hook(lsmrepair::Step step, const std::string& path) {
  ++g_steps;
  const bool kill = g_steps == g_kill_at;
  WriteAll(std::string(kill ? "! " : "+ ") + std::string(lsmrepair::StepName(step)) + "\t" + path +
           "\n");
  if (kill) ::raise(SIGKILL);
}
}  // namespace detail

// Runs `repair` (true: it succeeded) in a child, killed before its `kill_at`-th step (0: never).
inline ChildRun RunInChild(int kill_at, const std::function<bool()>& repair) {
  int fds[2];
  ChildRun run;
  if (::pipe(fds) != 0) {
    ADD_FAILURE() << "pipe";
    return run;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    detail::g_pipe = fds[1];
    detail::g_kill_at = kill_at;
    lsmrepair::SetStepHook(detail::Hook);
    const bool ok = repair();
    ::_exit(ok ? 0 : 1);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() < 3) continue;
    const std::size_t tab = line.find('\t');
    StepTrace t{line.substr(2, tab - 2), line.substr(tab + 1)};
    (line[0] == '!' ? run.killed_at : run.done.emplace_back()) = t;
  }
  return run;
}

// The index (1-based) of the step that commits: the rename over CURRENT (LevelDB, RocksDB),
// or for goleveldb, whose GetMeta takes a whole pending CURRENT.<number> before CURRENT, the
// write of that file.
inline int CommitStep(const std::vector<StepTrace>& steps, bool goleveldb = false) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string& p = steps[i].path;
    const bool commit = goleveldb ? steps[i].step == "write" &&
                                        p.find("/CURRENT.") != std::string::npos &&
                                        !p.ends_with("/CURRENT.bak")
                                  : steps[i].step == "rename" && p.ends_with("/CURRENT");
    if (commit) return static_cast<int>(i + 1);
  }
  return -1;
}

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A process that holds a database open as its writer does, for the lock tests. The child runs
// `hold` with the release pipe as standard input and the ready pipe as standard output: `hold`
// opens the database, writes `ready` to standard output, then waits with WaitForRelease (or it
// execs a program that does the same; both pipes are close-on-exec, so an exec'd holder keeps only
// its standard input and output). The parent reads `ready` back before the test goes on.
class DatabaseHolder {
 public:
  DatabaseHolder(const std::function<void()>& hold, const std::string& ready) {
    int ready_pipe[2], release_pipe[2];
    if (::pipe2(ready_pipe, O_CLOEXEC) != 0 || ::pipe2(release_pipe, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe2";
      return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      // Only the parent keeps the release pipe's write end: its closing is the release.
      ::close(release_pipe[1]);
      ::close(ready_pipe[0]);
      ::dup2(release_pipe[0], 0);
      ::dup2(ready_pipe[1], 1);
      hold();
      ::_exit(0);
    }
    ::close(ready_pipe[1]);
    ::close(release_pipe[0]);
    release_ = release_pipe[1];
    std::string got(ready.size(), '\0');
    std::size_t n = 0;
    while (n < got.size()) {
      const ssize_t r = ::read(ready_pipe[0], got.data() + n, got.size() - n);
      if (r <= 0) break;
      n += static_cast<std::size_t>(r);
    }
    ::close(ready_pipe[0]);
    held_ = n == got.size() && got == ready;
  }
  DatabaseHolder(const DatabaseHolder&) = delete;
  DatabaseHolder& operator=(const DatabaseHolder&) = delete;
  ~DatabaseHolder() { Release(); }

  // The holder said it has the database open.
  bool held() const { return held_; }
  pid_t pid() const { return pid_; }

  // Ends the holder (its standard input closes) and waits for it: true when it exited with 0.
  bool Release() {
    if (pid_ <= 0) return false;
    ::close(release_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

  // In the holder: waits until the parent releases it.
  static void WaitForRelease() {
    char x;
    while (::read(0, &x, 1) > 0) {
    }
  }

 private:
  pid_t pid_ = -1;
  int release_ = -1;
  bool held_ = false;
};

// A repair refused while `holder` holds `db`: the refusal names the holder's process and the
// kind of lock (`lock_kind`: "fcntl", "flock"), and CURRENT is unchanged.
inline void ExpectRefusedWhileHeld(const std::string& db, const DatabaseHolder& holder,
                                   const std::string& lock_kind,
                                   const std::function<Status()>& repair) {
  const std::string current = ReadText(db + "/CURRENT");
  const Status refused = repair();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("process " + std::to_string(holder.pid())), std::string::npos)
      << refused.message();
  EXPECT_NE(refused.message().find(lock_kind), std::string::npos) << refused.message();
  EXPECT_EQ(ReadText(db + "/CURRENT"), current);
}

// The MANIFEST CURRENT names.
inline std::string CurrentManifestPath(const std::string& dir) {
  std::string name = ReadText(dir + "/CURRENT");
  if (!name.empty()) name.pop_back();
  return dir + "/" + name;
}
// The key of index i, as the LSM repair tests write them ("key%08u": sorted as numbered).
inline std::string Key(std::uint32_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%08u", i);
  return buf;
}

// The filter block bytes of a LevelDB or goleveldb database's tables NNNNNN.ldb of these numbers
// (read with bloomcodec's table reader).
inline std::uint64_t FilterBytes(const std::string& dir, const std::set<std::uint64_t>& tables) {
  std::uint64_t total = 0;
  for (std::uint64_t n : tables) {
    char name[32];
    std::snprintf(name, sizeof name, "/%06llu.ldb", static_cast<unsigned long long>(n));
    Result<InputFile> in = InputFile::Open(dir + name);
    EXPECT_TRUE(in.ok()) << in.status().ToString();
    if (!in.ok()) continue;
    Result<leveldb::TableReader> t = leveldb::TableReader::Open(in->bytes(), dir + name);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    if (t.ok() && t->filter()) total += t->filter()->handle.size;
  }
  return total;
}

inline void CopyDatabase(const std::string& from, const std::string& to) {
  fs::remove_all(to);
  fs::copy(from, to, fs::copy_options::recursive);
}

// The RocksDB tables (.sst) of a database directory, sorted by name.
inline std::vector<std::string> SstFilesIn(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".sst") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline ByteSpan StringBytes(const std::string& s) {
  return ByteSpan(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
}

// The kill points a loop tries (1-based, ascending): CI's time budget does not allow a kill
// before every step (120 for RocksDB, most of them the same kind of step on another table), so
// a representative set: for each kind of step (its name and the file's name with the digits of
// table and MANIFEST numbers and the backup's date left out) on each side of the commit, its
// first and last occurrence; and every step from two before the commit to two after it.
inline std::vector<int> KillPoints(const std::vector<StepTrace>& steps, int commit) {
  std::map<std::string, std::pair<int, int>> kinds;  // kind -> first, last
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const int n = static_cast<int>(i + 1);
    std::string name = fs::path(steps[i].path).filename().string();
    std::erase_if(name, [](char c) { return c >= '0' && c <= '9'; });
    const std::string kind = steps[i].step + "\t" + name + (n <= commit ? "\tbefore" : "\tafter");
    auto [it, fresh] = kinds.try_emplace(kind, n, n);
    if (!fresh) it->second.second = n;
  }
  std::set<int> chosen;
  for (const auto& [kind, range] : kinds) chosen.insert({range.first, range.second});
  for (int n = commit - 2; n <= commit + 2; ++n) {
    if (n >= 1 && n <= static_cast<int>(steps.size())) chosen.insert(n);
  }
  return std::vector<int>(chosen.begin(), chosen.end());
}

// The summary line of a kill loop, for the test log.
inline void PrintKillFigures(const std::string& what, int steps, int commit, int old_seen,
                             int new_seen) {
  std::printf(
      "%s: %d steps (commit at step %d), killed before %d of them (KillPoints): %d opened with "
      "the old tables, %d with the new ones\n",
      what.c_str(), steps, commit, old_seen + new_seen, old_seen, new_seen);
}

// RepairPaths on `db` as a dry run, then for real with the same options: the dry run reads each
// new filter from its rewrite without assembling the table, and its figures must be the ones the
// repair reports for the table it wrote. Returns the repair's report.
inline Result<RepairReport> DryRunThenRepair(const std::string& db, RepairOptions options) {
  const std::vector<std::string> paths{db};
  options.dry_run = true;
  Result<RepairReport> dry = RepairPaths(paths, options);
  if (!dry.ok()) return dry.status();
  options.dry_run = false;
  Result<RepairReport> real = RepairPaths(paths, options);
  if (!real.ok()) return real;
  EXPECT_EQ(dry->tables.size(), real->tables.size());
  EXPECT_EQ(dry->rebuilt, real->rebuilt);
  EXPECT_EQ(dry->filter_bytes_delta, real->filter_bytes_delta);
  for (std::size_t i = 0; i < std::min(dry->tables.size(), real->tables.size()); ++i) {
    const TableRepair& d = dry->tables[i];
    const TableRepair& r = real->tables[i];
    EXPECT_EQ(d.path, r.path);
    EXPECT_EQ(d.action, r.action == "repaired" ? "planned" : r.action) << d.path;
    EXPECT_EQ(d.keys, r.keys) << d.path;
    EXPECT_EQ(d.old_filter_bytes, r.old_filter_bytes) << d.path;
    EXPECT_EQ(d.new_filter_bytes, r.new_filter_bytes) << d.path;
    EXPECT_EQ(d.old_fp_rate, r.old_fp_rate) << d.path;
    EXPECT_EQ(d.new_fp_rate, r.new_fp_rate) << d.path;
    EXPECT_EQ(d.bits_per_key, r.bits_per_key) << d.path;
    EXPECT_EQ(d.new_format, r.new_format) << d.path;
  }
  return real;
}

}  // namespace bloomcodec::repair_test

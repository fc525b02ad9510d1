// What the kill tests share (issue 29, §4): a writer run in a child process and killed with
// SIGKILL at a pseudo-random moment (the delay drawn from a fixed seed, so CI runs the same
// schedule; where the kill lands inside the writer's work still depends on the machine), the
// number of kills per writer (BLOOMCODEC_KILL_ROUNDS raises it for a local soak), and the
// check that verify of the directory as the writer left it reports no error.
//
// Every use of a writer's library happens in a child: the originals start background threads
// (compactions) that a fork would not carry over, so the test process itself never opens a
// database, and each child starts from a process without them.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bloomcodec/verify.h"

namespace bloomcodec::crash_test {

namespace fs = std::filesystem;

// Kills per writer: `ci` (a handful, CI time is scarce) unless BLOOMCODEC_KILL_ROUNDS says more.
inline int KillRounds(int ci) {
  const char* env = std::getenv("BLOOMCODEC_KILL_ROUNDS");
  if (env == nullptr || *env == '\0') return ci;
  const int n = std::atoi(env);
  return n > 0 ? n : ci;
}

// The seed of a writer's schedule: BLOOMCODEC_KILL_SEED for a soak with other schedules, else
// the writer's fixed one.
inline std::uint32_t KillSeed(std::uint32_t fixed) {
  const char* env = std::getenv("BLOOMCODEC_KILL_SEED");
  return env != nullptr && *env != '\0' ? static_cast<std::uint32_t>(std::strtoul(env, nullptr, 10))
                                        : fixed;
}

// Runs `body` in a child process; its exit status (0 .. 255), or -1 when it died of a signal.
inline int RunChild(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Starts `writer` (which runs until it is killed) in a child and kills it with SIGKILL after
// `delay`. Returns whether the kill stopped it (false: it ended on its own first, a failure of
// the writer, whose status is then in `exit_code`).
inline bool KillAfter(const std::function<void()>& writer, std::chrono::microseconds delay,
                      int& exit_code) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    writer();
    ::_exit(3);  // a writer returns only when it failed
  }
  std::this_thread::sleep_for(delay);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// The same for a writer that is another program (argv[0] its path), started by exec; `quiet`:
// its standard output goes to /dev/null.
inline bool KillProgramAfter(const std::vector<std::string>& argv, std::chrono::microseconds delay,
                             int& exit_code, bool quiet = false) {
  return KillAfter(
      [&argv, quiet] {
        if (quiet && ::freopen("/dev/null", "w", stdout) == nullptr) ::_exit(126);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
      },
      delay, exit_code);
}

// Runs a program to its end (argv[0] its path; no shell quoting in the arguments but single
// quotes); its exit status and what it printed (both streams).
inline int RunProgram(const std::vector<std::string>& argv, std::string& out) {
  std::string command;
  for (const std::string& a : argv) {
    command += command.empty() ? "'" : " '";
    command += a;
    command += '\'';
  }
  command += " 2>&1";
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A moment to kill at, drawn uniformly from [low_ms, high_ms] (a loop of its own, as MyRocks's,
// whose rounds kill in different windows).
inline std::chrono::microseconds KillDelay(std::mt19937& rng, int low_ms, int high_ms) {
  std::uniform_int_distribution<int> us(low_ms * 1000, high_ms * 1000);
  return std::chrono::microseconds(us(rng));
}

// What a round left on disk, for the failure message: every file with its size.
inline std::string Listing(const std::string& dir) {
  std::vector<std::string> lines;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    lines.push_back(e.path().filename().string() + " " +
                    (e.is_regular_file() ? std::to_string(e.file_size()) : std::string("dir")));
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines) out += "  " + l + "\n";
  return out;
}

struct RoundFigures {
  int errors = 0;
  int warnings = 0;
  int leftovers = 0;  // obsolete tables (a writer's leftovers) in the directory as left
  int live = 0;
  std::vector<std::pair<std::string, std::string>> live_writers;  // (table, writer) of live tables
  std::map<std::string, int> warning_kinds;  // "kind: start of the message" -> how often
};

// Verifies `dir` as the killed writer left it: no error finding (a torn MANIFEST tail or a
// leftover table is at most a warning or info). Returns what it saw.
inline RoundFigures ExpectNoError(const std::string& dir, const std::string& round) {
  VerifyOptions options;
  options.threads = 2;
  Result<VerifyReport> r = VerifyPaths(std::vector<std::string>{dir}, options);
  RoundFigures figures;
  if (!r.ok()) {
    ADD_FAILURE() << round << ": verify refused the directory: " << r.status().ToString() << "\n"
                  << Listing(dir);
    return figures;
  }
  for (const FileReport& f : r->files) {
    if (f.group_role == GroupRole::kObsolete) ++figures.leftovers;
    if (f.group_role == GroupRole::kLive && !f.format.empty()) {
      ++figures.live;
      figures.live_writers.push_back({f.path, f.writer});
    }
    for (const Finding& x : f.findings) {
      if (x.severity == Severity::kWarning) {
        ++figures.warnings;
        ++figures.warning_kinds[x.kind + ": " + x.message.substr(0, 60)];
      }
      if (x.severity != Severity::kError) continue;
      ++figures.errors;
      ADD_FAILURE() << round << ": " << f.path << ": error " << x.kind << ": " << x.message << "\n"
                    << Listing(dir);
    }
  }
  return figures;
}

// The totals of a writer's rounds, printed for the soak's report.
inline void PrintFigures(const std::string& writer, int rounds, int killed,
                         const RoundFigures& sum) {
  std::printf("%s: %d rounds, %d killed mid-run, %d errors, %d warnings, %d leftover tables seen\n",
              writer.c_str(), rounds, killed, sum.errors, sum.warnings, sum.leftovers);
  for (const auto& [what, n] : sum.warning_kinds)
    std::printf("  %dx warning %s\n", n, what.c_str());
}

inline void Add(RoundFigures& sum, const RoundFigures& r) {
  sum.errors += r.errors;
  sum.warnings += r.warnings;
  sum.leftovers += r.leftovers;
  sum.live += r.live;
  for (const auto& [what, n] : r.warning_kinds) sum.warning_kinds[what] += n;
}

// One kill test's loop: each round (KillRounds(ci_rounds), the schedule of KillSeed(seed))
// starts the writer and kills it at a moment drawn from [earliest, latest], then verify of `dir`
// must report no error (ExpectNoError) and the writer's own reader must open what is left.
struct KillLoop {
  KillLoop(std::string writer_name, std::string directory, std::uint32_t fixed_seed,
           std::chrono::microseconds from, std::chrono::microseconds to)
      : writer(std::move(writer_name)),
        dir(std::move(directory)),
        seed(fixed_seed),
        earliest(from),
        latest(to) {}
  std::string writer;  // its name in the figures line
  std::string dir;     // the database directory verify checks after each kill
  std::uint32_t seed = 0;
  int ci_rounds = 3;
  std::chrono::microseconds earliest{}, latest{};
  // A writer that may end on its own before the kill (a repair that finishes): then it must
  // have succeeded (status 0). Otherwise ending before the kill is a failure of the writer.
  bool may_finish = false;
  // Starts the round's writer (its own seed) and kills it after `delay` (KillAfter,
  // KillProgramAfter): whether the kill stopped it; else its status is in `exit_code`.
  std::function<bool(std::uint32_t round_seed, std::chrono::microseconds delay, int& exit_code)>
      run;
  // The writer's own reader on what the round left (verify's figures at hand): "" when it
  // opens and reads it, else what went wrong. A failure ends the loop.
  std::function<std::string(const std::string& round, const RoundFigures& seen)> reopen;
  std::function<void(int round)> before;  // optional: prepares each round
};

struct KillTotals {
  int rounds = 0;
  int killed = 0;    // stopped by the kill
  int finished = 0;  // ended on its own first (may_finish)
  RoundFigures sum;
};

inline KillTotals RunKillLoop(const KillLoop& loop) {
  const std::uint32_t seed = KillSeed(loop.seed);
  std::mt19937 rng(seed);
  KillTotals totals;
  totals.rounds = KillRounds(loop.ci_rounds);
  std::uniform_int_distribution<int> moment(static_cast<int>(loop.earliest.count()),
                                            static_cast<int>(loop.latest.count()));
  for (int round = 0; round < totals.rounds; ++round) {
    const std::string name =
        loop.writer + " seed " + std::to_string(seed) + " round " + std::to_string(round);
    if (loop.before) loop.before(round);
    int exit_code = 0;
    const std::chrono::microseconds delay(moment(rng));
    if (loop.run(seed * 1000 + static_cast<std::uint32_t>(round), delay, exit_code)) {
      ++totals.killed;
    } else if (loop.may_finish && exit_code == 0) {
      ++totals.finished;
    } else {
      ADD_FAILURE() << name << ": the writer ended before the kill (status " << exit_code << ")";
    }
    const RoundFigures figures = ExpectNoError(loop.dir, name);
    Add(totals.sum, figures);
    const std::string failed = loop.reopen(name, figures);
    if (!failed.empty()) {
      ADD_FAILURE() << name << ": " << failed << "\n" << Listing(loop.dir);
      break;
    }
  }
  if (!loop.may_finish) {
    EXPECT_EQ(totals.killed, totals.rounds);
  }
  PrintFigures(loop.writer, totals.rounds, totals.killed, totals.sum);
  return totals;
}

// The loop for a writer linked into the test: `write(dir, seed)` runs until it is killed (in a
// child), `reopen(dir)` (in a child) returns 0 when the original opens and reads the directory.
inline void RunLinkedKillLoop(KillLoop loop,
                              const std::function<void(const std::string&, std::uint32_t)>& write,
                              const std::function<int(const std::string&)>& reopen) {
  const std::string dir = loop.dir;
  const std::string writer = loop.writer;
  loop.run = [&](std::uint32_t seed, std::chrono::microseconds delay, int& exit_code) {
    return KillAfter([&] { write(dir, seed); }, delay, exit_code);
  };
  loop.reopen = [&](const std::string&, const RoundFigures&) {
    return RunChild([&] { return reopen(dir); }) == 0
               ? std::string()
               : writer + " cannot open the directory as left";
  };
  RunKillLoop(loop);
}

// A fresh temporary directory, removed at the end of the test.
class TempDir {
 public:
  explicit TempDir(const std::string& name) {
    path_ =
        (fs::temp_directory_path() / ("bloomcodec-kill-" + name + "-" + std::to_string(::getpid())))
            .string();
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace bloomcodec::crash_test

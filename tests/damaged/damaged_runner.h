// Running the `bloomcodec` binary on damaged inputs and measuring what it costs: exit status,
// the one message on standard error, and the child's peak resident memory (wait4's ru_maxrss).
//
//   DamagedDir dir;
//   std::string file = dir.Write("Filter.db", bytes);
//   Child r = RunChild({"probe", "--format", "cassandra-1.0", "--keys", keys, file});
//   ExpectCorruptMessage(r, "probe", file);
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bloomcodec/bytes.h"

namespace bloomcodec::testing {

struct Child {
  int exit_code = -1;   // 128 + signal when killed by one
  int term_signal = 0;  // the signal that ended it, 0 when it exited
  std::int64_t peak_rss_kib = 0;
  std::string out;
  std::string err;
};

// A private temporary directory, removed with everything in it.
class DamagedDir {
 public:
  DamagedDir();
  ~DamagedDir();
  DamagedDir(const DamagedDir&) = delete;
  DamagedDir& operator=(const DamagedDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Path(const std::string& name) const { return path_ + "/" + name; }
  std::string Write(const std::string& name, ByteSpan contents) const;
  std::string Write(const std::string& name, const std::string& contents) const;
  // Names of the entries of the directory (not . and ..).
  std::vector<std::string> List() const;

 private:
  std::string path_;
};

// Starts BLOOMCODEC_CLI with `args` (stdin /dev/null, stdout and stderr to files in `io`).
pid_t StartChild(const std::vector<std::string>& args, const DamagedDir& io);
// Waits for a started child and collects its status, peak RSS and outputs.
Child WaitChild(pid_t pid, const DamagedDir& io);
Child RunChild(const std::vector<std::string>& args);

// The CLI's peak RSS for a tiny valid input: the binary's own baseline (libraries, sanitizer
// runtimes). Measured once per test process.
std::int64_t BaselineRssKib();

// The memory bound of a damaged input of `input_bytes`: baseline + 4 x input + 16 MiB slack.
// Inputs are mapped (a mapped page counts once it is touched), key lists and messages are small;
// 4 x leaves room for one inflated or decompressed copy of a block; nothing may be sized from a
// header field the file cannot back.
std::int64_t RssBoundKib(std::uint64_t input_bytes);

// Exit 2 and exactly one line "bloomcodec SUB: FILE: byte N: expected ...", N <= max_offset.
void ExpectCorruptMessage(const Child& r, const std::string& subcommand, const std::string& file,
                          std::uint64_t max_offset);

}  // namespace bloomcodec::testing

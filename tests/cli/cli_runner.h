// Running the built `bloomcodec` binary from tests, in a private temporary directory.
//
//   CliDir dir;                                   // removed at the end of the test
//   CliRun r = RunCli({"hash", "--format", "leveldb-bloom", "--keys", dir.Write("k", "a\n")});
//   EXPECT_EQ(r.exit_code, 0) << r.err;
#pragma once

#include <string>
#include <vector>

#include "bloomcodec/bytes.h"

namespace bloomcodec::testing {

struct CliRun {
  int exit_code = -1;  // the process's exit status; 128 + signal when killed
  std::string out;     // everything written to standard output
  std::string err;     // everything written to standard error
};

// Runs BLOOMCODEC_CLI with `args`; `stdin_data` is its standard input (empty: /dev/null-like).
// Standard output and error are files, never terminals, so no progress line appears.
// When the environment names a directory in BLOOMCODEC_JSON_DIR (ctest sets it), the standard
// output of every `verify`, `inspect`, `convert` and `repair` run with --json is kept there as
// COMMAND.TEST.XXXXXX.json, for the one test that validates them all against docs/schema/.
CliRun RunCli(const std::vector<std::string>& args, const std::string& stdin_data = "");

// The same with standard error on a pseudo-terminal (what a user at a terminal sees there,
// progress lines included; `err` holds it with the terminal's \r\n line ends).
CliRun RunCliOnTerminal(const std::vector<std::string>& args);

// A temporary directory for one test's inputs and outputs.
class CliDir {
 public:
  CliDir();
  ~CliDir();
  CliDir(const CliDir&) = delete;
  CliDir& operator=(const CliDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Path(const std::string& name) const { return path_ + "/" + name; }
  // Writes `contents` to NAME inside the directory and returns its path.
  std::string Write(const std::string& name, const std::string& contents) const;
  std::string Write(const std::string& name, ByteSpan contents) const;

 private:
  std::string path_;
};

// The bytes of any file (a name ending in .gz is inflated); empty and a test failure if unreadable.
ByteVector ReadAnyFile(const std::string& path);
std::string ReadAnyText(const std::string& path);

// The path to hand the CLI for fixture RELATIVE: NAME, or NAME.gz where only that is bundled
// (the CLI reads .gz inputs transparently).
std::string FixtureForCli(const std::string& relative);

// Lines of `text` split at '\n' (a trailing '\n' does not start another line).
std::vector<std::string> SplitLines(const std::string& text);
// The first `n` lines of `text`, each with its '\n'.
std::string FirstLines(const std::string& text, std::size_t n);
// Number of '\n'-terminated lines on standard error (the contract: one message).
std::size_t LineCount(const std::string& text);

}  // namespace bloomcodec::testing

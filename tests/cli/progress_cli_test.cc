// Progress lines: on a terminal for long work, never in a pipe or with --json. The terminal is a
// pseudo-terminal made by util-linux's `script` (Essential on Debian), which copies everything
// the command writes to its terminal onto its own standard output.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "cli/cli_runner.h"

namespace bloomcodec::testing {
namespace {

// Runs `shell_command` with a terminal as standard error; returns what reached that terminal.
std::string OnTerminal(const std::string& shell_command) {
  const std::string command = "script -qec '" + shell_command + "' /dev/null </dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  if (pipe == nullptr) return {};
  std::string seen;
  std::array<char, 4096> buffer;
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) seen.append(buffer.data(), n);
  EXPECT_EQ(pclose(pipe), 0) << seen;
  return seen;
}

class LargeFilter : public ::testing::Test {
 protected:
  void SetUp() override {
    // 10^7 expected keys at 15 buckets each: an 18.75 MB Filter.db, "long work" for inspect.
    CliRun r = RunCli({"build", "--format", "cassandra-1.0", "--keys",
                       dir_.Write("k.txt", "a\nb\n"), "--expected-keys", "10000000",
                       "--buckets-per-element", "15", "-o", dir_.Path("big.Filter.db")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CliDir dir_;
  const std::string cli_ = BLOOMCODEC_CLI;
};

TEST_F(LargeFilter, InspectAndConvertShowProgressOnATerminalOnly) {
  const std::string big = dir_.Path("big.Filter.db");
  std::string seen = OnTerminal(cli_ + " inspect " + big + " --format cassandra-1.0 >/dev/null");
  EXPECT_NE(seen.find("inspecting " + big), std::string::npos) << seen;
  seen =
      OnTerminal(cli_ + " convert " + big + " --format cassandra-1.0 --to cassandra-1.0-row -o " +
                 dir_.Path("big.row") + " >/dev/null");
  EXPECT_NE(seen.find("converting " + big), std::string::npos) << seen;
  // With --json the terminal stays silent; so does a pipe (RunCli's standard error is a file).
  seen = OnTerminal(cli_ + " inspect " + big + " --format cassandra-1.0 --json >/dev/null");
  EXPECT_EQ(seen.find("inspecting"), std::string::npos) << seen;
  CliRun piped = RunCli({"inspect", big, "--format", "cassandra-1.0"});
  EXPECT_EQ(piped.exit_code, 0);
  EXPECT_TRUE(piped.err.empty()) << piped.err;
}

TEST_F(LargeFilter, SmallInputsShowNoProgressEvenOnATerminal) {
  const std::string small = dir_.Write("k3.txt", "x\n");
  CliRun r = RunCli({"build", "--format", "cassandra-1.0", "--keys", small, "--buckets-per-element",
                     "15", "-o", dir_.Path("small.Filter.db")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string seen = OnTerminal(cli_ + " inspect " + dir_.Path("small.Filter.db") +
                                      " --format cassandra-1.0 >/dev/null");
  EXPECT_EQ(seen.find("inspecting"), std::string::npos) << seen;
}

}  // namespace
}  // namespace bloomcodec::testing

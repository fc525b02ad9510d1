// The command line's behaviour on bad usage and bad input: exit 2 and one message on standard
// error that names the flag, the file, the line or offset, and what was expected.
#include <gtest/gtest.h>

#include "bloomcodec/format.h"
#include "cli/cli_runner.h"

namespace bloomcodec::testing {
namespace {

// Every message of the contract is one line on standard error and nothing on standard output.
void ExpectUsageError(const CliRun& r, const std::vector<std::string>& mentions) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(LineCount(r.err), 1u) << r.err;
  for (const std::string& m : mentions)
    EXPECT_NE(r.err.find(m), std::string::npos) << m << " in " << r.err;
}

TEST(CliUsage, MissingFormatListsEveryFormatName) {
  CliDir dir;
  std::string keys = dir.Write("k.txt", "a\n");
  CliRun r = RunCli({"hash", "--keys", keys});
  // The contract's names, and whatever else the registry holds.
  std::vector<std::string> names = {
      "--format",      "cassandra-1.0",        "cassandra-legacy",     "cassandra-1.0-row",
      "leveldb-bloom", "leveldb-bloom-legacy", "leveldb-filter-block", "leveldb-table"};
  for (const FormatCodec* f : AllFormats()) names.emplace_back(f->name());
  ExpectUsageError(r, names);
}

TEST(CliUsage, ProbeOfAnUnrecognisableFileNeedsFormat) {
  CliDir dir;
  std::string filter = dir.Write("mystery.bin", "\x01\x02\x03");
  CliRun r = RunCli({"probe", filter, "--keys", dir.Write("k.txt", "a\n")});
  ExpectUsageError(r, {"--format", "mystery.bin", "leveldb-bloom"});
}

TEST(CliUsage, UnknownFormatName) {
  CliRun r =
      RunCli({"size", "--format", "bigtable", "--expected-keys", "1", "--bits-per-key", "10"});
  ExpectUsageError(r, {"bigtable", "leveldb-bloom"});
}

TEST(CliUsage, UnknownFlagIsNamed) {
  CliRun r = RunCli({"size", "--format", "leveldb-bloom", "--expected-keys", "1", "--bits-per-key",
                     "10", "--bogus-flag"});
  ExpectUsageError(r, {"--bogus-flag"});
  ExpectUsageError(RunCli({"--bogus-flag"}), {"--bogus-flag"});
  ExpectUsageError(RunCli({"frobnicate"}), {"frobnicate"});
}

TEST(CliUsage, MissingValueIsNamed) {
  ExpectUsageError(RunCli({"hash", "--format", "leveldb-bloom", "--keys"}), {"--keys"});
}

TEST(CliUsage, NumbersMustParseCompletely) {
  std::vector<std::pair<std::string, std::string>> bad = {
      {"--fp-chance", "0.1x"},
      {"--fp-chance", ""},
      {"--fp-chance", "1e"},
      {"--fp-chance", "0x1.8"},
      {"--fp-chance", "nan"},
      {"--expected-keys", "-"},
      {"--expected-keys", "1.5"},
      {"--expected-keys", "9223372036854775808"},
      {"--expected-keys", "12abc"},
      {"--buckets-per-element", "2147483648"},
      {"--buckets-per-element", "ten"},
      {"--bits-per-key", "10x"},
      {"--bits-per-key", "Infinity"},
  };
  for (const auto& [flag, value] : bad) {
    std::vector<std::string> args = {"size", "--format", "cassandra-1.0", "--expected-keys", "10"};
    if (flag == "--expected-keys")
      args = {"size", "--format", "cassandra-1.0", "--fp-chance", "0.1"};
    args.insert(args.end(), {flag, value});
    SCOPED_TRACE(flag + " " + value);
    ExpectUsageError(RunCli(args), {flag, "'" + value + "'"});
  }
}

TEST(CliUsage, MissingKeyFileIsNamed) {
  CliDir dir;
  std::string missing = dir.Path("no-such-keys.txt");
  ExpectUsageError(RunCli({"hash", "--format", "leveldb-bloom", "--keys", missing}), {missing});
  ExpectUsageError(RunCli({"probe", dir.Path("no-such-filter"), "--format", "leveldb-bloom",
                           "--keys", dir.Write("k.txt", "a\n")}),
                   {dir.Path("no-such-filter")});
}

TEST(CliUsage, MalformedKeyLineNamesFileAndLine) {
  CliDir dir;
  std::string keys = dir.Write("keys.hex", "00ff\nabcd\nzz\n01\n");
  ExpectUsageError(
      RunCli({"hash", "--format", "leveldb-bloom", "--keys", keys, "--key-format", "hex"}),
      {keys, "line 3"});
  ExpectUsageError(
      RunCli({"hash", "--format", "leveldb-bloom", "--keys", keys, "--key-format", "hex9"}),
      {"--key-format", "hex9"});
}

TEST(CliUsage, BuildRefusesToOverwriteTheKeyFile) {
  CliDir dir;
  std::string original = "alpha\nbeta\n";
  std::string keys = dir.Write("keys.txt", original);
  for (const std::string& out : {keys, dir.path() + "/./keys.txt"}) {
    CliRun r = RunCli(
        {"build", "--format", "leveldb-bloom", "--keys", keys, "--bits-per-key", "10", "-o", out});
    ExpectUsageError(r, {"key file"});
    EXPECT_EQ(ReadAnyText(keys), original);
  }
}

TEST(CliUsage, HelpAndVersion) {
  CliRun r = RunCli({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* sub :
       {"build", "probe", "hash", "size", "inspect", "verify", "convert", "dump", "repair"}) {
    EXPECT_NE(r.out.find(std::string("bloomcodec ") + sub), std::string::npos) << sub;
  }
  for (const FormatCodec* f : AllFormats()) EXPECT_NE(r.out.find(f->name()), std::string::npos);
  r = RunCli({"help", "probe"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Usage: bloomcodec probe FILE"), std::string::npos) << r.out;
  CliRun same = RunCli({"probe", "--help"});
  EXPECT_EQ(same.exit_code, 0);
  EXPECT_EQ(same.out, r.out);
  ExpectUsageError(RunCli({"help", "nosuch"}), {"nosuch"});
  r = RunCli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.out.starts_with("bloomcodec ")) << r.out;
  r = RunCli({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Usage"), std::string::npos);
}

TEST(CliUsage, InspectConvertDumpNameAMissingInput) {
  for (const char* sub : {"inspect", "dump"}) {
    ExpectUsageError(RunCli({sub, "no-such-file", "--json"}), {sub, "no-such-file"});
  }
  ExpectUsageError(RunCli({"convert", "no-such-file", "--to", "leveldb-bloom", "-o", "out"}),
                   {"convert", "no-such-file"});
}

TEST(CliUsage, KeyFileEdgeCasesOfTheContract) {
  // A last line without '\n' counts; an empty line is the empty key; an empty file has no keys.
  CliDir dir;
  CliRun r = RunCli({"hash", "--format", "leveldb-bloom", "--keys", dir.Write("k", "a\n\nb")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = SplitLines(r.out);
  ASSERT_EQ(lines.size(), 3u);
  CliRun empty_key = RunCli({"hash", "--format", "leveldb-bloom", "--keys", dir.Write("e", "\n")});
  ASSERT_EQ(empty_key.exit_code, 0) << empty_key.err;
  EXPECT_EQ(empty_key.out, lines[1] + "\n");
  CliRun none = RunCli({"hash", "--format", "leveldb-bloom", "--keys", dir.Write("n", "")});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(none.out, "");
  CliRun from_stdin = RunCli({"hash", "--format", "leveldb-bloom", "--keys", "-"}, "a\n\nb\n");
  ASSERT_EQ(from_stdin.exit_code, 0) << from_stdin.err;
  EXPECT_EQ(from_stdin.out, r.out);
  // The same three keys spelled in hex and base64 hash the same.
  CliRun hex = RunCli({"hash", "--format", "leveldb-bloom", "--keys", dir.Write("h", "61\n\n62\n"),
                       "--key-format", "hex"});
  EXPECT_EQ(hex.out, r.out) << hex.err;
  CliRun base64 = RunCli({"hash", "--format", "leveldb-bloom", "--keys",
                          dir.Write("b", "YQ==\n\nYg==\n"), "--key-format", "base64"});
  EXPECT_EQ(base64.out, r.out) << base64.err;
}

}  // namespace
}  // namespace bloomcodec::testing

// inspect's fill profile (docs/cli.md, "inspect"): a filter's bit array in 64 buckets, in the
// JSON as the share of set bits per bucket and in the text as one line of levels, block
// characters in a UTF-8 locale and ASCII otherwise, where a zeroed and a saturated region show.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <bit>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.h"

namespace bloomcodec::testing {
namespace {

// Sets LC_ALL for the CLI runs of one scope (RunCli passes the environment on).
class Locale {
 public:
  explicit Locale(const char* value) { ::setenv("LC_ALL", value, 1); }
  ~Locale() { ::unsetenv("LC_ALL"); }
};

// A LevelDB filter of 1000 keys at 10 bits per key (1250 bytes of bits and k), its first
// quarter zeroed and its third quarter set: what a damaged filter might look like.
std::string DamagedFilter(const CliDir& dir) {
  std::string keys;
  for (int i = 0; i < 1000; ++i) keys += "key" + std::to_string(i) + "\n";
  const std::string out = dir.Path("f.bloom");
  const CliRun r = RunCli({"build", "--format", "leveldb-bloom", "--keys", dir.Write("k", keys),
                           "--bits-per-key", "10", "-o", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string bytes = ReadAnyText(out);
  EXPECT_EQ(bytes.size(), 1251u);
  const std::size_t bits = bytes.size() - 1;
  for (std::size_t i = 0; i < bits / 4; ++i) bytes[i] = 0;
  for (std::size_t i = bits / 2; i < 3 * bits / 4; ++i) bytes[i] = static_cast<char>(0xff);
  return dir.Write("damaged.bloom", bytes);
}

// The fill_profile line of inspect's text output, after its label.
std::string FillLine(const std::string& text) {
  for (const std::string& line : SplitLines(text)) {
    if (line.starts_with("fill_profile:")) {
      std::size_t i = line.find('[');
      return i == std::string::npos ? line : line.substr(i);
    }
  }
  ADD_FAILURE() << "no fill_profile line in:\n" << text;
  return "";
}

TEST(InspectFillProfile, JsonBucketsAreTheShareOfSetBitsOfEachRun) {
  CliDir dir;
  const std::string path = DamagedFilter(dir);
  const std::string bytes = ReadAnyText(path);
  const CliRun r = RunCli({"inspect", path, "--format", "leveldb-bloom", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  const nlohmann::json& profile = doc["files"][0]["fill_profile"];
  EXPECT_EQ(profile["offset"], 0);
  EXPECT_EQ(profile["bytes"], 1250);
  ASSERT_EQ(profile["buckets"].size(), 64u);
  for (std::size_t i = 0; i < 64; ++i) {
    const std::size_t begin = i * 1250 / 64, end = (i + 1) * 1250 / 64;
    int set = 0;
    for (std::size_t b = begin; b < end; ++b)
      set += std::popcount(static_cast<unsigned char>(bytes[b]));
    const double share = static_cast<double>(set) / static_cast<double>(8 * (end - begin));
    // Rounded to 3 decimals: at most half a thousandth off (and a rounding error of the double).
    EXPECT_NEAR(profile["buckets"][i].get<double>(), share, 0.0005 + 1e-9) << "bucket " << i;
  }
}

TEST(InspectFillProfile, TextShowsZeroedAndSaturatedRegionsInBlocks) {
  CliDir dir;
  const std::string path = DamagedFilter(dir);
  Locale utf8("C.UTF-8");
  const CliRun r = RunCli({"inspect", path, "--format", "leveldb-bloom"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string line = FillLine(r.out);
  // 16 blank buckets (the zeroed quarter), 16 of partial fill, 16 full ones, 16 partial: whole
  // buckets of each quarter (a bucket may straddle a quarter's edge).
  const std::string blank(15, ' ');
  std::string full;
  for (int i = 0; i < 15; ++i) full += "█";
  EXPECT_TRUE(line.starts_with("[" + blank)) << line;
  EXPECT_NE(line.find(full), std::string::npos) << line;
  EXPECT_NE(line.find("▄"), std::string::npos) << line;  // the healthy half: about half set
  EXPECT_NE(line.find("] bytes 0..1250 in 64 buckets"), std::string::npos) << line;
}

TEST(InspectFillProfile, TextFallsBackToAsciiOutsideUtf8) {
  CliDir dir;
  const std::string path = DamagedFilter(dir);
  Locale c("C");
  const CliRun r = RunCli({"inspect", path, "--format", "leveldb-bloom"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string line = FillLine(r.out);
  for (unsigned char c : line) EXPECT_LT(c, 0x80) << line;
  EXPECT_TRUE(line.starts_with("[" + std::string(15, ' '))) << line;
  EXPECT_NE(line.find(std::string(15, '#')), std::string::npos) << line;
  EXPECT_NE(line.find('='), std::string::npos) << line;  // about half set
}

}  // namespace
}  // namespace bloomcodec::testing

// Test helper: what the Pebble table tests (row and columnar, healthy, damaged and rewritten)
// share to judge a table built in memory: simple entry lists, the table written to a temporary
// data directory and verified there, and the findings spelled out for a failure message.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "pebble/table/verify.h"
#include "pebble/table_builder_common.h"
#include "support/test_support.h"

namespace bloomcodec::pebble::testing {

// n SET entries "key100000", "key100001", ... with the value "v", all at sequence number 5.
inline std::vector<PebbleEntry> NumberedEntries(std::size_t n) {
  std::vector<PebbleEntry> entries;
  for (std::size_t i = 0; i < n; ++i) {
    entries.push_back({"key" + std::to_string(100000 + i), 5, kSet, "v"});
  }
  return entries;
}

// n SET entries "word000000", "word000007", ... with distinct values and sequence numbers.
inline std::vector<PebbleEntry> WordEntries(std::size_t n) {
  std::vector<PebbleEntry> entries;
  for (std::size_t i = 0; i < n; ++i) {
    char key[32];
    std::snprintf(key, sizeof key, "word%06zu", i * 7);
    entries.push_back({key, 1000 + i, kSet, "value of " + std::string(key)});
  }
  return entries;
}

// `n` SETs "<prefix>0000", "<prefix>0001", ... in key order, value "v", sequence number 5.
inline std::vector<PebbleEntry> PrefixedEntries(const std::string& prefix, int n) {
  std::vector<PebbleEntry> out;
  for (int i = 0; i < n; ++i) {
    char key[32];
    std::snprintf(key, sizeof key, "%s%04d", prefix.c_str(), i);
    out.push_back({key, 5, kSet, "v"});
  }
  return out;
}

// Writes `bytes` as `name` in `dir` and returns the path.
inline std::string WriteTableFile(const bloomcodec::testing::TempDir& dir, const ByteVector& bytes,
                                  const std::string& name = "000010.sst") {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return path;
}

// verify of `table` alone in a data directory, as `bloomcodec verify` reads a lone table.
inline FileReport VerifyTableBytes(const ByteVector& table) {
  bloomcodec::testing::TempDir dir;
  return VerifyPebbleTable(WriteTableFile(dir, table), nullptr, dir.path());
}

// "kind: message" per finding, one a line.
inline std::string FindingLines(const FileReport& r) {
  std::string s;
  for (const Finding& f : r.findings) s += std::string(f.kind) + ": " + f.message + "\n";
  return s;
}

// The report's first finding is of `kind` and `severity`, and its message holds `text`.
inline void ExpectFirstFinding(const FileReport& r, std::string_view kind, Severity severity,
                               std::string_view text) {
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].kind, kind) << FindingLines(r);
  EXPECT_EQ(r.findings[0].severity, severity) << FindingLines(r);
  EXPECT_NE(r.findings[0].message.find(text), std::string::npos) << FindingLines(r);
}

// `table` verifies with no finding, every one of `keys` checked, as a table of `version`.
inline void ExpectCleanTable(const ByteVector& table, std::uint64_t keys, std::uint32_t version) {
  const FileReport r = VerifyTableBytes(table);
  EXPECT_TRUE(r.findings.empty()) << FindingLines(r);
  EXPECT_EQ(r.keys_checked, keys);
  EXPECT_EQ(r.false_negative_count, 0u);
  EXPECT_EQ(r.version, PebbleFormatName(version));
}

}  // namespace bloomcodec::pebble::testing

// What the database tests of both originals check on verify's and inspect's answers.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bloomcodec/verify.h"

namespace bloomcodec::manifest_test {

namespace fs = std::filesystem;

// (column family, table number) -> level.
using Levels = std::map<std::pair<std::string, std::uint64_t>, int>;

inline std::uint64_t NumberOf(const std::string& path) {
  return std::stoull(fs::path(path).filename().string().substr(0, 6));
}

inline VerifyReport Verify(const std::string& dir) {
  VerifyOptions options;
  options.threads = 2;
  Result<VerifyReport> r = VerifyPaths(std::vector<std::string>{dir}, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : VerifyReport{};
}

// The live tables verify reports, with their levels.
inline Levels LevelsOf(const VerifyReport& report) {
  Levels out;
  for (const FileReport& f : report.files) {
    if (f.group_role != GroupRole::kLive || f.level < 0) continue;
    out[{f.column_family, NumberOf(f.path)}] = f.level;
  }
  return out;
}

inline bool HasFinding(const FileReport& f, std::string_view kind, Severity severity) {
  for (const Finding& x : f.findings) {
    if (x.kind == kind && x.severity == severity) return true;
  }
  return false;
}

inline const FileReport* ReportOf(const VerifyReport& report, const std::string& path) {
  for (const FileReport& f : report.files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

// The group's fp rate as a read sees it, recomputed from the files: every level-0 table, one
// table per level above (the level's key-weighted mean).
inline double ExpectedLevelRate(const VerifyReport& report, const std::string& group) {
  std::map<int, std::vector<std::pair<double, double>>> levels;  // level -> (p, keys)
  for (const FileReport& f : report.files) {
    if (f.group != group || f.group_role != GroupRole::kLive || !f.fill) continue;
    levels[f.level].push_back({f.fill->fp_rate, static_cast<double>(f.keys_checked)});
  }
  double miss = 1;
  for (const auto& [level, tables] : levels) {
    if (level == 0) {
      for (const auto& [p, k] : tables) miss *= 1 - p;
    } else {
      double sum = 0, weight = 0;
      for (const auto& [p, k] : tables) sum += p * k, weight += k;
      miss *= 1 - sum / weight;
    }
  }
  return 1 - miss;
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::string CurrentManifest(const std::string& dir) {
  std::string name = ReadFile(dir + "/CURRENT");
  if (!name.empty()) name.pop_back();
  return dir + "/" + name;
}

// A fresh temporary directory, removed at the end of the test.
class TempDir {
 public:
  explicit TempDir(const std::string& name) {
    path_ = (fs::temp_directory_path() / ("bloomcodec-" + name + "-" + std::to_string(::getpid())))
                .string();
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace bloomcodec::manifest_test

// The format-neutral verify engine: report bookkeeping, the parallel runner's order, the summary.
#include "bloomcodec/verify.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

namespace bloomcodec {
namespace {

FileReport WithRate(std::string path, std::string group, double p) {
  FileReport r;
  r.path = std::move(path);
  r.group = std::move(group);
  FillReport fill;
  fill.fp_rate = p;
  r.fill = fill;
  return r;
}

TEST(VerifyEngine, RunnerKeepsTaskOrderWhateverTheScheduling) {
  std::vector<VerifyTask> tasks;
  std::atomic<int> running{0};
  std::atomic<int> max_running{0};
  for (int i = 0; i < 40; ++i) {
    tasks.push_back([i, &running, &max_running] {
      int now = ++running;
      int seen = max_running.load();
      while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
      }
      // Early tasks take longest, so they finish last when run in parallel.
      std::this_thread::sleep_for(std::chrono::microseconds((40 - i) * 200));
      --running;
      FileReport r;
      r.path = "file" + std::to_string(i);
      return r;
    });
  }
  std::size_t progress_calls = 0;
  std::size_t last_done = 0;
  std::vector<FileReport> reports =
      RunVerifyTasks(tasks, 4, [&](std::size_t done, std::size_t total) {
        ++progress_calls;
        EXPECT_EQ(done, last_done + 1);
        EXPECT_EQ(total, 40u);
        last_done = done;
      });
  ASSERT_EQ(reports.size(), 40u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(reports[i].path, "file" + std::to_string(i));
  EXPECT_EQ(progress_calls, 40u);
  EXPECT_GE(max_running.load(), 2);  // really in parallel
  EXPECT_LE(max_running.load(), 4);
}

TEST(VerifyEngine, RunnerWithNoTasks) { EXPECT_TRUE(RunVerifyTasks({}, 0).empty()); }

TEST(VerifyEngine, StatusIsTheWorstSeverity) {
  FileReport r;
  EXPECT_EQ(r.status_name(), "ok");
  r.Add(Severity::kInfo, "temporary", "x");
  EXPECT_EQ(r.status_name(), "ok");
  r.Add(Severity::kWarning, "trailing-bytes", "x", 8);
  EXPECT_EQ(r.status_name(), "warning");
  r.Add(Severity::kError, "structure", "x");
  EXPECT_EQ(r.status_name(), "error");
}

TEST(VerifyEngine, FalseNegativesAreCountedAllAndListedUpToTheCap) {
  FileReport r;
  r.keys_checked = 100;
  for (int i = 0; i < 30; ++i)
    r.AddFalseNegative(AsBytes(std::string(1, static_cast<char>('a' + i % 26))));
  r.FinishFalseNegatives("the filter");
  EXPECT_EQ(r.false_negative_count, 30u);
  EXPECT_EQ(r.false_negatives.size(), kMaxListedFalseNegatives);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kind, finding_kind::kFalseNegative);
  EXPECT_EQ(r.findings[0].severity, Severity::kError);
  EXPECT_NE(r.findings[0].message.find("30 of 100"), std::string::npos);
  FileReport clean;
  clean.FinishFalseNegatives("the filter");
  EXPECT_TRUE(clean.findings.empty());
}

TEST(VerifyEngine, SummaryCombinesTheRatesOfEachGroup) {
  std::vector<FileReport> files = {WithRate("a", "ks/cf", 0.1), WithRate("b", "ks/cf", 0.2),
                                   WithRate("c", "db", 0.5), WithRate("d", "", 0.9)};
  files[1].Add(Severity::kWarning, "trailing-bytes", "x");
  files[2].Add(Severity::kError, "structure", "x");
  VerifySummary s = Summarize(files);
  EXPECT_EQ(s.files, 4u);
  EXPECT_EQ(s.ok, 2u);
  EXPECT_EQ(s.warnings, 1u);
  EXPECT_EQ(s.errors, 1u);
  ASSERT_EQ(s.groups.size(), 2u);  // the ungrouped file is in no group
  EXPECT_EQ(s.groups[0].name, "db");
  EXPECT_DOUBLE_EQ(s.groups[0].combined_fp_rate, 0.5);
  EXPECT_EQ(s.groups[1].name, "ks/cf");
  EXPECT_EQ(s.groups[1].tables, 2u);
  EXPECT_NEAR(s.groups[1].combined_fp_rate, 1 - 0.9 * 0.8, 1e-15);
}

TEST(VerifyEngine, SummaryCountsDamagedAndIgnoredFiltersAsOneAndKeepsCopiesApart) {
  std::vector<FileReport> files = {WithRate("a", "ks/cf", 0.1), WithRate("b", "ks/cf", 0.2),
                                   WithRate("c", "ks/cf (snapshot t)", 0.3)};
  files[2].group_role = GroupRole::kSnapshot;
  FileReport damaged;  // an error and no readable filter
  damaged.group = "ks/cf";
  damaged.Add(Severity::kError, "structure", "x");
  files.push_back(damaged);
  FileReport rebuilt;  // no filter on disk, nothing wrong: not counted
  rebuilt.group = "ks/cf";
  rebuilt.Add(Severity::kInfo, "rebuilt-filter", "x");
  files.push_back(rebuilt);
  FileReport old = WithRate("d", "db", 0.01);
  old.filter_ignored_by_reader = true;
  files.push_back(old);
  files.push_back(WithRate("e", "db", 0.02));
  VerifySummary s = Summarize(files);
  ASSERT_EQ(s.groups.size(), 3u);
  EXPECT_EQ(s.groups[0].name, "db");
  EXPECT_EQ(s.groups[0].ignored_filters, 1u);
  EXPECT_EQ(s.groups[0].combined_fp_rate, 1.0);
  EXPECT_EQ(s.groups[1].name, "ks/cf");
  EXPECT_EQ(s.groups[1].tables, 3u);
  EXPECT_EQ(s.groups[1].damaged, 1u);
  EXPECT_EQ(s.groups[1].not_counted, 1u);
  EXPECT_EQ(s.groups[1].combined_fp_rate, 1.0);
  EXPECT_EQ(s.groups[2].role, GroupRole::kSnapshot);
  EXPECT_DOUBLE_EQ(s.groups[2].combined_fp_rate, 0.3);
  Document doc = VerifyReportJson(VerifyReport{files, s});
  EXPECT_EQ(doc["summary"]["groups"][1]["damaged"], 1);
  EXPECT_EQ(doc["summary"]["groups"][2]["role"], "snapshot");
  EXPECT_EQ(doc["files"][2]["group_role"], "snapshot");
}

TEST(VerifyEngine, JudgeFillTellsOverfilledFromUndersized) {
  FillStatistics full = ComputeFillStatistics(640, 640, 7);
  // Without a count a saturated filter's sizing is all that shows: undersized, a warning.
  FillVerdict alone = JudgeFill(full, std::nullopt, "given");
  EXPECT_EQ(alone.kind, finding_kind::kUndersized);
  EXPECT_EQ(alone.severity, Severity::kWarning);
  EXPECT_NE(alone.reason.find("saturated (every bit set)"), std::string::npos) << alone.reason;
  EXPECT_EQ(EstimatedKeysText(full.estimated_keys), "saturated (every bit set)");
  // 500 keys can set all 640 bits; 20 keys set at most 140: every bit set is then damage.
  EXPECT_EQ(JudgeFill(full, 500.0, "given").kind, finding_kind::kUndersized);
  FillVerdict few = JudgeFill(full, 20.0, "given");
  EXPECT_EQ(few.kind, finding_kind::kOverfilled);
  EXPECT_EQ(few.severity, Severity::kError);
  EXPECT_NE(few.reason.find("20 keys given set at most 140 (k bits each)"), std::string::npos)
      << few.reason;
  FillStatistics half = ComputeFillStatistics(6400, 3200, 7);
  EXPECT_FALSE(JudgeFill(half, std::nullopt, "given"));  // nothing to judge by
  EXPECT_FALSE(JudgeFill(half, 700.0, "given"));         // about what 700 keys set
  FillVerdict over = JudgeFill(half, 100.0, "given");
  EXPECT_EQ(over.kind, finding_kind::kOverfilled);
  EXPECT_NE(over.reason.find("100 keys given"), std::string::npos) << over.reason;
  // Entries the writer may add uncounted raise the bound: 450 counted + 2 is still judged.
  EXPECT_NE(JudgeFill(half, 450.0, "given", 2).reason.find("(+2 the writer may add uncounted)"),
            std::string::npos);
}

TEST(VerifyEngine, JsonHasEveryFieldAndNullForNonFiniteNumbers) {
  VerifyReport report;
  FileReport r = WithRate("p", "g", 0.25);
  r.fill->estimated_keys = std::numeric_limits<double>::infinity();
  r.Add(Severity::kWarning, "trailing-bytes", "3 bytes", 16);
  r.AddFalseNegative(AsBytes(std::string_view("\x01\xff", 2)));
  report.files.push_back(r);
  report.files.push_back(FileReport{});
  report.summary = Summarize(report.files);
  Document doc = VerifyReportJson(report);
  const Document& f = doc["files"][0];
  EXPECT_EQ(f["status"], "warning");
  EXPECT_EQ(f["findings"][0]["offset"], 16);
  EXPECT_EQ(f["findings"][0]["severity"], "warning");
  EXPECT_EQ(f["false_negatives"][0], "01ff");
  EXPECT_EQ(f["false_negative_count"], 1);
  EXPECT_TRUE(f["estimated_keys"].is_null());
  EXPECT_DOUBLE_EQ(f["fp_rate"].get<double>(), 0.25);
  EXPECT_FALSE(doc["files"][1]["findings"].size());
  EXPECT_TRUE(doc["files"][1]["bits"].is_null());
  EXPECT_EQ(doc["summary"]["files"], 2);
  EXPECT_EQ(doc["summary"]["groups"][0]["name"], "g");
  // Round-trips through text (valid JSON).
  EXPECT_EQ(Document::parse(doc.dump()), doc);
}

}  // namespace
}  // namespace bloomcodec

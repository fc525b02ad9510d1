// verify on a live data directory: files deleted, replaced or growing while the run reads them.
// The library tests are deterministic: a hook called right after each open (on the one worker
// thread) deletes or rewrites files at exactly the moment that matters. The process test races
// a real deleter against `bloomcodec verify` and holds whatever the timing: no file is ever an
// error, each is either judged ok or reported gone.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bloomcodec/verify.h"
#include "codec/read_log.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;

// The hook stays installed for one test only.
class ScopedOpenHook {
 public:
  explicit ScopedOpenHook(std::function<void(const std::string&)> hook) {
    ReadLog::SetAfterOpenHookForTesting(std::move(hook));
  }
  ~ScopedOpenHook() { ReadLog::SetAfterOpenHookForTesting({}); }
};

class LiveDir : public ::testing::Test {
 protected:
  void SetUp() override {
    keys_ = ReadHexKeysFixture("cassandra-1.0/filters/keys_n1000.txt");
    ks_ = dir_.Path("data/Keyspace1");
    PutSstable(ks_, "Standard1-hc-1-", "cassandra-1.0/filters/n1000_b15.Filter.db", keys_);
    PutSstable(ks_, "Standard1-hc-2-", "cassandra-1.0/filters/n1000_fp0.01.Filter.db", keys_);
    PutSstable(ks_, "Standard1-hc-3-", "cassandra-1.0/filters/n1000_b15.Filter.db", keys_);
  }
  std::string Component(int generation, const std::string& name) const {
    return ks_ + "/Standard1-hc-" + std::to_string(generation) + "-" + name;
  }
  // The whole data directory verified on one worker, so the hook sees sstables in path order.
  VerifyReport Run() const {
    VerifyOptions options;
    options.threads = 1;
    const std::vector<std::string> paths{dir_.Path("data")};
    auto report = VerifyPaths(paths, options);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : VerifyReport{};
  }
  static const FileReport& Of(const VerifyReport& report, const std::string& suffix) {
    for (const FileReport& f : report.files) {
      if (f.path.ends_with(suffix)) return f;
    }
    ADD_FAILURE() << "no report for *" << suffix;
    static const FileReport none;
    return none;
  }
  static bool HasKind(const FileReport& f, std::string_view kind) {
    for (const Finding& finding : f.findings) {
      if (finding.kind == kind) return true;
    }
    return false;
  }
  static const GroupSummary* Group(const VerifyReport& report) {
    for (const GroupSummary& g : report.summary.groups) {
      if (g.role == GroupRole::kLive) return &g;
    }
    return nullptr;
  }

  CliDir dir_;
  std::string ks_;
  KeyList keys_;
};

TEST_F(LiveDir, AnSstableCompactedAwayBeforeItsTurnIsGoneNotAnError) {
  ScopedOpenHook hook([&](const std::string& path) {
    if (!path.ends_with("hc-1-Filter.db")) return;
    fs::remove(Component(2, "Filter.db"));
    fs::remove(Component(2, "Index.db"));
  });
  VerifyReport report = Run();
  const FileReport& gone = Of(report, "hc-2-Filter.db");
  EXPECT_EQ(gone.during_run, DuringRun::kGone);
  EXPECT_EQ(gone.status_name(), "gone");
  EXPECT_TRUE(HasKind(gone, finding_kind::kGone));
  EXPECT_EQ(gone.worst(), Severity::kInfo);
  EXPECT_FALSE(gone.fill.has_value());
  EXPECT_EQ(Of(report, "hc-1-Filter.db").keys_checked, 1000u);
  EXPECT_EQ(Of(report, "hc-3-Filter.db").keys_checked, 1000u);
  EXPECT_EQ(report.summary.files, 3u);
  EXPECT_EQ(report.summary.ok, 2u);
  EXPECT_EQ(report.summary.gone, 1u);
  EXPECT_EQ(report.summary.errors, 0u);
  const GroupSummary* group = Group(report);
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->tables, 2u);  // the gone sstable is in no read's rate
  EXPECT_EQ(group->damaged, 0u);
}

TEST_F(LiveDir, AnIndexDeletedBetweenTheFilterAndItsReadIsGone) {
  ScopedOpenHook hook([&](const std::string& path) {
    if (path.ends_with("hc-2-Filter.db")) fs::remove(Component(2, "Index.db"));
  });
  VerifyReport report = Run();
  const FileReport& gone = Of(report, "hc-2-Filter.db");
  EXPECT_EQ(gone.during_run, DuringRun::kGone);
  EXPECT_FALSE(HasKind(gone, finding_kind::kUnreadable));
  EXPECT_FALSE(HasKind(gone, finding_kind::kMissingIndex));
  EXPECT_EQ(report.summary.errors, 0u);
}

TEST_F(LiveDir, AComponentMissingFromTheStartStaysWhatItWas) {
  fs::remove(Component(2, "Index.db"));
  VerifyReport report = Run();
  const FileReport& f = Of(report, "hc-2-Filter.db");
  EXPECT_EQ(f.during_run, DuringRun::kStable);
  EXPECT_TRUE(HasKind(f, finding_kind::kMissingIndex));
  EXPECT_FALSE(HasKind(f, finding_kind::kGone));
  EXPECT_EQ(report.summary.gone, 0u);
}

TEST_F(LiveDir, AnSstableDeletedAfterItWasReadIsJudgedAsReadAndReportedGone) {
  bool filter_open = false, index_open = false;
  ScopedOpenHook hook([&](const std::string& path) {
    filter_open |= path.ends_with("hc-2-Filter.db");
    index_open |= path.ends_with("hc-2-Index.db");
    if (!filter_open || !index_open) return;
    // Both are open (mapped) now: unlinking leaves the bytes being read intact.
    fs::remove(Component(2, "Filter.db"));
    fs::remove(Component(2, "Index.db"));
  });
  VerifyReport report = Run();
  const FileReport& f = Of(report, "hc-2-Filter.db");
  EXPECT_EQ(f.during_run, DuringRun::kGone);
  EXPECT_EQ(f.keys_checked, 1000u);
  EXPECT_EQ(f.false_negative_count, 0u);
  EXPECT_TRUE(f.fill.has_value());
  EXPECT_TRUE(HasKind(f, finding_kind::kGone));
  EXPECT_EQ(report.summary.gone, 1u);
  EXPECT_EQ(Group(report)->tables, 2u);
}

TEST_F(LiveDir, AFilterReplacedWhileReadIsReadAgainAndJudgedAsItIsNow) {
  const ByteVector replacement = ReadFixture("cassandra-1.0/filters/n1000_b15.Filter.db");
  int opens = 0;
  ScopedOpenHook hook([&](const std::string& path) {
    if (!path.ends_with("hc-2-Filter.db") || ++opens > 1) return;
    // A writer's rename over the path: the old inode stays mapped, the path names a new file.
    WriteFileAt(Component(2, "Filter.db.new"), replacement);
    fs::rename(Component(2, "Filter.db.new"), Component(2, "Filter.db"));
  });
  VerifyReport report = Run();
  EXPECT_EQ(opens, 2);
  const FileReport& f = Of(report, "hc-2-Filter.db");
  EXPECT_EQ(f.during_run, DuringRun::kStable);
  EXPECT_EQ(f.worst(), Severity::kInfo);
  EXPECT_EQ(f.keys_checked, 1000u);
  // The figures are the new file's (15 buckets per key), not the old one's (fp chance 0.01).
  const FileReport& same_as_new = Of(report, "hc-1-Filter.db");
  ASSERT_TRUE(f.fill && same_as_new.fill);
  EXPECT_EQ(f.fill->bits, same_as_new.fill->bits);
  EXPECT_EQ(f.fill->bits_set, same_as_new.fill->bits_set);
}

TEST_F(LiveDir, AFileThatKeepsChangingIsNotJudgedFromTornBytes) {
  int opens = 0;
  ScopedOpenHook hook([&](const std::string& path) {
    if (!path.ends_with("hc-2-Filter.db")) return;
    ++opens;
    std::ofstream(path, std::ios::binary | std::ios::app) << "more";  // a writer appending
  });
  VerifyReport report = Run();
  EXPECT_EQ(opens, 2);  // read once, then once again, then given up
  const FileReport& f = Of(report, "hc-2-Filter.db");
  EXPECT_EQ(f.during_run, DuringRun::kChanged);
  EXPECT_EQ(f.status_name(), "changed");
  EXPECT_TRUE(HasKind(f, finding_kind::kChanged));
  EXPECT_FALSE(HasKind(f, finding_kind::kTrailingBytes));  // the torn read's finding is dropped
  EXPECT_EQ(report.summary.changed, 1u);
  EXPECT_EQ(report.summary.errors, 0u);
  EXPECT_EQ(report.summary.warnings, 0u);
  EXPECT_EQ(Group(report)->tables, 2u);
}

TEST_F(LiveDir, JsonAndTextSayGoneAndTheSummaryCountsIt) {
  ScopedOpenHook hook([&](const std::string& path) {
    if (path.ends_with("hc-1-Filter.db")) fs::remove(Component(3, "Filter.db"));
  });
  VerifyReport report = Run();
  const Document doc = VerifyReportJson(report);
  const std::string json = doc.dump();
  EXPECT_NE(json.find("\"during_run\":\"gone\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"gone\":1"), std::string::npos) << json;
  const std::string text = VerifyReportText(report);
  EXPECT_NE(text.find("gone    "), std::string::npos) << text;
  EXPECT_NE(text.find("1 gone during the run"), std::string::npos) << text;
}

// A real race, as on a node: a thread deletes whole sstables while the process verifies. Which
// sstables vanish before their turn depends on timing; what must hold does not.
TEST(LiveDirProcess, DeletingSstablesDuringARunNeverGivesAnError) {
  CliDir dir;
  const KeyList keys = ReadHexKeysFixture("cassandra-1.0/filters/keys_n1000.txt");
  const std::string ks = dir.Path("data/ks");
  constexpr int kSstables = 120;
  for (int g = 1; g <= kSstables; ++g) {
    PutSstable(ks, "cf-hc-" + std::to_string(g) + "-", "cassandra-1.0/filters/n1000_b15.Filter.db",
               keys);
  }
  std::atomic<bool> stop{false};
  std::thread deleter([&] {
    // Compaction order: the newest generations go first, each sstable filter first.
    for (int g = kSstables; g >= 1 && !stop; g -= 2) {
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      fs::remove(ks + "/cf-hc-" + std::to_string(g) + "-Filter.db");
      fs::remove(ks + "/cf-hc-" + std::to_string(g) + "-Index.db");
    }
  });
  Json doc = VerifyJson({dir.Path("data")}, 0);
  stop = true;
  deleter.join();
  std::uint64_t ok = 0, gone = 0;
  for (const Json& f : doc["files"]) {
    const std::string status = f["status"];
    EXPECT_TRUE(status == "ok" || status == "gone") << f.dump(1);
    ok += status == "ok";
    gone += status == "gone";
  }
  EXPECT_EQ(doc["summary"]["errors"], 0);
  EXPECT_EQ(doc["summary"]["ok"], ok);
  EXPECT_EQ(doc["summary"]["gone"], gone);
  EXPECT_EQ(ok + gone, doc["summary"]["files"].get<std::uint64_t>());
}

}  // namespace
}  // namespace bloomcodec::testing

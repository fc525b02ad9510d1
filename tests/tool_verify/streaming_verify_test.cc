// Streaming and parallel verify (issue 17): an sstable's Index.db read a window at a time, its
// ranges probed on the workers of a pool, gives exactly the report of reading the whole file at
// once, whatever the window, range and chunk sizes, and that report is what the whole-file
// reader (ReadIndexDb) and one batch probe over all its keys say.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/input_file.h"
#include "cassandra/descriptor.h"
#include "cassandra/index_db.h"
#include "cassandra/verify.h"
#include "codec/parallel.h"
#include "support/report_equal.h"

namespace bloomcodec::cassandra {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, ByteSpan bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

KeyList RandomKeys(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  KeyList keys;
  for (std::size_t i = 0; i < n; ++i) {
    std::string key = "k" + std::to_string(i) + ":";
    const std::size_t extra = rng() % 40;
    for (std::size_t j = 0; j < extra; ++j) key.push_back(static_cast<char>(rng()));
    keys.Add(key);
  }
  return keys;
}

struct Sstable {
  KeyList keys;
  ByteVector index;
  ByteVector filter;
};

// A 4.0 (na) sstable: Index.db with promoted indexes of varied sizes, the filter built from
// `filter_keys` of `keys` (all of them unless given fewer).
Sstable MakeSstable(std::size_t n, std::uint32_t seed, std::size_t filter_keys,
                    Era era = Era::kV40) {
  Sstable s;
  s.keys = RandomKeys(n, seed);
  std::vector<std::int64_t> positions(n);
  std::vector<std::uint32_t> promoted(n);
  std::mt19937 rng(seed + 1);
  for (std::size_t i = 0; i < n; ++i) {
    positions[i] = static_cast<std::int64_t>(i) * 100 + 3;
    promoted[i] = rng() % 8 == 0 ? rng() % 300 : 0;
  }
  s.index = *WriteIndexDb(s.keys, positions, IndexEntryForm::kVIntPositionAndPromoted, promoted);
  KeyList in_filter;
  for (std::size_t i = 0; i < filter_keys; ++i) in_filter.Add(s.keys[i]);
  const auto words = static_cast<std::int32_t>(n * 10 / 64 + 1);
  s.filter = *BuildMurmur3Filter(in_filter, 5, words, era);
  return s;
}

class StreamingVerify : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("bloomcodec_streaming_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    table_ = dir_ / "ks" / "tbl-0123456789abcdef0123456789abcdef";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Put(int generation, const ByteVector& index, const ByteVector* filter) {
    const std::string prefix = (table_ / ("na-" + std::to_string(generation) + "-big-")).string();
    Write(prefix + "Index.db", index);
    if (filter) Write(prefix + "Filter.db", *filter);
  }

  std::vector<SstableFiles> Find() {
    auto found = FindSstables(dir_.string());
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return found.ok() ? *found : std::vector<SstableFiles>{};
  }

  fs::path dir_;
  fs::path table_;
};

void ExpectSameReport(const FileReport& a, const FileReport& b, const std::string& what) {
  EXPECT_EQ(bloomcodec::testing::ReportDifference(a, b), "") << what;
}

// Every sstable verified with the whole file as one window, range and chunk (no pool), then
// with small limits, alone and on a pool of 4 workers: the reports must be identical.
std::vector<FileReport> VerifyAllWays(std::vector<SstableFiles> sstables) {
  std::vector<FileReport> whole;
  for (SstableFiles& s : sstables) {
    s.limits = {std::uint64_t{1} << 62, std::uint64_t{1} << 62, std::size_t{1} << 30};
    whole.push_back(VerifySstable(s));
  }
  const StreamLimits small[] = {{64, 16, 1}, {4096, 500, 7}, {1 << 16, 1 << 12, 100}, {}};
  for (const StreamLimits& limits : small) {
    const std::string name = std::to_string(limits.window_bytes) + "/" +
                             std::to_string(limits.range_bytes) + "/" +
                             std::to_string(limits.chunk_keys);
    for (std::size_t i = 0; i < sstables.size(); ++i) {
      sstables[i].limits = limits;
      ExpectSameReport(whole[i], VerifySstable(sstables[i]), sstables[i].index_path + " " + name);
      FileReport pooled;
      WorkPool pool(4);
      pool.Run(1, [&](std::size_t) { pooled = VerifySstable(sstables[i]); });
      ExpectSameReport(whole[i], pooled, sstables[i].index_path + " pool " + name);
    }
  }
  return whole;
}

// What reading the whole Index.db and one batch probe over its keys say.
void ExpectWholeFileAnswers(const FileReport& report, const Sstable& s) {
  auto index = ReadIndexDb(s.index, "Index.db");
  IndexDb all;
  ASSERT_TRUE(ReadIndexDbInto(s.index, "Index.db", IndexKeyForm::kRaw,
                              IndexEntryForm::kVIntPositionAndPromoted, all)
                  .ok());
  auto filter = Murmur3Filter::Parse(s.filter, "Filter.db", Era::kV40);
  ASSERT_TRUE(filter.ok());
  std::vector<std::uint8_t> answers(all.keys.size());
  filter->MayContainBatch(all.keys, answers);
  std::vector<ByteVector> misses;
  std::uint64_t missed = 0;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i] != 0) continue;
    ++missed;
    if (misses.size() < kMaxListedFalseNegatives) {
      misses.emplace_back(all.keys[i].begin(), all.keys[i].end());
    }
  }
  EXPECT_EQ(report.keys_checked, all.keys.size());
  EXPECT_EQ(report.false_negative_count, missed);
  EXPECT_EQ(report.false_negatives, misses);
}

TEST_F(StreamingVerify, HealthyAndFalseNegativesMatchTheWholeFile) {
  const Sstable healthy = MakeSstable(6000, 1, 6000);
  const Sstable missing = MakeSstable(5000, 2, 2500);  // half the keys never added
  Put(1, healthy.index, &healthy.filter);
  Put(2, missing.index, &missing.filter);
  const std::vector<FileReport> reports = VerifyAllWays(Find());
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].worst(), Severity::kInfo);
  ExpectWholeFileAnswers(reports[0], healthy);
  ExpectWholeFileAnswers(reports[1], missing);
  EXPECT_GT(reports[1].false_negative_count, 1000u);
  EXPECT_EQ(reports[1].false_negatives.size(), kMaxListedFalseNegatives);
}

TEST_F(StreamingVerify, DamageMidFileKeepsItsOffsetAndTheKeysBeforeIt) {
  Sstable s = MakeSstable(4000, 3, 4000);
  // Entry 2500's Data.db position made smaller than entry 2499's: the scan stops there.
  ByteVector damaged_order = s.index;
  std::uint64_t at = 0;
  IndexScan scan;
  ASSERT_TRUE(ScanIndexEntries(s.index, "x", IndexKeyForm::kRaw,
                               IndexEntryForm::kVIntPositionAndPromoted, 1, scan)
                  .ok());
  for (int i = 0; i < 2500; ++i) {
    ASSERT_TRUE(ScanIndexEntries(s.index, "x", IndexKeyForm::kRaw,
                                 IndexEntryForm::kVIntPositionAndPromoted, scan.offset + 1, scan)
                    .ok());
  }
  at = scan.offset;  // entry 2501's start
  const std::size_t key_length = std::size_t{s.index[at]} << 8 | s.index[at + 1];
  damaged_order[at + 2 + key_length] = 0x01;  // position 1 (a one-byte vint), below the previous
  Put(1, damaged_order, &s.filter);
  // Cut short in the middle of an entry, and its filter's header damaged as well.
  ByteVector truncated(s.index.begin(), s.index.begin() + static_cast<std::ptrdiff_t>(at + 3));
  ByteVector bad_filter = s.filter;
  bad_filter[0] = 0x7f;  // K far beyond what the reader accepts
  Put(2, truncated, &bad_filter);
  Put(3, truncated, nullptr);  // no Filter.db: the count still comes from the keys before
  const std::vector<FileReport> reports = VerifyAllWays(Find());
  ASSERT_EQ(reports.size(), 3u);
  for (const FileReport& r : reports) {
    ASSERT_FALSE(r.findings.empty()) << r.path;
    const Finding& index = r.findings.front();
    EXPECT_EQ(index.kind, "index") << r.path;
    ASSERT_TRUE(index.offset.has_value());
    EXPECT_GE(*index.offset, at);
    EXPECT_NE(index.message.find("(the 2501 keys before it are checked)"), std::string::npos)
        << index.message;
  }
  EXPECT_EQ(reports[0].keys_checked, 2501u);
  EXPECT_EQ(reports[0].false_negative_count, 0u);
  EXPECT_FALSE(reports[0].fill->sized_keys_from == "index");  // a lower bound judges nothing
  EXPECT_EQ(reports[1].findings.back().kind, "structure");
  EXPECT_EQ(reports[2].keys_checked, 2501u);
}

TEST_F(StreamingVerify, AnotherLayoutThatAnswersEveryKeyIsNamed) {
  // Written in 3.x's long order though the version reads raw bytes: the hint re-reads the keys.
  const Sstable s = MakeSstable(3000, 4, 3000, Era::kV30);
  Put(1, s.index, &s.filter);
  const std::vector<FileReport> reports = VerifyAllWays(Find());
  ASSERT_EQ(reports.size(), 1u);
  bool named = false;
  for (const Finding& f : reports[0].findings) {
    for (const auto& [name, value] : f.fields) named |= name == "answers_every_key_as";
  }
  EXPECT_TRUE(named);
  EXPECT_GT(reports[0].false_negative_count, 0u);
}

}  // namespace
}  // namespace bloomcodec::cassandra

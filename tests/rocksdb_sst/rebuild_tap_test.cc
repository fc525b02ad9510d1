// The repair's tap on verify's scan (rocksdb/sst/rebuild_tap.h): the new filter built from the
// keys verify asks must make the rewrite the rewrite's own pass makes, byte for byte, whatever
// verify's split into chunks, ranges and threads; and the tap must take no table whose keys it
// could not have seen whole. Tables written by the original (librocksdb 7.8) through a database,
// so that each user key has several versions and they straddle data blocks and ranges.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "blocktable/block_handle.h"
#include "bloomcodec/input_file.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/sst/rebuild_tap.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"
#include "rocksdb/sst/verify.h"
#include "rocksdb/table.h"
#include "rocksdb_sst/rocksdb_sst_writer.h"
#include "support/report_equal.h"
#include "support/stream_limits.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {
namespace {

namespace fs = std::filesystem;
using bloomcodec::testing::TempDir;

struct Shape {
  std::string name;
  bool ribbon = false;
  int format_version = 5;  // 4: the legacy Bloom filter
  bool two_level_index = false;
  bool partitioned = false;
  int prefix_length = 0;
  bool no_filter = false;
  bool snappy = false;
};

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "user%07d", i * 3);
  return buf;
}

// A flushed table of `n` user keys, three versions of each (rocksdb_sst_writer.h). Returns its
// path.
std::string WriteDatabaseTable(const std::string& dir, const Shape& shape, int n) {
  ::rocksdb::BlockBasedTableOptions t;
  t.format_version = shape.format_version;
  t.block_size = 256;
  t.block_restart_interval = 4;
  if (!shape.no_filter) {
    t.filter_policy.reset(shape.ribbon ? ::rocksdb::NewRibbonFilterPolicy(10, -1)
                                       : ::rocksdb::NewBloomFilterPolicy(10));
  }
  if (shape.two_level_index || shape.partitioned) {
    t.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    t.partition_filters = shape.partitioned;
    t.metadata_block_size = 512;
  }
  ::rocksdb::Options o;
  o.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(t));
  o.compression = shape.snappy ? ::rocksdb::kSnappyCompression : ::rocksdb::kNoCompression;
  if (shape.prefix_length > 0) {
    o.prefix_extractor.reset(::rocksdb::NewFixedPrefixTransform(shape.prefix_length));
  }
  o.create_if_missing = true;
  o.disable_auto_compactions = true;
  return bloomcodec::testing::WriteVersionedDatabaseTable(dir + "/" + shape.name, o, n, Key);
}

// Verify with the tap under `limits` and `threads`; the filter it kept for `path`, if any.
std::optional<RebuiltFilter> Tapped(const std::string& path, double bits,
                                    std::optional<FilterEncoding> wanted,
                                    const blocktable::StreamLimits& limits, unsigned threads,
                                    FileReport* report = nullptr) {
  RebuildTap tap(bits, wanted);
  const FileReport r = bloomcodec::testing::VerifyWithLimits(
      [&] { return VerifySst(path, nullptr, "group", std::nullopt, &tap); }, limits, threads);
  if (report) *report = r;
  const RebuiltFilter* f = tap.Find(path, fs::file_size(path), bits, wanted);
  if (!f) return std::nullopt;
  return *f;
}

void ExpectSameTail(const SstFilterTail& a, const SstFilterTail& b, const std::string& what) {
  EXPECT_EQ(a.kept_prefix, b.kept_prefix) << what;
  EXPECT_EQ(a.entries, b.entries) << what;
  EXPECT_EQ(a.filter_block_size, b.filter_block_size) << what;
  EXPECT_TRUE(a.tail == b.tail) << what << ": the tails differ";
}

// Every split and thread count: the tap keeps a filter, and the rewrite that takes it equals the
// rewrite's own pass; the report is the one verify gives without the tap.
void ExpectTapMakesTheSameRewrite(const std::string& path, double bits,
                                  std::optional<FilterEncoding> wanted) {
  const InputFile in = InputFile::Open(path).value();
  const SstReader sst = SstReader::Open(in.bytes(), path).value();
  const Result<SstFilterTail> own = RewriteSstFilterTail(sst, bits, wanted);
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  const FileReport plain = VerifySst(path, nullptr, "group");
  bloomcodec::testing::ForEachSplit(
      path, [&](const blocktable::StreamLimits& limits, unsigned threads, const std::string& what) {
        FileReport report;
        const std::optional<RebuiltFilter> f = Tapped(path, bits, wanted, limits, threads, &report);
        EXPECT_EQ(bloomcodec::testing::ReportDifference(plain, report), "") << what;
        ASSERT_TRUE(f.has_value()) << what << ": the tap kept no filter";
        const Result<SstFilterTail> taken = RewriteSstFilterTail(sst, bits, wanted, nullptr, &*f);
        ASSERT_TRUE(taken.ok()) << taken.status().ToString();
        ExpectSameTail(*own, *taken, what);
      });
}

TEST(RebuildTap, EveryKindAndIndexMakesTheRewritesOwnBytesUnderEverySplit) {
  TempDir dir;
  const std::vector<Shape> shapes = {
      {.name = "fastlocal"},
      {.name = "legacy", .format_version = 4},
      {.name = "ribbon", .ribbon = true},
      {.name = "two_level", .two_level_index = true, .snappy = true},
      {.name = "legacy_fv2", .format_version = 2, .snappy = true},
  };
  for (const Shape& shape : shapes) {
    const std::string path = WriteDatabaseTable(dir.path(), shape, 1200);
    ASSERT_FALSE(path.empty());
    ExpectTapMakesTheSameRewrite(path, 12, std::nullopt);
    // repair --to: another kind than the table's, hashed as that kind hashes.
    ExpectTapMakesTheSameRewrite(path, 9.5, FilterEncoding::kRibbon);
    ExpectTapMakesTheSameRewrite(path, 7, FilterEncoding::kLegacyBloom);
  }
}

TEST(RebuildTap, TakesNoTableWhoseKeysItCouldNotHaveSeenWhole) {
  TempDir dir;
  const auto whole = bloomcodec::testing::Split(7, 700);
  // Prefixes beside the keys, partitions, no filter: the rewrite's own pass rebuilds them.
  for (const Shape& shape : std::vector<Shape>{{.name = "prefix", .prefix_length = 6},
                                               {.name = "partitioned", .partitioned = true},
                                               {.name = "none", .no_filter = true}}) {
    const std::string path = WriteDatabaseTable(dir.path(), shape, 600);
    EXPECT_FALSE(Tapped(path, 10, std::nullopt, whole, 4).has_value()) << shape.name;
  }
  const std::string path = WriteDatabaseTable(dir.path(), {.name = "plain"}, 600);
  {
    RebuildTap tap(10, std::nullopt);
    VerifySst(path, nullptr, "group", std::nullopt, &tap);
    const std::uint64_t size = fs::file_size(path);
    ASSERT_NE(tap.Find(path, size, 10, std::nullopt), nullptr);
    // Another file under the name, other parameters: not this filter.
    EXPECT_EQ(tap.Find(path, size + 1, 10, std::nullopt), nullptr);
    EXPECT_EQ(tap.Find(path, size, 11, std::nullopt), nullptr);
    EXPECT_EQ(tap.Find(path, size, 10, FilterEncoding::kRibbon), nullptr);
    // The table's share of the budget was given back.
    EXPECT_TRUE(tap.Reserve(RebuildTap::kHashBudget));
  }
  {
    // The budget: a table whose hashes do not fit beside those being held is left to the
    // rewrite's pass; once they are given back, it fits.
    const std::uint64_t needed = 8 * 3 * 600;  // three versions of 600 keys: 8 bytes an entry
    RebuildTap tap(10, std::nullopt, needed + 100);
    ASSERT_TRUE(tap.Reserve(200));
    VerifySst(path, nullptr, "group", std::nullopt, &tap);
    EXPECT_EQ(tap.Find(path, fs::file_size(path), 10, std::nullopt), nullptr);
    tap.Release(200);
    VerifySst(path, nullptr, "group", std::nullopt, &tap);
    EXPECT_NE(tap.Find(path, fs::file_size(path), 10, std::nullopt), nullptr);
  }
  {
    // The filters kept: within their budget, or not kept.
    RebuildTap tap(10, std::nullopt, RebuildTap::kHashBudget, 100);
    VerifySst(path, nullptr, "group", std::nullopt, &tap);
    EXPECT_EQ(tap.Find(path, fs::file_size(path), 10, std::nullopt), nullptr);
  }
  // A data block damaged in the middle: verify reports it, the tap keeps nothing.
  std::uint64_t middle = 0;
  {
    const InputFile in = InputFile::Open(path).value();
    const SstReader sst = SstReader::Open(in.bytes(), path).value();
    std::vector<blocktable::BlockHandle> blocks;
    ASSERT_TRUE(sst.ForEachDataBlock([&](ByteSpan, const blocktable::BlockHandle& h) {
                     blocks.push_back(h);
                     return Status();
                   })
                    .ok());
    ASSERT_GT(blocks.size(), 4u);
    middle = blocks[blocks.size() / 2].offset;
  }
  const std::string damaged_path = dir.path() + "/damaged.sst";
  fs::copy_file(path, damaged_path);
  bloomcodec::testing::FlipBitsAt(damaged_path, middle + 3, 0x40);
  FileReport report;
  EXPECT_FALSE(Tapped(damaged_path, 10, std::nullopt, whole, 4, &report).has_value());
  EXPECT_FALSE(report.findings.empty());
}

}  // namespace
}  // namespace bloomcodec::rocksdb

// SSTs written by the original (Debian's librocksdb 7.8.3, SstFileWriter) under other comparators
// than bytewise: RocksDB's ReverseBytewiseComparator (the order of MyRocks's rev: column
// families), whose keys, index separators and partition lookups verify checks in that direction
// under every split of the scan; and a comparator we do not know, which is a warning (key order
// not judged), never an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bloomcodec/input_file.h"
#include "rocksdb/comparator.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/verify.h"
#include "rocksdb/table.h"
#include "rocksdb_sst/rocksdb_sst_writer.h"
#include "support/stream_limits.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {
namespace {

using bloomcodec::testing::TempDir;

// Orders keys by length, then bytewise: neither direction of bytewise. Separators are left as
// they are (always valid).
class LengthFirstComparator final : public ::rocksdb::Comparator {
 public:
  const char* Name() const override { return "bloomcodec.test.LengthFirst"; }
  int Compare(const ::rocksdb::Slice& a, const ::rocksdb::Slice& b) const override {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    return a.compare(b);
  }
  void FindShortestSeparator(std::string*, const ::rocksdb::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

struct Shape {
  bool partitioned = false;
  int prefix_length = 0;  // a fixed prefix extractor when > 0
  bool whole_key = true;
};

// "p00012-000345" and shorter keys: runs of 25 keys share their first 6 bytes.
std::vector<std::string> Keys(int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, i % 3 == 0 ? "p%05d-%d" : "p%05d-%06d", i / 25, i);
    keys.push_back(buf);
  }
  return keys;
}

std::string WriteSst(const std::string& dir, const ::rocksdb::Comparator* cmp, const Shape& shape,
                     int n) {
  ::rocksdb::BlockBasedTableOptions t;
  t.format_version = 5;
  t.block_size = 256;
  t.block_restart_interval = 4;
  t.whole_key_filtering = shape.whole_key;
  t.filter_policy.reset(::rocksdb::NewBloomFilterPolicy(10));
  if (shape.partitioned) {
    t.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    t.partition_filters = true;
    t.metadata_block_size = 512;
  }
  ::rocksdb::Options o;
  o.comparator = cmp;
  o.compression = ::rocksdb::kNoCompression;
  if (shape.prefix_length > 0) {
    o.prefix_extractor.reset(::rocksdb::NewFixedPrefixTransform(shape.prefix_length));
  }
  o.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(t));
  std::vector<std::string> keys = Keys(n);
  std::sort(keys.begin(), keys.end(),
            [cmp](const std::string& a, const std::string& b) { return cmp->Compare(a, b) < 0; });
  return ::bloomcodec::testing::WriteSstWithRocksDb(dir, o, keys);
}

FileReport VerifyEverySplit(const std::string& path) {
  return bloomcodec::testing::ExpectSameUnderEverySplit(
      [&] { return VerifySst(path, nullptr, "group", std::nullopt); }, path);
}

std::vector<std::string> Kinds(const FileReport& r) {
  std::vector<std::string> kinds;
  for (const Finding& f : r.findings) kinds.push_back(f.kind + ": " + f.message);
  return kinds;
}

TEST(SstComparators, AReverseBytewiseTableVerifiesInItsDirection) {
  for (const Shape& shape : {Shape{false, 0, true}, Shape{true, 0, true}, Shape{false, 6, true},
                             Shape{true, 6, true}, Shape{true, 6, false}}) {
    TempDir dir;
    const std::string path =
        WriteSst(dir.path(), ::rocksdb::ReverseBytewiseComparator(), shape, 3000);
    const FileReport r = VerifyEverySplit(path);
    EXPECT_TRUE(r.findings.empty()) << ::testing::PrintToString(Kinds(r));
    EXPECT_EQ(r.keys_checked, 3000u);
    EXPECT_EQ(r.false_negative_count, 0u);
    // The read path finds each key's partition by seeking the index in the reverse order.
    auto in = InputFile::Open(path);
    ASSERT_TRUE(in.ok());
    auto sst = SstReader::Open(in->bytes(), path);
    ASSERT_TRUE(sst.ok()) << sst.status().ToString();
    EXPECT_EQ(sst->user_key_order(), UserKeyOrder::kReverseBytewise);
    KeyList keys;
    for (const std::string& k : Keys(3000)) keys.Add(AsBytes(std::string_view(k)));
    std::vector<std::uint8_t> answers(keys.size(), 0);
    ASSERT_TRUE(sst->MayContainBatch(keys, answers).ok());
    EXPECT_EQ(std::count(answers.begin(), answers.end(), 0), 0);
  }
}

TEST(SstComparators, AnUnknownComparatorIsAWarningAndItsKeyOrderIsNotJudged) {
  const LengthFirstComparator cmp;
  for (bool partitioned : {false, true}) {
    TempDir dir;
    const std::string path = WriteSst(dir.path(), &cmp, Shape{partitioned, 0, true}, 3000);
    const FileReport r = VerifyEverySplit(path);
    EXPECT_NE(r.worst(), Severity::kError) << ::testing::PrintToString(Kinds(r));
    ASSERT_FALSE(r.findings.empty());
    EXPECT_EQ(r.findings.front().kind, "unsupported");
    EXPECT_NE(r.findings.front().message.find("bloomcodec.test.LengthFirst"), std::string::npos);
    EXPECT_NE(r.findings.front().message.find("key order is not judged"), std::string::npos);
    // A full filter is still asked; a partitioned one, found by key, is not.
    EXPECT_EQ(r.findings.size(), partitioned ? 2u : 1u) << ::testing::PrintToString(Kinds(r));
    EXPECT_EQ(r.keys_checked, partitioned ? 0u : 3000u);
    EXPECT_EQ(r.false_negative_count, 0u);
  }
}

}  // namespace
}  // namespace bloomcodec::rocksdb

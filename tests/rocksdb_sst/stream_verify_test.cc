// VerifySst streams an SST in chunks of keys and checks ranges of its data blocks on the run's
// workers. Whatever the split, and with one thread or a pool, the report must be exactly the one a
// single pass over the whole table gives: SSTs written by the original RocksDB 7.8 (full Bloom and
// Ribbon filters, partitioned filters, prefix extractors, a database's table holding several
// versions of a key), with false negatives, and damaged in their middle.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "blocktable/block_handle.h"
#include "blocktable/stream.h"
#include "blocktable/trailer.h"
#include "bloomcodec/input_file.h"
#include "codec/parallel.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/verify.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksdb_sst/rocksdb_sst_writer.h"
#include "support/report_equal.h"
#include "support/stream_limits.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {
namespace {

namespace fs = std::filesystem;
using blocktable::BlockHandle;

using bloomcodec::testing::TempDir;

// Every split reports what the whole-table pass reports (support/stream_limits.h).
FileReport ExpectSameUnderEverySplit(const std::string& path,
                                     const std::optional<PrefixExtractor>& prefix = std::nullopt) {
  return bloomcodec::testing::ExpectSameUnderEverySplit(
      [&] { return VerifySst(path, nullptr, "group", prefix); }, path);
}

// The handles of every data block of `sst` (a test failure if the walk fails).
std::vector<BlockHandle> DataBlocks(const SstReader& sst) {
  std::vector<BlockHandle> blocks;
  EXPECT_TRUE(sst.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
                   blocks.push_back(h);
                   return Status();
                 })
                  .ok());
  return blocks;
}

struct Shape {
  bool ribbon = false;
  bool partitioned = false;
  int prefix_length = 0;  // a fixed prefix extractor when > 0
};

::rocksdb::Options OptionsFor(const Shape& shape) {
  ::rocksdb::BlockBasedTableOptions t;
  t.format_version = 5;
  t.block_size = 256;
  t.block_restart_interval = 4;
  t.filter_policy.reset(shape.ribbon ? ::rocksdb::NewRibbonFilterPolicy(10)
                                     : ::rocksdb::NewBloomFilterPolicy(10));
  if (shape.partitioned) {
    t.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    t.partition_filters = true;
    t.metadata_block_size = 512;
  }
  ::rocksdb::Options o;
  o.compression = ::rocksdb::kNoCompression;
  if (shape.prefix_length > 0) {
    o.prefix_extractor.reset(::rocksdb::NewFixedPrefixTransform(shape.prefix_length));
  }
  o.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

// "p00012-000345": runs of 25 keys share their first 6 bytes.
std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "p%05d-%06d", i / 25, i);
  return buf;
}

std::string WriteSst(const std::string& dir, const Shape& shape, int n) {
  const std::string path = dir + "/000001.sst";
  ::rocksdb::SstFileWriter writer(::rocksdb::EnvOptions(), OptionsFor(shape));
  EXPECT_TRUE(writer.Open(path).ok());
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(writer.Put(Key(i), "value-" + std::to_string(i)).ok());
  }
  EXPECT_TRUE(writer.Finish().ok());
  return path;
}

// The table's rocksdb.num.filter_entries (0 and a test failure when absent).
std::uint64_t RecordedFilterEntries(const std::string& path) {
  auto in = InputFile::Open(path);
  EXPECT_TRUE(in.ok());
  if (!in.ok()) return 0;
  auto sst = SstReader::Open(in->bytes(), path);
  EXPECT_TRUE(sst.ok() && sst->properties());
  if (!sst.ok() || !sst->properties()) return 0;
  const auto n = sst->properties()->Number("rocksdb.num.filter_entries");
  EXPECT_TRUE(n.has_value());
  return n.value_or(0);
}

ByteVector ReadAll(const std::string& path) {
  auto in = InputFile::Open(path);
  EXPECT_TRUE(in.ok());
  return ByteVector(in->bytes().begin(), in->bytes().end());
}

TEST(StreamedSstVerify, FullPartitionedBloomAndRibbonFiltersReportAsOnePass) {
  for (const Shape& shape : {Shape{false, false, 0}, Shape{true, false, 0}, Shape{false, true, 0},
                             Shape{true, true, 0}, Shape{false, false, 6}, Shape{false, true, 6}}) {
    TempDir dir;
    const std::string path = WriteSst(dir.path(), shape, 4000);
    const FileReport r = ExpectSameUnderEverySplit(path);
    EXPECT_EQ(r.keys_checked, 4000u);
    EXPECT_EQ(r.false_negative_count, 0u);
    EXPECT_NE(r.worst(), Severity::kError) << r.findings.front().message;
    ASSERT_TRUE(r.fill.has_value());
    // The fill is judged against what the table records its builder added: each whole key and,
    // with a prefix extractor, each run's prefix once (a partitioned filter adds prefixes again
    // at its partition boundaries).
    ASSERT_TRUE(r.fill->sized_keys.has_value());
    const double base = shape.prefix_length > 0 ? 4000.0 + 160.0 : 4000.0;
    const double recorded = static_cast<double>(RecordedFilterEntries(path));
    EXPECT_EQ(*r.fill->sized_keys, recorded);
    if (shape.partitioned && shape.prefix_length > 0) {
      EXPECT_GT(recorded, base);
    } else {
      EXPECT_EQ(recorded, base);
    }
  }
}

// Asked with another extractor than the one the table was built with, most prefixes are absent
// from the filter: false negatives in every range, listed in key order.
TEST(StreamedSstVerify, FalseNegativesAreCountedAndListedInKeyOrderAsOnePass) {
  for (bool partitioned : {false, true}) {
    TempDir dir;
    const std::string path = WriteSst(dir.path(), Shape{false, partitioned, 6}, 4000);
    PrefixExtractor other;
    other.kind = PrefixExtractor::Kind::kFixed;
    other.length = 9;
    const FileReport r = ExpectSameUnderEverySplit(path, other);
    EXPECT_GT(r.false_negative_count, kMaxListedFalseNegatives);
    EXPECT_EQ(r.false_negatives.size(), kMaxListedFalseNegatives);
    EXPECT_EQ(r.keys_checked, 4000u);
  }
}

// A database's table: three versions of every key (snapshots keep them through the flush), so
// a user key's versions straddle data blocks; each user key and prefix counts once.
TEST(StreamedSstVerify, ADatabaseTableWithVersionsAcrossBlocksReportsAsOnePass) {
  TempDir dir;
  ::rocksdb::Options options = OptionsFor(Shape{false, false, 6});
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  const int n = 1500;
  const std::string path =
      bloomcodec::testing::WriteVersionedDatabaseTable(dir.path() + "/db", options, n, Key);
  ASSERT_FALSE(path.empty());
  const FileReport r = ExpectSameUnderEverySplit(path);
  EXPECT_EQ(r.keys_checked, static_cast<std::uint64_t>(n));
  EXPECT_EQ(r.false_negative_count, 0u);
  ASSERT_TRUE(r.fill.has_value() && r.fill->sized_keys.has_value());
  EXPECT_EQ(*r.fill->sized_keys, n + n / 25.0);
  // Asked with another extractor: false negatives, a repeated key at a range's start included.
  PrefixExtractor other;
  other.kind = PrefixExtractor::Kind::kFixed;
  other.length = 9;
  const FileReport missed = ExpectSameUnderEverySplit(path, other);
  EXPECT_GT(missed.false_negative_count, kMaxListedFalseNegatives);
  EXPECT_EQ(missed.keys_checked, static_cast<std::uint64_t>(n));
}

// A data block in the middle damaged: the structure finding, its offset and nothing of the
// filter pass, whatever the split.
TEST(StreamedSstVerify, ADataBlockDamagedMidTableIsReportedAtTheSameOffsetAsOnePass) {
  TempDir dir;
  const std::string healthy = WriteSst(dir.path(), Shape{false, false, 6}, 4000);
  const ByteVector file = ReadAll(healthy);
  auto sst = SstReader::Open(file, healthy);
  ASSERT_TRUE(sst.ok());
  const std::vector<BlockHandle> blocks = DataBlocks(*sst);
  ASSERT_GT(blocks.size(), 20u);
  std::mt19937_64 rng(29);
  for (int round = 0; round < 12; ++round) {
    const BlockHandle block = blocks[blocks.size() / 3 + rng() % (blocks.size() / 3)];
    ByteVector damaged = file;
    damaged[block.offset + rng() % block.size] ^= static_cast<std::uint8_t>(1 + rng() % 255);
    const std::string path = dir.path() + "/000002.sst";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(damaged.data()),
               static_cast<std::streamsize>(damaged.size()));
    const FileReport r = ExpectSameUnderEverySplit(path);
    ASSERT_EQ(r.findings.size(), 1u);
    const Finding& f = r.findings.front();
    EXPECT_EQ(f.kind, finding_kind::kStructure);
    ASSERT_TRUE(f.offset.has_value());
    EXPECT_GE(*f.offset, block.offset) << f.message;
    EXPECT_LT(*f.offset, block.offset + block.size + blocktable::kBlockTrailerSize) << f.message;
    EXPECT_EQ(r.false_negative_count, 0u);
  }
}

// A data block changed with its checksum made to match (whatever the table's kind): the damage
// the structure check meets, or keys the filter misses, reported as the single pass reports them.
TEST(StreamedSstVerify, ADataBlockChangedWithAMatchingChecksumReportsAsOnePass) {
  TempDir dir;
  const std::string healthy = WriteSst(dir.path(), Shape{false, true, 6}, 3000);
  const ByteVector file = ReadAll(healthy);
  auto sst = SstReader::Open(file, healthy);
  ASSERT_TRUE(sst.ok());
  const std::vector<BlockHandle> blocks = DataBlocks(*sst);
  std::mt19937_64 rng(43);
  std::size_t errors = 0;
  std::size_t past_checksum = 0;
  for (int round = 0; round < 30; ++round) {
    const BlockHandle block = blocks[rng() % blocks.size()];
    ByteVector damaged = file;
    damaged[block.offset + rng() % block.size] ^= static_cast<std::uint8_t>(1 + rng() % 255);
    const std::uint8_t type = damaged[block.offset + block.size];
    const std::uint32_t crc = blocktable::StoredBlockChecksum(
        sst->BlockOptions().trailer, ByteSpan(damaged).subspan(block.offset, block.size), type,
        block.offset);
    for (int i = 0; i < 4; ++i) {
      damaged[block.offset + block.size + 1 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
    }
    const std::string path = dir.path() + "/000003.sst";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(damaged.data()),
               static_cast<std::streamsize>(damaged.size()));
    const FileReport r = ExpectSameUnderEverySplit(path);
    if (r.worst() == Severity::kError) ++errors;
    // The checksum was made to match: what is reported lies past it.
    if (!bloomcodec::testing::MentionsChecksum(r)) ++past_checksum;
  }
  EXPECT_EQ(past_checksum, 30u);
  EXPECT_GE(errors, 10u);
}

}  // namespace
}  // namespace bloomcodec::rocksdb

// The repair's tap on verify's scan of LevelDB tables (leveldb/table/rebuild_tap.h): the filter
// block built from the keys verify asks must make the rewrite the rewrite's own pass makes, byte
// for byte, whatever verify's split into chunks, ranges and threads; the tap must take no table
// whose keys it could not have seen whole; and a database's verify must tap every live table.
// Tables written by the original (libleveldb 1.23) through a database, so that each user key has
// several versions that straddle data blocks, filter windows and ranges; 1.17's and goleveldb's
// filters, which libleveldb no longer writes, by our TableWriter.
#include <gtest/gtest.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/write_batch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "blocktable/block_handle.h"
#include "bloomcodec/input_file.h"
#include "codec/byte_writer.h"
#include "leveldb/table/rebuild_tap.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "leveldb/table/verify.h"
#include "leveldb_table/leveldb_harness.h"
#include "repair/lsm_repair.h"
#include "support/report_equal.h"
#include "support/stream_limits.h"
#include "support/test_support.h"

namespace bloomcodec::leveldb {
namespace {

namespace fs = std::filesystem;
using blocktable::BlockCompression;
using bloomcodec::testing::TempDir;

TableReader OpenUser(const InputFile& in, const std::string& path) {
  TableOpenOptions open;
  open.verify_checksums = true;
  open.key_kind = KeyKind::kUser;
  return TableReader::Open(in.bytes(), path, open).value();
}

// Verify with the tap under `limits` and `threads`; the block it kept for `path`, if any.
std::optional<RebuiltFilterBlock> Tapped(const std::string& path, int bits,
                                         const blocktable::StreamLimits& limits, unsigned threads,
                                         FileReport* report = nullptr) {
  RebuildTap tap(bits);
  const FileReport r = bloomcodec::testing::VerifyWithLimits(
      [&] {
        return VerifyTable(path, KeyKind::kUser, nullptr, "group", FilterWriter::kAuto, nullptr,
                           &tap);
      },
      limits, threads);
  if (report) *report = r;
  const RebuiltFilterBlock* f = tap.Find(path, fs::file_size(path));
  if (!f) return std::nullopt;
  return *f;
}

// Every split and thread count: the tap keeps a block built with `policy`, and the rewrite that
// takes it equals the rewrite's own pass; the report is the one verify gives without the tap.
void ExpectTapMakesTheSameRewrite(const std::string& path, const BloomPolicy& policy) {
  const InputFile in = InputFile::Open(path).value();
  const TableReader table = OpenUser(in, path);
  const Result<TableFilterTail> own = RewriteTableFilterTail(table, policy);
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  const FileReport plain = VerifyTable(path, KeyKind::kUser, nullptr, "group");
  bloomcodec::testing::ForEachSplit(
      path, [&](const blocktable::StreamLimits& limits, unsigned threads, const std::string& what) {
        FileReport report;
        const std::optional<RebuiltFilterBlock> f =
            Tapped(path, policy.bits_per_key, limits, threads, &report);
        EXPECT_EQ(bloomcodec::testing::ReportDifference(plain, report), "") << what;
        ASSERT_TRUE(f.has_value()) << what << ": the tap kept no filter block";
        EXPECT_TRUE(f->Fits(policy, in.bytes().size(), own->kept_prefix)) << what;
        const Result<TableFilterTail> taken = RewriteTableFilterTail(table, policy, nullptr, &*f);
        ASSERT_TRUE(taken.ok()) << taken.status().ToString();
        EXPECT_EQ(own->kept_prefix, taken->kept_prefix) << what;
        EXPECT_EQ(own->entries, taken->entries) << what;
        EXPECT_EQ(own->filter_block_size, taken->filter_block_size) << what;
        EXPECT_TRUE(own->tail == taken->tail) << what << ": the tails differ";
      });
}

// A database table of `n` user keys of 7 bytes whose last byte is 0x90 (a tail byte LevelDB 1.17
// hashes signed and goleveldb unsigned: the keys tell the two apart), two versions each, written
// by our TableWriter with `policy`.
std::string WriteTableWithHighTails(const std::string& dir, const BloomPolicy& policy, int n) {
  TableWriteOptions options;
  options.filter = policy;
  options.key_kind = KeyKind::kUser;
  options.block_size = 300;
  TableWriter writer(options);
  for (int i = 0; i < n; ++i) {
    char user[16];
    std::snprintf(user, sizeof user, "k%05d", i);
    for (std::uint64_t seq : {2, 1}) {
      ByteVector key(user, user + 6);
      key.push_back(0x90);
      ByteWriter(key).PutLittleU64(seq << 8 | 1);
      EXPECT_TRUE(writer.Add(key, AsBytes("value-" + std::to_string(i))).ok());
    }
  }
  const ByteVector bytes = writer.Finish().value();
  const std::string path = dir + "/000005.ldb";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return path;
}

TEST(LevelDbRebuildTap, EveryPolicyMakesTheRewritesOwnBytesUnderEverySplit) {
  for (bool snappy : {false, true}) {
    TempDir dir;
    std::unique_ptr<const ::leveldb::FilterPolicy> bloom(::leveldb::NewBloomFilterPolicy(10));
    const std::string path =
        leveldb_test::WriteVersionedDatabaseTable(dir.path(), bloom.get(), 1500, 3, snappy);
    ASSERT_FALSE(path.empty());
    ExpectTapMakesTheSameRewrite(path, BloomPolicy::Current(12));
    ExpectTapMakesTheSameRewrite(path, BloomPolicy::Current(3));
  }
  // 1.17's name: the writer the keys show (1.17's signed tails, goleveldb's unsigned ones).
  for (const BloomPolicy& policy : {BloomPolicy::Legacy117(10), BloomPolicy::GoLevelDb(10)}) {
    TempDir dir;
    const std::string path = WriteTableWithHighTails(dir.path(), policy, 900);
    BloomPolicy wanted = policy;
    wanted.bits_per_key = 14;
    ExpectTapMakesTheSameRewrite(path, wanted);
  }
}

TEST(LevelDbRebuildTap, TakesNoTableWhoseKeysItCouldNotHaveSeenWhole) {
  const auto whole = bloomcodec::testing::Split(7, 700);
  {
    TempDir dir;  // no filter block: verify asks no filter, the rewrite's own pass adds one
    const std::string path =
        leveldb_test::WriteVersionedDatabaseTable(dir.path(), nullptr, 600, 2, false);
    EXPECT_FALSE(Tapped(path, 10, whole, 4).has_value());
  }
  TempDir dir;
  std::unique_ptr<const ::leveldb::FilterPolicy> bloom(::leveldb::NewBloomFilterPolicy(10));
  const std::string path =
      leveldb_test::WriteVersionedDatabaseTable(dir.path(), bloom.get(), 600, 3, false);
  const std::uint64_t size = fs::file_size(path);
  {
    RebuildTap tap(10);
    VerifyTable(path, KeyKind::kUser, nullptr, "group", FilterWriter::kAuto, nullptr, &tap);
    const RebuiltFilterBlock* f = tap.Find(path, size);
    ASSERT_NE(f, nullptr);
    // Another file under the name, another policy, other data blocks: not this block.
    EXPECT_EQ(tap.Find(path, size + 1), nullptr);
    EXPECT_FALSE(f->Fits(BloomPolicy::Current(11), size, f->data_end));
    EXPECT_FALSE(f->Fits(BloomPolicy::GoLevelDb(10), size, f->data_end));
    EXPECT_FALSE(f->Fits(BloomPolicy::Current(10), size, f->data_end + 1));
    EXPECT_TRUE(f->Fits(BloomPolicy::Current(10), size, f->data_end));
    // The table's share of the budget was given back.
    EXPECT_TRUE(tap.Reserve(RebuildTap::kHashBudget));
  }
  {
    // The budget: a table whose hashes do not fit beside those being held is left to the
    // rewrite's pass; once they are given back, it fits (estimated at the file's size).
    RebuildTap tap(10, size + 100);
    ASSERT_TRUE(tap.Reserve(200));
    VerifyTable(path, KeyKind::kUser, nullptr, "group", FilterWriter::kAuto, nullptr, &tap);
    EXPECT_EQ(tap.Find(path, size), nullptr);
    tap.Release(200);
    VerifyTable(path, KeyKind::kUser, nullptr, "group", FilterWriter::kAuto, nullptr, &tap);
    EXPECT_NE(tap.Find(path, size), nullptr);
  }
  {
    // The blocks kept: within their budget, or not kept.
    RebuildTap tap(10, RebuildTap::kHashBudget, 100);
    VerifyTable(path, KeyKind::kUser, nullptr, "group", FilterWriter::kAuto, nullptr, &tap);
    EXPECT_EQ(tap.Find(path, size), nullptr);
  }
  // A data block damaged in the middle: verify reports it, the tap keeps nothing.
  std::vector<blocktable::BlockHandle> blocks;
  {
    const InputFile in = InputFile::Open(path).value();
    const TableReader table = OpenUser(in, path);
    ASSERT_TRUE(table
                    .ForEachDataBlock([&](ByteSpan, const blocktable::BlockHandle& h) {
                      blocks.push_back(h);
                      return Status();
                    })
                    .ok());
  }
  ASSERT_GT(blocks.size(), 4u);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(blocks[blocks.size() / 2].offset + 3));
    f.put('\x5a');
  }
  FileReport report;
  EXPECT_FALSE(Tapped(path, 10, whole, 4, &report).has_value());
  EXPECT_EQ(report.status_name(), "error");
  EXPECT_FALSE(report.findings.empty());
}

TEST(LevelDbRebuildTap, TheFirstCompressionInFileOrderAndTheRangesInFileOrder) {
  RebuildTap tap(10);
  TableHashes hashes(BloomPolicy::Current(10), tap, 0);
  hashes.SawCompressed(9000, BlockCompression::kZlib);
  hashes.SawCompressed(4000, BlockCompression::kSnappy);
  hashes.SawCompressed(6000, BlockCompression::kZlib);
  EXPECT_EQ(hashes.compression(), BlockCompression::kSnappy);
  // Ranges handed over out of order come back by offset, their ends shifted.
  hashes.Add({{5000, 5100}, {1, 3}, {7, 8, 9}});
  hashes.Add({});  // a range that asked nothing
  hashes.Add({{0, 2048}, {2, 4}, {1, 2, 3, 4}});
  const BlockHashes merged = hashes.Merged();
  EXPECT_EQ(merged.offsets, (std::vector<std::uint64_t>{0, 2048, 5000, 5100}));
  EXPECT_EQ(merged.ends, (std::vector<std::size_t>{2, 4, 5, 7}));
  EXPECT_EQ(merged.hashes, (std::vector<std::uint32_t>{1, 2, 3, 4, 7, 8, 9}));
}

// Through the repair's verify of a whole database (verify_plan.cc, database_writer.h): every
// live table is tapped, with the policy the repair's sizing gives it.
TEST(LevelDbRebuildTap, ADatabasesVerifyTapsEveryLiveTable) {
  TempDir dir;
  std::unique_ptr<const ::leveldb::FilterPolicy> bloom(::leveldb::NewBloomFilterPolicy(10));
  {
    ::leveldb::Options options;
    options.create_if_missing = true;
    options.filter_policy = bloom.get();
    options.write_buffer_size = 64 << 10;
    options.compression = ::leveldb::kNoCompression;  // 6 MB of entries: several 2 MiB tables
    ::leveldb::DB* raw = nullptr;
    ASSERT_TRUE(::leveldb::DB::Open(options, dir.path(), &raw).ok());
    std::unique_ptr<::leveldb::DB> db(raw);
    for (int i = 0; i < 20000; ++i) {
      ASSERT_TRUE(
          db->Put({}, leveldb_test::VersionedKey(i * 7 % 20000), std::string(300, 'a' + i % 26))
              .ok());
    }
    db->CompactRange(nullptr, nullptr);
  }
  repair_internal::RebuildTaps taps;
  taps.leveldb = std::make_shared<RebuildTap>(13);
  const Result<std::vector<FileReport>> live = repair_internal::VerifyLiveTables(dir.path(), taps);
  ASSERT_TRUE(live.ok()) << live.status().ToString();
  ASSERT_GT(live->size(), 1u);
  for (const FileReport& r : *live) {
    const RebuiltFilterBlock* f = taps.leveldb->Find(r.path, fs::file_size(r.path));
    ASSERT_NE(f, nullptr) << r.path;
    EXPECT_TRUE(f->Fits(BloomPolicy::Current(13), fs::file_size(r.path), f->data_end)) << r.path;
    EXPECT_EQ(f->entries, r.keys_checked) << r.path;
  }
}

}  // namespace
}  // namespace bloomcodec::leveldb

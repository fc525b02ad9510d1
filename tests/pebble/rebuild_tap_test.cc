// The repair's tap on verify's scan of Pebble tables (pebble/table/rebuild_tap.h): the filter it
// builds from the keys verify asks must make the rewrite the rewrite's own pass makes, byte for
// byte, whatever verify's split into chunks, ranges and threads (versions of one key straddling
// blocks and ranges, both hash flavours, both probe eras, row and columnar tables); verify's
// report must not change; and the tap must take no table whose keys it could not have seen whole.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/input_file.h"
#include "lsmrepair/pebble_transaction.h"
#include "pebble/columnar_table_builder.h"
#include "pebble/table/rebuild_tap.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/table_writer.h"
#include "pebble/table/verify.h"
#include "pebble/table_builder.h"
#include "pebble/table_check.h"
#include "support/report_equal.h"
#include "support/stream_limits.h"
#include "support/test_support.h"

namespace bloomcodec::pebble {
namespace {

namespace fs = std::filesystem;
using bloomcodec::testing::TempDir;
using testing::PebbleEntry;

// Verify with the tap under `limits` and `threads`; the filter it kept for `path`, if any.
std::optional<RebuiltFilter> Tapped(const std::string& path, std::uint32_t bits,
                                    const blocktable::StreamLimits& limits, unsigned threads,
                                    FileReport* report = nullptr,
                                    std::uint64_t hash_budget = RebuildTap::kHashBudget) {
  RebuildTap tap(bits, hash_budget);
  const FileReport r = bloomcodec::testing::VerifyWithLimits(
      [&] { return VerifyPebbleTable(path, nullptr, "group", &tap); }, limits, threads);
  if (report) *report = r;
  const RebuiltFilter* f = tap.Find(path, fs::file_size(path), bits);
  if (!f) return std::nullopt;
  return *f;
}

// Repair's rewrite of the table at `path`, with the tap's filter when `tap` holds one.
std::optional<lsmrepair::TableRewrite> RepairRewrite(const std::string& path, std::uint32_t bits,
                                                     const RebuildTap* tap) {
  const InputFile in = InputFile::Open(path).value();
  lsmrepair::TableToRepair t;
  t.path = path;
  Result<std::optional<lsmrepair::TableRewrite>> r =
      lsmrepair::PebbleFilterRewrite(bits, tap)(t, in.bytes());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r.ok() && r->has_value()) << path << ": nothing to rewrite";
  return r.ok() ? *r : std::nullopt;
}

// Every split and thread count: the tap keeps a filter, the rewrite that takes it equals the
// rewrite's own pass, and the report is the one verify gives without the tap.
void ExpectTapMakesTheSameRewrite(const std::string& path, std::uint32_t bits) {
  const std::optional<lsmrepair::TableRewrite> own = RepairRewrite(path, bits, nullptr);
  ASSERT_TRUE(own.has_value());
  const FileReport plain = VerifyPebbleTable(path, nullptr, "group");
  bloomcodec::testing::ForEachSplit(
      path, [&](const blocktable::StreamLimits& limits, unsigned threads, const std::string& what) {
        RebuildTap tap(bits);
        const FileReport report = bloomcodec::testing::VerifyWithLimits(
            [&] { return VerifyPebbleTable(path, nullptr, "group", &tap); }, limits, threads);
        EXPECT_EQ(bloomcodec::testing::ReportDifference(plain, report), "") << what;
        const RebuiltFilter* f = tap.Find(path, fs::file_size(path), bits);
        ASSERT_NE(f, nullptr) << what << ": the tap kept no filter";
        EXPECT_EQ(tap.Find(path, fs::file_size(path), bits + 1), nullptr) << what;
        const std::optional<lsmrepair::TableRewrite> taken = RepairRewrite(path, bits, &tap);
        ASSERT_TRUE(taken.has_value()) << what;
        EXPECT_EQ(own->kept_prefix, taken->kept_prefix) << what;
        EXPECT_EQ(own->entries, taken->entries) << what;
        EXPECT_EQ(own->filter_offset, taken->filter_offset) << what;
        EXPECT_EQ(own->filter_size, taken->filter_size) << what;
        EXPECT_TRUE(own->tail == taken->tail) << what << ": the tails differ";
      });
}

// `n` user keys, each in two versions (a SET over an older DEL or SET), half of them 7 bytes
// ending in 0x90 (a tail byte the two hash flavours hash apart).
std::vector<PebbleEntry> VersionedEntries(int n) {
  std::vector<PebbleEntry> entries;
  for (int i = 0; i < n; ++i) {
    char user[16];
    std::snprintf(user, sizeof user, "k%05d", i);
    std::string key = user;
    if (i % 2 == 0) key.push_back('\x90');
    entries.push_back({key, 900 + static_cast<std::uint64_t>(i), testing::kSet, "new"});
    entries.push_back({key, 100 + static_cast<std::uint64_t>(i),
                       i % 5 == 0 ? testing::kDel : testing::kSet, i % 5 == 0 ? "" : "old"});
  }
  return entries;
}

// Sorted distinct keys with tails of 0x80 and more, for WritePebbleTable.
KeyList HighTailKeys(int n) {
  KeyList keys;
  for (int i = 0; i < n; ++i) {
    char user[16];
    std::snprintf(user, sizeof user, "t%05d", i);
    std::string key = user;
    key.push_back(static_cast<char>(0x80 + i % 100));
    keys.Add(key);
  }
  return keys;
}

TEST(PebbleRebuildTap, EveryTableKindMakesTheRewritesOwnBytesUnderEverySplit) {
  for (bool two_level : {false, true}) {
    for (std::uint32_t version : {2u, 4u}) {
      TempDir dir;
      testing::PebbleTableSpec spec;
      spec.version = version;
      spec.block_size = 256;
      spec.two_level = two_level;
      spec.compression = blocktable::BlockCompression::kSnappy;
      const std::string path =
          testing::WriteTableFile(dir, testing::BuildPebbleTable(VersionedEntries(700), spec));
      ExpectTapMakesTheSameRewrite(path, 14);
    }
  }
  // Pebble before 2020 hashed tails unsigned; the table era's probe counts (CockroachDB 26.1).
  struct Case {
    HashFlavor flavor;
    BloomProbes probes;
    std::uint32_t bits;
  };
  for (const Case& c : {Case{HashFlavor::kUnsignedTail, BloomProbes::kRounded, 10},
                        Case{HashFlavor::kSignedTail, BloomProbes::kTable, 9},
                        Case{HashFlavor::kUnsignedTail, BloomProbes::kTable, 12}}) {
    TempDir dir;
    PebbleWriteOptions options;
    options.filter.flavor = c.flavor;
    options.filter.probes = c.probes;
    options.filter.bits_per_key = c.bits;
    options.block_size = 512;
    const std::string path =
        testing::WriteTableFile(dir, WritePebbleTable(HighTailKeys(1500), options).value());
    ExpectTapMakesTheSameRewrite(path, 16);
    // The rewrite keeps the old filter's flavour: its keys all answer under it.
    const std::optional<RebuiltFilter> f = Tapped(path, 16, bloomcodec::testing::WholeTable(), 1);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->policy.flavor, c.flavor);
    EXPECT_EQ(f->policy.probes, c.probes);
  }
  for (std::uint32_t version : {5u, 7u}) {
    TempDir dir;
    testing::ColumnarTableSpec spec;
    spec.version = version;
    spec.block_size = 300;
    const std::string path =
        testing::WriteTableFile(dir, testing::BuildColumnarTable(testing::WordEntries(900), spec));
    ExpectTapMakesTheSameRewrite(path, 13);
  }
}

TEST(PebbleRebuildTap, TakesNoTableWhoseKeysItCouldNotHaveSeenWhole) {
  const auto split = bloomcodec::testing::Split(7, 700);
  {
    TempDir dir;  // no filter: verify asks none, the rewrite's own pass adds one
    testing::PebbleTableSpec spec;
    spec.version = 4;
    spec.filter = false;
    const std::string path =
        testing::WriteTableFile(dir, testing::BuildPebbleTable(VersionedEntries(300), spec));
    EXPECT_FALSE(Tapped(path, 10, split, 4).has_value());
  }
  {
    TempDir dir;  // MinLZ data blocks verify cannot read: their keys go unasked
    testing::ColumnarTableSpec spec;
    spec.version = 6;
    spec.minlz = testing::MinLz::kCompressed;
    const std::string path =
        testing::WriteTableFile(dir, testing::BuildColumnarTable(testing::WordEntries(300), spec));
    FileReport report;
    EXPECT_FALSE(Tapped(path, 10, split, 4, &report).has_value());
    EXPECT_NE(report.findings.size(), 0u);
  }
  TempDir dir;
  testing::PebbleTableSpec spec;
  spec.version = 4;
  spec.block_size = 256;
  const std::string path =
      testing::WriteTableFile(dir, testing::BuildPebbleTable(VersionedEntries(600), spec));
  const std::uint64_t size = fs::file_size(path);
  // The budget: 4 bytes for each of the 1200 entries the properties count.
  EXPECT_FALSE(Tapped(path, 10, split, 4, nullptr, 4 * 1200 - 1).has_value());
  EXPECT_TRUE(Tapped(path, 10, split, 4, nullptr, 4 * 1200).has_value());
  {
    RebuildTap tap(10, RebuildTap::kHashBudget, 16);  // no room for the filter kept
    VerifyPebbleTable(path, nullptr, "group", &tap);
    EXPECT_EQ(tap.Find(path, size, 10), nullptr);
    EXPECT_TRUE(tap.Reserve(RebuildTap::kHashBudget));  // the table's share was given back
  }
  // A data block damaged in the middle: verify reports it, the tap keeps nothing.
  std::vector<blocktable::BlockHandle> blocks;
  {
    const InputFile in = InputFile::Open(path).value();
    const PebbleTable t = PebbleTable::Open(in.bytes(), path).value();
    ASSERT_TRUE(t.ForEachDataBlock([&](ByteSpan, const blocktable::BlockHandle& h) {
                   blocks.push_back(h);
                   return Status();
                 }).ok());
  }
  ASSERT_GT(blocks.size(), 4u);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(blocks[blocks.size() / 2].offset + 3));
    f.put('\x5a');
  }
  FileReport report;
  EXPECT_FALSE(Tapped(path, 10, split, 4, &report).has_value());
  EXPECT_EQ(report.status_name(), "error");
}

TEST(PebbleRebuildTap, RangesMergeInFileOrderAndAKeyCutBetweenTwoIsOneKey) {
  // Two ranges whose cut splits the versions of one key: the merged filter and evidence are a
  // single range's.
  KeyList keys;
  for (int i = 0; i < 40; ++i) keys.Add("key" + std::to_string(100 + i) + "\x85");
  PebbleWriteOptions options;
  options.filter.flavor = HashFlavor::kUnsignedTail;
  const ByteVector sst = WritePebbleTable(keys, options).value();
  const PebbleTable t = PebbleTable::Open(sst, "000012.sst").value();
  ASSERT_TRUE(t.filter().bloom);
  RebuildTap tap(12);
  KeyList first, second;
  for (int i = 0; i < 25; ++i) first.Add(keys[i]);
  for (int i = 24; i < 40; ++i) second.Add(keys[i]);  // keys[24] again
  {
    TableHashes hashes(tap, 0);
    TappedRange a, b;
    a.first_block = 0;
    b.first_block = 4096;
    std::vector<std::uint8_t> answers(25);
    a.Ask(*t.filter().bloom, first, answers);
    answers.assign(16, 0);
    b.Ask(*t.filter().bloom, second, answers);
    hashes.Add(std::move(b));  // out of order: merged by offset
    hashes.Add(std::move(a));
    hashes.Keep(t, 40);
  }
  const RebuiltFilter* f = tap.Find("000012.sst", sst.size(), 12);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->policy.flavor, HashFlavor::kUnsignedTail);
  BloomPolicy policy = f->policy;
  EXPECT_EQ(policy.bits_per_key, 12u);
  EXPECT_TRUE(f->writes_filter);
  EXPECT_TRUE(BuildBloom(policy, keys).value().value() == f->filter);
  EXPECT_EQ(f->filter_keys, 40u);
}

}  // namespace
}  // namespace bloomcodec::pebble

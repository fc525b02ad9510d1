// Pebble's columnar tables (Pebblev5..v8) built in the test from FORMAT.md's facts with our
// columnar encoders (columnar_table_builder.h): healthy tables verify clean with every key
// checked, whatever the version, checksum, compression (MinLZ's decodable forms included), index
// shape and key schema; crdb1 tables have their MVCC prefixes asked of the filter; inspect names
// the version and the key schema.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "pebble/columnar_table_builder.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/verify.h"
#include "pebble/table_check.h"
#include "support/test_support.h"

namespace bloomcodec::pebble {
namespace {

using blocktable::BlockCompression;
using blocktable::ChecksumType;
using testing::BuildColumnarTable;
using testing::ColumnarTableSpec;
using testing::ExpectCleanTable;
using testing::FindingLines;
using testing::MinLz;
using testing::PebbleEntry;
using testing::VerifyTableBytes;
using testing::WordEntries;

TEST(PebbleColumnarTable, EveryColumnarVersionVerifiesClean) {
  for (std::uint32_t v = 5; v <= 8; ++v) {
    SCOPED_TRACE(v);
    ColumnarTableSpec spec;
    spec.version = v;
    const ByteVector table = BuildColumnarTable(WordEntries(1710), spec);
    ExpectCleanTable(table, 1710, v);
    Result<PebbleTable> t = PebbleTable::Open(table, "t");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_TRUE(t->columnar());
    EXPECT_EQ(t->key_schema().kind, colblk::KeySchemaKind::kDefault);
    // The footer's size per version (§2.1): the version sits 12 bytes from the end in each.
    Result<PebbleFooter> f = DecodePebbleFooter(table, "t");
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(f->attributes, v >= 7 ? 128u : 0u);
  }
}

TEST(PebbleColumnarTable, ChecksumsCompressionsAndTwoLevelIndexes) {
  for (std::uint32_t v : {5u, 7u}) {
    for (ChecksumType c : {ChecksumType::kCrc32c, ChecksumType::kXxHash64}) {
      for (BlockCompression z :
           {BlockCompression::kNone, BlockCompression::kSnappy, BlockCompression::kZstd}) {
        for (bool two_level : {false, true}) {
          ColumnarTableSpec spec;
          spec.version = v;
          spec.checksum = c;
          spec.compression = z;
          spec.two_level = two_level;
          spec.range_dels = {{"word000100", "word000200"}, {"word000300", "word000400"}};
          SCOPED_TRACE(std::to_string(v) + "/" + std::to_string(static_cast<int>(c)) + "/" +
                       std::to_string(static_cast<int>(z)) + "/" + std::to_string(two_level));
          const ByteVector table = BuildColumnarTable(WordEntries(1500), spec);
          ExpectCleanTable(table, 1500, v);
          Result<PebbleTable> t = PebbleTable::Open(table, "t");
          ASSERT_TRUE(t.ok()) << t.status().ToString();
          EXPECT_EQ(t->two_level_index(), two_level);
          EXPECT_EQ(t->footer().checksum, c);
        }
      }
    }
  }
}

TEST(PebbleColumnarTable, MinLzLiteralAndSnappyFormsAreRead) {
  for (std::uint32_t v : {6u, 8u}) {
    for (MinLz m : {MinLz::kLiteral, MinLz::kSnappy}) {
      ColumnarTableSpec spec;
      spec.version = v;
      spec.minlz = m;
      ExpectCleanTable(BuildColumnarTable(WordEntries(900), spec), 900, v);
    }
  }
}

TEST(PebbleColumnarTable, MinLzCompressedBlocksAreUnsupportedAndTheirKeysUnchecked) {
  ColumnarTableSpec spec;
  spec.version = 6;
  spec.minlz = MinLz::kCompressed;
  const FileReport r = VerifyTableBytes(BuildColumnarTable(WordEntries(900), spec));
  ASSERT_FALSE(r.findings.empty());
  for (const Finding& f : r.findings) {
    EXPECT_NE(f.severity, Severity::kError) << FindingLines(r);
  }
  EXPECT_EQ(r.findings[0].kind, finding_kind::kUnsupported) << FindingLines(r);
  EXPECT_NE(r.findings[0].message.find("MinLZ"), std::string::npos) << FindingLines(r);
  EXPECT_EQ(r.keys_checked, 0u);
}

// Kinds and the counts the properties claim, range deletions in a keyspan block.
TEST(PebbleColumnarTable, KindsAndCounts) {
  const std::vector<PebbleEntry> entries = {
      {"a", 9, testing::kSet, "x"},         {"a", 8, testing::kDel | kObsoleteBit, ""},
      {"b", 7, testing::kMerge, "m"},       {"c", 6, testing::kSingleDel, ""},
      {"d", 5, testing::kDelSized, "\x05"}, {"e", 4, testing::kSetWithDel, "y"},
  };
  for (std::uint32_t v = 5; v <= 8; ++v) {
    ColumnarTableSpec spec;
    spec.version = v;
    spec.range_dels = {{"a", "c"}, {"d", "f"}};
    // Keys are asked once per run of equal keys, as Pebble's filter writer adds them.
    ExpectCleanTable(BuildColumnarTable(entries, spec), 5, v);
  }
}

// CockroachDB's engine keys: roach key, 0x00, an 8-byte wall time and the length byte 9.
std::string EngineKey(const std::string& roach, std::uint64_t wall) {
  std::string k = roach;
  k.push_back('\0');
  for (int i = 7; i >= 0; --i) k.push_back(static_cast<char>(wall >> (8 * i)));
  k.push_back(9);
  return k;
}

TEST(PebbleColumnarTable, Crdb1FilterHoldsMvccPrefixes) {
  std::vector<PebbleEntry> entries;
  for (int i = 0; i < 600; ++i) {
    char roach[16];
    std::snprintf(roach, sizeof roach, "r%05d", i);
    // Newer versions first (cockroach_comparator orders versions descending).
    entries.push_back({EngineKey(roach, 2000 + i), 10, testing::kSet, "new"});
    entries.push_back({EngineKey(roach, 1000 + i), 9, testing::kSet, "old"});
  }
  for (std::uint32_t v : {5u, 7u}) {
    ColumnarTableSpec spec;
    spec.version = v;
    spec.key_schema = "crdb1";
    spec.comparer = "cockroach_comparator";
    const ByteVector table = BuildColumnarTable(entries, spec);
    // One filter entry per roach key: both versions share the prefix Split gives.
    ExpectCleanTable(table, 600, v);
    Result<PebbleTable> t = PebbleTable::Open(table, "t");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->key_schema().kind, colblk::KeySchemaKind::kCrdb1);
    // The read path asks the prefix: a version the table never held still "may" be there.
    KeyList probe;
    probe.Add(EngineKey("r00007", 5));
    std::vector<std::uint8_t> answer(1);
    t->MayContainBatch(probe, answer);
    EXPECT_EQ(answer[0], 1);
  }
}

// A block that starts with the prefix the block before ended with has its row 0 prefix-changed
// bit clear, as Pebble's table writer leaves it (FORMAT.md §6.7): tiny blocks split the versions
// of one key, for both schemas; such tables verify clean.
TEST(PebbleColumnarTable, BlocksStartingInsideAPrefixVerifyClean) {
  std::vector<PebbleEntry> crdb;
  std::vector<PebbleEntry> plain;
  for (int i = 0; i < 200; ++i) {
    char roach[16];
    std::snprintf(roach, sizeof roach, "r%05d", i);
    for (int v = 3; v > 0; --v) {
      crdb.push_back({EngineKey(roach, 1000 * v + i), 10, testing::kSet, "x"});
      plain.push_back({roach, static_cast<std::uint64_t>(10 + v),
                       static_cast<std::uint8_t>(testing::kSet | (v < 3 ? kObsoleteBit : 0)), "x"});
    }
  }
  ColumnarTableSpec spec;
  spec.version = 6;
  spec.block_size = 100;
  ExpectCleanTable(BuildColumnarTable(plain, spec), 200, 6);
  spec.key_schema = "crdb1";
  spec.comparer = "cockroach_comparator";
  ExpectCleanTable(BuildColumnarTable(crdb, spec), 200, 6);
}

// FORMAT.md §6.7's `simple_binary` example (Pebble's sstable/testdata/columnar_writer): a v5
// table of a#1,SET:a and b#2,DEL under the default schema has an 88-byte data block first, whose
// header says max key length 1, version 1, 7 columns, 2 rows, and whose trailer checksum is the
// one Pebble's layout prints for it (the same bytes give the same CRC).
TEST(PebbleColumnarTable, SimpleBinaryDataBlock) {
  ColumnarTableSpec spec;
  spec.version = 5;
  spec.filter = false;
  const std::vector<PebbleEntry> entries = {{"a", 1, testing::kSet, "a"},
                                            {"b", 2, testing::kDel, ""}};
  const ByteVector table = BuildColumnarTable(entries, spec);
  Result<PebbleTable> t = PebbleTable::Open(table, "t");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  std::vector<blocktable::BlockHandle> blocks;
  ASSERT_TRUE(blocktable::ForEachIndexedBlock(
                  t->index_layout(),
                  [&](const blocktable::IndexEntry& e) { return t->DecodeIndexValue(e); },
                  [&](const blocktable::BlockHandle& h) { return t->ReadIndexBlock(h, "p"); },
                  [&](ByteSpan key, const blocktable::BlockHandle& h) {
                    EXPECT_EQ(std::string(key.begin(), key.end()), "b");
                    blocks.push_back(h);
                    return Status();
                  })
                  .ok());
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].offset, 0u);
  EXPECT_EQ(blocks[0].size, 88u);
  const ByteVector header = {0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x00, 0x02, 0x00, 0x00, 0x00};
  EXPECT_EQ(ByteVector(table.begin(), table.begin() + 11), header);
  // Column types and starts: prefix bytes at 46, bytes 54, uint 55, bool 60, bytes 80, bool 85,
  // bool 86; the padding byte at 87.
  const std::uint8_t types[] = {4, 3, 2, 1, 3, 1, 1};
  const std::uint32_t starts[] = {46, 54, 55, 60, 80, 85, 86};
  for (int c = 0; c < 7; ++c) {
    const std::size_t at = 11 + 5 * static_cast<std::size_t>(c);
    EXPECT_EQ(table[at], types[c]) << c;
    EXPECT_EQ(table[at + 1] | table[at + 2] << 8 | table[at + 3] << 16 | table[at + 4] << 24,
              static_cast<int>(starts[c]))
        << c;
  }
  // Pebble's layout gives the block's trailer: no compression, CRC-32C 0x4ea44054.
  const ByteVector trailer = {0x00, 0x54, 0x40, 0xa4, 0x4e};
  EXPECT_EQ(ByteVector(table.begin() + 88, table.begin() + 93), trailer);
  const FileReport r = VerifyTableBytes(table);
  ASSERT_EQ(r.findings.size(), 1u) << FindingLines(r);
  EXPECT_EQ(r.findings[0].kind, finding_kind::kNoFilter);
  EXPECT_EQ(r.keys_checked, 2u);
}

TEST(PebbleColumnarTable, ProbesInspectAndDetection) {
  ColumnarTableSpec spec;
  spec.version = 6;
  const ByteVector table = BuildColumnarTable(WordEntries(800), spec);
  EXPECT_EQ(DetectFormat("000010.sst", table), FindFormat("pebble-table"));
  KeyList keys;
  for (const PebbleEntry& e : WordEntries(800)) keys.Add(e.user_key);
  std::vector<std::uint8_t> answers(keys.size());
  ASSERT_TRUE(FindFormat("pebble-table")->Probe(table, "t", keys, {}, answers).ok());
  for (std::uint8_t a : answers) EXPECT_EQ(a, 1);
  Result<Document> d = FindFormat("pebble-table")->Inspect(table, "t");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)["table_format"], "Pebblev6");
  EXPECT_EQ((*d)["key_schema"], "DefaultKeySchema(leveldb.BytewiseComparator,16)");
  EXPECT_EQ((*d)["properties"]["rocksdb.num.entries"], 800);
  EXPECT_TRUE((*d)["filter"].is_object());
}

}  // namespace
}  // namespace bloomcodec::pebble

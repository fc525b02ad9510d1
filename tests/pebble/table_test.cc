// Pebble's row-based tables (Pebblev1..v4) built in the test from FORMAT.md's facts
// (table_builder.h): healthy tables verify clean with every key checked, whatever the version,
// checksum, compression and index shape; probes answer as the filter does; the format is
// detected by its magic.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/verify.h"
#include "pebble/table_builder.h"
#include "pebble/table_check.h"
#include "rocksdb/sst/verify.h"
#include "support/test_support.h"

namespace bloomcodec::pebble {
namespace {

using blocktable::BlockCompression;
using blocktable::ChecksumType;
using testing::BuildPebbleTable;
using testing::ExpectCleanTable;
using testing::FindingLines;
using testing::PebbleEntry;
using testing::PebbleTableSpec;
using testing::VerifyTableBytes;
using testing::WordEntries;

TEST(PebbleTable, EveryRowVersionVerifiesClean) {
  for (std::uint32_t v = 1; v <= 4; ++v) {
    PebbleTableSpec spec;
    spec.version = v;
    ExpectCleanTable(BuildPebbleTable(WordEntries(1710), spec), 1710, v);
  }
}

TEST(PebbleTable, ChecksumsCompressionsAndTwoLevelIndexes) {
  for (ChecksumType c : {ChecksumType::kCrc32c, ChecksumType::kXxHash64}) {
    for (BlockCompression z :
         {BlockCompression::kNone, BlockCompression::kSnappy, BlockCompression::kZstd}) {
      for (bool two_level : {false, true}) {
        PebbleTableSpec spec;
        spec.checksum = c;
        spec.compression = z;
        spec.two_level = two_level;
        spec.block_properties = true;
        spec.range_dels = {{"word000100", "word000200"}, {"word000300", "word000300"}};
        SCOPED_TRACE(std::to_string(static_cast<int>(c)) + "/" +
                     std::to_string(static_cast<int>(z)) + "/" + std::to_string(two_level));
        const ByteVector table = BuildPebbleTable(WordEntries(3000), spec);
        ExpectCleanTable(table, 3000, 1);
        Result<PebbleTable> t = PebbleTable::Open(table, "t");
        ASSERT_TRUE(t.ok()) << t.status().ToString();
        EXPECT_EQ(t->two_level_index(), two_level);
        EXPECT_EQ(t->footer().checksum, c);
      }
    }
  }
}

// A row table whose comparer is cockroach_comparator: its key order is not judged (an
// `unsupported` warning naming the comparer), never an error; probes ask its Split prefixes.
TEST(PebbleTable, RowTablesOfCockroachComparatorAreUnsupportedByName) {
  PebbleTableSpec spec;
  spec.version = 4;
  spec.comparer = "cockroach_comparator";
  // MVCC keys without a version: the roach key, its 0x00 sentinel (Split keeps both).
  std::vector<PebbleEntry> entries;
  for (int i = 0; i < 50; ++i) {
    entries.push_back(
        {"roach" + std::to_string(100 + i) + std::string(1, '\0'), 5, testing::kSet, "v"});
  }
  const ByteVector bytes = BuildPebbleTable(entries, spec);  // the table views it
  const FileReport r = VerifyTableBytes(bytes);
  ASSERT_EQ(r.findings.size(), 1u) << FindingLines(r);
  EXPECT_EQ(r.findings[0].kind, finding_kind::kUnsupported);
  EXPECT_EQ(r.findings[0].severity, Severity::kWarning);
  EXPECT_NE(r.findings[0].message.find("cockroach_comparator"), std::string::npos);
  const PebbleTable t = PebbleTable::Open(bytes, "t").value();
  EXPECT_EQ(t.comparer(), colblk::KeyComparer::kCockroach);
  KeyList probes;
  for (const PebbleEntry& e : entries) probes.Add(e.user_key);
  std::vector<std::uint8_t> answers(probes.size());
  t.MayContainBatch(probes, answers);
  for (std::uint8_t a : answers) EXPECT_EQ(a, 1);
}

// A virtual table's synthetic prefix: its keys show the prefix, the backing's filter holds the
// stored keys; the prefix is cut off before the filter is asked, and a key without it is absent.
TEST(PebbleTable, VirtualTablesProbeWithTheSyntheticPrefixCutOff) {
  const std::vector<PebbleEntry> entries = WordEntries(300);
  const ByteVector bytes = BuildPebbleTable(entries, PebbleTableSpec());  // the table views it
  const PebbleTable t = PebbleTable::Open(bytes, "t").value();
  KeyList shown, stored;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    shown.Add("tenant7/" + entries[i].user_key);
    stored.Add(entries[i].user_key);
    shown.Add("tenant7/absent" + std::to_string(i));
    stored.Add("absent" + std::to_string(i));
  }
  shown.Add(std::string_view("word000000"));  // a stored key, but not as the table shows it
  const ByteSpan prefix = AsBytes("tenant7/");
  std::vector<std::uint8_t> via(shown.size()), direct(stored.size());
  t.MayContainBatch(shown, prefix, via);
  t.MayContainBatch(stored, direct);
  for (std::size_t i = 0; i < stored.size(); ++i) EXPECT_EQ(via[i], direct[i]) << i;
  for (std::size_t i = 0; i < stored.size(); i += 2) EXPECT_EQ(via[i], 1);
  EXPECT_EQ(via.back(), 0);
  // No synthetic prefix: the plain answers.
  std::vector<std::uint8_t> plain(stored.size());
  t.MayContainBatch(stored, ByteSpan(), plain);
  EXPECT_EQ(plain, direct);
}

TEST(PebbleTable, KindsOfV4ObsoleteBitAndCounts) {
  std::vector<PebbleEntry> entries = {
      {"a", 9, testing::kSet | kObsoleteBit, "x"},
      {"a", 8, testing::kDel, ""},
      {"b", 7, testing::kMerge, "m"},
      {"c", 6, testing::kSingleDel, ""},
      {"d", 5, testing::kDelSized, "\x05"},
      {"e", 4, testing::kSetWithDel, "y"},
  };
  PebbleTableSpec spec;
  spec.version = 4;
  spec.range_dels = {{"a", "c"}};
  // Keys are asked once per run of equal keys, as Pebble's filter writer adds them.
  ExpectCleanTable(BuildPebbleTable(entries, spec), 5, 4);
  // Before Pebblev4 the obsolete bit is no kind, and DELSIZED does not exist.
  spec.version = 3;
  const FileReport r = VerifyTableBytes(BuildPebbleTable(entries, spec));
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].kind, finding_kind::kStructure);
  EXPECT_NE(r.findings[0].message.find("kind"), std::string::npos) << FindingLines(r);
}

TEST(PebbleTable, NoFilterIsAWarningAndEveryKeyIsRead) {
  PebbleTableSpec spec;
  spec.filter = false;
  const FileReport r = VerifyTableBytes(BuildPebbleTable(WordEntries(500), spec));
  ASSERT_EQ(r.findings.size(), 1u) << FindingLines(r);
  EXPECT_EQ(r.findings[0].kind, finding_kind::kNoFilter);
  EXPECT_EQ(r.keys_checked, 500u);
}

TEST(PebbleTable, FilterOfOtherKeysGivesFalseNegatives) {
  PebbleTableSpec spec;
  spec.filter_keys_override = {"other", "keys", "entirely"};
  const FileReport r = VerifyTableBytes(BuildPebbleTable(WordEntries(400), spec));
  EXPECT_GT(r.false_negative_count, 390u);
  bool found = false;
  for (const Finding& f : r.findings) found = found || f.kind == finding_kind::kFalseNegative;
  EXPECT_TRUE(found) << FindingLines(r);
}

TEST(PebbleTable, ProbesAndDetection) {
  const ByteVector table = BuildPebbleTable(WordEntries(800), PebbleTableSpec());
  EXPECT_EQ(DetectFormat("000010.sst", table), FindFormat("pebble-table"));
  KeyList keys;
  for (const PebbleEntry& e : WordEntries(800)) keys.Add(e.user_key);
  std::vector<std::uint8_t> answers(keys.size());
  ASSERT_TRUE(FindFormat("pebble-table")->Probe(table, "t", keys, {}, answers).ok());
  for (std::uint8_t a : answers) EXPECT_EQ(a, 1);
  // Absent keys: the Bloom filter's answers, as pebble-bloom gives them for the same keys.
  KeyList absent;
  for (int i = 0; i < 2000; ++i) absent.Add("absent" + std::to_string(i));
  std::vector<std::uint8_t> table_answers(absent.size()), bloom_answers(absent.size());
  ASSERT_TRUE(FindFormat("pebble-table")->Probe(table, "t", absent, {}, table_answers).ok());
  Result<PebbleTable> t = PebbleTable::Open(table, "t");
  ASSERT_TRUE(t.ok());
  t->filter().bloom->MayContainBatch(absent, bloom_answers);
  EXPECT_EQ(table_answers, bloom_answers);
  std::size_t passed = 0;
  for (std::uint8_t a : table_answers) passed += a;
  EXPECT_LT(passed, 100u);  // about 1% at 10 bits per key
}

// A RocksDBv2 table Pebble wrote, read as an SST (a file given alone): its filter is RocksDB's
// legacy layout, whose hash lets ids next to stored ones through (verify's near-keys warning),
// but the remedy RocksDB has (FastLocalBloom) is no remedy for Pebble, which reads only this.
TEST(PebbleTable, ARocksDbV2TableOfIdsIsANearKeysWarningWithoutRocksDbsRemedy) {
  std::vector<PebbleEntry> ids;
  for (std::uint32_t s = 1; s <= 3000; ++s) {
    const std::uint32_t id = 3 * s;
    std::string key = {'t', 'b', 'l', '/'};
    for (int b = 3; b >= 0; --b) key.push_back(static_cast<char>((id >> (8 * b)) & 0xff));
    ids.push_back({key, s, testing::kSet, "v"});
  }
  PebbleTableSpec spec;
  spec.rocksdb_v2 = true;
  bloomcodec::testing::TempDir dir;
  const std::string path = dir.path() + "/000011.sst";
  const ByteVector table = BuildPebbleTable(ids, spec);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(table.data()),
             static_cast<std::streamsize>(table.size()));
  const FileReport r = rocksdb::VerifySst(path, nullptr, dir.path());
  const Finding* near = nullptr;
  for (const Finding& f : r.findings) near = f.kind == finding_kind::kNearKeys ? &f : near;
  ASSERT_NE(near, nullptr) << FindingLines(r);
  EXPECT_NE(near->message.find("Pebble wrote this table"), std::string::npos) << near->message;
  EXPECT_EQ(near->message.find("repair --to"), std::string::npos) << near->message;
}

TEST(PebbleTable, InspectNamesVersionAndFilter) {
  PebbleTableSpec spec;
  spec.version = 2;
  const ByteVector table = BuildPebbleTable(WordEntries(100), spec);
  Result<Document> d = FindFormat("pebble-table")->Inspect(table, "t");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)["table_format"], "Pebblev2");
  EXPECT_EQ((*d)["properties"]["rocksdb.num.entries"], 100);
  EXPECT_TRUE((*d)["filter"].is_object());
}

}  // namespace
}  // namespace bloomcodec::pebble

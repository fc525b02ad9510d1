// Writing Pebble row tables (formats/pebble/table/table_writer.h): `build` makes a table Pebble's
// reader and our verify read clean, whose filter block is the one Pebble's writer adds for its
// keys; the filter rewrite of `convert` gives back, byte for byte, a table written with the same
// policy (tables of tests/pebble/table_builder.h, laid out as Pebble lays them out: one- and
// two-level indexes, range deletions, value blocks, compression, both checksums), carries every
// other block over, and refuses what it cannot lay out again. Also dump / undump of pebble-table.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "pebble/columnar_table_builder.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/table_writer.h"
#include "pebble/table/verify.h"
#include "pebble/table_builder.h"
#include "pebble/table_check.h"
#include "support/test_support.h"

namespace bloomcodec::pebble {
namespace {

using blocktable::BlockCompression;
using blocktable::ChecksumType;
using testing::BuildPebbleTable;
using testing::FindingLines;
using testing::PebbleEntry;
using testing::PebbleTableSpec;
using testing::VerifyTableBytes;

std::vector<PebbleEntry> Entries(std::size_t n) {
  std::vector<PebbleEntry> entries;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string key = "key" + std::to_string(100000 + i * 3);
    // Some keys twice (an older version below): the filter adds the key once per entry.
    if (i % 9 == 4) entries.push_back({key, 900 + i, testing::kSet, "new"});
    entries.push_back({key, 100 + i, i % 7 == 3 ? testing::kDel : testing::kSet,
                       i % 7 == 3 ? "" : "value" + std::to_string(i)});
  }
  return entries;
}

KeyList UserKeys(const std::vector<PebbleEntry>& entries) {
  KeyList keys;
  for (const PebbleEntry& e : entries) keys.Add(e.user_key);
  return keys;
}

ByteVector Rewrite(const ByteVector& table, std::uint32_t bits,
                   PebbleFooters footers = PebbleFooters::kPebble) {
  PebbleTable t = PebbleTable::Open(table, "000010.sst", {footers}).value();
  const KeyList keys = PebbleFilterKeys(t).value();
  return RewritePebbleFilter(t, PolicyForRewrite(t, keys, bits)).value().bytes;
}

TEST(PebbleTableWriter, BuiltTablesVerifyCleanWithPebblesFilter) {
  for (std::uint32_t version = 1; version <= 4; ++version) {
    KeyList keys;
    for (int i = 0; i < 700; ++i) keys.Add("user" + std::to_string(1000 + i));
    PebbleWriteOptions options;
    options.version = version;
    options.filter.bits_per_key = 7;
    const ByteVector sst = WritePebbleTable(keys, options).value();
    const FileReport r = VerifyTableBytes(sst);
    EXPECT_TRUE(r.findings.empty()) << version << "\n" << FindingLines(r);
    EXPECT_EQ(r.keys_checked, 700u);
    const PebbleTable t = PebbleTable::Open(sst, "built").value();
    EXPECT_EQ(t.version(), version);
    ASSERT_TRUE(t.filter().bloom);
    const ByteVector expected = *BuildBloom(options.filter, keys).value();
    const ByteSpan stored = t.filter().bloom->bytes();
    EXPECT_TRUE(std::equal(stored.begin(), stored.end(), expected.begin(), expected.end()));
    EXPECT_EQ(t.Number("rocksdb.filter.size"), expected.size());
    EXPECT_EQ(t.Number("rocksdb.num.entries"), 700u);
  }
  // No key: one empty data block, a 0-byte filter block, still a clean table.
  const ByteVector empty = WritePebbleTable(KeyList(), PebbleWriteOptions()).value();
  EXPECT_TRUE(VerifyTableBytes(empty).findings.empty()) << FindingLines(VerifyTableBytes(empty));
  KeyList unsorted;
  unsorted.Add("b");
  unsorted.Add("a");
  EXPECT_EQ(WritePebbleTable(unsorted, PebbleWriteOptions()).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(PebbleTableWriter, BuildThroughTheFormatSortsAndDropsDuplicates) {
  const FormatCodec* f = FindFormat("pebble-table");
  ASSERT_NE(f, nullptr);
  KeyList keys;
  for (const char* k : {"pear", "apple", "fig", "apple"}) keys.Add(std::string(k));
  FilterParams params;
  params.bits_per_key = 10;
  const ByteVector sst = f->Build(keys, params).value();
  const PebbleTable t = PebbleTable::Open(sst, "built").value();
  EXPECT_EQ(t.Number("rocksdb.num.entries"), 3u);
  params.bits_per_key = 2.5;
  EXPECT_EQ(f->Build(keys, params).status().code(), StatusCode::kInvalidArgument);
}

TEST(PebbleTableRewrite, SamePolicyGivesBackTheSameBytes) {
  const std::vector<PebbleEntry> entries = Entries(150);
  int n = 0;
  for (std::uint32_t version = 1; version <= 4; ++version) {
    for (const bool two_level : {false, true}) {
      PebbleTableSpec spec;
      spec.version = version;
      spec.block_size = 400;
      spec.two_level = two_level;
      spec.block_properties = n % 2 == 0;
      spec.checksum = n % 3 == 0 ? ChecksumType::kXxHash64 : ChecksumType::kCrc32c;
      spec.compression = n % 4 == 1 ? BlockCompression::kSnappy : BlockCompression::kNone;
      spec.range_dels = {{"key100030", "key100090"}};
      if (version >= 3) spec.value_blocks = {"first value block", std::string(300, 'v')};
      spec.raw_values = version >= 3;  // the builder's values already carry the prefix byte
      std::vector<PebbleEntry> stored = entries;
      if (spec.raw_values) {
        for (PebbleEntry& e : stored) {
          if (e.kind == testing::kSet) e.value = std::string(1, '\0') + e.value;
        }
      }
      const ByteVector table = BuildPebbleTable(stored, spec);
      ++n;
      EXPECT_EQ(Rewrite(table, 10), table) << "v" << version << " two-level " << two_level;
      // Through another size and back: the same bytes again, every block carried over.
      const ByteVector other = Rewrite(table, 3);
      EXPECT_NE(other, table);
      EXPECT_TRUE(VerifyTableBytes(other).findings.empty())
          << FindingLines(VerifyTableBytes(other));
      const ByteVector back = Rewrite(other, 10);
      std::size_t at = 0;
      while (at < back.size() && at < table.size() && back[at] == table[at]) ++at;
      EXPECT_EQ(at, table.size()) << "v" << version << " two-level " << two_level << " sizes "
                                  << back.size() << " " << table.size();
    }
  }
}

// The row formats Pebble writes below format major version 5 (go-ethereum's tables): read only
// when asked (repair), rewritten under their own footer; a two-level index's partitions keep
// their bytes, the top level is re-encoded only when they move; the range deletion block that
// two metaindex entries name is carried over once; the probes stay those of Pebble before the
// probe table (11 at 16 bits per key, where the table gives 6). A damaged filter block is
// replaced when the table is opened past it.
TEST(PebbleTableRewrite, RocksDbFormatTablesKeepTheirFooterAndPartitions) {
  const std::vector<PebbleEntry> entries = Entries(150);
  for (const bool leveldb : {false, true}) {
    for (const bool two_level : {false, true}) {
      PebbleTableSpec spec;
      spec.rocksdb_v2 = true;
      spec.leveldb_footer = leveldb;
      spec.block_size = 400;
      spec.two_level = two_level;
      spec.compression = BlockCompression::kSnappy;
      spec.range_dels = {{"key100030", "key100090"}};
      const ByteVector table = BuildPebbleTable(entries, spec);
      const std::string what = std::string(leveldb ? "LevelDB" : "RocksDBv2") + " two-level " +
                               std::to_string(two_level);
      EXPECT_FALSE(PebbleTable::Open(table, "t").ok()) << what;  // not a pebble-table
      const auto any = PebbleFooters::kPebbleAndRocksDb;
      const PebbleTable old = PebbleTable::Open(table, "t", {any}).value();
      EXPECT_EQ(old.version(), 0u);
      EXPECT_EQ(old.format_name(), leveldb ? "LevelDB" : "RocksDBv2");
      EXPECT_EQ(old.two_level_index(), two_level);
      EXPECT_EQ(Rewrite(table, 10, any), table) << what;
      const ByteVector other = Rewrite(table, 16, any);
      ASSERT_NE(other, table) << what;
      EXPECT_EQ(blocktable::TrailingMagic(other), blocktable::TrailingMagic(table)) << what;
      const PebbleTable t = PebbleTable::Open(other, "rewritten", {any}).value();
      ASSERT_TRUE(t.filter().bloom.has_value());
      EXPECT_EQ(t.filter().bloom->num_probes(), 11u) << what;
      std::vector<std::uint8_t> answers(entries.size());
      t.MayContainBatch(UserKeys(entries), answers);
      for (std::uint8_t a : answers) EXPECT_EQ(a, 1) << what;
      std::vector<ByteVector> meta;  // the values naming the range deletion block
      for (const rocksdb::SstMetaindexEntry& e : t.metaindex()) {
        if (e.key.starts_with("rocksdb.range_del"))
          meta.emplace_back(e.value.begin(), e.value.end());
      }
      ASSERT_EQ(meta.size(), 2u) << what;
      EXPECT_EQ(meta[0], meta[1]) << what;
      std::vector<ByteVector> old_parts, new_parts;
      const auto collect = [](const PebbleTable& x, std::vector<ByteVector>& out) {
        ASSERT_TRUE(x.ForEachIndexPartition([&](ByteSpan, const blocktable::BlockHandle& h) {
                       const ByteSpan b = x.file().subspan(h.offset, h.size + 5);
                       out.emplace_back(b.begin(), b.end());
                       return Status();
                     }).ok());
      };
      collect(old, old_parts);
      collect(t, new_parts);
      EXPECT_EQ(new_parts, old_parts) << what;
      EXPECT_EQ(old_parts.size() > 1, two_level) << what;
      EXPECT_EQ(Rewrite(other, 10, any), table) << what;
      // A flipped filter byte: no table to the readers, one whose filter is rebuilt to repair.
      ByteVector flipped = table;
      flipped[old.filter().handle.offset + 20] ^= 0x10;
      EXPECT_FALSE(PebbleTable::Open(flipped, "flipped", {any}).ok()) << what;
      const PebbleTable damaged = PebbleTable::Open(flipped, "flipped", {any, true}).value();
      EXPECT_NE(damaged.filter().damage.find("checksum"), std::string::npos) << what;
      EXPECT_EQ(damaged.filter().handle.offset, old.filter().handle.offset) << what;
      EXPECT_EQ(RewritePebbleFilter(damaged, PolicyForRewrite(damaged, UserKeys(entries), 10))
                    .value()
                    .bytes,
                table)
          << what;
    }
  }
}

TEST(PebbleTableRewrite, AddsAFilterToATableWithoutOne) {
  PebbleTableSpec spec;
  spec.version = 2;
  spec.filter = false;
  spec.two_level = true;
  spec.block_size = 300;
  const std::vector<PebbleEntry> entries = Entries(120);
  const ByteVector without = BuildPebbleTable(entries, spec);
  const ByteVector with = Rewrite(without, 10);
  spec.filter = true;
  EXPECT_EQ(with, BuildPebbleTable(entries, spec));
  const PebbleTable t = PebbleTable::Open(with, "rewritten").value();
  std::vector<std::uint8_t> answers(entries.size());
  t.MayContainBatch(UserKeys(entries), answers);
  for (std::uint8_t a : answers) EXPECT_EQ(a, 1);
}

TEST(PebbleTableRewrite, ValueIndexFollowsItsBlocks) {
  PebbleTableSpec spec;
  spec.version = 3;
  spec.filter = false;
  // The last value block's offset crosses 2^16 with the filter's bytes added: a wider column.
  spec.value_blocks = {std::string(65000, 'a'), std::string(10, 'b')};
  const ByteVector table = BuildPebbleTable(Entries(20), spec);
  const ByteVector out = Rewrite(table, 40);
  spec.filter = true;
  spec.bits_per_key = 40;
  EXPECT_EQ(out, BuildPebbleTable(Entries(20), spec));
}

TEST(PebbleTableRewrite, RefusesDamagedValueIndexesAndColumnarTables) {
  PebbleTableSpec spec;
  spec.version = 3;
  spec.value_blocks = {"one", "two"};
  // Rows of 4 bytes (widths 1, 2, 1: the value blocks lie past byte 255): a 5-byte index,
  // block numbers out of sequence, a value block past the end of the file.
  const struct {
    std::string raw;
    std::string_view expected;
  } cases[] = {
      {std::string("\x00\x10\x03\x01\x00", 5), "whole 4-byte rows"},
      {std::string("\x01\x10\x03\x03", 4), "value block number 0"},
      {std::string("\x00\xf0\xff\x7f", 4), "value block"},
  };
  for (const auto& c : cases) {
    spec.value_index_raw = c.raw;
    const ByteVector table = BuildPebbleTable(Entries(30), spec);
    const PebbleTable t = PebbleTable::Open(table, "000010.sst").value();
    const Status s = RewritePebbleFilter(t, BloomPolicy()).status();
    EXPECT_EQ(s.code(), StatusCode::kCorrupt) << c.expected;
    EXPECT_NE(s.ToString().find(c.expected), std::string::npos) << s.ToString();
    EXPECT_NE(s.ToString().find("000010.sst"), std::string::npos) << s.ToString();
  }
  testing::ColumnarTableSpec columnar;
  const ByteVector table = testing::BuildColumnarTable(
      {{"a", 2, testing::kSet, "x"}, {"b", 1, testing::kSet, "y"}}, columnar);
  const PebbleTable t = PebbleTable::Open(table, "000010.sst").value();
  const Status s = RewritePebbleFilter(t, BloomPolicy()).status();
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.ToString().find("Pebblev5"), std::string::npos) << s.ToString();
}

TEST(PebbleTableDump, RoundTripsAndRefusesEditedFields) {
  const FormatCodec* f = FindFormat("pebble-table");
  PebbleTableSpec spec;
  spec.version = 4;
  const ByteVector table = BuildPebbleTable(Entries(40), spec);
  Document d = f->Dump(table, "000010.sst").value();
  EXPECT_EQ(d["format"], "pebble-table");
  EXPECT_EQ(d["footer"]["table_format"], "Pebblev4");
  EXPECT_EQ(d["filter"]["metaindex_key"], std::string(kBloomFilterBlockName));
  EXPECT_EQ(f->Undump(d, "dump.json").value(), table);
  d["filter"]["handle"]["offset"] = 1;
  EXPECT_EQ(f->Undump(d, "dump.json").status().code(), StatusCode::kRefused);
}

// The probe era a rewrite keeps is the one the old filter shows: Pebble's table of probe counts
// (CockroachDB 26.1 on, no tagged Pebble release) only where the filter's probe count is the
// table's and not the rounded one's at its own bits per key. Pebble's default 10 bits per key
// gives 6 probes in both eras: the rounded era, 11 probes at 16 (as every tagged Pebble writes),
// not the table's 6. Row (Pebblev3, v4) and columnar (Pebblev7) tables alike.
TEST(PebbleTableRewrite, ProbeEraIsTheOneTheOldFilterShows) {
  KeyList keys;
  for (int i = 0; i < 2000; ++i) keys.Add("user" + std::to_string(100000 + i));
  struct Case {
    std::uint32_t version, bits;
    BloomProbes era;
    std::uint32_t old_probes, new_probes;  // at 16 bits per key
  };
  const Case cases[] = {
      {4, 10, BloomProbes::kRounded, 6, 11}, {4, 10, BloomProbes::kTable, 6, 11},
      {3, 10, BloomProbes::kRounded, 6, 11}, {4, 9, BloomProbes::kRounded, 6, 11},
      {4, 9, BloomProbes::kTable, 5, 6},     {4, 12, BloomProbes::kTable, 6, 6},
      {4, 12, BloomProbes::kRounded, 8, 11},
  };
  for (const Case& c : cases) {
    const std::string what = "Pebblev" + std::to_string(c.version) + " at " +
                             std::to_string(c.bits) +
                             (c.era == BloomProbes::kTable ? " (table)" : " (rounded)");
    PebbleWriteOptions options;
    options.version = c.version;
    options.filter.bits_per_key = c.bits;
    options.filter.probes = c.era;
    const ByteVector sst = WritePebbleTable(keys, options).value();
    const PebbleTable old = PebbleTable::Open(sst, "000010.sst").value();
    ASSERT_TRUE(old.filter().bloom) << what;
    EXPECT_EQ(old.filter().bloom->num_probes(), c.old_probes) << what;
    const BloomProbes kept = c.new_probes == 11 ? BloomProbes::kRounded : BloomProbes::kTable;
    EXPECT_EQ(PolicyForRewrite(old, PebbleFilterKeys(old).value(), c.bits).probes, kept) << what;
    const PebbleTable again = PebbleTable::Open(Rewrite(sst, 16), "rewritten").value();
    ASSERT_TRUE(again.filter().bloom) << what;
    EXPECT_EQ(again.filter().bloom->num_probes(), c.new_probes) << what;
  }
  testing::ColumnarTableSpec spec;  // Pebble's default 10 bits per key
  spec.version = 7;
  const ByteVector columnar = testing::BuildColumnarTable(testing::WordEntries(300), spec);
  const PebbleTable t = PebbleTable::Open(columnar, "000011.sst").value();
  ASSERT_TRUE(t.filter().bloom);
  EXPECT_EQ(t.filter().bloom->num_probes(), 6u);
  const KeyList filter_keys = PebbleFilterKeys(t).value();
  EXPECT_EQ(PolicyForRewrite(t, filter_keys, 16).probes, BloomProbes::kRounded);
  const PebbleRewrite r = RewriteColumnarFilter(t, PolicyForRewrite(t, filter_keys, 16)).value();
  const PebbleTable again = PebbleTable::Open(r.bytes, "rewritten").value();
  ASSERT_TRUE(again.filter().bloom);
  EXPECT_EQ(again.filter().bloom->num_probes(), 11u);
}

}  // namespace
}  // namespace bloomcodec::pebble

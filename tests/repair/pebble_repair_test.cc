// Repair of Pebble databases (formats/lsmrepair/pebble_transaction.h, formats/repair/
// pebble_repair.cc) on directories built here: row tables from tests/pebble/table_builder.h,
// MANIFESTs, markers and CURRENT from tests/pebble/manifest_writer.h (no Pebble runs on this
// machine: the witness is our reader, pebble::ReadDatabase and verify). Each repaired database
// is re-read as Pebble opens it (the marker or CURRENT it would follow), every key is asked of
// the new filters, the MANIFEST's sizes match the files, every other field of the records is
// carried over (sequence numbers, creation time, virtual tables on their new backing, blob
// references), and verify finds nothing above info. The transaction is killed before its
// file-system steps (repair_harness.h) and the database must read all old or all new. Tables
// are Pebble's row formats, and RocksDBv2 ones as go-ethereum's Pebble writes them (with a
// two-level index); our reader is the witness for them too.
#include <gtest/gtest.h>

#include <fcntl.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "blocktable/trailer.h"
#include "bloomcodec/repair.h"
#include "cli/cli_runner.h"
#include "lsmrepair/pebble_transaction.h"
#include "manifest/db_checks.h"
#include "pebble/columnar_table_builder.h"
#include "pebble/database.h"
#include "pebble/manifest_writer.h"
#include "pebble/table/table_writer.h"
#include "pebble/table_builder.h"
#include "pebble/table_check.h"
#include "repair_harness.h"

namespace bloomcodec::repair_test {
namespace {

using bloomcodec::testing::CliRun;
using bloomcodec::testing::RunCli;
using bloomcodec::testing::RunCliOnTerminal;
using manifest_test::TempDir;
using manifest_test::WriteFile;
using pebble::testing::PebbleEntry;
using pebble::testing::PebbleTableSpec;
using pebble::testing::PrefixedEntries;
using pebble_test::Edit;
using pebble_test::NewTable;
using pebble_test::TableFileName;

// A table file and its MANIFEST record (level, number, bounds, size, sequence numbers 5).
NewTable Put(const std::string& dir, std::uint64_t number, int level, const std::string& prefix,
             int rows, const PebbleTableSpec& spec) {
  const std::vector<PebbleEntry> entries = PrefixedEntries(prefix, rows);
  const ByteVector bytes = pebble::testing::BuildPebbleTable(entries, spec);
  WriteFile(dir + "/" + TableFileName(number), std::string(bytes.begin(), bytes.end()));
  NewTable t = pebble_test::Table(level, number, entries.front().user_key, entries.back().user_key,
                                  bytes.size());
  t.smallest_seq = t.largest_seq = 5;
  return t;
}

PebbleTableSpec Spec(std::uint32_t version, std::uint32_t bits = 10) {
  PebbleTableSpec s;
  s.version = version;
  s.bits_per_key = bits;
  return s;
}

// Format major version 1: CURRENT names MANIFEST-000009; tables v1..v4 on L0, L5 and L6, one of
// them with a creation time, one under tag 102 (a path id), one with a two-level index.
std::set<std::string> WriteCurrentDatabase(const std::string& dir) {
  std::set<std::string> keys;
  NewTable a = Put(dir, 5, 0, "a", 150, Spec(1));
  NewTable b = Put(dir, 6, 5, "b", 150, Spec(2));
  b.creation_time = 1700000000;
  NewTable c = Put(dir, 7, 6, "c", 150, Spec(3));
  PebbleTableSpec two_level = Spec(4);
  two_level.two_level = true;  // partitions copied, the top level written again
  NewTable d = Put(dir, 8, 6, "d", 150, two_level);
  Edit add = pebble_test::Header(12);
  add.Add(a).Add(b).AddAs(102, c).Add(d);
  WriteFile(dir + "/MANIFEST-000009", pebble_test::Log({add}));
  WriteFile(dir + "/CURRENT", "MANIFEST-000009\n");
  WriteFile(dir + "/OPTIONS-000010", "[Version]\n  pebble_version=0.1\n");
  for (const char* p : {"a", "b", "c", "d"}) {
    for (const PebbleEntry& e : PrefixedEntries(p, 150)) keys.insert(e.user_key);
  }
  return keys;
}

// Format major version 16 with markers: a physical Pebblev4 table referring to a blob file, and
// a backing with two virtual tables (one with a synthetic prefix) in another edit.
std::set<std::string> WriteMarkerDatabase(const std::string& dir) {
  std::set<std::string> keys;
  NewTable p = Put(dir, 5, 6, "p", 200, Spec(4));
  p.blob_refs = {{1, 40, 0}};
  p.creation_time = 1700000001;
  const NewTable whole = Put(dir, 12, 5, "r", 200, Spec(4));
  NewTable v1 = pebble_test::Table(5, 21, "r0000", "r0099", 400);
  v1.backing = 12;
  v1.smallest_seq = v1.largest_seq = 5;
  NewTable v2 = pebble_test::Table(5, 22, "r0100", "r0199", 400);
  v2.backing = 12;
  v2.prefix = "t/";
  v2.smallest_seq = v2.largest_seq = 5;
  Edit first = pebble_test::Header(30);
  first.NewBlobFile(1, 13, 100, 60, 1700000000).Add(p);
  Edit second;
  second.CreatedBacking(12, whole.size).Add(v1).Add(v2);
  WriteFile(dir + "/MANIFEST-000020", pebble_test::Log({first, second}));
  WriteFile(dir + "/000013.blob", std::string(100, 'x'));
  WriteFile(dir + "/marker.format-version.000001.016", "");
  WriteFile(dir + "/marker.manifest.000003.MANIFEST-000020", "");
  for (const char* x : {"p", "r"}) {
    for (const PebbleEntry& e : PrefixedEntries(x, 200)) keys.insert(e.user_key);
  }
  return keys;
}

// As go-ethereum's databases before format major version 5 (FORMAT.md §8.4): CURRENT, OPTIONS of
// pebble_version 0.1, RocksDBv2 tables with Snappy and the signed hash at 10 bits per key; the
// big one at L6 has a two-level index, the one at L5 range deletions (named twice, as Pebble v1
// names them), one more at L0.
std::set<std::string> WriteGethDatabase(const std::string& dir) {
  PebbleTableSpec spec = Spec(1);
  spec.rocksdb_v2 = true;
  spec.compression = blocktable::BlockCompression::kSnappy;
  spec.block_size = 512;
  PebbleTableSpec big = spec;
  big.two_level = true;
  NewTable a = Put(dir, 5, 6, "a", 400, big);
  PebbleTableSpec dels = spec;
  dels.range_dels = {{"b0010", "b0020"}};
  NewTable b = Put(dir, 6, 5, "b", 150, dels);
  NewTable c = Put(dir, 7, 0, "c", 100, spec);
  Edit add = pebble_test::Header(12);
  add.Add(a).Add(b).Add(c);
  WriteFile(dir + "/MANIFEST-000009", pebble_test::Log({add}));
  WriteFile(dir + "/CURRENT", "MANIFEST-000009\n");
  WriteFile(dir + "/OPTIONS-000010", "[Version]\n  pebble_version=0.1\n");
  std::set<std::string> keys;
  const std::vector<std::pair<std::string, int>> tables = {{"a", 400}, {"b", 150}, {"c", 100}};
  for (const auto& t : tables) {
    for (const PebbleEntry& e : PrefixedEntries(t.first, t.second)) keys.insert(e.user_key);
  }
  return keys;
}

// A columnar table file (columnar_table_builder.h) and its MANIFEST record, as Put.
NewTable PutColumnar(const std::string& dir, std::uint64_t number, int level,
                     const std::string& prefix, int rows,
                     const pebble::testing::ColumnarTableSpec& spec) {
  const std::vector<PebbleEntry> entries = PrefixedEntries(prefix, rows);
  const ByteVector bytes = pebble::testing::BuildColumnarTable(entries, spec);
  WriteFile(dir + "/" + TableFileName(number), std::string(bytes.begin(), bytes.end()));
  NewTable t = pebble_test::Table(level, number, entries.front().user_key, entries.back().user_key,
                                  bytes.size());
  t.smallest_seq = t.largest_seq = 5;
  return t;
}

// 12 bits per key (8 probes): a rewrite to 20 takes the rounded probes of our writer
// (PolicyForRewrite keeps the newer era only where its table gives the recorded count).
pebble::testing::ColumnarTableSpec ColumnarSpec(std::uint32_t version, std::uint32_t bits = 12) {
  pebble::testing::ColumnarTableSpec s;
  s.version = version;
  s.bits_per_key = bits;
  return s;
}

// Format major version 24 (FormatValueSeparation: Pebble writes Pebblev7) with the manifest
// marker: a Pebblev5 table on L0 (written under FMV 19 before the database moved on), a Pebblev6
// one on L5, a Pebblev7 one on L6 with a two-level index, XXHash64 and a range deletion, and a
// Pebblev7 backing (8) with two virtual tables (21, 22; one with a synthetic prefix) on L6.
std::set<std::string> WriteColumnarDatabase(const std::string& dir) {
  const NewTable a = PutColumnar(dir, 5, 0, "a", 150, ColumnarSpec(5));
  NewTable b = PutColumnar(dir, 6, 5, "b", 150, ColumnarSpec(6));
  b.creation_time = 1700000002;
  pebble::testing::ColumnarTableSpec v7 = ColumnarSpec(7);
  v7.two_level = true;
  v7.checksum = blocktable::ChecksumType::kXxHash64;
  v7.range_dels = {{"c0010", "c0020"}};
  const NewTable c = PutColumnar(dir, 7, 6, "c", 150, v7);
  const NewTable whole = PutColumnar(dir, 8, 6, "d", 150, ColumnarSpec(7));
  NewTable v1 = pebble_test::Table(6, 21, "d0000", "d0074", 900);
  NewTable v2 = pebble_test::Table(6, 22, "d0075", "d0149", 900);
  v1.backing = v2.backing = 8;
  v2.prefix = "t/";
  v1.smallest_seq = v1.largest_seq = v2.smallest_seq = v2.largest_seq = 5;
  Edit add = pebble_test::Header(30);
  add.Add(a).Add(b).Add(c);
  Edit views;
  views.CreatedBacking(8, whole.size).Add(v1).Add(v2);
  WriteFile(dir + "/MANIFEST-000009", pebble_test::Log({add, views}));
  WriteFile(dir + "/marker.format-version.000002.024", "");
  WriteFile(dir + "/marker.manifest.000001.MANIFEST-000009", "");
  std::set<std::string> keys;
  for (const char* p : {"a", "b", "c", "d"}) {
    for (const PebbleEntry& e : PrefixedEntries(p, 150)) keys.insert(e.user_key);
  }
  return keys;
}

// The table our columnar writer makes for WriteColumnarDatabase's table of `prefix` at `bits`.
ByteVector ColumnarDatabaseTable(const std::string& prefix, std::uint32_t bits) {
  const std::uint32_t version = prefix == "a" ? 5 : prefix == "b" ? 6 : 7;
  pebble::testing::ColumnarTableSpec spec = ColumnarSpec(version, bits);
  if (prefix == "c") {
    spec.two_level = true;
    spec.checksum = blocktable::ChecksumType::kXxHash64;
    spec.range_dels = {{"c0010", "c0020"}};
  }
  return pebble::testing::BuildColumnarTable(PrefixedEntries(prefix, 150), spec);
}

// The live table files of the database as Pebble opens it: every key their filters must hold.
struct Reread {
  pebble::Database db;
  std::set<std::uint64_t> files;  // physical tables and backings
  std::set<std::string> keys;     // the keys of all live files (asked of their filters)
  std::uint32_t filter_bits = 0;  // of the first table
  std::set<std::string> formats;  // "RocksDBv2", "Pebblev4", ...
  std::set<std::uint32_t> probes;
};

Reread ReadBack(const std::string& dir) {
  Reread out;
  out.db = pebble::ReadDatabase(dir);
  EXPECT_TRUE(out.db.view.from_manifest);
  for (const manifest::LiveTable& t : out.db.view.live) {
    const std::uint64_t file = t.meta.is_virtual ? t.meta.backing : t.meta.number;
    if (!out.files.insert(file).second) continue;
    Result<InputFile> in = InputFile::Open(t.path);
    EXPECT_TRUE(in.ok()) << t.path;
    if (!in.ok()) continue;
    if (!t.meta.is_virtual) {
      EXPECT_EQ(in->bytes().size(), t.meta.size) << t.path;
    }
    Result<pebble::PebbleTable> table =
        pebble::PebbleTable::Open(in->bytes(), t.path, {pebble::PebbleFooters::kPebbleAndRocksDb});
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (!table.ok()) continue;
    Result<KeyList> keys = pebble::PebbleFilterKeys(*table);
    EXPECT_TRUE(keys.ok());
    if (!keys.ok()) continue;
    std::vector<std::uint8_t> answers(keys->size());
    table->MayContainBatch(*keys, answers);
    for (std::size_t i = 0; i < keys->size(); ++i) {
      EXPECT_TRUE(answers[i]) << t.path << " key " << i;
      const ByteSpan k = (*keys)[i];
      out.keys.insert(std::string(k.begin(), k.end()));
    }
    out.formats.insert(table->format_name());
    if (table->filter().bloom) out.probes.insert(table->filter().bloom->num_probes());
    if (out.filter_bits == 0 && table->filter().bloom) {
      out.filter_bits = static_cast<std::uint32_t>(table->filter().bloom->bit_count());
    }
  }
  for (const manifest::BackingTable& b : out.db.view.manifest.backings) {
    EXPECT_EQ(fs::file_size(dir + "/" + TableFileName(b.number)), b.size) << "backing " << b.number;
  }
  return out;
}

void ExpectNothingAboveInfo(const std::string& dir) {
  const VerifyReport r = manifest_test::Verify(dir);
  for (const FileReport& f : r.files) {
    for (const Finding& x : f.findings) {
      EXPECT_EQ(x.severity, Severity::kInfo) << f.path << ": " << x.kind << ": " << x.message;
    }
  }
}

Result<RepairReport> Repair(const std::string& dir, std::optional<double> bits,
                            bool dry_run = false) {
  RepairOptions options;
  options.bits_per_key = bits;
  options.dry_run = dry_run;
  const std::vector<std::string> paths{dir};
  return RepairPaths(paths, options);
}

TEST(PebbleRepair, CurrentDatabaseAllTablesAtNewBitsPerKey) {
  TempDir dir("pebble-repair-current");
  const std::string db = dir.path() + "/db";
  fs::create_directories(db);
  const std::set<std::string> keys = WriteCurrentDatabase(db);
  const Reread before = ReadBack(db);
  Result<RepairReport> dry = Repair(db, 16, true);
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  for (const TableRepair& t : dry->tables) EXPECT_EQ(t.action, "planned") << t.path;
  EXPECT_EQ(ReadText(db + "/CURRENT"), "MANIFEST-000009\n");  // the dry run wrote nothing

  Result<RepairReport> done = Repair(db, 16);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  ASSERT_EQ(done->tables.size(), 4u);
  for (const TableRepair& t : done->tables) {
    EXPECT_EQ(t.action, "repaired") << t.path;
    EXPECT_EQ(t.family, "pebble");
    EXPECT_EQ(t.bits_per_key, 16);
    EXPECT_GT(t.new_filter_bytes, t.old_filter_bytes);
    EXPECT_FALSE(t.backup.empty());
  }
  // Tables 12..15 (the next file number; OPTIONS-000010 is below it), then MANIFEST-000016.
  EXPECT_EQ(ReadText(db + "/CURRENT"), "MANIFEST-000016\n");
  EXPECT_FALSE(fs::exists(db + "/MANIFEST-000009"));
  EXPECT_FALSE(fs::exists(db + "/" + TableFileName(5)));
  const Reread after = ReadBack(db);
  EXPECT_EQ(after.files, (std::set<std::uint64_t>{12, 13, 14, 15}));
  EXPECT_EQ(after.keys, keys);
  EXPECT_GT(after.filter_bits, before.filter_bits);
  EXPECT_EQ(*after.db.view.manifest.next_file, 17u);
  for (const manifest::LiveTable& t : after.db.view.live) {
    EXPECT_EQ(t.meta.creation_time, t.meta.number == 13 ? 1700000000u : 0u) << t.path;
    if (t.meta.number == 14) {
      EXPECT_EQ(t.meta.record.tag, 102u);
    }
  }
  ExpectNothingAboveInfo(db);
  // The backup beside the database: the old MANIFEST, CURRENT and tables.
  const std::string backup = done->tables[0].backup;
  EXPECT_EQ(fs::path(backup).parent_path(), fs::path(dir.path()));
  EXPECT_EQ(ReadText(backup + "/CURRENT"), "MANIFEST-000009\n");
  EXPECT_TRUE(fs::exists(backup + "/MANIFEST-000009"));
  EXPECT_TRUE(fs::exists(backup + "/" + TableFileName(8)));

  // Again without parameters: every filter is right now, nothing is written.
  Result<RepairReport> again = Repair(db, std::nullopt);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (const TableRepair& t : again->tables) EXPECT_EQ(t.action, "sound") << t.path;
  EXPECT_EQ(ReadText(db + "/CURRENT"), "MANIFEST-000016\n");
}

TEST(PebbleRepair, MarkerDatabaseVirtualTablesFollowTheirBacking) {
  TempDir dir("pebble-repair-marker");
  const std::string db = dir.path() + "/db";
  fs::create_directories(db);
  const std::set<std::string> keys = WriteMarkerDatabase(db);
  // (At 12 bits per key these 200-key filters would come out as they are: the same 5 cache
  // lines, and the 6 probes of either era's table for 10 bits are kept.)
  Result<RepairReport> done = Repair(db, 16);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  ASSERT_EQ(done->tables.size(), 2u);
  for (const TableRepair& t : done->tables) EXPECT_EQ(t.action, "repaired") << t.path;
  // Files from 30 on: table 5 -> 30; backing 12 -> 31 with virtual tables 32, 33; MANIFEST 34.
  EXPECT_TRUE(fs::exists(db + "/marker.manifest.000004.MANIFEST-000034"));
  EXPECT_FALSE(fs::exists(db + "/marker.manifest.000003.MANIFEST-000020"));
  EXPECT_FALSE(fs::exists(db + "/CURRENT"));
  const Reread after = ReadBack(db);
  EXPECT_TRUE(after.db.identity.from_marker);
  EXPECT_EQ(after.files, (std::set<std::uint64_t>{30, 31}));
  EXPECT_EQ(after.keys, keys);
  ASSERT_EQ(after.db.view.manifest.backings.size(), 1u);
  EXPECT_EQ(after.db.view.manifest.backings[0].number, 31u);
  EXPECT_EQ(after.db.view.manifest.backings[0].virtual_tables, 2u);
  std::set<std::uint64_t> virtual_numbers;
  for (const manifest::LiveTable& t : after.db.view.live) {
    if (t.meta.is_virtual) {
      virtual_numbers.insert(t.meta.number);
      EXPECT_EQ(t.meta.backing, 31u);
      EXPECT_EQ(t.meta.size, 400u);  // a virtual table's share stays as recorded
      EXPECT_EQ(t.meta.synthetic_prefix.has_value(), t.meta.number == 33);
    } else {
      EXPECT_EQ(t.meta.number, 30u);
      EXPECT_EQ(t.meta.creation_time, 1700000001u);
      ASSERT_EQ(t.meta.blob_references.size(), 1u);
      EXPECT_EQ(t.meta.blob_references[0].file_id, 1u);
      EXPECT_EQ(t.meta.blob_references[0].value_size, 40u);
    }
  }
  EXPECT_EQ(virtual_numbers, (std::set<std::uint64_t>{32, 33}));
  ASSERT_EQ(after.db.blob_files.size(), 1u);
  EXPECT_EQ(after.db.blob_files[0].meta.tables, 1u);
  ExpectNothingAboveInfo(db);
  // The backup holds the old marker's name and MANIFEST, and no CURRENT (there was none).
  const std::string backup = done->tables[0].backup;
  EXPECT_TRUE(fs::exists(backup + "/marker.manifest.000003.MANIFEST-000020"));
  EXPECT_TRUE(fs::exists(backup + "/MANIFEST-000020"));
  EXPECT_FALSE(fs::exists(backup + "/CURRENT"));
}

// Without parameters only the table whose filter misses keys is rebuilt, at the bits per key its
// filter records, and the table without a filter among tables with one, at Pebble's default.
TEST(PebbleRepair, OnlyTheWrongFilterIsRebuiltAtItsRecordedBits) {
  TempDir dir("pebble-repair-wrong");
  const std::string db = dir.path() + "/db";
  fs::create_directories(db);
  PebbleTableSpec wrong = Spec(4, 14);
  for (const PebbleEntry& e : PrefixedEntries("zz", 150))
    wrong.filter_keys_override.push_back(e.user_key);
  const NewTable a = Put(db, 5, 6, "a", 150, wrong);
  const NewTable b = Put(db, 6, 6, "b", 150, Spec(4));
  PebbleTableSpec none = Spec(4);
  none.filter = false;
  const NewTable c = Put(db, 7, 5, "c", 150, none);
  Edit add = pebble_test::Header(12);
  add.Add(a).Add(b).Add(c);
  WriteFile(db + "/MANIFEST-000009", pebble_test::Log({add}));
  WriteFile(db + "/marker.format-version.000001.013", "");
  WriteFile(db + "/marker.manifest.000001.MANIFEST-000009", "");
  Result<RepairReport> done = Repair(db, std::nullopt);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  ASSERT_EQ(done->tables.size(), 3u);
  std::map<std::string, const TableRepair*> by_name;
  for (const TableRepair& t : done->tables) by_name[fs::path(t.path).filename()] = &t;
  const TableRepair& fixed = *by_name.at(TableFileName(5));
  EXPECT_EQ(fixed.action, "repaired");
  EXPECT_EQ(fixed.reasons.front(), "false-negative");
  EXPECT_EQ(fixed.bits_per_key, 14);
  EXPECT_NE(fixed.sizing_basis.find("as recorded"), std::string::npos) << fixed.sizing_basis;
  EXPECT_EQ(by_name.at(TableFileName(6))->action, "sound");
  // The table without a filter among tables with one gets Pebble's default.
  const TableRepair& added = *by_name.at(TableFileName(7));
  EXPECT_EQ(added.action, "repaired");
  EXPECT_EQ(added.reasons, std::vector<std::string>{"no-filter"});
  EXPECT_EQ(added.bits_per_key, 10);
  EXPECT_EQ(added.old_filter_bytes, 0u);
  EXPECT_GT(added.new_filter_bytes, 0u);
  const Reread after = ReadBack(db);
  EXPECT_EQ(after.files, (std::set<std::uint64_t>{6, 12, 13}));
  ExpectNothingAboveInfo(db);
}

// go-ethereum's RocksDBv2 tables (two-level index, range deletions, Snappy). Without parameters:
// nothing to do, then a flipped filter byte (its block checksum fails) rebuilds that table alone,
// byte for byte as it was before the flip. At 16 bits per key: every table, still RocksDBv2,
// with the probes of the Pebble that wrote them (11; the later probe table would give 6).
TEST(PebbleRepair, GethRocksDbTablesAreRepairedInTheirFormat) {
  TempDir dir("pebble-repair-geth");
  const std::string db = dir.path() + "/db";
  fs::create_directories(db);
  const std::set<std::string> keys = WriteGethDatabase(db);
  const Reread before = ReadBack(db);
  EXPECT_EQ(before.formats, std::set<std::string>{"RocksDBv2"});
  EXPECT_EQ(before.probes, std::set<std::uint32_t>{6});
  Result<RepairReport> nothing = Repair(db, std::nullopt);
  ASSERT_TRUE(nothing.ok()) << nothing.status().ToString();
  for (const TableRepair& t : nothing->tables) EXPECT_EQ(t.action, "sound") << t.path;

  const std::string victim = db + "/" + TableFileName(6);
  const std::string intact = ReadText(victim);
  std::string flipped = intact;
  {
    const pebble::PebbleTable t =
        pebble::PebbleTable::Open(AsBytes(intact), victim,
                                  {pebble::PebbleFooters::kPebbleAndRocksDb})
            .value();
    flipped[t.filter().handle.offset + 20] ^= 0x10;
  }
  WriteFile(victim, flipped);
  Result<RepairReport> fixed = Repair(db, std::nullopt);
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
  for (const TableRepair& t : fixed->tables) {
    const bool is_victim = fs::path(t.path).filename() == TableFileName(6);
    EXPECT_EQ(t.action, is_victim ? "repaired" : "sound") << t.path;
    if (is_victim) {
      EXPECT_EQ(t.reasons, std::vector<std::string>{"structure"});
      EXPECT_EQ(t.keys, 150u);  // counted by the rewrite: verify could read no filter
    }
  }
  EXPECT_EQ(ReadText(db + "/" + TableFileName(12)), intact);
  Reread after = ReadBack(db);
  EXPECT_EQ(after.files, (std::set<std::uint64_t>{5, 7, 12}));
  EXPECT_EQ(after.keys, keys);
  ExpectNothingAboveInfo(db);

  Result<RepairReport> all = Repair(db, 16);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  for (const TableRepair& t : all->tables) EXPECT_EQ(t.action, "repaired") << t.path;
  after = ReadBack(db);
  EXPECT_EQ(after.keys, keys);
  EXPECT_EQ(after.formats, std::set<std::string>{"RocksDBv2"});
  EXPECT_EQ(after.probes, std::set<std::uint32_t>{11});
  EXPECT_EQ(ReadText(db + "/CURRENT"), "MANIFEST-000017\n");
  ExpectNothingAboveInfo(db);
}

TEST(PebbleRepair, RefusesWhatItCannotRewrite) {
  TempDir dir("pebble-repair-refused");
  const std::string db = dir.path() + "/db";
  fs::create_directories(db);
  WriteCurrentDatabase(db);
  RepairOptions options;
  const std::vector<std::string> paths{db};
  options.to = "rocksdb-bloom";
  Result<RepairReport> to = RepairPaths(paths, options);
  ASSERT_FALSE(to.ok());
  EXPECT_NE(to.status().ToString().find("pebble-bloom"), std::string::npos);
  options.to.clear();
  options.fp_chance = 0.01;
  EXPECT_FALSE(RepairPaths(paths, options).ok());
  options.fp_chance.reset();
  options.bits_per_key = 10.5;
  EXPECT_FALSE(RepairPaths(paths, options).ok());

  // A database another process holds Pebble's fcntl lock on.
  TempDir dir2("pebble-repair-locked");
  const std::string locked = dir2.path() + "/db";
  fs::create_directories(locked);
  WriteCurrentDatabase(locked);
  DatabaseHolder holder(
      [&] {
        // Pebble's vfs takes the lock with fcntl(F_SETLK) on LOCK.
        const int fd = ::open((locked + "/LOCK").c_str(), O_RDWR | O_CREAT, 0644);
        struct flock l {};
        l.l_type = F_WRLCK;
        l.l_whence = SEEK_SET;
        if (fd < 0 || ::fcntl(fd, F_SETLK, &l) != 0 || ::write(1, "open", 4) != 4) return;
        DatabaseHolder::WaitForRelease();
      },
      "open");
  ASSERT_TRUE(holder.held());
  ExpectRefusedWhileHeld(locked, holder, "fcntl", [&] { return Repair(locked, 12).status(); });
  EXPECT_TRUE(holder.Release());
  EXPECT_TRUE(fs::exists(locked + "/" + TableFileName(5)));
}

// Columnar tables (Pebblev5..v7) at a new bits per key: each rewritten file is the table our
// columnar writer makes for the same entries at 20 bits per key (same version, checksum, index
// shape, range deletion), the MANIFEST records the new files with their other fields, every key
// is in the new filters, and a second repair without parameters finds nothing to do.
TEST(PebbleRepairColumnar, EveryTableAtNewBitsPerKeyIsOurWritersTable) {
  TempDir dir("pebble-repair-columnar");
  const std::string db = dir.path() + "/db";
  fs::create_directories(db);
  const std::set<std::string> keys = WriteColumnarDatabase(db);
  Result<RepairReport> done = Repair(db, 20);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  ASSERT_EQ(done->tables.size(), 4u);
  for (const TableRepair& t : done->tables) {
    EXPECT_EQ(t.action, "repaired") << t.path << ": " << t.damage;
    EXPECT_EQ(t.bits_per_key, 20);
    EXPECT_GT(t.new_filter_bytes, t.old_filter_bytes);
  }
  // Files from 30 on: 5, 6, 7 -> 30, 31, 32; backing 8 -> 33 with virtual tables 34, 35;
  // MANIFEST 36.
  EXPECT_TRUE(fs::exists(db + "/marker.manifest.000002.MANIFEST-000036"));
  const Reread after = ReadBack(db);
  EXPECT_EQ(after.files, (std::set<std::uint64_t>{30, 31, 32, 33}));
  EXPECT_EQ(after.keys, keys);
  ExpectNothingAboveInfo(db);
  const std::vector<std::string> prefixes = {"a", "b", "c", "d"};
  for (std::size_t i = 0; i < prefixes.size(); ++i) {
    const ByteVector expected = ColumnarDatabaseTable(prefixes[i], 20);
    EXPECT_EQ(ReadText(db + "/" + TableFileName(30 + i)),
              std::string(expected.begin(), expected.end()))
        << prefixes[i];
  }
  std::set<std::uint64_t> virtual_numbers;
  for (const manifest::LiveTable& t : after.db.view.live) {
    EXPECT_EQ(t.meta.creation_time, t.meta.number == 31 ? 1700000002u : 0u) << t.path;
    if (!t.meta.is_virtual) continue;
    virtual_numbers.insert(t.meta.number);
    EXPECT_EQ(t.meta.backing, 33u);
    EXPECT_EQ(t.meta.size, 900u);
    EXPECT_EQ(t.meta.synthetic_prefix.has_value(), t.meta.number == 35);
  }
  EXPECT_EQ(virtual_numbers, (std::set<std::uint64_t>{34, 35}));
  Result<RepairReport> again = Repair(db, std::nullopt);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (const TableRepair& t : again->tables) EXPECT_EQ(t.action, "sound") << t.path;
}

// Flips one byte of a table's filter block; with `fix_checksum` its trailer checksum is
// written again (the filter reads, and answers wrongly), else the block fails its checksum.
void FlipFilterByte(const std::string& path, bool fix_checksum) {
  std::string bytes = ReadText(path);
  const ByteVector b(bytes.begin(), bytes.end());
  Result<pebble::PebbleTable> t = pebble::PebbleTable::Open(b, path);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const blocktable::BlockHandle h = t->filter().handle;
  bytes[h.offset + 3] = static_cast<char>(~bytes[h.offset + 3]);
  if (fix_checksum) {
    const ByteVector stored(bytes.begin() + h.offset, bytes.begin() + h.offset + h.size);
    const std::uint32_t crc = blocktable::BlockChecksum(t->footer().checksum, stored, 0);
    for (int i = 0; i < 4; ++i)
      bytes[h.offset + h.size + 1 + i] = static_cast<char>(crc >> (8 * i));
  }
  WriteFile(path, bytes);
}

// Without parameters: one byte of one columnar table's filter flipped (its trailer checksum
// written again, so that the block reads and its answers are wrong): only that table is rebuilt,
// at the 12 bits per key its filter records, and its filter is our writer's again.
TEST(PebbleRepairColumnar, OnlyTheTableWithTheFlippedFilterByteIsRebuilt) {
  TempDir dir("pebble-repair-columnar-flip");
  const std::string db = dir.path() + "/db";
  fs::create_directories(db);
  const std::set<std::string> keys = WriteColumnarDatabase(db);
  FlipFilterByte(db + "/" + TableFileName(6), true);
  Result<RepairReport> done = Repair(db, std::nullopt);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  std::map<std::string, const TableRepair*> by_name;
  for (const TableRepair& t : done->tables) by_name[fs::path(t.path).filename()] = &t;
  const TableRepair& fixed = *by_name.at(TableFileName(6));
  EXPECT_EQ(fixed.action, "repaired");
  EXPECT_EQ(fixed.reasons.front(), "false-negative");
  // The recorded sizing: 8 probes (12 and 13 bits per key both give them, and the same 5 cache
  // lines for 150 keys, so the filter below is the one written at 12).
  EXPECT_NE(fixed.sizing_basis.find("as recorded"), std::string::npos) << fixed.sizing_basis;
  EXPECT_EQ(pebble::BloomProbeCount(static_cast<std::uint32_t>(fixed.bits_per_key.value_or(0)),
                                    pebble::BloomProbes::kRounded),
            8u);
  EXPECT_EQ(by_name.at(TableFileName(5))->action, "sound");
  EXPECT_EQ(by_name.at(TableFileName(7))->action, "sound");
  EXPECT_EQ(by_name.at(TableFileName(8))->action, "sound");
  const Reread after = ReadBack(db);
  EXPECT_EQ(after.files, (std::set<std::uint64_t>{5, 7, 8, 30}));
  EXPECT_EQ(after.keys, keys);
  ExpectNothingAboveInfo(db);
  const ByteVector expected = ColumnarDatabaseTable("b", 12);
  EXPECT_EQ(ReadText(db + "/" + TableFileName(30)), std::string(expected.begin(), expected.end()));
}

// Without parameters: a filter byte flipped and the trailer left as it was. The filter block
// fails its checksum (verify: structure), no filter is left to read the sizing from, so the
// table is rebuilt at Pebble's default 10 bits per key; the others are not touched.
TEST(PebbleRepairColumnar, AFilterBlockFailingItsChecksumIsRebuilt) {
  TempDir dir("pebble-repair-columnar-checksum");
  const std::string db = dir.path() + "/db";
  fs::create_directories(db);
  const std::set<std::string> keys = WriteColumnarDatabase(db);
  FlipFilterByte(db + "/" + TableFileName(7), false);
  Result<RepairReport> done = Repair(db, std::nullopt);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  std::map<std::string, const TableRepair*> by_name;
  for (const TableRepair& t : done->tables) by_name[fs::path(t.path).filename()] = &t;
  const TableRepair& fixed = *by_name.at(TableFileName(7));
  ASSERT_EQ(fixed.action, "repaired") << fixed.damage;
  EXPECT_EQ(fixed.reasons, std::vector<std::string>{"structure"});
  EXPECT_EQ(fixed.bits_per_key, 10);
  EXPECT_EQ(by_name.at(TableFileName(5))->action, "sound");
  EXPECT_EQ(by_name.at(TableFileName(6))->action, "sound");
  EXPECT_EQ(by_name.at(TableFileName(8))->action, "sound");
  const Reread after = ReadBack(db);
  EXPECT_EQ(after.files, (std::set<std::uint64_t>{5, 6, 8, 30}));
  EXPECT_EQ(after.keys, keys);
  ExpectNothingAboveInfo(db);
  const ByteVector expected = ColumnarDatabaseTable("c", 10);
  EXPECT_EQ(ReadText(db + "/" + TableFileName(30)), std::string(expected.begin(), expected.end()));
}

// Through the binary: --json (the schema's document, family "pebble"), exit 0 when repaired, 1
// when a table is damaged besides its filter (left alone, the others repaired), 2 for refusals.
TEST(PebbleRepairCommand, ExitStatusAndJson) {
  TempDir dir("pebble-repair-cli");
  const std::string db = dir.path() + "/db";
  fs::create_directories(db);
  WriteCurrentDatabase(db);
  for (const char* refused : {"--to=rocksdb-bloom", "--fp-chance=0.01"}) {
    const std::string arg = refused;
    const std::size_t eq = arg.find('=');
    const CliRun r = RunCli({"repair", db, arg.substr(0, eq), arg.substr(eq + 1)});
    EXPECT_EQ(r.exit_code, 2) << r.err;
  }
  const CliRun done = RunCli({"repair", db, "--bits-per-key", "16", "--json"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const nlohmann::json j = nlohmann::json::parse(done.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << done.out;
  ASSERT_EQ(j["tables"].size(), 4u);
  for (const nlohmann::json& t : j["tables"]) {
    EXPECT_EQ(t["family"], "pebble");
    EXPECT_EQ(t["action"], "repaired");
    EXPECT_EQ(t["new_format"], "pebble-bloom");
  }
  EXPECT_EQ(j["summary"]["rebuilt"], 4);

  // A table whose data block fails its checksum, among one whose filter misses keys.
  TempDir dir2("pebble-repair-cli-damaged");
  const std::string damaged = dir2.path() + "/db";
  fs::create_directories(damaged);
  PebbleTableSpec wrong = Spec(4);
  for (const PebbleEntry& e : PrefixedEntries("zz", 100))
    wrong.filter_keys_override.push_back(e.user_key);
  const NewTable a = Put(damaged, 5, 6, "a", 100, wrong);
  const NewTable b = Put(damaged, 6, 5, "b", 100, Spec(4));
  std::string bytes = ReadText(damaged + "/" + TableFileName(6));
  bytes[40] ^= 0x55;
  WriteFile(damaged + "/" + TableFileName(6), bytes);
  Edit add = pebble_test::Header(12);
  add.Add(a).Add(b);
  WriteFile(damaged + "/MANIFEST-000009", pebble_test::Log({add}));
  WriteFile(damaged + "/marker.format-version.000001.013", "");
  WriteFile(damaged + "/marker.manifest.000001.MANIFEST-000009", "");
  const CliRun r = RunCli({"repair", damaged});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("damaged"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(damaged + "/" + TableFileName(6)));   // left alone
  EXPECT_FALSE(fs::exists(damaged + "/" + TableFileName(5)));  // repaired as 000012.sst
  EXPECT_TRUE(fs::exists(damaged + "/" + TableFileName(12)));
}

// Progress per table on a terminal (tables done of those planned, and their bytes), in the dry
// run and the repair; nothing with --json on the same terminal, nor in a pipe.
TEST(PebbleRepairCommand, ProgressPerTableOnATerminalOnly) {
  TempDir dir("pebble-repair-progress");
  const std::string db = dir.path() + "/db";
  fs::create_directories(db);
  WriteGethDatabase(db);
  const CliRun planned = RunCliOnTerminal({"repair", db, "--bits-per-key", "13", "--dry-run"});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  EXPECT_NE(planned.err.find(db + ": planned 1 of 3 tables ("), std::string::npos) << planned.err;
  EXPECT_NE(planned.err.find(db + ": planned 3 of 3 tables ("), std::string::npos) << planned.err;
  const CliRun piped = RunCli({"repair", db, "--bits-per-key", "13", "--dry-run"});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err, "");
  const CliRun r = RunCliOnTerminal({"repair", db, "--bits-per-key", "13", "--no-backup"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(db + ": repaired 1 of 3 tables ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(db + ": repaired 3 of 3 tables ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" MB) ..."), std::string::npos) << r.err;
  EXPECT_TRUE(r.err.ends_with("\r\033[K")) << "the line is erased at the end";
  const CliRun json = RunCliOnTerminal({"repair", db, "--bits-per-key", "12", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.err, "");
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out;
}

// The commit: the new marker file's creation, or the rename over CURRENT.
int PebbleCommitStep(const std::vector<StepTrace>& steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string name = fs::path(steps[i].path).filename().string();
    if ((steps[i].step == "create" && name.starts_with("marker.manifest.")) ||
        (steps[i].step == "rename" && name == "CURRENT")) {
      return static_cast<int>(i + 1);
    }
  }
  return -1;
}

void KillLoop(const std::string& what, std::set<std::string> (*write)(const std::string&)) {
  TempDir dir("pebble-repair-killed");
  const std::string original = dir.path() + "/original";
  const std::string db = dir.path() + "/db";
  fs::create_directories(original);
  const std::set<std::string> keys = write(original);
  auto repair = [&] {
    lsmrepair::PebbleRepairOptions options;
    options.rewrite = lsmrepair::PebbleFilterRewrite(15);
    options.check = lsmrepair::PebbleTableCheck();
    options.no_backup = true;
    return lsmrepair::RepairPebbleDatabase(db, options).ok();
  };
  CopyDatabase(original, db);
  const std::set<std::uint64_t> before = ReadBack(db).files;
  const ChildRun whole = RunInChild(0, repair);
  ASSERT_FALSE(whole.killed);
  ASSERT_EQ(whole.exit_code, 0);
  const int commit = PebbleCommitStep(whole.done);
  ASSERT_GT(commit, 0);
  const std::set<std::uint64_t> after = ReadBack(db).files;
  ASSERT_EQ(after.size(), before.size());
  ASSERT_GT(*after.begin(), *before.rbegin());
  int old_seen = 0, new_seen = 0;
  const std::vector<int> points = KillPoints(whole.done, commit);
  for (int n : points) {
    CopyDatabase(original, db);
    const ChildRun run = RunInChild(n, repair);
    ASSERT_TRUE(run.killed) << "step " << n;
    const Reread r = ReadBack(db);
    EXPECT_EQ(r.files, n <= commit ? before : after)
        << what << ": killed before step " << n << " (" << run.killed_at.step << " "
        << run.killed_at.path << ")";
    EXPECT_EQ(r.keys, keys) << "killed before step " << n;
    (r.files == before ? old_seen : new_seen)++;
  }
  PrintKillFigures(what, static_cast<int>(whole.done.size()), commit, old_seen, new_seen);
}

TEST(PebbleRepairKilled, CurrentDatabaseReadsAllOldOrAllNew) {
  KillLoop("Pebble, CURRENT", WriteCurrentDatabase);
}

TEST(PebbleRepairKilled, MarkerDatabaseReadsAllOldOrAllNew) {
  KillLoop("Pebble, manifest marker", WriteMarkerDatabase);
}

TEST(PebbleRepairKilled, GethRocksDbTablesReadAllOldOrAllNew) {
  KillLoop("Pebble, RocksDBv2 tables (go-ethereum)", WriteGethDatabase);
}

TEST(PebbleRepairKilled, ColumnarDatabaseReadsAllOldOrAllNew) {
  KillLoop("Pebble, columnar tables", WriteColumnarDatabase);
}

}  // namespace
}  // namespace bloomcodec::repair_test

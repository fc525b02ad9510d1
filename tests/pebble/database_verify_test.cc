// verify and inspect of Pebble database directories built in the test (tables from
// table_builder.h, MANIFESTs from manifest_writer.h): the Pebble planner takes them before
// RocksDB's and LevelDB's, verifies each table by its magic (Pebblev1..v4, and RocksDBv2 as
// Pebble writes it), reports levels, missing and obsolete tables, key ranges, virtual tables at
// their backing, the fallback to the directory listing, and L6 and `filter_policy=none` levels
// as Pebble's reads see them. A RocksDB database with OPTIONS stays RocksDB's.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "manifest/db_checks.h"
#include "pebble/database.h"
#include "pebble/manifest_writer.h"
#include "pebble/table_builder.h"
#include "pebble/table_check.h"
#include "rocksdb/sst/verify.h"

namespace bloomcodec::pebble_test {
namespace {

using manifest_test::ReadFile;
using manifest_test::TempDir;
using manifest_test::WriteFile;
using pebble::testing::BuildPebbleTable;
using pebble::testing::PebbleEntry;
using pebble::testing::PebbleTableSpec;
using pebble::testing::PrefixedEntries;
using pebble_test::TableFileName;
namespace fs = std::filesystem;

// Writes table `number` of `entries` and returns the MANIFEST record of it at `level`.
NewTable PutTable(const std::string& dir, std::uint64_t number, int level,
                  const std::vector<PebbleEntry>& entries, const PebbleTableSpec& spec) {
  const ByteVector bytes = BuildPebbleTable(entries, spec);
  WriteFile(dir + "/" + TableFileName(number), std::string(bytes.begin(), bytes.end()));
  return Table(level, number, entries.front().user_key, entries.back().user_key, bytes.size());
}

std::string Options(const std::string& l6_policy) {
  std::string o =
      "[Version]\n  pebble_version=0.1\n\n[Options]\n  comparer=leveldb.BytewiseComparator\n"
      "  format_major_version=13\n  merger=pebble.concatenate\n";
  for (int level = 0; level < 7; ++level) {
    o += "\n[Level \"" + std::to_string(level) + "\"]\n  filter_policy=" +
         (level == 6 ? l6_policy : std::string("rocksdb.BuiltinBloomFilter")) + "\n";
  }
  return o;
}

VerifyReport Verify(const std::string& dir) { return manifest_test::Verify(dir); }

const FileReport& Report(const VerifyReport& r, const std::string& name) {
  for (const FileReport& f : r.files) {
    if (fs::path(f.path).filename() == name) return f;
  }
  ADD_FAILURE() << "no report of " << name;
  return r.files.front();
}

std::vector<std::string> KindsOf(const FileReport& f) {
  std::vector<std::string> out;
  for (const Finding& x : f.findings) out.push_back(x.kind);
  return out;
}

// After `geth db pebble-upgrade` and Pebble v2 (FORMAT.md §8.4): markers at format major version
// 13, CURRENT naming MANIFEST-000000, RocksDBv2 tables in L6 marked for compaction, a Pebblev3
// table flushed to L0, a Pebblev2 L6 table without a filter (OPTIONS: L6 filter_policy=none),
// and an obsolete RocksDBv2 table.
void WriteUpgradedDatabase(const std::string& dir) {
  PebbleTableSpec rocks;
  rocks.rocksdb_v2 = true;
  rocks.range_dels = {{"k0005", "k0007"}};
  PebbleTableSpec v3;
  v3.version = 3;
  PebbleTableSpec bare;
  bare.version = 2;
  bare.filter = false;
  NewTable old = PutTable(dir, 25, 6, PrefixedEntries("k", 400), rocks);
  old.needs_compaction = true;
  const NewTable fresh = PutTable(dir, 32, 0, PrefixedEntries("m", 150), v3);
  const NewTable unfiltered = PutTable(dir, 33, 6, PrefixedEntries("t", 90), bare);
  PutTable(dir, 20, 6, PrefixedEntries("a", 30), rocks);  // obsolete: no version lists it
  Edit rotated = Header(40, 30);
  rotated.Add(old);
  Edit flush;
  flush.LogNumber(33).NextFile(41).Add(fresh).Add(unfiltered);
  WriteFile(dir + "/MANIFEST-000031", Log({rotated, flush}));
  WriteFile(dir + "/MANIFEST-000009", Log({Header(10), Edit().Add(Table(0, 5))}));  // older
  WriteFile(dir + "/marker.format-version.000012.013", "");
  WriteFile(dir + "/marker.manifest.000002.MANIFEST-000031", "");
  WriteFile(dir + "/CURRENT", "MANIFEST-000000\n");  // the trap of FMV 3: names no file
  WriteFile(dir + "/OPTIONS-000034", Options("none"));
}

TEST(PebbleDatabaseVerify, UpgradedGethDirectoryWithMarkersAndMixedTables) {
  TempDir dir("pebble-verify-upgraded");
  WriteUpgradedDatabase(dir.path());
  const VerifyReport r = Verify(dir.path());
  ASSERT_EQ(r.files.size(), 4u);  // three live tables and the obsolete one; no MANIFEST report
  const FileReport& old = Report(r, "000025.sst");
  EXPECT_EQ(old.format, "rocksdb-sst");
  EXPECT_EQ(old.level, 6);
  EXPECT_EQ(old.manifest, dir.path() + "/MANIFEST-000031");
  EXPECT_TRUE(old.findings.empty()) << old.findings[0].message;
  EXPECT_EQ(old.keys_checked, 400u);
  EXPECT_TRUE(old.filter_unread_at_level);
  const FileReport& fresh = Report(r, "000032.sst");
  EXPECT_EQ(fresh.format, "pebble-table");
  EXPECT_EQ(fresh.version, "Pebblev3");
  EXPECT_EQ(fresh.level, 0);
  EXPECT_TRUE(fresh.findings.empty()) << fresh.findings[0].message;
  EXPECT_FALSE(fresh.filter_unread_at_level);
  const FileReport& unfiltered = Report(r, "000033.sst");
  ASSERT_EQ(KindsOf(unfiltered), std::vector<std::string>{"no-filter"});
  EXPECT_EQ(unfiltered.findings[0].severity, Severity::kInfo);
  EXPECT_NE(unfiltered.findings[0].message.find("filter_policy=none"), std::string::npos);
  const FileReport& obsolete = Report(r, "000020.sst");
  EXPECT_EQ(obsolete.group_role, GroupRole::kObsolete);
  EXPECT_EQ(KindsOf(obsolete), std::vector<std::string>{"obsolete"});

  EXPECT_EQ(r.summary.errors, 0u);
  EXPECT_EQ(r.summary.warnings, 0u);
  ASSERT_EQ(r.summary.groups.size(), 2u);  // live, obsolete
  const GroupSummary& g = r.summary.groups[0];
  EXPECT_EQ(g.role, GroupRole::kLive);
  EXPECT_EQ(g.unread_level_filters, 2u);
  ASSERT_EQ(g.levels.size(), 2u);
  EXPECT_EQ(g.levels[0].level, 0);
  EXPECT_DOUBLE_EQ(g.levels[0].fp_rate, fresh.fill->fp_rate);
  EXPECT_EQ(g.levels[1].level, 6);
  EXPECT_EQ(g.levels[1].tables, 2u);
  EXPECT_DOUBLE_EQ(g.levels[1].fp_rate, 1.0);  // Pebble's reads never consult L6 filters
  EXPECT_DOUBLE_EQ(g.combined_fp_rate, 1.0);

  const std::string text = VerifyReportText(r);
  EXPECT_NE(text.find("[rocksdb-sst rocksdb.BuiltinBloomFilter]  level 6"), std::string::npos)
      << text;
  EXPECT_NE(text.find("[pebble-table Pebblev3]  level 0"), std::string::npos) << text;
  EXPECT_NE(text.find("2 at L6 counted as p = 1 (Pebble's reads never consult L6 filters)"),
            std::string::npos)
      << text;
  const Document json = VerifyReportJson(r);
  EXPECT_EQ(json["summary"]["groups"][0]["unread_level_filters"], 2);
  EXPECT_EQ(json["summary"]["groups"][0]["levels"][1]["level"], 6);

  const Result<Document> doc = InspectDirectory(dir.path());
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ((*doc)["family"], "pebble");
  EXPECT_EQ((*doc)["pebble"]["format_major_version"], 13);
  EXPECT_EQ((*doc)["pebble"]["evidence"], "markers");
}

// go-ethereum before the move: format major version 1, CURRENT, OPTIONS naming pebble_version,
// RocksDBv2 tables in L5 and L6 (the witness's shape; L6 keeps its filters).
TEST(PebbleDatabaseVerify, FormatMajorVersion1WithCurrent) {
  TempDir dir("pebble-verify-fmv1");
  PebbleTableSpec rocks;
  rocks.rocksdb_v2 = true;
  // Format major version 4 (FormatSetWithDelete) writes SETWITHDEL (kind 18) into RocksDBv2
  // tables: a kind RocksDB does not write (its 0x12 is a WAL-only prepare marker).
  std::vector<PebbleEntry> rows = PrefixedEntries("a", 300);
  rows[10].kind = pebble::testing::kSetWithDel;
  rows[11].kind = pebble::testing::kMerge;
  rows[12].kind = pebble::testing::kSingleDel;
  const NewTable l5 = PutTable(dir.path(), 25, 5, rows, rocks);
  const NewTable l6 = PutTable(dir.path(), 26, 6, PrefixedEntries("b", 20), rocks);
  // A comparer with a Split: its name as the prefix extractor, whole-key filtering off. The
  // default comparer's Split is the whole key, which Pebble's reads ask of the filter.
  PebbleTableSpec split = rocks;
  split.split_properties = true;
  const NewTable l4 = PutTable(dir.path(), 22, 4, PrefixedEntries("c", 120), split);
  Edit add = Header(27, 18);
  add.Add(l5).Add(l6).Add(l4);
  WriteFile(dir.path() + "/MANIFEST-000023", Log({add}));
  WriteFile(dir.path() + "/CURRENT", "MANIFEST-000023\n");
  WriteFile(dir.path() + "/OPTIONS-000024", Options("rocksdb.BuiltinBloomFilter"));
  const VerifyReport r = Verify(dir.path());
  ASSERT_EQ(r.files.size(), 3u);
  const FileReport& prefixed = Report(r, "000022.sst");
  EXPECT_TRUE(prefixed.findings.empty()) << prefixed.findings[0].message;
  EXPECT_EQ(prefixed.keys_checked, 120u);
  // Alone, the same SST is judged by RocksDB's rule: a custom extractor, nothing checked.
  const FileReport alone = rocksdb::VerifySst(dir.path() + "/000022.sst", nullptr, dir.path());
  ASSERT_EQ(KindsOf(alone), std::vector<std::string>{"unsupported"});
  EXPECT_EQ(Report(r, "000025.sst").level, 5);
  EXPECT_TRUE(Report(r, "000025.sst").findings.empty())
      << Report(r, "000025.sst").findings[0].message;
  EXPECT_EQ(Report(r, "000025.sst").keys_checked, 300u);
  EXPECT_EQ(Report(r, "000026.sst").level, 6);
  EXPECT_EQ(r.summary.ok, 3u);
  const GroupSummary& g = r.summary.groups.at(0);
  ASSERT_EQ(g.levels.size(), 3u);
  EXPECT_DOUBLE_EQ(g.levels[1].fp_rate, Report(r, "000025.sst").fill->fp_rate);
  EXPECT_GT(Report(r, "000026.sst").fill->fp_rate, 0.0);  // its own rate stays its filter's
  EXPECT_EQ(g.unread_level_filters, 1u);
}

// A live table gone, a table whose keys are not the MANIFEST's, a damaged table, a blob file
// gone: each its finding, on its file.
TEST(PebbleDatabaseVerify, MissingTableKeyRangeAndDamage) {
  TempDir dir("pebble-verify-missing");
  PebbleTableSpec v2;
  v2.version = 2;
  NewTable wrong = PutTable(dir.path(), 11, 1, PrefixedEntries("c", 100), v2);
  wrong.largest = "c9999";  // the file's last key is c0099
  const NewTable damaged = PutTable(dir.path(), 12, 2, PrefixedEntries("d", 100), v2);
  std::string bytes = ReadFile(dir.path() + "/" + TableFileName(12));
  bytes[40] ^= 0x55;  // inside the first data block: its checksum fails
  WriteFile(dir.path() + "/" + TableFileName(12), bytes);
  Edit add = Header(30);
  add.NewBlobFile(1, 29, 900, 800, 2).Add(wrong).Add(damaged).Add(Table(3, 13, "e", "f", 700));
  WriteFile(dir.path() + "/MANIFEST-000020", Log({add}));
  WriteFile(dir.path() + "/marker.format-version.000001.024", "");
  WriteFile(dir.path() + "/marker.manifest.000001.MANIFEST-000020", "");
  WriteFile(dir.path() + "/OPTIONS-000021", "[Version]\n  pebble_version=0.1\n  no equals sign\n");
  const VerifyReport r = Verify(dir.path());
  ASSERT_EQ(r.files.size(), 5u);  // OPTIONS, the MANIFEST (blob file), three tables
  const FileReport& options = Report(r, "OPTIONS-000021");
  ASSERT_EQ(KindsOf(options), std::vector<std::string>{"manifest"});
  EXPECT_EQ(options.findings[0].offset, 31u);  // the line Pebble's parser refuses
  EXPECT_TRUE(options.group.empty());
  EXPECT_EQ(KindsOf(Report(r, "000011.sst")), std::vector<std::string>{"key-range"});
  EXPECT_NE(Report(r, "000011.sst").findings[0].message.find("its last key is 6330303939"),
            std::string::npos);
  EXPECT_EQ(KindsOf(Report(r, "000012.sst")), std::vector<std::string>{"structure"});
  const FileReport& missing = Report(r, "000013.sst");
  EXPECT_EQ(KindsOf(missing), std::vector<std::string>{"missing-table"});
  EXPECT_EQ(missing.format, "pebble-table");
  EXPECT_EQ(missing.level, 3);
  const FileReport& manifest = Report(r, "MANIFEST-000020");
  ASSERT_EQ(KindsOf(manifest), std::vector<std::string>{"manifest"});
  EXPECT_NE(manifest.findings[0].message.find("blob file B000001 (000029.blob"), std::string::npos);
  EXPECT_TRUE(manifest.group.empty());
  EXPECT_EQ(r.summary.errors, 5u);
}

// Two virtual tables of one backing file: the backing is verified once and names both.
TEST(PebbleDatabaseVerify, VirtualTablesAreCheckedOnceThroughTheirBacking) {
  TempDir dir("pebble-verify-virtual");
  PebbleTableSpec v4;
  v4.version = 4;
  const NewTable whole = PutTable(dir.path(), 12, 6, PrefixedEntries("r", 200), v4);
  NewTable a = Table(5, 21, "r0000", "r0099", 400);
  a.backing = 12;
  NewTable b = Table(5, 22, "r0100", "r0199", 400);
  b.backing = 12;
  b.prefix = "t/";  // the finding names each virtual table's synthetic prefix and suffix
  b.suffix = "@9";
  Edit add = Header(40);
  add.CreatedBacking(12, whole.size).Add(a).Add(b);
  WriteFile(dir.path() + "/MANIFEST-000030", Log({add}));
  WriteFile(dir.path() + "/marker.format-version.000001.016", "");
  WriteFile(dir.path() + "/marker.manifest.000001.MANIFEST-000030", "");
  const VerifyReport r = Verify(dir.path());
  ASSERT_EQ(r.files.size(), 1u);
  const FileReport& f = r.files[0];
  EXPECT_EQ(f.format, "pebble-table");
  EXPECT_EQ(f.level, 5);
  EXPECT_EQ(f.keys_checked, 200u);
  ASSERT_EQ(KindsOf(f), std::vector<std::string>{"manifest"});
  EXPECT_EQ(f.findings[0].severity, Severity::kInfo);
  EXPECT_NE(f.findings[0].message.find("virtual tables 21 (level 5, keys 7230303030 to "),
            std::string::npos)
      << f.findings[0].message;
  EXPECT_NE(f.findings[0].message.find(", synthetic prefix 742f, synthetic suffix 4039)"),
            std::string::npos)
      << f.findings[0].message;
  EXPECT_EQ(r.summary.groups.at(0).tables, 1u);
}

// A MANIFEST with a bad record checksum: the manifest finding, then the directory listing.
TEST(PebbleDatabaseVerify, DamagedManifestFallsBackToTheListing) {
  TempDir dir("pebble-verify-fallback");
  WriteUpgradedDatabase(dir.path());
  std::string log = ReadFile(dir.path() + "/MANIFEST-000031");
  log[20] ^= 1;
  WriteFile(dir.path() + "/MANIFEST-000031", log);
  const VerifyReport r = Verify(dir.path());
  ASSERT_EQ(r.files.size(), 5u);  // the MANIFEST and every NNNNNN.sst
  const FileReport& manifest = Report(r, "MANIFEST-000031");
  ASSERT_EQ(KindsOf(manifest), (std::vector<std::string>{"manifest", "manifest"}));
  EXPECT_EQ(manifest.findings[0].severity, Severity::kError);
  EXPECT_EQ(manifest.findings[1].severity, Severity::kInfo);
  EXPECT_NE(manifest.findings[1].message.find("falls back to the directory listing"),
            std::string::npos);
  for (const char* name : {"000020.sst", "000025.sst", "000032.sst", "000033.sst"}) {
    EXPECT_EQ(Report(r, name).level, -1) << name;
    EXPECT_EQ(Report(r, name).group, dir.path()) << name;
  }
  // Levels unknown: the filterless table is the usual warning.
  EXPECT_EQ(Report(r, "000033.sst").findings.at(0).severity, Severity::kWarning);
}

// A RocksDB database (OPTIONS naming rocksdb_version) of the same tables and MANIFEST fields:
// RocksDB's planner reads it, and its L6 filters count.
TEST(PebbleDatabaseVerify, RocksDbDatabaseStaysRocksDbs) {
  TempDir dir("pebble-verify-rocksdb");
  PebbleTableSpec rocks;
  rocks.rocksdb_v2 = true;
  const NewTable l6 = PutTable(dir.path(), 9, 6, PrefixedEntries("z", 50), rocks);
  Edit add = Header(12);
  add.Add(l6);
  WriteFile(dir.path() + "/MANIFEST-000005", Log({add}));
  WriteFile(dir.path() + "/CURRENT", "MANIFEST-000005\n");
  WriteFile(dir.path() + "/OPTIONS-000007",
            "[Version]\n  rocksdb_version=8.11.3\n  options_file_version=1.1\n\n"
            "[CFOptions \"default\"]\n  comparator=leveldb.BytewiseComparator\n");
  EXPECT_EQ(pebble::DetectDatabase(dir.path()), pebble::Evidence::kNone);
  const VerifyReport r = Verify(dir.path());
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].level, 6);
  EXPECT_FALSE(r.files[0].filter_unread_at_level);
  EXPECT_DOUBLE_EQ(r.summary.groups.at(0).combined_fp_rate, r.files[0].fill->fp_rate);
  const Result<Document> doc = InspectDirectory(dir.path());
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ((*doc)["family"], "rocksdb");
}

// A table of range deletions only: Pebble before 26.2 writes a 0-byte filter block for it
// (FORMAT.md §7.1), under either magic. Neither reader is misled by it.
TEST(PebbleDatabaseVerify, RangeDeletionOnlyTablesWithAZeroByteFilter) {
  TempDir dir("pebble-verify-rangedel");
  Edit add = Header(30);
  for (const bool rocks : {true, false}) {
    PebbleTableSpec spec;
    spec.rocksdb_v2 = rocks;
    spec.version = 2;
    spec.range_dels = {{"g", "h"}};
    const std::uint64_t number = rocks ? 7 : 8;
    const ByteVector bytes = BuildPebbleTable({}, spec);
    WriteFile(dir.path() + "/" + TableFileName(number), std::string(bytes.begin(), bytes.end()));
    NewTable t = Table(1 + static_cast<int>(number) - 7, number, "g", "h", bytes.size());
    add.Add(t);
  }
  WriteFile(dir.path() + "/MANIFEST-000020", Log({add}));
  WriteFile(dir.path() + "/marker.format-version.000001.013", "");
  WriteFile(dir.path() + "/marker.manifest.000001.MANIFEST-000020", "");
  const VerifyReport r = Verify(dir.path());
  ASSERT_EQ(r.files.size(), 2u);
  for (const FileReport& f : r.files) {
    std::string all;
    for (const Finding& x : f.findings) all += x.kind + ": " + x.message + "\n";
    EXPECT_EQ(all, "") << f.path;
  }
}

}  // namespace
}  // namespace bloomcodec::pebble_test

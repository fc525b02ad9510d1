// Pebble database directories (formats/pebble/database.h) built in the test: marker files and a
// stale CURRENT, format major version 1 with CURRENT only (go-ethereum's directories before its
// Pebble v2 move, and after it), OPTIONS, virtual tables sharing a backing, blob files, and each
// kind of damage as a finding at its file and offset.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "manifest/database_plan.h"
#include "manifest/db_checks.h"
#include "pebble/database.h"
#include "pebble/manifest_writer.h"

namespace bloomcodec::pebble_test {
namespace {

using manifest_test::ReadFile;
using manifest_test::TempDir;
using manifest_test::WriteFile;
namespace fs = std::filesystem;

std::string Name(const char* format, std::uint64_t n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, static_cast<unsigned long long>(n));
  return buf;
}

std::string Sst(std::uint64_t n) { return Name("%06llu.sst", n); }
std::string ManifestName(std::uint64_t n) { return Name("MANIFEST-%06llu", n); }

void WriteManifest(const std::string& dir, std::uint64_t number, const std::vector<Edit>& edits) {
  WriteFile(dir + "/" + ManifestName(number), Log(edits));
}

void WriteTable(const std::string& dir, std::uint64_t number, std::uint64_t size) {
  WriteFile(dir + "/" + Sst(number), std::string(size, 't'));
}

void Touch(const std::string& dir, const std::string& name) { WriteFile(dir + "/" + name, ""); }

std::string Options(std::uint64_t fmv, const std::string& comparer = "leveldb.BytewiseComparator") {
  std::string o = "[Version]\n  pebble_version=0.1\n\n[Options]\n  comparer=" + comparer +
                  "\n  format_major_version=" + std::to_string(fmv) +
                  "\n  merger=pebble.concatenate\n";
  for (int level = 0; level < 7; ++level) {
    o += "\n[Level \"" + std::to_string(level) + "\"]\n  block_size=4096\n  filter_policy=" +
         std::string(level == 6 ? "none" : "rocksdb.BuiltinBloomFilter") + "\n";
  }
  return o;
}

// (level, table number, file name) of the live tables.
std::vector<std::tuple<int, std::uint64_t, std::string>> Live(const pebble::Database& db) {
  std::vector<std::tuple<int, std::uint64_t, std::string>> out;
  for (const manifest::LiveTable& t : db.view.live) {
    out.push_back({t.meta.level, t.meta.number, fs::path(t.path).filename().string()});
  }
  return out;
}

std::string AllFindings(const pebble::Database& db) {
  std::string out;
  for (const Finding& f : db.view.current_findings) out += "current: " + f.message + "\n";
  for (const Finding& f : db.view.manifest_findings) out += "manifest: " + f.message + "\n";
  for (const pebble::FileFindings& o : db.other_files) {
    for (const Finding& f : o.findings) out += o.path + ": " + f.message + "\n";
  }
  return out;
}

// A database at format major version 13 that a Pebble v2 opened: two tables.
void WriteMarkedDatabase(const std::string& dir) {
  WriteManifest(dir, 7, {Header(8), Edit().Add(Table(0, 4))});  // an older MANIFEST
  WriteManifest(
      dir, 10,
      {Header(12), Edit().Add(Table(0, 5, "a", "k", 500)), Edit().Add(Table(6, 8, "b", "z", 800))});
  WriteTable(dir, 5, 500);
  WriteTable(dir, 8, 800);
  WriteTable(dir, 3, 10);  // obsolete
  Touch(dir, "marker.format-version.000001.012");
  Touch(dir, "marker.format-version.000002.013");
  Touch(dir, "marker.manifest.000003.MANIFEST-000007");
  Touch(dir, "marker.manifest.000004.MANIFEST-000010");
  WriteFile(dir + "/CURRENT", "MANIFEST-000000\n");  // from format major version 3 on
  WriteFile(dir + "/OPTIONS-000011", Options(13));
  WriteFile(dir + "/OPTIONS-000009", "not an options file");  // older: never read
}

TEST(PebbleDatabase, MarkersNameTheManifestAndCurrentIsStale) {
  TempDir dir("pebble-markers");
  WriteMarkedDatabase(dir.path());
  const pebble::Database db = pebble::ReadDatabase(dir.path());
  EXPECT_EQ(AllFindings(db), "");
  EXPECT_EQ(db.evidence, pebble::Evidence::kMarkers);
  EXPECT_EQ(pebble::DetectDatabase(dir.path()), pebble::Evidence::kMarkers);
  EXPECT_EQ(db.identity.format_major_version, 13u);
  EXPECT_TRUE(db.identity.from_marker);
  EXPECT_EQ(db.identity.current, "MANIFEST-000000");
  EXPECT_EQ(db.identity.markers.size(), 4u);
  EXPECT_EQ(db.view.current_path, dir.path() + "/marker.manifest.000004.MANIFEST-000010");
  EXPECT_EQ(db.view.manifest_path, dir.path() + "/MANIFEST-000010");
  EXPECT_TRUE(db.view.from_manifest);
  const std::vector<std::tuple<int, std::uint64_t, std::string>> want{{0, 5, "000005.sst"},
                                                                      {6, 8, "000008.sst"}};
  EXPECT_EQ(Live(db), want);
  ASSERT_EQ(db.view.obsolete.size(), 1u);
  EXPECT_EQ(db.view.obsolete[0], dir.path() + "/000003.sst");
  ASSERT_TRUE(db.identity.options);
  EXPECT_EQ(db.identity.options->path, dir.path() + "/OPTIONS-000011");
  EXPECT_EQ(db.identity.options->format_major_version, 13u);
  EXPECT_EQ(db.identity.options->filter_policy.at(6), "none");
  const Document doc = pebble::InspectDatabase(db);
  EXPECT_EQ(doc["pebble"]["format_major_version"], 13);
  EXPECT_EQ(doc["pebble"]["writes"], "Pebblev2 (Pebblev3 with EnableValueBlocks)");
  EXPECT_EQ(doc["pebble"]["manifest_named_by"], "marker.manifest.000004.MANIFEST-000010");
}

// go-ethereum's directories up to its Pebble v2 move: format major version 1, CURRENT, an
// OPTIONS file naming pebble_version, and a MANIFEST of three records that leaves two tables in
// L6 (the witness's shape, rebuilt with other keys and sizes).
TEST(PebbleDatabase, FormatMajorVersion1WithCurrentOnly) {
  TempDir dir("pebble-fmv1");
  auto t = [](int level, std::uint64_t number, const std::string& a, const std::string& b,
              std::uint64_t size) {
    NewTable x = Table(level, number, a, b, size);
    x.creation_time = 1700000000 + number;
    return x;
  };
  Edit first = Header(24, 18);
  first.Add(t(0, 17, "g", "u", 954)).Add(t(6, 15, "a", "m", 3000)).Add(t(6, 16, "n", "z", 2000));
  Edit second;
  second.LogNumber(22).NextFile(23).LastSequence(30100).Add(t(0, 21, "h", "x", 700));
  Edit third;
  third.NextFile(27).LastSequence(30183).Deleted(6, 16).Deleted(0, 17).Deleted(0, 21);
  third.Deleted(6, 15).Add(t(6, 25, "a", "s", 5000)).Add(t(6, 26, "t", "z", 1231));
  WriteManifest(dir.path(), 23, {first, second, third});
  WriteFile(dir.path() + "/CURRENT", "MANIFEST-000023\n");
  WriteFile(dir.path() + "/OPTIONS-000024", Options(1));
  WriteTable(dir.path(), 25, 5000);
  WriteTable(dir.path(), 26, 1231);
  const pebble::Database db = pebble::ReadDatabase(dir.path());
  EXPECT_EQ(AllFindings(db), "");
  EXPECT_EQ(db.evidence, pebble::Evidence::kOptions);
  EXPECT_EQ(pebble::DetectDatabase(dir.path()), pebble::Evidence::kOptions);
  EXPECT_EQ(db.identity.format_major_version, 1u);
  EXPECT_FALSE(db.identity.from_marker);
  EXPECT_EQ(db.view.current_path, dir.path() + "/CURRENT");
  const std::vector<std::tuple<int, std::uint64_t, std::string>> want{{6, 25, "000025.sst"},
                                                                      {6, 26, "000026.sst"}};
  EXPECT_EQ(Live(db), want);
  EXPECT_EQ(db.view.manifest.last_sequence, 30183u);
  EXPECT_EQ(db.view.manifest.next_file, 27u);
  EXPECT_EQ(db.view.manifest.records, 3u);
  EXPECT_FALSE(db.view.manifest.pebble_only_fields);
  // RocksDB reads the same MANIFEST into the same levels (what verify does today).
  const manifest::DatabaseView rocks = manifest::ReadDatabase(
      dir.path(), manifest::Flavor::kRocksDb, {"sst"}, pebble::IsTableFileName);
  ASSERT_EQ(rocks.live.size(), 2u);
  EXPECT_TRUE(rocks.manifest_findings.empty());
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(rocks.live[i].meta.level, db.view.live[i].meta.level);
    EXPECT_EQ(rocks.live[i].meta.number, db.view.live[i].meta.number);
    EXPECT_EQ(rocks.live[i].meta.smallest, db.view.live[i].meta.smallest);
  }
}

// After `geth db pebble-upgrade`: Pebble v1 ratcheted the database to format major version 13
// (markers; CURRENT names MANIFEST-000000) and marked its RocksDBv2 tables for compaction (custom
// tag 2 in the rotated MANIFEST); Pebble v2 then adds tables of its own. Both kinds are live.
TEST(PebbleDatabase, GethAfterThePebbleV2Move) {
  TempDir dir("pebble-geth-v2");
  NewTable old25 = Table(6, 25, "a", "s", 5000);
  old25.needs_compaction = true;
  old25.creation_time = 1700000025;
  NewTable old26 = Table(6, 26, "t", "z", 1231);
  old26.needs_compaction = true;
  Edit rotated = Header(40, 30);
  rotated.Add(old25).Add(old26);
  Edit flush;
  flush.LogNumber(33).NextFile(41).Add(Table(0, 32, "b", "c", 900));
  WriteManifest(dir.path(), 31, {rotated, flush});
  Touch(dir.path(), "marker.format-version.000012.013");
  Touch(dir.path(), "marker.manifest.000002.MANIFEST-000031");
  WriteFile(dir.path() + "/CURRENT", "MANIFEST-000000\n");
  WriteFile(dir.path() + "/OPTIONS-000034", Options(13));
  WriteTable(dir.path(), 25, 5000);
  WriteTable(dir.path(), 26, 1231);
  WriteTable(dir.path(), 32, 900);
  const pebble::Database db = pebble::ReadDatabase(dir.path());
  EXPECT_EQ(AllFindings(db), "");
  EXPECT_EQ(db.identity.format_major_version, 13u);
  const std::vector<std::tuple<int, std::uint64_t, std::string>> want{
      {0, 32, "000032.sst"}, {6, 25, "000025.sst"}, {6, 26, "000026.sst"}};
  EXPECT_EQ(Live(db), want);
  EXPECT_FALSE(db.view.live[0].meta.marked_for_compaction);
  EXPECT_TRUE(db.view.live[1].meta.marked_for_compaction);
  EXPECT_TRUE(db.view.live[2].meta.marked_for_compaction);
  EXPECT_TRUE(db.view.obsolete.empty());
}

TEST(PebbleDatabase, MarkerDamage) {
  {
    // The marker names a MANIFEST that is not there: no levels, fall back.
    TempDir dir("pebble-missing-manifest");
    WriteMarkedDatabase(dir.path());
    fs::remove(dir.path() + "/MANIFEST-000010");
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    EXPECT_FALSE(db.view.from_manifest);
    ASSERT_EQ(db.view.current_findings.size(), 1u) << AllFindings(db);
    EXPECT_EQ(db.view.current_findings[0].severity, Severity::kError);
    EXPECT_NE(db.view.current_findings[0].message.find(
                  "marker.manifest.000004.MANIFEST-000010 names MANIFEST-000010, which cannot be "
                  "read"),
              std::string::npos);
  }
  {
    // Two manifest markers of one iteration: which one Pebble opens is not known.
    TempDir dir("pebble-tied-markers");
    WriteMarkedDatabase(dir.path());
    Touch(dir.path(), "marker.manifest.000004.MANIFEST-000007");
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    EXPECT_FALSE(db.view.from_manifest);
    EXPECT_TRUE(db.view.manifest_path.empty());
    ASSERT_EQ(db.view.current_findings.size(), 1u);
    EXPECT_NE(db.view.current_findings[0].message.find(
                  "same iteration (marker.manifest.000004.MANIFEST-000010)"),
              std::string::npos)
        << db.view.current_findings[0].message;
  }
  {
    // A marker file name that does not parse: Pebble refuses to open; the MANIFEST still reads.
    TempDir dir("pebble-bad-marker");
    WriteMarkedDatabase(dir.path());
    Touch(dir.path(), "marker.manifest.x1.MANIFEST-000010");
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    EXPECT_TRUE(db.view.from_manifest);
    ASSERT_EQ(db.other_files.size(), 1u);
    EXPECT_EQ(db.other_files[0].path, dir.path() + "/marker.manifest.x1.MANIFEST-000010");
    EXPECT_NE(db.other_files[0].findings.at(0).message.find("invalid marker filename"),
              std::string::npos);
    const std::vector<FileReport> reports = pebble::OtherFileReports(db);
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].path, db.other_files[0].path);
  }
  {
    // A format major version of 2 or more without a manifest marker.
    TempDir dir("pebble-no-manifest-marker");
    WriteMarkedDatabase(dir.path());
    fs::remove(dir.path() + "/marker.manifest.000003.MANIFEST-000007");
    fs::remove(dir.path() + "/marker.manifest.000004.MANIFEST-000010");
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    EXPECT_FALSE(db.view.from_manifest);
    ASSERT_EQ(db.view.current_findings.size(), 1u);
    EXPECT_NE(db.view.current_findings[0].message.find("and there is none"), std::string::npos);
  }
}

TEST(PebbleDatabase, AManifestMarkerWithoutAFormatVersionMarker) {
  // A creation that stopped between writing the MANIFEST and the format-version marker: Pebble
  // continues it while the MANIFEST lists no file, and refuses the directory otherwise.
  for (const bool tables : {false, true}) {
    TempDir dir("pebble-no-format-marker");
    WriteManifest(dir.path(), 1,
                  tables ? std::vector<Edit>{Header(), Edit().Add(Table(0, 4))}
                         : std::vector<Edit>{Header()});
    WriteTable(dir.path(), 4, 100);
    Touch(dir.path(), "marker.manifest.000001.MANIFEST-000001");
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    EXPECT_TRUE(db.identity.from_marker);
    EXPECT_TRUE(db.view.from_manifest);
    EXPECT_EQ(db.view.live.size(), tables ? 1u : 0u);
    ASSERT_EQ(db.view.current_findings.size(), 1u) << AllFindings(db);
    EXPECT_EQ(db.view.current_findings[0].severity, tables ? Severity::kError : Severity::kWarning);
    EXPECT_NE(db.view.current_findings[0].message.find("no format-version marker"),
              std::string::npos);
  }
}

TEST(PebbleDatabase, FormatVersionMarkerValues) {
  struct Case {
    std::string marker;
    std::string says;  // "" for no finding
    Severity severity = Severity::kError;
  };
  const std::vector<Case> cases = {
      {"marker.format-version.000003.abc", "a format major version (a decimal number)"},
      {"marker.format-version.000003.000", "format major version 0 is never written"},
      {"marker.format-version.000003.031", "is newer than the newest known here",
       Severity::kWarning},
      {"marker.format-version.000003.030", ""},
  };
  for (const Case& c : cases) {
    TempDir dir("pebble-fmv-value");
    WriteMarkedDatabase(dir.path());
    Touch(dir.path(), c.marker);
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    // Whatever the value, the manifest marker names the MANIFEST (a version of 2 or more, or
    // one not known).
    EXPECT_TRUE(db.view.from_manifest) << c.marker;
    if (c.says.empty()) {
      EXPECT_EQ(AllFindings(db), "");
      EXPECT_EQ(db.identity.format_major_version, 30u);
      continue;
    }
    ASSERT_EQ(db.other_files.size(), 1u) << c.marker;
    EXPECT_EQ(db.other_files[0].path, dir.path() + "/" + c.marker);
    EXPECT_EQ(db.other_files[0].findings.at(0).severity, c.severity);
    EXPECT_NE(db.other_files[0].findings[0].message.find(c.says), std::string::npos)
        << db.other_files[0].findings[0].message;
  }
  // Format major version 1 in a marker: CURRENT names the MANIFEST, whatever the manifest
  // marker says.
  TempDir dir("pebble-fmv-001");
  WriteMarkedDatabase(dir.path());
  Touch(dir.path(), "marker.format-version.000003.001");
  WriteFile(dir.path() + "/CURRENT", "MANIFEST-000007\n");
  const pebble::Database db = pebble::ReadDatabase(dir.path());
  EXPECT_FALSE(db.identity.from_marker);
  EXPECT_EQ(db.view.manifest_path, dir.path() + "/MANIFEST-000007");
}

TEST(PebbleDatabase, CurrentAsPebbleReadsIt) {
  struct Case {
    std::string current;
    std::string says;  // "" when it names MANIFEST-000023
  };
  const std::vector<Case> cases = {
      {"MANIFEST-000023\n", ""},
      {"  MANIFEST-000023 \r\n", ""},  // white space trimmed
      {"", "CURRENT is empty"},
      {"MANIFEST-000023", "must end in a newline"},
      {"MANIFEST-00002x\n", "not a MANIFEST-NNNNNN file"},
      {std::string(5000, 'M') + "\n", "CURRENT is too large"},
  };
  for (const Case& c : cases) {
    TempDir dir("pebble-current");
    WriteManifest(dir.path(), 23, {Header(), Edit().Add(Table(1, 5))});
    WriteTable(dir.path(), 5, 100);
    WriteFile(dir.path() + "/CURRENT", c.current);
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    if (c.says.empty()) {
      EXPECT_EQ(AllFindings(db), "") << c.current;
      EXPECT_EQ(db.view.live.size(), 1u);
      continue;
    }
    EXPECT_FALSE(db.view.from_manifest) << c.current;
    ASSERT_EQ(db.view.current_findings.size(), 1u) << c.current;
    EXPECT_NE(db.view.current_findings[0].message.find(c.says), std::string::npos)
        << db.view.current_findings[0].message;
  }
}

TEST(PebbleDatabase, OptionsFiles) {
  {
    TempDir dir("pebble-options-syntax");
    WriteMarkedDatabase(dir.path());
    const std::string text = "[Version]\n  pebble_version=0.1\n  no equals sign here\n";
    WriteFile(dir.path() + "/OPTIONS-000011", text);
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    EXPECT_TRUE(db.view.from_manifest);
    ASSERT_EQ(db.other_files.size(), 1u);
    EXPECT_EQ(db.other_files[0].path, dir.path() + "/OPTIONS-000011");
    const Finding& f = db.other_files[0].findings.at(0);
    EXPECT_EQ(f.severity, Severity::kError);
    EXPECT_EQ(f.offset, text.find("  no equals"));
    EXPECT_NE(f.message.find("invalid key=value syntax"), std::string::npos);
  }
  {
    // The most recent OPTIONS cannot be read (here: a directory).
    TempDir dir("pebble-options-unreadable");
    WriteMarkedDatabase(dir.path());
    fs::create_directory(dir.path() + "/OPTIONS-000012");
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    EXPECT_TRUE(db.view.from_manifest);
    ASSERT_EQ(db.other_files.size(), 1u);
    EXPECT_EQ(db.other_files[0].path, dir.path() + "/OPTIONS-000012");
    EXPECT_NE(db.other_files[0].findings.at(0).message.find("cannot read the OPTIONS file"),
              std::string::npos);
  }
  {
    TempDir dir("pebble-options-comparer");
    WriteMarkedDatabase(dir.path());
    WriteFile(dir.path() + "/OPTIONS-000011", Options(13, "cockroach_comparator"));
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    ASSERT_EQ(db.other_files.size(), 1u);
    EXPECT_NE(db.other_files[0].findings.at(0).message.find(
                  "OPTIONS names comparer \"cockroach_comparator\", the MANIFEST "
                  "\"leveldb.BytewiseComparator\""),
              std::string::npos);
  }
  {
    // RocksDB's OPTIONS: not a Pebble database (Pebble could open it, but RocksDB wrote it).
    TempDir dir("pebble-options-rocksdb");
    WriteManifest(dir.path(), 5, {Header(), Edit().Add(Table(1, 4))});
    WriteFile(dir.path() + "/CURRENT", "MANIFEST-000005\n");
    WriteFile(dir.path() + "/OPTIONS-000007",
              "[Version]\n  rocksdb_version=7.8.3\n[CFOptions \"default\"]\n  "
              "comparator=leveldb.BytewiseComparator\n  merge_operator=nullptr\n");
    EXPECT_EQ(pebble::DetectDatabase(dir.path()), pebble::Evidence::kNone);
    const pebble::Database db = pebble::ReadDatabase(dir.path());
    ASSERT_TRUE(db.identity.options);
    EXPECT_EQ(db.identity.options->rocksdb_version, "7.8.3");
    EXPECT_EQ(db.identity.options->comparer, "leveldb.BytewiseComparator");
    EXPECT_EQ(db.identity.options->merger, "nullptr");
  }
}

TEST(PebbleDatabase, DetectionFromTheManifest) {
  TempDir dir("pebble-detect");
  WriteFile(dir.path() + "/CURRENT", "MANIFEST-000005\n");
  // LevelDB's tags only: nothing says Pebble.
  WriteManifest(dir.path(), 5, {Header(), Edit().AddAs(7, Table(1, 4))});
  EXPECT_EQ(pebble::DetectDatabase(dir.path()), pebble::Evidence::kNone);
  // A backing table record: only Pebble writes one.
  NewTable v = Table(6, 9);
  v.backing = 4;
  WriteManifest(
      dir.path(), 5,
      {Header(), Edit().Add(Table(6, 4)), Edit().Deleted(6, 4).CreatedBacking(4, 100).Add(v)});
  EXPECT_EQ(pebble::DetectDatabase(dir.path()), pebble::Evidence::kManifest);
  EXPECT_EQ(pebble::ReadDatabase(dir.path()).evidence, pebble::Evidence::kManifest);
  TempDir empty("pebble-detect-empty");
  EXPECT_EQ(pebble::DetectDatabase(empty.path()), pebble::Evidence::kNone);
}

// Two virtual tables of one backing (an excise cut the table in two), and a physical table.
void WriteVirtualDatabase(const std::string& dir) {
  NewTable left = Table(6, 21, "a", "f", 300);
  left.backing = 12;
  NewTable right = Table(6, 22, "p", "t", 400);
  right.backing = 12;
  right.prefix = "r/";
  Edit excise;
  excise.Deleted(6, 12).CreatedBacking(12, 1000).Add(left).Add(right);
  excise.Excise("g", "o", 0, 55);
  WriteManifest(dir, 30,
                {Header(40), Edit().Add(Table(6, 12, "a", "t", 1000)),
                 Edit().Add(Table(5, 14, "a", "y", 200)), excise});
  WriteTable(dir, 12, 1000);
  WriteTable(dir, 14, 200);
  Touch(dir, "marker.format-version.000001.025");
  Touch(dir, "marker.manifest.000001.MANIFEST-000030");
}

TEST(PebbleDatabase, VirtualTablesShareABacking) {
  TempDir dir("pebble-virtual");
  WriteVirtualDatabase(dir.path());
  const pebble::Database db = pebble::ReadDatabase(dir.path());
  EXPECT_EQ(AllFindings(db), "");
  const std::vector<std::tuple<int, std::uint64_t, std::string>> want{
      {5, 14, "000014.sst"}, {6, 21, "000012.sst"}, {6, 22, "000012.sst"}};
  EXPECT_EQ(Live(db), want);
  EXPECT_TRUE(db.view.live[2].meta.is_virtual);
  EXPECT_EQ(db.view.live[2].meta.backing, 12u);
  EXPECT_EQ(std::string(db.view.live[2].meta.synthetic_prefix->begin(),
                        db.view.live[2].meta.synthetic_prefix->end()),
            "r/");
  EXPECT_TRUE(db.view.obsolete.empty());  // the backing is the database's file
  ASSERT_EQ(db.view.manifest.backings.size(), 1u);
  EXPECT_EQ(db.view.manifest.backings[0].virtual_tables, 2u);
  const Document doc = pebble::InspectDatabase(db);
  EXPECT_EQ(doc["pebble"]["backing_tables"][0]["file"], "000012.sst");
  EXPECT_EQ(doc["pebble"]["backing_tables"][0]["virtual_tables"], 2);
  const Document& l6 = doc["column_families"][0]["levels"][1]["tables"];
  EXPECT_EQ(l6[1]["file"], "000012.sst");
  EXPECT_EQ(l6[1]["backing"], 12);
  EXPECT_EQ(l6[1]["synthetic_prefix"], "722f");

  // verify's plan: the backing of both virtual tables is verified once, without the key-range
  // check, and names them (the physical table's range still is checked).
  manifest::TableCheck check{"pebble-table",
                             [](const std::string& path, const std::string& group) {
                               FileReport r;
                               r.path = path;
                               r.group = group;
                               return r;
                             },
                             [](const std::string&) -> Result<manifest::TableKeyRange> {
                               manifest::TableKeyRange range;
                               range.empty = false;
                               range.first = {'a'};
                               range.last = {'t'};
                               return range;
                             },
                             {}};
  std::vector<VerifyTask> tasks;
  manifest::PlanDatabase(dir.path(), db.view, check, {}, tasks);
  ASSERT_EQ(tasks.size(), 2u);
  std::vector<std::string> key_range_errors;
  for (const VerifyTask& task : tasks) {
    const FileReport r = task();
    for (const Finding& f : r.findings) {
      if (f.kind == finding_kind::kKeyRange) {
        key_range_errors.push_back(fs::path(r.path).filename().string());
      }
    }
    EXPECT_EQ(r.manifest, dir.path() + "/MANIFEST-000030");
  }
  EXPECT_EQ(key_range_errors, std::vector<std::string>{"000014.sst"});  // a..y is not a..t
  const FileReport backing = tasks[1]();
  EXPECT_EQ(backing.level, 6);
  ASSERT_EQ(backing.findings.size(), 1u);
  EXPECT_EQ(backing.findings[0].severity, Severity::kInfo);
  EXPECT_NE(backing.findings[0].message.find("virtual tables 21 (level 6"), std::string::npos);
  EXPECT_NE(backing.findings[0].message.find(", 22 (level 6"), std::string::npos);

  // The backing goes: both virtual tables are missing.
  fs::remove(dir.path() + "/000012.sst");
  const pebble::Database gone = pebble::ReadDatabase(dir.path());
  ASSERT_EQ(gone.view.live.size(), 3u);
  EXPECT_TRUE(gone.view.live[1].missing && gone.view.live[2].missing);
  tasks.clear();
  manifest::PlanDatabase(dir.path(), gone.view, check, {}, tasks);
  ASSERT_EQ(tasks.size(), 2u);  // one missing-table report for the backing
  const FileReport missing = tasks[1]();
  ASSERT_EQ(missing.findings.size(), 1u);
  EXPECT_EQ(missing.findings[0].kind, finding_kind::kMissingTable);
  EXPECT_NE(missing.findings[0].message.find("backing table 12 of virtual tables 21 (level 6"),
            std::string::npos)
      << missing.findings[0].message;
}

TEST(PebbleDatabase, BlobFilesAndSizes) {
  TempDir dir("pebble-blobs");
  NewTable t = Table(6, 30, "a", "z", 600);
  t.blob_refs = {BlobRef{1, 500, 0}, BlobRef{2, 50, 0}};
  Edit add;
  add.NewBlobFile(1, 28, 9000, 8000, 1).NewBlobFile(2, 29, 900, 800, 2).Add(t);
  WriteManifest(dir.path(), 31, {Header(40), add});
  Touch(dir.path(), "marker.format-version.000001.024");
  Touch(dir.path(), "marker.manifest.000001.MANIFEST-000031");
  WriteTable(dir.path(), 30, 600);
  WriteFile(dir.path() + "/000028.blob", "b");
  WriteFile(dir.path() + "/000027.blob", "old");
  pebble::Database db = pebble::ReadDatabase(dir.path());
  EXPECT_TRUE(db.view.from_manifest);
  ASSERT_EQ(db.blob_files.size(), 2u);
  EXPECT_FALSE(db.blob_files[0].missing);
  EXPECT_TRUE(db.blob_files[1].missing);
  EXPECT_EQ(db.blob_files[0].meta.tables, 1u);
  ASSERT_EQ(db.view.manifest_findings.size(), 1u) << AllFindings(db);
  EXPECT_NE(db.view.manifest_findings[0].message.find(
                "blob file B000002 (000029.blob, 900 bytes), but the file is missing"),
            std::string::npos)
      << db.view.manifest_findings[0].message;
  EXPECT_EQ(db.obsolete_blob_files, std::vector<std::string>{dir.path() + "/000027.blob"});
  // A table file whose size is not the MANIFEST's: Pebble refuses to open.
  WriteFile(dir.path() + "/000029.blob", "b");
  WriteTable(dir.path(), 30, 599);
  db = pebble::ReadDatabase(dir.path());
  ASSERT_EQ(db.view.manifest_findings.size(), 1u) << AllFindings(db);
  EXPECT_NE(db.view.manifest_findings[0].message.find(
                "L6: 000030.sst holds 599 bytes, the MANIFEST says 600"),
            std::string::npos);
}

TEST(PebbleDatabase, DamagedAndTornManifests) {
  TempDir dir("pebble-damaged");
  WriteMarkedDatabase(dir.path());
  const std::string path = dir.path() + "/MANIFEST-000010";
  const std::string good = ReadFile(path);
  // A torn last record: Pebble drops it and opens the database with the rest.
  WriteFile(path, good.substr(0, good.size() - 3));
  pebble::Database db = pebble::ReadDatabase(dir.path());
  EXPECT_TRUE(db.view.from_manifest);
  ASSERT_EQ(db.view.manifest_findings.size(), 1u);
  EXPECT_EQ(db.view.manifest_findings[0].severity, Severity::kWarning);
  EXPECT_EQ(db.view.live.size(), 1u);
  // Table 8's file then is a table no live version lists.
  EXPECT_EQ(db.view.obsolete.size(), 2u);
  // A bad checksum in the second record: an error, and the directory listing instead.
  std::string bad = good;
  bad[Log({Header(12)}).size() + 10] ^= 1;
  WriteFile(path, bad);
  db = pebble::ReadDatabase(dir.path());
  EXPECT_FALSE(db.view.from_manifest);
  ASSERT_EQ(db.view.manifest_findings.size(), 1u);
  EXPECT_EQ(db.view.manifest_findings[0].severity, Severity::kError);
  EXPECT_EQ(db.view.manifest_findings[0].offset, Log({Header(12)}).size());
}

}  // namespace
}  // namespace bloomcodec::pebble_test

// The MANIFEST reader on hand-made logs: replay of version edits into levels, records across
// blocks, RocksDB's column families and custom fields, and damage (checksum, truncation, length,
// unknown tag, unknown record type, level out of range) as findings at their byte offsets.
#include <gtest/gtest.h>

#include <string>

#include "bloomcodec/verify.h"
#include "manifest/log_writer.h"
#include "manifest/manifest.h"

namespace bloomcodec::manifest_test {
namespace {

using manifest::Flavor;
using manifest::Manifest;
using manifest::ReadManifest;

std::string Edit(std::initializer_list<std::string> fields) {
  std::string e;
  for (const std::string& f : fields) e += f;
  return e;
}

std::string Comparator(const std::string& name) {
  std::string e;
  PutVarint(e, 1);
  PutBytes(e, name);
  return e;
}

std::string Deleted(int level, std::uint64_t number) {
  std::string e;
  PutVarint(e, 6);
  PutVarint(e, level);
  PutVarint(e, number);
  return e;
}

std::string Scalar(std::uint32_t tag, std::uint64_t v) {
  std::string e;
  PutVarint(e, tag);
  PutVarint(e, v);
  return e;
}

std::vector<std::pair<int, std::uint64_t>> Tables(const Manifest& m, std::size_t cf = 0) {
  std::vector<std::pair<int, std::uint64_t>> out;
  for (const auto& t : m.column_families.at(cf).tables) out.push_back({t.level, t.number});
  return out;
}

std::string ThreeEdits() {
  std::string log;
  AppendRecord(log, Edit({Comparator("leveldb.BytewiseComparator"), Scalar(2, 3), Scalar(3, 9),
                          Scalar(4, 100)}));
  AppendRecord(log, Edit({NewFile(0, 5, 1000, "a", "m"), NewFile(0, 6, 900, "b", "z"),
                          NewFile(2, 4, 5000, "c", "d")}));
  AppendRecord(log, Edit({Deleted(0, 5), Deleted(0, 6), NewFile(1, 7, 1800, "a", "k"),
                          NewFile(1, 8, 1700, "l", "z"), Scalar(4, 200)}));
  return log;
}

TEST(ManifestLog, ReplaysEditsIntoLevels) {
  const std::string log = ThreeEdits();
  const Manifest m = ReadManifest(Span(log), Flavor::kLevelDb, "MANIFEST-000001");
  EXPECT_TRUE(m.findings.empty()) << m.findings.front().message;
  EXPECT_FALSE(m.damaged);
  EXPECT_EQ(m.records, 3u);
  EXPECT_EQ(m.comparator, "leveldb.BytewiseComparator");
  EXPECT_EQ(m.last_sequence, 200u);
  EXPECT_EQ(m.next_file, 9u);
  ASSERT_EQ(m.column_families.size(), 1u);
  EXPECT_EQ(m.column_families[0].name, "default");
  const std::vector<std::pair<int, std::uint64_t>> want{{1, 7}, {1, 8}, {2, 4}};
  EXPECT_EQ(Tables(m), want);
  const auto& t = m.column_families[0].tables[1];
  EXPECT_EQ(t.size, 1700u);
  EXPECT_EQ(std::string(t.smallest.begin(), t.smallest.end()), InternalKey("l", 1));
}

TEST(ManifestLog, RecordsSpanBlocks) {
  // A 70000-byte comparator name: a first, a middle and a last fragment in three blocks.
  const std::string name(70000, 'c');
  std::string log;
  AppendRecord(log, Edit({NewFile(0, 3, 10, "a", "b")}));
  AppendRecord(log, Comparator(name));
  AppendRecord(log, Edit({NewFile(0, 4, 10, "c", "d")}));
  ASSERT_GT(log.size(), 2 * manifest::kBlockSize);
  const Manifest m = ReadManifest(Span(log), Flavor::kLevelDb, "M");
  EXPECT_TRUE(m.findings.empty());
  EXPECT_EQ(m.comparator, name);
  EXPECT_EQ(m.records, 3u);
  const std::vector<std::pair<int, std::uint64_t>> want{{0, 3}, {0, 4}};
  EXPECT_EQ(Tables(m), want);
}

TEST(ManifestLog, BadChecksumIsAnErrorAtTheRecord) {
  std::string log = ThreeEdits();
  const Manifest whole = ReadManifest(Span(log), Flavor::kLevelDb, "M");
  // The third record's header offset: the first two records' sizes.
  std::string two;
  AppendRecord(two, Edit({Comparator("leveldb.BytewiseComparator"), Scalar(2, 3), Scalar(3, 9),
                          Scalar(4, 100)}));
  AppendRecord(two, Edit({NewFile(0, 5, 1000, "a", "m"), NewFile(0, 6, 900, "b", "z"),
                          NewFile(2, 4, 5000, "c", "d")}));
  log[two.size() + 10] ^= 0x40;
  const Manifest m = ReadManifest(Span(log), Flavor::kLevelDb, "M");
  EXPECT_TRUE(m.damaged);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_EQ(m.findings[0].severity, Severity::kError);
  EXPECT_EQ(m.findings[0].offset, two.size());
  EXPECT_NE(m.findings[0].message.find("checksum"), std::string::npos);
  // What came before the damage: the first two edits.
  const std::vector<std::pair<int, std::uint64_t>> want{{0, 5}, {0, 6}, {2, 4}};
  EXPECT_EQ(Tables(m), want);
  EXPECT_EQ(whole.records, 3u);
}

TEST(ManifestLog, TruncatedLastRecordIsAWarning) {
  const std::string log = ThreeEdits();
  for (std::size_t cut : {log.size() - 1, log.size() - 20}) {
    const Manifest m = ReadManifest(Span(log).first(cut), Flavor::kLevelDb, "M");
    EXPECT_FALSE(m.damaged) << cut;
    ASSERT_EQ(m.findings.size(), 1u) << cut;
    EXPECT_EQ(m.findings[0].severity, Severity::kWarning);
    EXPECT_NE(m.findings[0].message.find("cut short"), std::string::npos);
    EXPECT_LT(*m.findings[0].offset, cut);
    EXPECT_EQ(m.records, 2u);
  }
  // A header cut short too.
  std::string two = ThreeEdits();
  AppendRecord(two, Edit({Scalar(4, 300)}));
  const Manifest m = ReadManifest(Span(two).first(ThreeEdits().size() + 3), Flavor::kLevelDb, "M");
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_EQ(m.findings[0].offset, ThreeEdits().size());
  EXPECT_EQ(m.records, 3u);
}

TEST(ManifestLog, UnknownTagIsAnErrorAtTheTag) {
  std::string log;
  AppendRecord(log, Edit({Scalar(2, 3), Scalar(99, 1)}));
  const Manifest m = ReadManifest(Span(log), Flavor::kLevelDb, "MANIFEST-000009");
  EXPECT_TRUE(m.damaged);
  ASSERT_EQ(m.findings.size(), 1u);
  // Header (7) + the log-number field (2 bytes): the tag 99.
  EXPECT_EQ(m.findings[0].offset, 9u);
  EXPECT_NE(m.findings[0].message.find("found 99"), std::string::npos);
  // RocksDB's tags are not LevelDB's.
  std::string rocks;
  AppendRecord(rocks, Edit({Scalar(200, 1)}));
  const Manifest r = ReadManifest(Span(rocks), Flavor::kLevelDb, "M");
  EXPECT_TRUE(r.damaged);
  EXPECT_EQ(r.findings.at(0).offset, 7u);
}

TEST(ManifestLog, LevelOutOfRangeAndShortKeysAreErrors) {
  std::string log;
  AppendRecord(log, NewFile(7, 3, 10, "a", "b"));
  Manifest m = ReadManifest(Span(log), Flavor::kLevelDb, "M");
  EXPECT_TRUE(m.damaged);
  EXPECT_EQ(m.findings.at(0).offset, 8u);  // the level, after the tag byte
  std::string shortkey;
  std::string e;
  PutVarint(e, 7);
  PutVarint(e, 0);
  PutVarint(e, 3);
  PutVarint(e, 10);
  PutBytes(e, "abc");
  AppendRecord(shortkey, e);
  m = ReadManifest(Span(shortkey), Flavor::kLevelDb, "M");
  EXPECT_TRUE(m.damaged);
  EXPECT_EQ(m.findings.at(0).offset, 11u);
  EXPECT_NE(m.findings.at(0).message.find("at least 8 bytes"), std::string::npos);
}

TEST(ManifestLog, BadLengthAndTypeAreErrors) {
  std::string log = ThreeEdits();
  // A length past its block is damage when the block is whole (at the end of the file it would
  // be a record cut short): a second, 70000-byte record fills the first block.
  std::string bad_len = log;
  AppendRecord(bad_len, Comparator(std::string(70000, 'c')));
  bad_len[4] = '\xff';
  bad_len[5] = '\x7f';
  Manifest m = ReadManifest(Span(bad_len), Flavor::kLevelDb, "M");
  EXPECT_TRUE(m.damaged);
  EXPECT_EQ(m.findings.at(0).offset, 4u);
  std::string bad_type = log;
  bad_type[6] = 9;
  m = ReadManifest(Span(bad_type), Flavor::kRocksDb, "M");
  EXPECT_TRUE(m.damaged);
  EXPECT_EQ(m.findings.at(0).offset, 0u);
  EXPECT_NE(m.findings.at(0).message.find("type 9"), std::string::npos);
  bad_type[6] = 5;  // recyclable: RocksDB only
  m = ReadManifest(Span(bad_type), Flavor::kLevelDb, "M");
  EXPECT_TRUE(m.damaged);
  EXPECT_NE(m.findings.at(0).message.find("recyclable"), std::string::npos);
  // A middle fragment with no first one.
  std::string orphan = log;
  orphan[6] = 3;
  m = ReadManifest(Span(orphan), Flavor::kLevelDb, "M");
  EXPECT_TRUE(m.damaged);  // the checksum covers the type: caught there or as an orphan
  EXPECT_EQ(m.findings.at(0).offset, 0u);
}

TEST(ManifestLog, RocksDbColumnFamiliesAndCustomFields) {
  std::string log;
  // NewFile4 in the default CF with custom fields (creation time 6, a checksum 7, an unknown
  // ignorable 20) and a safe-to-ignore tag (db id, 8193).
  std::string nf4;
  PutVarint(nf4, 103);
  PutVarint(nf4, 1);
  PutVarint(nf4, 12);
  PutVarint(nf4, 4096);
  PutBytes(nf4, InternalKey("k1", 5));
  PutBytes(nf4, InternalKey("k9", 7));
  PutVarint(nf4, 5);
  PutVarint(nf4, 7);
  PutVarint(nf4, 6);
  PutBytes(nf4, std::string("\x01", 1));
  PutVarint(nf4, 7);
  PutBytes(nf4, "");
  PutVarint(nf4, 20);
  PutBytes(nf4, "xyz");
  PutVarint(nf4, 1);  // terminate
  std::string dbid;
  PutVarint(dbid, 8193);
  PutBytes(dbid, "some-uuid");
  AppendRecord(log, Edit({dbid, Comparator("leveldb.BytewiseComparator")}));
  AppendRecord(log, nf4);
  std::string add;
  PutVarint(add, 200);
  PutVarint(add, 1);
  PutVarint(add, 201);
  PutBytes(add, "cf1");
  AppendRecord(log, add);
  std::string cf1;
  PutVarint(cf1, 200);
  PutVarint(cf1, 1);
  std::string nf2;
  PutVarint(nf2, 100);
  PutVarint(nf2, 0);
  PutVarint(nf2, 13);
  PutVarint(nf2, 100);
  PutBytes(nf2, InternalKey("x", 1));
  PutBytes(nf2, InternalKey("y", 2));
  PutVarint(nf2, 1);
  PutVarint(nf2, 2);
  AppendRecord(log, cf1 + nf2);
  const Manifest m = ReadManifest(Span(log), Flavor::kRocksDb, "M");
  EXPECT_TRUE(m.findings.empty()) << m.findings.front().message;
  ASSERT_EQ(m.column_families.size(), 2u);
  EXPECT_EQ(m.column_families[1].name, "cf1");
  EXPECT_EQ(Tables(m, 0), (std::vector<std::pair<int, std::uint64_t>>{{1, 12}}));
  EXPECT_EQ(Tables(m, 1), (std::vector<std::pair<int, std::uint64_t>>{{0, 13}}));
  // The same edits read as LevelDB's: tag 8193 is no LevelDB tag.
  EXPECT_TRUE(ReadManifest(Span(log), Flavor::kLevelDb, "M").damaged);
  // A custom field a reader must understand (bit 6 set, unknown) is an error.
  std::string must = nf4;
  must[must.size() - 6] = 70;  // the tag 20 -> 70
  std::string log2;
  AppendRecord(log2, must);
  const Manifest bad = ReadManifest(Span(log2), Flavor::kRocksDb, "M");
  EXPECT_TRUE(bad.damaged);
  EXPECT_NE(bad.findings.at(0).message.find("70"), std::string::npos);
  // Dropping the column family removes its tables.
  std::string drop = cf1;
  PutVarint(drop, 202);
  AppendRecord(log, drop);
  const Manifest dropped = ReadManifest(Span(log), Flavor::kRocksDb, "M");
  EXPECT_EQ(dropped.column_families.size(), 1u);
}

// The per-level rate: level 0 combined, each level above its key-weighted mean; a damaged table
// (error, no fill) is p = 1 and weighs as its level's average table; an obsolete table is out.
TEST(ManifestLog, SummaryRateByLevels) {
  auto table = [](int level, double p, std::uint64_t keys) {
    FileReport f;
    f.path = "t" + std::to_string(level) + "-" + std::to_string(keys);
    f.group = "db";
    f.level = level;
    f.column_family = "default";
    f.manifest = "db/MANIFEST-000002";
    f.keys_checked = keys;
    FillReport fill;
    fill.fp_rate = p;
    f.fill = fill;
    return f;
  };
  std::vector<FileReport> files{table(0, 0.02, 100), table(0, 0.03, 50), table(1, 0.01, 300),
                                table(1, 0.04, 100), table(2, 0.005, 1000)};
  FileReport missing;
  missing.path = "missing";
  missing.group = "db";
  missing.level = 2;
  missing.manifest = "db/MANIFEST-000002";
  missing.Add(Severity::kError, finding_kind::kMissingTable, "gone");
  files.push_back(missing);
  FileReport obsolete = table(-1, 0.9, 10);
  obsolete.group_role = GroupRole::kObsolete;
  files.push_back(obsolete);
  const VerifySummary s = Summarize(files);
  ASSERT_EQ(s.groups.size(), 2u);
  const GroupSummary& g = s.groups[0];
  EXPECT_EQ(g.role, GroupRole::kLive);
  EXPECT_EQ(g.manifest, "db/MANIFEST-000002");
  ASSERT_EQ(g.levels.size(), 3u);
  const double l0 = 1 - 0.98 * 0.97;
  const double l1 = (0.01 * 300 + 0.04 * 100) / 400;
  const double l2 = (0.005 * 1000 + 1.0 * 1000) / 2000;  // the missing table weighs 1000
  EXPECT_NEAR(g.levels[0].fp_rate, l0, 1e-15);
  EXPECT_NEAR(g.levels[1].fp_rate, l1, 1e-15);
  EXPECT_NEAR(g.levels[2].fp_rate, l2, 1e-15);
  EXPECT_NEAR(g.combined_fp_rate, 1 - (1 - l0) * (1 - l1) * (1 - l2), 1e-15);
  EXPECT_EQ(g.tables, 6u);
  EXPECT_EQ(g.damaged, 1u);
  EXPECT_EQ(s.groups[1].role, GroupRole::kObsolete);
  EXPECT_TRUE(s.groups[1].levels.empty());
  // Without levels (one table without a MANIFEST level), every table counts as consulted.
  files[4].level = -1;
  const VerifySummary flat = Summarize(files);
  EXPECT_TRUE(flat.groups[0].levels.empty());
  double keep = 0.98 * 0.97 * 0.99 * 0.96 * 0.995 * 0.0;
  EXPECT_NEAR(flat.groups[0].combined_fp_rate, 1 - keep, 1e-15);
}

// RocksDB's recyclable records: an 11-byte header whose log number (u32) the checksum covers.
TEST(ManifestLog, RecyclableRecords) {
  const std::string payload = NewFile(0, 21, 77, "r", "s");
  auto recyclable = [&](std::uint32_t log_number, bool good_crc) {
    std::string body;
    body.push_back(5);  // recyclable FULL
    for (int i = 0; i < 4; ++i) body.push_back(static_cast<char>(log_number >> (8 * i)));
    body += payload;
    std::uint32_t crc = blocktable::MaskCrc(blocktable::Crc32c(Span(body)));
    if (!good_crc) crc ^= 1;
    std::string rec;
    for (int i = 0; i < 4; ++i) rec.push_back(static_cast<char>(crc >> (8 * i)));
    rec.push_back(static_cast<char>(payload.size() & 0xff));
    rec.push_back(static_cast<char>(payload.size() >> 8));
    return rec + body;
  };
  const std::string log = recyclable(9, true);
  Manifest m = ReadManifest(Span(log), Flavor::kRocksDb, "M");
  EXPECT_TRUE(m.findings.empty());
  EXPECT_EQ(Tables(m), (std::vector<std::pair<int, std::uint64_t>>{{0, 21}}));
  m = ReadManifest(Span(recyclable(9, false)), Flavor::kRocksDb, "M");
  EXPECT_TRUE(m.damaged);
  EXPECT_EQ(m.findings.at(0).offset, 0u);
  // LevelDB does not know the type.
  EXPECT_TRUE(ReadManifest(Span(log), Flavor::kLevelDb, "M").damaged);
}

TEST(ManifestLog, TableFileNames) {
  EXPECT_EQ(manifest::TableFileName(5, "ldb"), "000005.ldb");
  EXPECT_EQ(manifest::TableFileName(12345678, "sst"), "12345678.sst");
}

}  // namespace
}  // namespace bloomcodec::manifest_test

// The repair's MANIFEST writer on hand-made MANIFESTs: the log framing reads back record for
// record (across 32 KiB blocks, after an old file that ended mid-block), a new-file field
// re-recorded under its own number and size is the field as written, and the fields a rewrite
// changes (number, size, crc32c file checksum, tail size) change while unknown custom fields
// stay byte for byte.
#include <gtest/gtest.h>

#include <string>

#include "blocktable/crc32c.h"
#include "lsmrepair/manifest_writer.h"
#include "manifest/log_writer.h"
#include "manifest/manifest.h"
#include "manifest/version_edit.h"

namespace bloomcodec::lsmrepair {
namespace {

using manifest::Flavor;
using manifest_test::AppendRecord;
using manifest_test::InternalKey;
using manifest_test::PutBytes;
using manifest_test::PutVarint;
using manifest_test::Span;

// A RocksDB new-file-4 field with the given custom fields (tag, value) and the terminator.
std::string NewFile4(int level, std::uint64_t number, std::uint64_t size,
                     const std::vector<std::pair<std::uint32_t, std::string>>& custom) {
  std::string e;
  PutVarint(e, 103);
  PutVarint(e, level);
  PutVarint(e, number);
  PutVarint(e, size);
  PutBytes(e, InternalKey("a", 5));
  PutBytes(e, InternalKey("z", 9));
  PutVarint(e, 5);
  PutVarint(e, 9);
  for (const auto& [tag, value] : custom) {
    PutVarint(e, tag);
    PutBytes(e, value);
  }
  PutVarint(e, 1);
  return e;
}

std::string Varint(std::uint64_t v) {
  std::string s;
  PutVarint(s, v);
  return s;
}

std::vector<manifest::TableMeta> Decode(const std::string& edit, Flavor flavor) {
  manifest::LogRecord record;
  record.payload.assign(edit.begin(), edit.end());
  manifest::VersionEdit out;
  const Status s = manifest::DecodeVersionEdit(record, flavor, "edit", out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.added;
}

std::string AsString(const ByteVector& b) { return std::string(b.begin(), b.end()); }

TEST(RepairManifestWriter, LogFramingReadsBackAcrossBlocks) {
  // Payloads of every size class: empty, small, one that ends 3 bytes before a block end (the
  // next header does not fit: padding), several blocks long.
  std::vector<ByteVector> payloads;
  payloads.push_back({});
  payloads.push_back(ByteVector(100, 7));
  payloads.push_back(ByteVector(manifest::kBlockSize - 100 - 3 * manifest::kHeaderSize - 3, 8));
  payloads.push_back(ByteVector(3 * manifest::kBlockSize + 11, 9));
  for (std::size_t i = 0; i < 40; ++i) payloads.push_back(ByteVector(i * 997 % 5000, i & 0xff));
  ByteVector log;
  LogWriter writer(log);
  for (const ByteVector& p : payloads) writer.AddRecord(p);
  // The same bytes as the tests' reference writer (written from the format description).
  std::string reference;
  for (const ByteVector& p : payloads) AppendRecord(reference, AsString(p));
  EXPECT_EQ(AsString(log), reference);
  const manifest::LogReadResult read = manifest::ReadLogRecords(log, Flavor::kRocksDb);
  ASSERT_FALSE(read.damaged);
  EXPECT_TRUE(read.findings.empty());
  ASSERT_EQ(read.records.size(), payloads.size());
  for (std::size_t i = 0; i < payloads.size(); ++i) EXPECT_EQ(read.records[i].payload, payloads[i]);
}

TEST(RepairManifestWriter, OldRecordsReframedAfterAFileThatEndedMidBlock) {
  // An old MANIFEST of two records; the new one holds them (payloads byte for byte, framing of
  // its own) and then the repair edit, every record readable.
  std::string old;
  std::string first;
  PutVarint(first, 1);
  PutBytes(first, "leveldb.BytewiseComparator");
  PutVarint(first, 3);
  PutVarint(first, 10);
  PutVarint(first, 4);
  PutVarint(first, 77);
  PutVarint(first, 2);
  PutVarint(first, 4);
  AppendRecord(old, first);
  AppendRecord(old, manifest_test::NewFile(2, 7, 5000, "a", "m"));
  const manifest::LogReadResult read = manifest::ReadLogRecords(Span(old), Flavor::kLevelDb);
  ASSERT_EQ(read.records.size(), 2u);
  const std::vector<manifest::TableMeta> added =
      Decode(manifest_test::NewFile(2, 7, 5000, "a", "m"), Flavor::kLevelDb);
  ASSERT_EQ(added.size(), 1u);
  TableReplacement r{0, added[0], 12, 5100, std::nullopt};
  Result<ByteVector> manifest = BuildRepairManifest(read.records, Flavor::kLevelDb, {&r, 1}, 14);
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  const manifest::Manifest m = manifest::ReadManifest(*manifest, Flavor::kLevelDb, "new");
  ASSERT_FALSE(m.damaged);
  EXPECT_EQ(m.records, 3u);
  EXPECT_EQ(m.next_file, 14u);
  EXPECT_EQ(m.last_sequence, 77u);
  ASSERT_EQ(m.column_families.size(), 1u);
  ASSERT_EQ(m.column_families[0].tables.size(), 1u);
  const manifest::TableMeta& t = m.column_families[0].tables[0];
  EXPECT_EQ(t.number, 12u);
  EXPECT_EQ(t.size, 5100u);
  EXPECT_EQ(t.level, 2);
  EXPECT_EQ(t.smallest, added[0].smallest);
  EXPECT_EQ(t.largest, added[0].largest);
}

TEST(RepairManifestWriter, UnchangedFieldIsTheFieldAsWritten) {
  const std::vector<std::pair<std::uint32_t, std::string>> custom{
      {5, Varint(1700000000)}, {6, Varint(1700000001)}, {12, std::string(16, 'u')},
      {13, Varint(3)},         {60, "future field"},    {65, std::string(1, '\0')}};
  for (const std::string& field :
       {NewFile4(3, 41, 123456, custom), manifest_test::NewFile(1, 9, 4444, "b", "c")}) {
    const Flavor flavor = field[0] == 103 ? Flavor::kRocksDb : Flavor::kLevelDb;
    const std::vector<manifest::TableMeta> added = Decode(field, flavor);
    ASSERT_EQ(added.size(), 1u);
    EXPECT_EQ(AsString(added[0].record.bytes), field.substr(1));
    TableReplacement same{0, added[0], added[0].number, added[0].size, std::nullopt};
    Result<ByteVector> again = EncodeReplacedNewFile(same);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(AsString(*again), field);
  }
}

TEST(RepairManifestWriter, ChangedFieldsAreNumberSizeChecksumAndTailSize) {
  const std::string old_checksum("\x01\x02\x03\x04", 4);
  const std::vector<std::pair<std::uint32_t, std::string>> custom{
      {5, Varint(17)},          {7, old_checksum},  {8, "FileChecksumCrc32c"},
      {12, "0123456789abcdef"}, {15, Varint(1000)}, {60, "keep me"}};
  const std::vector<manifest::TableMeta> added =
      Decode(NewFile4(0, 41, 50000, custom), Flavor::kRocksDb);
  ASSERT_EQ(added.size(), 1u);
  std::string function;
  EXPECT_EQ(FileChecksumNeed(added[0].record, &function), ChecksumNeed::kCrc32c);
  TableReplacement r{0, added[0], 90, 50300, Crc32cFileChecksum(0xa1b2c3d4u)};
  Result<ByteVector> field = EncodeReplacedNewFile(r);
  ASSERT_TRUE(field.ok()) << field.status().ToString();
  const std::vector<std::pair<std::uint32_t, std::string>> want_custom{
      {5, Varint(17)},           {7, std::string("\xa1\xb2\xc3\xd4", 4)},
      {8, "FileChecksumCrc32c"}, {12, "0123456789abcdef"},
      {15, Varint(1300)},        {60, "keep me"}};
  EXPECT_EQ(AsString(*field), NewFile4(0, 90, 50300, want_custom));
  // Without the new checksum the field is not written.
  r.file_checksum.reset();
  EXPECT_FALSE(EncodeReplacedNewFile(r).ok());
  // A checksum function bloomcodec does not compute is refused; "Unknown" is kept.
  const std::vector<manifest::TableMeta> other =
      Decode(NewFile4(0, 41, 50000, {{7, old_checksum}, {8, "MyChecksum"}}), Flavor::kRocksDb);
  EXPECT_EQ(FileChecksumNeed(other[0].record, &function), ChecksumNeed::kUnsupported);
  EXPECT_EQ(function, "MyChecksum");
  EXPECT_FALSE(EncodeReplacedNewFile({0, other[0], 90, 50300, std::nullopt}).ok());
  const std::vector<manifest::TableMeta> unknown =
      Decode(NewFile4(0, 41, 50000, {{7, ""}, {8, "Unknown"}}), Flavor::kRocksDb);
  EXPECT_EQ(FileChecksumNeed(unknown[0].record, nullptr), ChecksumNeed::kNone);
  Result<ByteVector> kept = EncodeReplacedNewFile({0, unknown[0], 90, 50300, std::nullopt});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(AsString(*kept), NewFile4(0, 90, 50300, {{7, ""}, {8, "Unknown"}}));
}

TEST(RepairManifestWriter, EditsPerColumnFamilyWithNextFileOnTheLast) {
  const std::vector<manifest::TableMeta> a = Decode(NewFile4(1, 20, 900, {}), Flavor::kRocksDb);
  const std::vector<manifest::TableMeta> b = Decode(NewFile4(4, 21, 800, {}), Flavor::kRocksDb);
  const std::vector<TableReplacement> replaced{{2, b[0], 31, 810, std::nullopt},
                                               {0, a[0], 30, 910, std::nullopt}};
  Result<std::vector<ByteVector>> edits = RepairEdits(replaced, Flavor::kRocksDb, 33);
  ASSERT_TRUE(edits.ok());
  ASSERT_EQ(edits->size(), 2u);
  std::string want0;
  PutVarint(want0, 6);
  PutVarint(want0, 1);
  PutVarint(want0, 20);
  want0 += NewFile4(1, 30, 910, {});
  EXPECT_EQ(AsString((*edits)[0]), want0);
  std::string want1;
  PutVarint(want1, 200);
  PutVarint(want1, 2);
  PutVarint(want1, 6);
  PutVarint(want1, 4);
  PutVarint(want1, 21);
  want1 += NewFile4(4, 31, 810, {});
  PutVarint(want1, 3);
  PutVarint(want1, 33);
  EXPECT_EQ(AsString((*edits)[1]), want1);
  // LevelDB has one column family.
  EXPECT_FALSE(RepairEdits(replaced, Flavor::kLevelDb, 33).ok());
}

}  // namespace
}  // namespace bloomcodec::lsmrepair

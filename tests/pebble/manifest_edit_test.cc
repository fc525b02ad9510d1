// Pebble's version edits and their replay (formats/manifest, Flavor::kPebble) on MANIFESTs from
// the test writer: every tag Pebble writes, the new-file layouts with their custom fields,
// virtual tables and their backings, blob files, and what Pebble refuses, each at its offset.
#include <gtest/gtest.h>

#include <string>

#include "manifest/manifest.h"
#include "pebble/manifest_writer.h"

namespace bloomcodec::pebble_test {
namespace {

using manifest::Flavor;
using manifest::Manifest;
using manifest::ReadManifest;
using manifest::TableMeta;

Manifest Read(const std::string& log, Flavor flavor = Flavor::kPebble) {
  return ReadManifest(Span(log), flavor, "db/MANIFEST-000005");
}

std::vector<std::pair<int, std::uint64_t>> Tables(const Manifest& m) {
  std::vector<std::pair<int, std::uint64_t>> out;
  for (const TableMeta& t : m.column_families.at(0).tables) out.push_back({t.level, t.number});
  return out;
}

const TableMeta& TableOf(const Manifest& m, std::uint64_t number) {
  for (const TableMeta& t : m.column_families.at(0).tables) {
    if (t.number == number) return t;
  }
  ADD_FAILURE() << "no table " << number;
  static const TableMeta none;
  return none;
}

std::string Text(const ByteVector& v) { return std::string(v.begin(), v.end()); }

std::string Messages(const Manifest& m) {
  std::string out;
  for (const Finding& f : m.findings) out += f.message + "\n";
  return out;
}

// The offset of the first occurrence of `needle` in `log` (a field the test placed there).
std::uint64_t OffsetOf(const std::string& log, const std::string& needle) {
  const std::size_t at = log.find(needle);
  EXPECT_NE(at, std::string::npos);
  return at;
}

TEST(PebbleEdit, EveryTagReplays) {
  NewTable l0 = Table(0, 7, "b", "f", 700);
  NewTable l6 = Table(6, 8, "a", "m", 800);
  l6.creation_time = 1700000000;
  NewTable old = Table(1, 3, "c", "d");
  NewTable ranged = Table(5, 9, "p", "q");
  ranged.range_keys = true;
  ranged.range_smallest = "n";
  ranged.range_largest = "r";
  ranged.smallest_is_point = false;  // the range key "n" starts the table
  NewTable moved = Table(2, 3, "c", "d");
  Edit first = Header(20, 4);
  first.PrevLogNumber(1).CompactPointer(1, "any bytes").AddAs(7, old).AddAs(102, l0);
  Edit second;
  second.Deleted(1, 3).Add(moved).Add(l6).Add(ranged).Excise("c", "e", 0, 40).Marked(6, 8);
  second.LastSequence(99);
  const Manifest m = Read(Log({first, second}));
  EXPECT_TRUE(m.findings.empty()) << Messages(m);
  EXPECT_EQ(m.records, 2u);
  EXPECT_EQ(m.comparator, "leveldb.BytewiseComparator");
  EXPECT_EQ(m.log_number, 4u);
  EXPECT_EQ(m.prev_log_number, 1u);
  EXPECT_EQ(m.next_file, 20u);
  EXPECT_EQ(m.last_sequence, 99u);
  EXPECT_TRUE(m.pebble_only_fields);
  const std::vector<std::pair<int, std::uint64_t>> want{{0, 7}, {2, 3}, {5, 9}, {6, 8}};
  EXPECT_EQ(Tables(m), want);
  EXPECT_EQ(TableOf(m, 8).creation_time, 1700000000u);
  EXPECT_TRUE(TableOf(m, 8).marked_for_compaction);
  EXPECT_FALSE(TableOf(m, 7).marked_for_compaction);
  const TableMeta& r = TableOf(m, 9);
  ASSERT_TRUE(r.range_keys && r.point_keys);
  EXPECT_EQ(Text(r.smallest), Key("n", 1, kRangeKeySet));  // the marker picked the range key
  EXPECT_EQ(Text(r.largest), Key("q"));
  EXPECT_EQ(Text(r.point_keys->smallest), Key("p"));
  EXPECT_EQ(Text(r.range_keys->largest), Key("r", 1, kRangeKeySet));
}

TEST(PebbleEdit, LevelDbTagsReplayAsLevelDbReadsThem) {
  // A MANIFEST of LevelDB's tags only: Pebble's replay gives LevelDB's levels, and nothing in it
  // is Pebble's own.
  std::string log;
  AppendRecord(log, Header(9).bytes());
  AppendRecord(log, Edit().AddAs(7, Table(0, 5, "a", "m")).AddAs(7, Table(2, 4, "c", "d")).bytes());
  AppendRecord(log, Edit().Deleted(0, 5).AddAs(7, Table(1, 7)).bytes());
  const Manifest pebble = Read(log);
  const Manifest leveldb = Read(log, Flavor::kLevelDb);
  EXPECT_TRUE(pebble.findings.empty()) << Messages(pebble);
  EXPECT_EQ(Tables(pebble), Tables(leveldb));
  EXPECT_FALSE(pebble.pebble_only_fields);
}

TEST(PebbleEdit, VirtualTablesShareTheirBacking) {
  NewTable left = Table(6, 21, "a", "f", 300);
  left.backing = 12;
  left.prefix = "t/";
  NewTable right = Table(6, 22, "g", "k", 400);
  right.backing = 12;
  right.suffix = "@5";
  Edit excise;
  excise.Deleted(6, 12).CreatedBacking(12, 1000).Add(left).Add(right);
  const std::string log = Log({Header(), Edit().Add(Table(6, 12, "a", "z", 1000)), excise});
  const Manifest m = Read(log);
  EXPECT_TRUE(m.findings.empty()) << Messages(m);
  const std::vector<std::pair<int, std::uint64_t>> want{{6, 21}, {6, 22}};
  EXPECT_EQ(Tables(m), want);
  EXPECT_TRUE(TableOf(m, 21).is_virtual);
  EXPECT_EQ(TableOf(m, 21).backing, 12u);
  EXPECT_EQ(Text(*TableOf(m, 21).synthetic_prefix), "t/");
  EXPECT_FALSE(TableOf(m, 21).synthetic_suffix);
  EXPECT_EQ(Text(*TableOf(m, 22).synthetic_suffix), "@5");
  ASSERT_EQ(m.backings.size(), 1u);
  EXPECT_EQ(m.backings[0].number, 12u);
  EXPECT_EQ(m.backings[0].size, 1000u);
  EXPECT_EQ(m.backings[0].virtual_tables, 2u);

  // One virtual table goes; later the other, and the backing record with it.
  const Manifest fewer = Read(log + Log({Edit().Deleted(6, 21)}));
  ASSERT_EQ(fewer.backings.size(), 1u);
  EXPECT_EQ(fewer.backings[0].virtual_tables, 1u);
  const Manifest none =
      Read(log + Log({Edit().Deleted(6, 21), Edit().Deleted(6, 22), Edit().RemovedBacking(12)}));
  EXPECT_TRUE(none.findings.empty()) << Messages(none);
  EXPECT_TRUE(none.backings.empty());
  EXPECT_TRUE(none.column_families[0].tables.empty());
}

TEST(PebbleEdit, BlobFilesAndTheirReferences) {
  NewTable t = Table(6, 30);
  t.blob_refs = {BlobRef{1, 500, 0}, BlobRef{2, 70, 0}};
  NewTable u = Table(6, 32, "za", "zz");
  u.blob_refs = {BlobRef{1, 600, 0}};
  // Table 32 becomes a virtual table of itself (an excise): its references carry the backing's
  // value size (custom tag 70).
  NewTable v = Table(6, 31, "za", "zm");
  v.backing = 32;
  v.blob_refs = {BlobRef{1, 10, 600}};
  v.blob_refs2 = true;
  Edit add;
  add.NewBlobFile(1, 28, 9000, 8000, 1700000000).NewBlobFile(2, 29, 900, 800, 1700000001);
  add.Add(t).Add(u);
  // A rewritten blob file keeps its id and gets a new file; the old file's deletion matches
  // nothing live then (Pebble ignores it).
  Edit replace;
  replace.NewBlobFile(2, 33, 700, 600, 1700000100).DeletedBlobFile(2, 29);
  Edit virtualize;
  virtualize.Deleted(6, 32).CreatedBacking(32, 100).Add(v);
  const Manifest m = Read(Log({Header(), add, replace, virtualize}));
  EXPECT_TRUE(m.findings.empty()) << Messages(m);
  ASSERT_EQ(m.blob_files.size(), 2u);
  EXPECT_EQ(m.blob_files[0].id, 1u);
  EXPECT_EQ(m.blob_files[0].number, 28u);
  EXPECT_EQ(m.blob_files[0].value_size, 8000u);
  EXPECT_EQ(m.blob_files[0].tables, 2u);
  EXPECT_EQ(m.blob_files[1].number, 33u);
  EXPECT_EQ(m.blob_files[1].tables, 1u);
  ASSERT_EQ(TableOf(m, 31).blob_references.size(), 1u);
  EXPECT_EQ(TableOf(m, 31).blob_references[0].backing_value_size, 600u);
  EXPECT_EQ(TableOf(m, 30).blob_references[1].value_size, 70u);

  // Deleting blob file 1 while tables still refer to it: Pebble refuses to open.
  const Manifest gone = Read(Log({Header(), add, Edit().DeletedBlobFile(1, 28)}));
  EXPECT_TRUE(gone.damaged);
  EXPECT_NE(Messages(gone).find("refers to blob file B000001, which is not live"),
            std::string::npos)
      << Messages(gone);
}

TEST(PebbleEdit, CustomFieldsPebbleSkipsOrKnows) {
  NewTable t = Table(3, 40);
  t.no_range_key_sets = true;
  t.needs_compaction = true;
  // Custom tags below 64 are length-prefixed and skipped; so is 128 (bit 64 clear).
  std::string extra;
  PutVarint(extra, 5);
  PutBytes(extra, "skip me");
  PutVarint(extra, 128);
  PutBytes(extra, "");
  t.extra_custom = extra;
  const Manifest m = Read(Log({Header(), Edit().Add(t)}));
  EXPECT_TRUE(m.findings.empty()) << Messages(m);
  EXPECT_TRUE(TableOf(m, 40).marked_for_compaction);  // custom tag 2, as Pebble v1 and v2
}

// Each case: a table whose custom fields end in `custom` (raw), and what the error says.
struct RefusedCustom {
  std::string name;
  std::string custom;
  std::string says;
  std::size_t at = 0;  // the error's offset past the custom field's start
};

TEST(PebbleEdit, CustomFieldsPebbleRefuses) {
  auto field = [](std::uint64_t tag, const std::string& bytes) {
    std::string s;
    PutVarint(s, tag);
    PutBytes(s, bytes);
    return s;
  };
  std::string huge_refs;  // custom 69: depth 1, a count far beyond what the edit holds
  PutVarint(huge_refs, 69);
  PutVarint(huge_refs, 1);
  PutVarint(huge_refs, 1ull << 40);
  const std::vector<RefusedCustom> cases = {
      {"path id", field(65, std::string(1, '\0')), "path-id field not supported"},
      {"tag 64", field(64, "x"), "custom field not supported"},
      {"tag 71", field(71, "x"), "custom field not supported"},
      {"needs compaction of 2 bytes", field(2, "ab"), "a needs-compaction field of 1 byte"},
      {"creation time with a tail", field(6, std::string("\x05\x00", 2)), "exactly one uvarint"},
      {"no-range-key-sets not empty", field(7, "x"), "an empty no-range-key-sets field"},
      {"blob reference count", huge_refs, "a blob reference count the edit can hold", 2},
  };
  for (const RefusedCustom& c : cases) {
    NewTable t = Table(3, 41);
    t.extra_custom = c.custom;
    t.creation_time = 5;  // a field before the bad one
    const std::string log = Log({Header(), Edit().Add(t)});
    const Manifest m = Read(log);
    ASSERT_TRUE(m.damaged) << c.name;
    ASSERT_EQ(m.findings.size(), 1u) << c.name;
    EXPECT_NE(m.findings[0].message.find(c.says), std::string::npos)
        << c.name << ": " << m.findings[0].message;
    // The offset is the custom field's tag: after the creation time field (06 01 05).
    EXPECT_EQ(m.findings[0].offset,
              OffsetOf(log, std::string("\x06\x01\x05", 3) + c.custom) + 3 + c.at)
        << c.name;
    EXPECT_EQ(m.records, 1u) << c.name;  // the header edit only
  }
}

TEST(PebbleEdit, TagsPebbleRefuses) {
  struct Case {
    std::uint64_t tag;
    std::string says;
  };
  const std::vector<Case> cases = {
      {8, "MANIFEST: unknown tag"},
      {12, "MANIFEST: unknown tag"},
      {101, "MANIFEST: unknown tag"},
      {109, "MANIFEST: unknown tag"},
      {300, "MANIFEST: unknown tag"},
      {400, "MANIFEST: unknown tag"},
      {8193, "MANIFEST: unknown tag"},
      {200, "column families are not supported"},
      {203, "column families are not supported"},
      {1ull << 40, "a known version edit tag"},
  };
  for (const Case& c : cases) {
    std::string raw;
    PutVarint(raw, c.tag);
    PutVarint(raw, 0);
    Edit e;
    e.NextFile(50).Raw(raw);
    const std::string log = Log({Header(), e});
    const Manifest m = Read(log);
    ASSERT_TRUE(m.damaged) << c.tag;
    ASSERT_EQ(m.findings.size(), 1u) << c.tag;
    EXPECT_NE(m.findings[0].message.find(c.says), std::string::npos) << m.findings[0].message;
    EXPECT_EQ(m.findings[0].offset, OffsetOf(log, std::string("\x03\x32", 2) + raw) + 2);
    EXPECT_EQ(m.next_file, 50u);  // the field before the refused one is taken
  }
  // RocksDB reads Pebble's tag 104 no more than Pebble reads RocksDB's 300.
  NewTable ranged = Table(1, 5);
  ranged.range_keys = true;
  EXPECT_TRUE(Read(Log({Header(), Edit().Add(ranged)}), Flavor::kRocksDb).damaged);
}

TEST(PebbleEdit, LevelsAndBoundsPebbleRefuses) {
  // Level 7 in a new file, a deletion and a mark.
  for (const Edit& e :
       {Edit().AddAs(100, Table(7, 5)), Edit().Deleted(9, 5), Edit().Marked(7, 5)}) {
    const Manifest m = Read(Log({Header(), e}));
    ASSERT_TRUE(m.damaged);
    EXPECT_NE(Messages(m).find("below 7"), std::string::npos) << Messages(m);
  }
  // Tag 104 whose marker takes a bound from point keys the table does not have.
  NewTable ranged = Table(1, 5);
  ranged.point_keys = false;
  ranged.range_keys = true;
  ranged.smallest_is_point = true;
  const std::string log = Log({Header(), Edit().Add(ranged)});
  const Manifest m = Read(log);
  ASSERT_TRUE(m.damaged);
  EXPECT_NE(Messages(m).find("table without point keys has point key bounds"), std::string::npos);
  // The marker byte follows tag 104 (0x68), level 1, number 5, size 100 (0x64).
  EXPECT_EQ(m.findings[0].offset, OffsetOf(log, "\x68\x01\x05\x64") + 4);
  // A bound shorter than its 8-byte trailer.
  Edit shortkey;
  shortkey.Raw(
      std::string("\x64\x01\x05\x64\x03"
                  "abc",
                  8));
  const Manifest s = Read(Log({Header(), shortkey}));
  ASSERT_TRUE(s.damaged);
  EXPECT_NE(Messages(s).find("at least 8 bytes"), std::string::npos) << Messages(s);
}

TEST(PebbleEdit, ReplaysPebbleRefuses) {
  const NewTable t5 = Table(1, 5);
  struct Case {
    std::string name;
    std::vector<Edit> edits;
    std::string says;
  };
  NewTable v = Table(6, 9);
  v.backing = 77;
  const std::vector<Case> cases = {
      {"deleted before added", {Edit().Deleted(1, 5)}, "which no edit before added"},
      {"re-added where it was deleted",
       {Edit().Add(t5), Edit().Deleted(2, 5).Add(Table(2, 6)), Edit().Add(Table(2, 5))},
       "which an edit before deleted from that level"},
      {"backing twice",
       {Edit().CreatedBacking(3, 10), Edit().CreatedBacking(3, 10)},
       "duplicate file backing"},
      {"virtual without its backing", {Edit().Add(v)}, "is not a backing table"},
      {"mark of an unknown table", {Edit().Marked(1, 5)}, "unknown table marked for compaction"},
      {"backing removed under a virtual table",
       {Edit().CreatedBacking(77, 10).Add(v), Edit().RemovedBacking(77)},
       "whose backing record an edit removed"},
      {"deletion from a level left empty",
       {Edit().Add(t5), Edit().Deleted(3, 5)},
       "No current or added files but have deleted files"},
  };
  for (const Case& c : cases) {
    std::vector<Edit> edits{Header()};
    edits.insert(edits.end(), c.edits.begin(), c.edits.end());
    const Manifest m = Read(Log(edits));
    EXPECT_TRUE(m.damaged) << c.name;
    EXPECT_NE(Messages(m).find(c.says), std::string::npos) << c.name << ": " << Messages(m);
    EXPECT_NE(Messages(m).find("Pebble refuses to open the database"), std::string::npos);
  }
  // A deletion from a level that holds other tables: Pebble ignores it.
  const Manifest ignored =
      Read(Log({Header(), Edit().Add(t5).Add(Table(3, 6)), Edit().Deleted(3, 5)}));
  EXPECT_FALSE(ignored.damaged) << Messages(ignored);
  ASSERT_EQ(ignored.findings.size(), 1u);
  EXPECT_EQ(ignored.findings[0].severity, Severity::kWarning);
  const std::vector<std::pair<int, std::uint64_t>> want{{1, 5}, {3, 6}};
  EXPECT_EQ(Tables(ignored), want);
}

TEST(PebbleEdit, ALogNumberOrANextFileNumberIsRequired) {
  Edit bare;
  bare.Comparator("leveldb.BytewiseComparator").LastSequence(0);
  const Manifest m = Read(Log({bare}));
  EXPECT_TRUE(m.damaged);
  EXPECT_NE(Messages(m).find("malformed manifest file"), std::string::npos) << Messages(m);
  // A next file number above 1 is enough (a fresh database); a log number of 0 counts as unset.
  Edit fresh;
  fresh.Comparator("leveldb.BytewiseComparator").LogNumber(0).NextFile(2).LastSequence(0);
  const Manifest ok = Read(Log({fresh}));
  EXPECT_FALSE(ok.damaged) << Messages(ok);
  EXPECT_FALSE(ok.log_number);
}

}  // namespace
}  // namespace bloomcodec::pebble_test

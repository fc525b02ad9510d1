// The log records of a Pebble MANIFEST as Pebble's record reader reads them (record/record.go):
// a torn end dropped, any other record it cannot use ending the read (an error here, with its
// offset), preallocated zeros, stray and overlapping fragments, recyclable and WAL-sync headers.
#include <gtest/gtest.h>

#include <string>

#include "blocktable/crc32c.h"
#include "manifest/manifest.h"
#include "pebble/manifest_writer.h"

namespace bloomcodec::pebble_test {
namespace {

using manifest::Flavor;
using manifest::Manifest;
using manifest::ReadManifest;

Manifest Read(const std::string& log, Flavor flavor = Flavor::kPebble) {
  return ReadManifest(Span(log), flavor, "MANIFEST-000009");
}

std::string Messages(const Manifest& m) {
  std::string out;
  for (const Finding& f : m.findings) out += f.message + "\n";
  return out;
}

std::size_t TableCount(const Manifest& m) { return m.column_families.at(0).tables.size(); }

// One fragment: crc32c (masked) over the type, `extra` (a recyclable header's log number, a
// WAL-sync header's log number and offset) and the payload; the payload length; the type.
std::string Fragment(std::uint8_t type, const std::string& payload, const std::string& extra = "") {
  std::string body(1, static_cast<char>(type));
  body += extra + payload;
  const std::uint32_t crc = blocktable::MaskCrc(blocktable::Crc32c(Span(body)));
  std::string f;
  for (int i = 0; i < 4; ++i) f.push_back(static_cast<char>(crc >> (8 * i)));
  f.push_back(static_cast<char>(payload.size() & 0xff));
  f.push_back(static_cast<char>(payload.size() >> 8));
  return f + body.substr(0, 1) + extra + payload;
}

std::string U32(std::uint32_t v) {
  std::string s;
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}

// Three edits: the header, two tables, a third table.
std::vector<Edit> ThreeEdits() {
  return {Header(), Edit().Add(Table(0, 5)).Add(Table(6, 6, "b", "c")), Edit().Add(Table(1, 7))};
}

TEST(PebbleLog, ATornLastRecordIsDropped) {
  const std::string two = Log({ThreeEdits()[0], ThreeEdits()[1]});
  const std::string log = Log(ThreeEdits());
  for (std::size_t cut = two.size(); cut < log.size(); ++cut) {
    const Manifest m = Read(log.substr(0, cut));
    EXPECT_FALSE(m.damaged) << cut;
    EXPECT_EQ(m.records, 2u) << cut;
    EXPECT_EQ(TableCount(m), 2u) << cut;
    if (cut == two.size()) {
      EXPECT_TRUE(m.findings.empty()) << Messages(m);
      continue;
    }
    ASSERT_EQ(m.findings.size(), 1u) << cut;
    EXPECT_EQ(m.findings[0].severity, Severity::kWarning);
    EXPECT_EQ(m.findings[0].offset, two.size()) << cut;
    EXPECT_NE(m.findings[0].message.find("Pebble drops it"), std::string::npos);
  }
}

TEST(PebbleLog, ABadChecksumEndsTheReadWithAnError) {
  const std::string one = Log({ThreeEdits()[0]});
  for (const int record : {1, 2}) {
    std::string log = Log(ThreeEdits());
    const std::size_t at =
        record == 1 ? one.size() : Log({ThreeEdits()[0], ThreeEdits()[1]}).size();
    log[at + 9] ^= 0x20;  // a payload byte of that record
    const Manifest m = Read(log);
    EXPECT_TRUE(m.damaged);
    ASSERT_EQ(m.findings.size(), 1u) << Messages(m);
    EXPECT_EQ(m.findings[0].severity, Severity::kError);
    EXPECT_EQ(m.findings[0].offset, at);
    EXPECT_NE(m.findings[0].message.find("does not match its bytes"), std::string::npos);
    EXPECT_NE(m.findings[0].message.find("Pebble stops reading the MANIFEST here without an error "
                                         "and opens the database with the " +
                                         std::to_string(record) + " records before it"),
              std::string::npos)
        << m.findings[0].message;
    EXPECT_EQ(m.records, static_cast<std::uint64_t>(record));
  }
}

TEST(PebbleLog, ZerosAfterTheEndArePreallocatedSpace) {
  const std::string log = Log(ThreeEdits());
  for (const std::size_t zeros : {7u, 30u, 40000u}) {
    const Manifest m = Read(log + std::string(zeros, '\0'));
    EXPECT_TRUE(m.findings.empty()) << zeros << ": " << Messages(m);
    EXPECT_EQ(m.records, 3u);
  }
  // Fewer bytes than a header: a header cut short, as for LevelDB.
  const Manifest cut = Read(log + std::string(3, '\0'));
  EXPECT_EQ(cut.records, 3u);
  ASSERT_EQ(cut.findings.size(), 1u);
  EXPECT_EQ(cut.findings[0].severity, Severity::kWarning);
  // A record whose fragments stop at the zeros is torn, as at the end of the file.
  std::string first = Log({ThreeEdits()[0]});
  first += Fragment(2, ThreeEdits()[1].bytes());
  const Manifest m = Read(first + std::string(100, '\0'));
  EXPECT_FALSE(m.damaged);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_NE(m.findings[0].message.find("has no last fragment"), std::string::npos);
}

// A first record that ends `tail` bytes before its 32 KiB block does, then zeros to the block's
// end, then the second record in the next block.
std::string WithBlockTail(std::size_t tail, char fill = '\0') {
  Edit e;
  // Tag 1, a 3-byte length and the name; log number and next file number take 2 bytes each.
  const std::string filler(manifest::kBlockSize - manifest::kHeaderSize - tail - 8, 'c');
  e.Comparator(filler).LogNumber(2).NextFile(100);
  std::string log;
  AppendRecord(log, e.bytes());
  EXPECT_EQ(log.size(), manifest::kBlockSize - tail);
  log += std::string(tail, '\0');
  if (tail > 7) log[log.size() - 1] = fill;
  AppendRecord(log, Edit().Add(Table(0, 5)).bytes());
  return log;
}

TEST(PebbleLog, AZeroedHeaderEndsTheReadWhenARealHeaderFits) {
  // Fewer than 11 bytes, or fewer than 19 that are all zeros: the rest of the block is skipped.
  for (const std::size_t tail : {8u, 10u, 11u, 18u}) {
    const Manifest m = Read(WithBlockTail(tail));
    EXPECT_TRUE(m.findings.empty()) << tail << ": " << Messages(m);
    EXPECT_EQ(TableCount(m), 1u) << tail;
  }
  // 19 or more (or 11 to 18 with anything but zeros after the header): Pebble stops there;
  // LevelDB and RocksDB skip the block.
  const std::vector<std::pair<std::size_t, char>> stops = {{19, '\0'}, {500, '\0'}, {15, 'x'}};
  for (const auto& [tail, fill] : stops) {
    const std::string log = WithBlockTail(tail, fill);
    const Manifest m = Read(log);
    EXPECT_TRUE(m.damaged) << tail;
    ASSERT_EQ(m.findings.size(), 1u) << tail;
    EXPECT_EQ(m.findings[0].offset, manifest::kBlockSize - tail);
    EXPECT_NE(m.findings[0].message.find("zeroed chunk"), std::string::npos);
    EXPECT_EQ(m.records, 1u);
    if (fill == '\0') {
      EXPECT_EQ(TableCount(Read(log, Flavor::kRocksDb)), 1u) << tail;
    }
  }
}

TEST(PebbleLog, StrayAndOverlappingFragments) {
  const std::vector<Edit> e = ThreeEdits();
  // A middle fragment where a record should start: Pebble skips it (LevelDB refuses the file).
  std::string stray = Log({e[0]}) + Fragment(3, e[1].bytes()) + Log({e[2]});
  Manifest m = Read(stray);
  EXPECT_FALSE(m.damaged) << Messages(m);
  EXPECT_EQ(m.records, 2u);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_NE(m.findings[0].message.find("Pebble skips it"), std::string::npos);
  EXPECT_EQ(m.findings[0].offset, Log({e[0]}).size());
  EXPECT_TRUE(Read(stray, Flavor::kLevelDb).damaged);
  // A full fragment while a record is open: Pebble joins them (the edit reads as one).
  Edit head;
  head.NextFile(300);
  Edit rest;
  rest.Add(Table(2, 8));
  const std::string joined = Log({e[0]}) + Fragment(2, head.bytes()) + Fragment(1, rest.bytes());
  m = Read(joined);
  EXPECT_FALSE(m.damaged) << Messages(m);
  EXPECT_EQ(m.records, 2u);
  EXPECT_EQ(m.next_file, 300u);
  EXPECT_EQ(TableCount(m), 1u);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_NE(m.findings[0].message.find("Pebble joins them"), std::string::npos);
  EXPECT_TRUE(Read(joined, Flavor::kRocksDb).damaged);
}

TEST(PebbleLog, RecyclableAndWalSyncHeaders) {
  const std::vector<Edit> e = ThreeEdits();
  const std::string zero_log = U32(0);
  const std::string sync_offset(8, '\x07');
  const std::string log = Fragment(5, e[0].bytes(), zero_log) +
                          Fragment(9, e[1].bytes(), zero_log + sync_offset) +
                          Fragment(1, e[2].bytes());
  Manifest m = Read(log);
  EXPECT_TRUE(m.findings.empty()) << Messages(m);
  EXPECT_EQ(TableCount(m), 3u);
  // Log number 1 where a record starts: the end-of-log trailer of a recycled log.
  const std::string trailer = Log({e[0]}) + Fragment(5, e[1].bytes(), U32(1)) + Log({e[2]});
  m = Read(trailer);
  EXPECT_FALSE(m.damaged);
  EXPECT_EQ(m.records, 1u);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_NE(m.findings[0].message.find("end-of-log trailer"), std::string::npos);
  // Any other log number: a fragment of another log.
  const std::string other = Log({e[0]}) + Fragment(10, e[1].bytes(), U32(7) + sync_offset);
  m = Read(other);
  EXPECT_TRUE(m.damaged);
  ASSERT_EQ(m.findings.size(), 1u);
  EXPECT_EQ(m.findings[0].offset, Log({e[0]}).size() + 7);
  EXPECT_NE(m.findings[0].message.find("log number 0, found 7"), std::string::npos);
  // WAL-sync fragments are Pebble's alone.
  EXPECT_TRUE(Read(log, Flavor::kRocksDb).damaged);
  // Types past 12.
  m = Read(Log({e[0]}) + Fragment(13, e[1].bytes()) + Log({e[2]}));
  EXPECT_TRUE(m.damaged);
  EXPECT_NE(Messages(m).find("record type 13 is unknown (expected 1 to 12)"), std::string::npos);
}

TEST(PebbleLog, OffsetsOfARecordAcrossBlocks) {
  // An edit longer than a block, whose bad field lies in its second fragment.
  Edit e = Header();
  e.Comparator(std::string(40000, 'c'));
  std::string raw;
  PutVarint(raw, 8);  // a tag Pebble does not know
  e.Raw(raw);
  std::string log;
  AppendRecord(log, e.bytes());
  const Manifest m = Read(log);
  ASSERT_TRUE(m.damaged);
  ASSERT_EQ(m.findings.size(), 1u);
  // The tag is the last payload byte: the file's last byte.
  EXPECT_EQ(m.findings[0].offset, log.size() - 1);
}

}  // namespace
}  // namespace bloomcodec::pebble_test

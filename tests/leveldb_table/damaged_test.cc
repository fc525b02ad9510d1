// Damaged tables: every kind of damage gives a Corrupt status naming the file and a byte offset,
// never a crash or an out-of-bounds read (RapidCheck flips and truncates bytes at random).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "blocktable/crc32c.h"
#include "codec/byte_writer.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "support/rc_rates.h"
#include "support/test_support.h"

namespace bloomcodec::leveldb {
namespace {

using namespace bloomcodec::blocktable;  // the block-based table this format is

using bloomcodec::testing::ReadFixture;

const char kPlainTable[] = "leveldb/tables/tb_bpk10_snappy_bs256.ldb";
const char kDbTable[] = "leveldb/tables/db_bpk1_none_bs1024__000005.ldb";

TableOpenOptions WithKind(KeyKind kind) {
  TableOpenOptions options;
  options.key_kind = kind;
  return options;
}

Status OpenStatus(const ByteVector& bytes, bool verify, KeyKind kind = KeyKind::kPlain) {
  TableOpenOptions options;
  options.verify_checksums = verify;
  options.key_kind = kind;
  auto t = TableReader::Open(bytes, "damaged.ldb", options);
  if (!t.ok()) return t.status();
  auto n = t->Verify();
  if (!n.ok()) return n.status();
  return Status();
}

void ExpectCorrupt(const Status& s, std::uint64_t offset, const std::string& words) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
  EXPECT_EQ(s.file(), "damaged.ldb");
  ASSERT_TRUE(s.offset().has_value()) << s.ToString();
  EXPECT_EQ(*s.offset(), offset) << s.ToString();
  EXPECT_NE(s.ToString().find(words), std::string::npos) << s.ToString();
}

TEST(DamagedTableTest, BadMagic) {
  ByteVector t = ReadFixture(kPlainTable);
  t.back() ^= 0x01;
  ExpectCorrupt(OpenStatus(t, false), t.size() - 8, "magic");
}

TEST(DamagedTableTest, TooShortForAFooter) {
  ByteVector t = ReadFixture(kPlainTable);
  t.resize(47);
  ExpectCorrupt(OpenStatus(t, false), 0, "48 bytes");
}

TEST(DamagedTableTest, TruncatedLosesTheMagic) {
  ByteVector t = ReadFixture(kPlainTable);
  t.resize(t.size() - 1);
  ExpectCorrupt(OpenStatus(t, false), t.size() - 8, "magic");
}

TEST(DamagedTableTest, BadCrcCaughtInVerifyModeOnly) {
  ByteVector t = ReadFixture(kDbTable);
  auto reader = TableReader::Open(t, "x", WithKind(KeyKind::kUser));
  ASSERT_TRUE(reader.ok());
  const BlockHandle f = reader->filter()->handle;
  t[f.offset + 3] ^= 0x40;  // inside the filter block: the structure stays valid
  EXPECT_TRUE(OpenStatus(t, false, KeyKind::kUser).ok());
  ExpectCorrupt(OpenStatus(t, true, KeyKind::kUser), f.offset + f.size + 1, "CRC");
  // A data block's CRC: found by Verify in verify mode.
  ByteVector d = ReadFixture(kDbTable);
  d[100] ^= 0x01;
  EXPECT_FALSE(OpenStatus(d, true, KeyKind::kUser).ok());
}

TEST(DamagedTableTest, HandleOutsideTheFile) {
  ByteVector t = ReadFixture(kPlainTable);
  auto reader = TableReader::Open(t, "x", WithKind(KeyKind::kPlain));
  ASSERT_TRUE(reader.ok());
  Footer footer = reader->footer();
  footer.index_handle.offset = t.size() + 1000;
  t.resize(t.size() - kLevelDbFooterSize);
  AppendFooter(footer, t);
  ByteVector metaindex_handle;
  AppendBlockHandle(footer.metaindex_handle, metaindex_handle);
  // Named where the index handle starts: right after the metaindex handle.
  ExpectCorrupt(OpenStatus(t, false), t.size() - kLevelDbFooterSize + metaindex_handle.size(),
                "index block inside the file");
}

TEST(DamagedTableTest, FilterHandleOutsideTheFile) {
  // A table whose metaindex points the filter past the end.
  TableWriteOptions options;
  options.filter = BloomPolicy::Current(10);
  TableWriter writer(options);
  ASSERT_TRUE(writer.Add(AsBytes("a"), AsBytes("1")).ok());
  auto table = writer.Finish();
  ASSERT_TRUE(table.ok());
  ByteVector t = *table;
  auto reader = TableReader::Open(t, "x", WithKind(KeyKind::kPlain));
  ASSERT_TRUE(reader.ok());
  const MetaindexEntry& e = reader->metaindex().at(0);
  // The value is a handle: make its size varint huge (same length, so nothing else moves).
  ASSERT_EQ(e.value.size(), 2u);
  t[e.value_offset] = 0x7f;
  t[e.value_offset + 1] = 0x7f;
  ASSERT_LT(t.size(), 0x7fu + 0x7fu + 5u);
  // Fix the metaindex CRC so only the handle is wrong.
  const BlockHandle m = reader->footer().metaindex_handle;
  const std::uint32_t crc = BlockTrailerCrc(ByteSpan(t).subspan(m.offset, m.size), 0);
  for (int i = 0; i < 4; ++i)
    t[m.offset + m.size + 1 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
  ExpectCorrupt(OpenStatus(t, true), e.value_offset, "filter block inside the file");
}

TEST(DamagedTableTest, FilterFalseNegativeFoundByVerify) {
  ByteVector t = ReadFixture(kDbTable);
  auto reader = TableReader::Open(t, "x", WithKind(KeyKind::kUser));
  ASSERT_TRUE(reader.ok());
  const BlockHandle f = reader->filter()->handle;
  // Clear the bit array of filter 0 (its k byte stays): its keys are now rejected.
  auto layout = ParseFilterBlockLayout(reader->filter()->contents.bytes(), "x", f.offset);
  ASSERT_TRUE(layout.ok());
  const FilterRange first = layout->filters.at(0);
  ASSERT_GT(first.size(), 2u);
  for (std::uint32_t i = first.start; i + 1 < first.limit; ++i) t[f.offset + i] = 0;
  ExpectCorrupt(OpenStatus(t, false, KeyKind::kUser), f.offset + first.start, "false negative");
}

TEST(DamagedTableTest, BadBlockTypeAndRestartCount) {
  ByteVector t = ReadFixture(kDbTable);
  auto reader = TableReader::Open(t, "x", WithKind(KeyKind::kUser));
  ASSERT_TRUE(reader.ok());
  const BlockHandle index = reader->footer().index_handle;
  ByteVector bad_type = t;
  bad_type[index.offset + index.size] = 7;
  ExpectCorrupt(OpenStatus(bad_type, false, KeyKind::kUser), index.offset + index.size,
                "block type");
  ByteVector bad_count = t;
  bad_count[index.offset + index.size - 1] = 0x7f;  // restart count's top byte
  ExpectCorrupt(OpenStatus(bad_count, false, KeyKind::kUser), index.offset + index.size - 4,
                "restart count");
}

TEST(DamagedTableTest, SnappyLengthIsBoundedBeforeAllocating) {
  ByteVector t = ReadFixture(kPlainTable);
  TableOpenOptions options;
  options.key_kind = KeyKind::kPlain;
  options.max_uncompressed_block_size = 16;  // every real block is larger
  auto reader = TableReader::Open(t, "damaged.ldb", options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();  // index/metaindex are not compressed
  auto verified = reader->Verify();
  ASSERT_FALSE(verified.ok());
  EXPECT_NE(verified.status().ToString().find("uncompressed data block size of at most 16"),
            std::string::npos)
      << verified.status().ToString();
}

// Random damage: flipped bytes or a cut anywhere. Opening, probing and verifying either work or
// fail with a Corrupt status naming the file and an offset inside it. Positions are uniform over
// the file whatever the case size: 0 - 3 flips (each count in 1 case of 4), a cut in 1 of 2, and
// in 1 of 2 a flip in the last 200 bytes.
RC_GTEST_PROP(DamagedTableProperty, NeverCrashesAndNamesTheDamage, ()) {
  using testing::Uniform;
  static const ByteVector plain = ReadFixture(kPlainTable);
  static const ByteVector db = ReadFixture(kDbTable);
  const bool use_db = *rc::gen::arbitrary<bool>();
  ByteVector t = use_db ? db : plain;
  const int flips = *Uniform(0, 4);
  for (int i = 0; i < flips; ++i) {
    const std::size_t at = *Uniform<std::size_t>(0, t.size());
    t[at] ^= static_cast<std::uint8_t>(*Uniform(1, 256));
  }
  const bool cut = *rc::gen::arbitrary<bool>();
  if (cut) t.resize(*Uniform<std::size_t>(0, t.size() + 1));
  // Damage near the end (footer, index, metaindex) is where structure lives: aim there too.
  const bool at_end = t.size() > 200 && *rc::gen::arbitrary<bool>();
  if (at_end) {
    const std::size_t at = t.size() - *Uniform<std::size_t>(1, 200);
    t[at] ^= static_cast<std::uint8_t>(*Uniform(1, 256));
  }
  RC_TAG(flips + (at_end ? 1 : 0) == 0 ? "no flip" : "flipped bytes", cut ? "a cut" : "no cut");
  TableOpenOptions options;
  options.key_kind = use_db ? KeyKind::kUser : KeyKind::kPlain;
  options.verify_checksums = *rc::gen::arbitrary<bool>();
  auto reader = TableReader::Open(t, "damaged.ldb", options);
  Status s = reader.ok() ? Status() : reader.status();
  if (reader.ok()) {
    KeyList probes;
    probes.Add(std::string_view("user:00000001"));
    probes.Add(std::string_view(""));
    probes.Add(std::string_view("\xff\xff"));
    std::vector<std::uint8_t> answers(probes.size());
    s = reader->MayContainBatch(probes, answers);
    if (s.ok()) {
      auto n = reader->Verify();
      if (!n.ok()) s = n.status();
    }
  }
  if (!s.ok()) {
    RC_ASSERT(s.code() == StatusCode::kCorrupt);
    RC_ASSERT(s.file() == "damaged.ldb");
    RC_ASSERT(s.offset().has_value());
    RC_ASSERT(*s.offset() <= t.size());
  }
}

}  // namespace
}  // namespace bloomcodec::leveldb

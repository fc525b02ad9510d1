// The filter rewrite of columnar tables (RewriteColumnarFilter, formats/pebble/table/
// columnar_rewrite.cc). No Pebble runs here: the rewritten bytes are compared with what our own
// columnar writer (columnar_table_builder.h, Pebble's file order of FORMAT.md §6.1) writes for the
// same entries at the new bits per key, and read back with our reader and verify. The Pebble
// facts each case rests on are named beside it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "blocktable/trailer.h"
#include "pebble/columnar_table_builder.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/table_writer.h"
#include "pebble/table_builder.h"
#include "pebble/table_check.h"

namespace bloomcodec::pebble {
namespace {

using blocktable::BlockCompression;
using blocktable::ChecksumType;
using testing::BuildColumnarTable;
using testing::ColumnarTableSpec;
using testing::ExpectCleanTable;
using testing::PebbleEntry;
using testing::WordEntries;

Result<PebbleRewrite> Rewrite(const ByteVector& table, std::uint32_t bits) {
  BLOOMCODEC_ASSIGN_OR_RETURN(PebbleTable t, PebbleTable::Open(table, "000010.sst"));
  BLOOMCODEC_ASSIGN_OR_RETURN(KeyList keys, PebbleFilterKeys(t));
  return RewriteColumnarFilter(t, PolicyForRewrite(t, keys, bits));
}

// Where two tables first differ, for a failure's message.
std::string Mismatch(const ByteVector& a, const ByteVector& b) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
         ", first difference at byte " + std::to_string(i);
}

std::uint64_t FilterSize(const ByteVector& table) {
  Result<PebbleTable> t = PebbleTable::Open(table, "t");
  EXPECT_TRUE(t.ok());
  return t.ok() && t->filter().kind != PebbleFilterKind::kNone ? t->filter().handle.size : 0;
}

// Every version, checksum, compression and index shape, with range deletions (a block that moves):
// at the recorded bits per key the table comes back byte for byte; at another, it is our writer's
// table at that bits per key, whose bytes before the filter (data and index blocks, §6.1: the
// filter follows the index) are the input's.
TEST(PebbleColumnarRewrite, EqualsOurWriterAtTheNewBitsPerKey) {
  const std::vector<PebbleEntry> entries = WordEntries(600);
  for (std::uint32_t v = 5; v <= 8; ++v) {
    for (ChecksumType c : {ChecksumType::kCrc32c, ChecksumType::kXxHash64}) {
      for (BlockCompression z : {BlockCompression::kNone, BlockCompression::kSnappy}) {
        for (bool two_level : {false, true}) {
          SCOPED_TRACE(std::to_string(v) + "/" + std::to_string(static_cast<int>(c)) + "/" +
                       std::to_string(static_cast<int>(z)) + "/" + std::to_string(two_level));
          ColumnarTableSpec spec;
          spec.version = v;
          spec.checksum = c;
          spec.compression = z;
          spec.two_level = two_level;
          spec.range_dels = {{"word000100", "word000200"}};
          // 12 bits per key: 8 probes, which neither era gives for 16 (11 rounded, 6 from the
          // table), so the rewrite takes the rounded era as our writer does (PolicyForRewrite).
          spec.bits_per_key = 12;
          const ByteVector old_table = BuildColumnarTable(entries, spec);
          Result<PebbleRewrite> same = Rewrite(old_table, 12);
          ASSERT_TRUE(same.ok()) << same.status().ToString();
          EXPECT_EQ(same->bytes, old_table);
          EXPECT_EQ(same->filter_keys, entries.size());

          spec.bits_per_key = 16;
          const ByteVector expected = BuildColumnarTable(entries, spec);
          Result<PebbleRewrite> wider = Rewrite(old_table, 16);
          ASSERT_TRUE(wider.ok()) << wider.status().ToString();
          EXPECT_EQ(wider->bytes, expected) << Mismatch(wider->bytes, expected);
          ExpectCleanTable(wider->bytes, entries.size(), v);
          Result<PebbleTable> t = PebbleTable::Open(wider->bytes, "t");
          ASSERT_TRUE(t.ok());
          const std::uint64_t kept = t->filter().handle.offset;
          EXPECT_TRUE(
              std::equal(old_table.begin(), old_table.begin() + kept, wider->bytes.begin()));
          EXPECT_GT(FilterSize(wider->bytes), FilterSize(old_table));
        }
      }
    }
  }
}

// A table written without a filter gains one after its index, and the properties that name it.
TEST(PebbleColumnarRewrite, TableWithoutFilterGainsOne) {
  const std::vector<PebbleEntry> entries = WordEntries(300);
  for (std::uint32_t v : {5u, 6u, 7u}) {
    SCOPED_TRACE(v);
    ColumnarTableSpec spec;
    spec.version = v;
    spec.filter = false;
    const ByteVector old_table = BuildColumnarTable(entries, spec);
    spec.filter = true;
    Result<PebbleRewrite> r = Rewrite(old_table, 10);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->bytes, BuildColumnarTable(entries, spec));
  }
}

// pebble.compression_stats counts the uncompressed bytes of the blocks written before the
// properties, the filter among them (Pebble's PhysicalBlockMaker.Make with DontCompress,
// CompressionStats.String): the count follows the filter's length; the older
// "NoCompression:N/N" form keeps its form.
TEST(PebbleColumnarRewrite, CompressionStatsFollowTheFilter) {
  const std::vector<PebbleEntry> entries = WordEntries(400);
  ColumnarTableSpec spec;
  spec.version = 7;
  spec.bits_per_key = 12;  // 8 probes: the rewrite to 20 takes the rounded era (see above)
  const std::uint64_t f12 = FilterSize(BuildColumnarTable(entries, spec));
  spec.bits_per_key = 20;
  const std::uint64_t f20 = FilterSize(BuildColumnarTable(entries, spec));
  ASSERT_GT(f20, f12);
  for (const bool old_form : {false, true}) {
    auto stats = [&](std::uint64_t filter) {
      const std::string n = std::to_string(1000 + filter);
      return (old_form ? "NoCompression:" + n + "/" + n : "None:" + n) + ",Snappy:50/80";
    };
    spec.bits_per_key = 12;
    spec.extra_properties["pebble.compression_stats"] = stats(f12);
    const ByteVector old_table = BuildColumnarTable(entries, spec);
    spec.bits_per_key = 20;
    spec.extra_properties["pebble.compression_stats"] = stats(f20);
    Result<PebbleRewrite> r = Rewrite(old_table, 20);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->bytes, BuildColumnarTable(entries, spec)) << old_form;
  }
  // A form Pebble does not write: the table is left as it is, with the reason.
  spec.extra_properties["pebble.compression_stats"] = "None:twelve";
  Result<PebbleRewrite> odd = Rewrite(BuildColumnarTable(entries, spec), 20);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(odd.status().ToString().find("compression_stats"), std::string::npos);
}

// Damaged input: a data block that fails its checksum stops the rewrite (the keys cannot be
// read), naming the file; a row table is not the columnar rewrite's.
TEST(PebbleColumnarRewrite, DamagedAndForeignInputsAreRefused) {
  const std::vector<PebbleEntry> entries = WordEntries(300);
  ColumnarTableSpec spec;
  spec.version = 6;
  ByteVector table = BuildColumnarTable(entries, spec);
  table[40] ^= 0x10;
  Result<PebbleRewrite> r = Rewrite(table, 12);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("000010.sst"), std::string::npos) << r.status().ToString();

  testing::PebbleTableSpec row;
  row.version = 4;
  const ByteVector row_table = testing::BuildPebbleTable(entries, row);
  Result<PebbleTable> t = PebbleTable::Open(row_table, "row.sst");
  ASSERT_TRUE(t.ok());
  Result<PebbleRewrite> wrong = RewriteColumnarFilter(*t, BloomPolicy{});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);

  // Every truncation of a table: a clear error or a rewrite, never a crash.
  const ByteVector whole = BuildColumnarTable(WordEntries(60), spec);
  for (std::size_t n = 0; n < whole.size(); n += 7) {
    const ByteVector cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(Rewrite(cut, 12).ok()) << n;
  }
}

// A filter block that fails its checksum: Open refuses the table; opened as repair opens it
// (PebbleOpenOptions::tolerate_damaged_filter) it is kept without the filter (its place known), and the rewrite writes our writer's filter in its place, for
// columnar and row tables alike.
TEST(PebbleColumnarRewrite, AFilterFailingItsChecksumIsReplaced) {
  const std::vector<PebbleEntry> entries = WordEntries(300);
  auto flip = [](ByteVector table) {
    Result<PebbleTable> t = PebbleTable::Open(table, "t");
    EXPECT_TRUE(t.ok());
    if (t.ok()) table[t->filter().handle.offset + 2] ^= 0xff;
    return table;
  };
  ColumnarTableSpec spec;
  spec.version = 7;
  const ByteVector columnar = BuildColumnarTable(entries, spec);
  const ByteVector damaged = flip(columnar);
  EXPECT_FALSE(PebbleTable::Open(damaged, "t").ok());
  PebbleOpenOptions for_rewrite;
  for_rewrite.tolerate_damaged_filter = true;
  Result<PebbleTable> t = PebbleTable::Open(damaged, "t", for_rewrite);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->filter().kind, PebbleFilterKind::kNone);
  EXPECT_TRUE(t->filter().stored());
  EXPECT_NE(t->filter().damage.find("checksum"), std::string::npos) << t->filter().damage;
  Result<PebbleRewrite> r = RewriteColumnarFilter(*t, BloomPolicy{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->bytes, columnar) << Mismatch(r->bytes, columnar);

  testing::PebbleTableSpec row;
  row.version = 4;
  const ByteVector row_table = testing::BuildPebbleTable(entries, row);
  const ByteVector row_damaged = flip(row_table);  // the table views these bytes
  Result<PebbleTable> rt = PebbleTable::Open(row_damaged, "row.sst", for_rewrite);
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  Result<PebbleRewrite> rr = RewritePebbleFilter(*rt, BloomPolicy{});
  ASSERT_TRUE(rr.ok()) << rr.status().ToString();
  EXPECT_EQ(rr->bytes, row_table) << Mismatch(rr->bytes, row_table);
}

}  // namespace
}  // namespace bloomcodec::pebble

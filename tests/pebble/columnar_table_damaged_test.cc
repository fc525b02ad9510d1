// Damaged Pebble columnar tables (Pebblev5..v8, built in the test, then broken): each is a
// structure error at the byte at fault, or an `unsupported` warning where the file may be healthy
// but holds what we cannot read (an unknown key schema, a MinLZ block); never a crash, never a
// read outside the file (every prefix of a small table is opened and verified).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "blocktable/crc32c.h"
#include "pebble/columnar_table_builder.h"
#include "pebble/table/table_reader.h"
#include "pebble/table/verify.h"
#include "pebble/table_check.h"
#include "support/test_support.h"

namespace bloomcodec::pebble {
namespace {

using testing::BuildColumnarTable;
using testing::ColumnarTableSpec;
using testing::ExpectFirstFinding;
using testing::FindingLines;
using testing::MinLz;
using testing::NumberedEntries;
using testing::PebbleEntry;
using testing::VerifyTableBytes;

ByteVector Table(std::uint32_t version, MinLz minlz = MinLz::kOff) {
  ColumnarTableSpec spec;
  spec.version = version;
  spec.minlz = minlz;
  return BuildColumnarTable(NumberedEntries(400), spec);
}

// The first data block's handle (the table's first bytes).
blocktable::BlockHandle FirstDataBlock(const ByteVector& table) {
  const PebbleTable t = PebbleTable::Open(table, "t").value();
  blocktable::BlockHandle first;
  bool found = false;
  EXPECT_TRUE(blocktable::ForEachIndexedBlock(
                  t.index_layout(),
                  [&](const blocktable::IndexEntry& e) { return t.DecodeIndexValue(e); },
                  [&](const blocktable::BlockHandle& h) { return t.ReadIndexBlock(h, "p"); },
                  [&](ByteSpan, const blocktable::BlockHandle& h) {
                    if (!found) first = h;
                    found = true;
                    return Status();
                  })
                  .ok());
  return first;
}

// Rewrites a block's trailer checksum after its bytes were changed (CRC-32C tables).
void Rechecksum(ByteVector& table, const blocktable::BlockHandle& h) {
  const ByteSpan stored(table.data() + h.offset, h.size);
  const std::uint8_t type = table[h.offset + h.size];
  const std::uint32_t c =
      blocktable::BlockChecksum(blocktable::ChecksumType::kCrc32c, stored, type);
  for (int i = 0; i < 4; ++i)
    table[h.offset + h.size + 1 + i] = static_cast<std::uint8_t>(c >> (8 * i));
}

void PutLe32(ByteVector& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Default schema data block: 4-byte header (max key length), version at 4, column count at 5,
// rows at 7, then 5-byte column entries (type, LE u32 start) from 11.
constexpr std::size_t kColumnDirectory = 11;

TEST(PebbleColumnarTableDamaged, FooterChecksumMismatchIsStructure) {
  for (std::uint32_t v = 6; v <= 8; ++v) {
    ByteVector t = Table(v);
    const std::size_t footer = v >= 7 ? 61 : 57;
    t[t.size() - footer + 30] ^= 0x01;  // inside the zero padding after the handles
    const FileReport r = VerifyTableBytes(t);
    ExpectFirstFinding(r, finding_kind::kStructure, Severity::kError, "footer checksum");
    EXPECT_EQ(r.findings[0].offset, t.size() - footer + (v >= 7 ? 45 : 41)) << FindingLines(r);
  }
}

TEST(PebbleColumnarTableDamaged, AttributesMismatchIsStructure) {
  for (std::uint32_t v : {7u, 8u}) {
    ByteVector t = Table(v);
    PebbleFooter f = DecodePebbleFooter(t, "t").value();
    f.attributes |= 32;  // two-level index, which the properties do not say
    t.resize(t.size() - 61);
    AppendPebbleFooter(f, t);
    ExpectFirstFinding(VerifyTableBytes(t), finding_kind::kStructure, Severity::kError,
                       "attributes");
  }
}

TEST(PebbleColumnarTableDamaged, BlockChecksumIsStructure) {
  for (std::uint32_t v = 5; v <= 8; ++v) {
    ByteVector t = Table(v);
    t[20] ^= 0x40;
    const FileReport r = VerifyTableBytes(t);
    ExpectFirstFinding(r, finding_kind::kStructure, Severity::kError, "checksum");
  }
}

TEST(PebbleColumnarTableDamaged, ColumnsOutOfOrderAreStructure) {
  for (std::uint32_t v = 5; v <= 8; ++v) {
    ByteVector t = Table(v);
    const blocktable::BlockHandle h = FirstDataBlock(t);
    // Column 1 starts after column 2.
    const std::size_t c1 = kColumnDirectory + 5 + 1, c2 = kColumnDirectory + 10 + 1;
    std::uint32_t a = 0, b = 0;
    for (int i = 3; i >= 0; --i) {
      a = a << 8 | t[c1 + i];
      b = b << 8 | t[c2 + i];
    }
    PutLe32(t, c1, b + 1);
    Rechecksum(t, h);
    const FileReport r = VerifyTableBytes(t);
    ExpectFirstFinding(r, finding_kind::kStructure, Severity::kError, "");
    ASSERT_TRUE(r.findings[0].offset.has_value());
    EXPECT_LT(*r.findings[0].offset, h.offset + h.size) << FindingLines(r);
  }
}

TEST(PebbleColumnarTableDamaged, TruncatedColumnsAreStructure) {
  for (std::uint32_t v = 5; v <= 8; ++v) {
    ByteVector t = Table(v);
    const blocktable::BlockHandle h = FirstDataBlock(t);
    // Many more rows than the columns hold.
    PutLe32(t, 7, 100000);
    Rechecksum(t, h);
    const FileReport r = VerifyTableBytes(t);
    ExpectFirstFinding(r, finding_kind::kStructure, Severity::kError, "");
    // The last column starts past the block's end.
    ByteVector u = Table(v);
    const std::size_t columns = u[5] | u[6] << 8;
    PutLe32(u, kColumnDirectory + 5 * (columns - 1) + 1, static_cast<std::uint32_t>(h.size + 10));
    Rechecksum(u, h);
    ExpectFirstFinding(VerifyTableBytes(u), finding_kind::kStructure, Severity::kError, "");
  }
}

TEST(PebbleColumnarTableDamaged, UnknownKeySchemaIsUnsupported) {
  const std::string name = "DefaultKeySchema(leveldb.BytewiseComparator,16)";
  for (std::uint32_t v = 5; v <= 8; ++v) {
    ByteVector t = Table(v);
    const PebbleTable opened = PebbleTable::Open(t, "t").value();
    const blocktable::BlockHandle p = opened.properties_handle();
    auto at =
        std::search(t.begin() + p.offset, t.begin() + p.offset + p.size, name.begin(), name.end());
    ASSERT_NE(at, t.begin() + p.offset + p.size);
    *(at + 1) = 'X';  // "DXfaultKeySchema(...)"
    Rechecksum(t, p);
    const FileReport r = VerifyTableBytes(t);
    ExpectFirstFinding(r, finding_kind::kUnsupported, Severity::kWarning, "DXfaultKeySchema");
    EXPECT_EQ(r.findings.size(), 1u) << FindingLines(r);
  }
}

TEST(PebbleColumnarTableDamaged, MinLzBlocks) {
  // Pebblev6+: a MinLZ-compressed block is unsupported, never a structure error.
  for (std::uint32_t v = 6; v <= 8; ++v) {
    ExpectFirstFinding(VerifyTableBytes(Table(v, MinLz::kCompressed)), finding_kind::kUnsupported,
                       Severity::kWarning, "MinLZ");
  }
  // An index block in MinLZ: not even the list of data blocks can be read.
  ColumnarTableSpec spec;
  spec.version = 7;
  spec.minlz = MinLz::kCompressed;
  spec.minlz_index = true;
  const FileReport r = VerifyTableBytes(BuildColumnarTable(NumberedEntries(400), spec));
  ExpectFirstFinding(r, finding_kind::kUnsupported, Severity::kWarning, "index block");
  EXPECT_EQ(r.findings.size(), 1u) << FindingLines(r);
  // Pebblev5 has no type 8.
  ExpectFirstFinding(VerifyTableBytes(Table(5, MinLz::kLiteral)), finding_kind::kStructure,
                     Severity::kError, "compression type");
}

TEST(PebbleColumnarTableDamaged, EveryPrefixIsRefusedSafely) {
  for (std::uint32_t v : {5u, 7u}) {
    ColumnarTableSpec spec;
    spec.version = v;
    spec.range_dels = {{"key100002", "key100005"}};
    const ByteVector t = BuildColumnarTable(NumberedEntries(30), spec);
    for (std::size_t n = 0; n < t.size(); ++n) {
      const ByteSpan prefix(t.data(), n);
      const Result<PebbleTable> opened = PebbleTable::Open(prefix, "t");
      EXPECT_FALSE(opened.ok() && n + 8 < t.size()) << n;
    }
    // Every single-byte change is a finding or harmless; verify never crashes.
    for (std::size_t i = 0; i < t.size(); i += 7) {
      ByteVector u = t;
      u[i] ^= 0x5a;
      (void)VerifyTableBytes(u);
    }
  }
}

}  // namespace
}  // namespace bloomcodec::pebble

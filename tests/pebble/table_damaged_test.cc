// Damaged Pebble tables (built in the test, then broken): each is a structure error at the byte
// at fault, or an `unsupported` warning where the file may be healthy but of a version we do not
// read; never a crash, never a read outside the file (every prefix of a table is tried).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "pebble/table/table_reader.h"
#include "pebble/table/verify.h"
#include "pebble/table_builder.h"
#include "pebble/table_check.h"
#include "support/test_support.h"

namespace bloomcodec::pebble {
namespace {

using testing::BuildPebbleTable;
using testing::ExpectFirstFinding;
using testing::FindingLines;
using testing::NumberedEntries;
using testing::PebbleEntry;
using testing::PebbleTableSpec;
using testing::VerifyTableBytes;

ByteVector Table(const PebbleTableSpec& spec = {}) {
  return BuildPebbleTable(NumberedEntries(600), spec);
}

void PutLe32(ByteVector& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

TEST(PebbleTableDamaged, VersionZeroIsStructure) {
  ByteVector t = Table();
  PutLe32(t, t.size() - 12, 0);
  ExpectFirstFinding(VerifyTableBytes(t), finding_kind::kStructure, Severity::kError,
                     "format version");
}

// A row table relabelled as columnar: Pebblev5 (same footer) names no key schema, which is
// unsupported (Pebble's reader refuses an unknown one); Pebblev6+ footers are longer, so the
// relabelled bytes hold neither their checksum type nor their footer checksum. An unknown version
// is unsupported.
TEST(PebbleTableDamaged, RelabelledColumnarAndUnknownVersions) {
  ByteVector v5 = Table();
  PutLe32(v5, v5.size() - 12, 5);
  const FileReport r = VerifyTableBytes(v5);
  ExpectFirstFinding(r, finding_kind::kUnsupported, Severity::kWarning, "Pebblev5");
  EXPECT_NE(r.findings[0].message.find("key schema"), std::string::npos) << FindingLines(r);
  EXPECT_EQ(r.findings.size(), 1u) << FindingLines(r);
  EXPECT_EQ(r.version, "Pebblev5");
  for (std::uint32_t v : {6u, 7u, 8u}) {
    ByteVector t = Table();
    PutLe32(t, t.size() - 12, v);
    const FileReport damaged = VerifyTableBytes(t);
    ExpectFirstFinding(damaged, finding_kind::kStructure, Severity::kError, "checksum");
    EXPECT_EQ(damaged.version, "Pebblev" + std::to_string(v));
  }
  ByteVector t = Table();
  PutLe32(t, t.size() - 12, 9);
  ExpectFirstFinding(VerifyTableBytes(t), finding_kind::kUnsupported, Severity::kWarning,
                     "version 9");
}

TEST(PebbleTableDamaged, ChecksumTypesPebbleRefuses) {
  for (std::uint8_t type : {0, 2, 4, 200}) {
    ByteVector t = Table();
    t[t.size() - 53] = type;
    const FileReport r = VerifyTableBytes(t);
    ExpectFirstFinding(r, finding_kind::kStructure, Severity::kError, "checksum type");
    EXPECT_EQ(r.findings[0].offset, t.size() - 53);
  }
}

TEST(PebbleTableDamaged, TruncatedFooterAndFile) {
  const ByteVector t = Table();
  // A table cut short loses its magic: whatever is left, no crash. Given alone, nothing in the
  // file says it is a table, so it is a format we do not know (a warning), as the evidence
  // standard says; a database whose MANIFEST lists it makes it an error (database tests).
  for (std::size_t keep : {std::size_t{20}, std::size_t{47}, t.size() / 2, t.size() - 1}) {
    ByteVector cut(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(keep));
    ExpectFirstFinding(VerifyTableBytes(cut), finding_kind::kUnknown, Severity::kWarning,
                       "not a format we know");
  }
  // An empty file has no bytes to be anything else: refused as a table, as for LevelDB's.
  ExpectFirstFinding(VerifyTableBytes({}), finding_kind::kStructure, Severity::kError,
                     "found 0 bytes");
  // 48 to 52 bytes ending in a Pebblev1 version and magic: looked at, but too short for the
  // 53-byte footer (the fuzzer's find: the footer's offset once wrapped below the file).
  for (std::size_t size : {std::size_t{48}, std::size_t{52}}) {
    ByteVector tail(t.end() - static_cast<std::ptrdiff_t>(size), t.end());
    ExpectFirstFinding(VerifyTableBytes(tail), finding_kind::kStructure, Severity::kError,
                       "at least 53 bytes");
  }
  // The footer's handles pointing past the footer.
  ByteVector bad = t;
  const std::size_t footer = t.size() - 53;
  bad[footer + 1] = 0xff;
  bad[footer + 2] = 0xff;
  bad[footer + 3] = 0x7f;
  ExpectFirstFinding(VerifyTableBytes(bad), finding_kind::kStructure, Severity::kError, "");
}

TEST(PebbleTableDamaged, BadBlockChecksumsAtTheirOffset) {
  const ByteVector t = Table();
  Result<PebbleTable> opened = PebbleTable::Open(t, "t");
  ASSERT_TRUE(opened.ok());
  // A data block's byte: the data block's checksum fails, at its trailer.
  ByteVector data = t;
  data[10] ^= 0x01;
  FileReport r = VerifyTableBytes(data);
  ExpectFirstFinding(r, finding_kind::kStructure, Severity::kError, "checksum");
  // The filter block's trailer.
  ByteVector filter = t;
  const blocktable::BlockHandle f = opened->filter().handle;
  filter[f.offset + f.size + 2] ^= 0x10;
  r = VerifyTableBytes(filter);
  ExpectFirstFinding(r, finding_kind::kStructure, Severity::kError, "checksum");
  EXPECT_EQ(r.findings[0].offset, f.offset + f.size + 1);
}

TEST(PebbleTableDamaged, CountsThePropertiesClaim) {
  PebbleTableSpec spec;
  spec.range_dels = {{"key100010", "key100020"}};
  ByteVector t = Table(spec);
  Result<PebbleTable> opened = PebbleTable::Open(t, "t");
  ASSERT_TRUE(opened.ok());
  EXPECT_TRUE(VerifyTableBytes(t).findings.empty()) << FindingLines(VerifyTableBytes(t));
  // rocksdb.num.entries off by one, its block's checksum made right again: the count is wrong.
  const rocksdb::TableProperty* p = opened->properties().Find("rocksdb.num.entries");
  ASSERT_NE(p, nullptr);
  ByteVector bad = t;
  const std::size_t at = static_cast<std::size_t>(p->raw.data() - t.data());
  bad[at] ^= 0x01;
  const blocktable::BlockHandle h = opened->properties_handle();
  const std::uint32_t c = blocktable::BlockChecksum(blocktable::ChecksumType::kCrc32c,
                                                    ByteSpan(bad).subspan(h.offset, h.size), 0);
  PutLe32(bad, h.offset + h.size + 1, c);
  ExpectFirstFinding(VerifyTableBytes(bad), finding_kind::kStructure, Severity::kError,
                     "rocksdb.num.entries");
}

TEST(PebbleTableDamaged, KindsThatHaveNoPlaceInADataBlock) {
  std::vector<PebbleEntry> entries = NumberedEntries(10);
  entries[3].kind = testing::kRangeDel;
  const FileReport r = VerifyTableBytes(BuildPebbleTable(entries, {}));
  ExpectFirstFinding(r, finding_kind::kStructure, Severity::kError, "kind 15");
}

TEST(PebbleTableDamaged, ValuePrefixesOfSetsFromV3) {
  PebbleTableSpec spec;
  spec.version = 3;
  spec.raw_values = true;
  const struct {
    std::string value;
    std::string_view expected;
  } cases[] = {
      {"", "value prefix byte"},
      {"\x40"
       "abc",
       "bits 7..6"},
      {"\xc0"
       "abc",
       "bits 7..6"},
      {"\x80\x81", "three uvarints"},
      {std::string("\x80\x03\x00\x05", 4), "pebble.value_index"},
  };
  for (const auto& c : cases) {
    std::vector<PebbleEntry> entries = NumberedEntries(40);
    for (PebbleEntry& e : entries) e.value = std::string(1, '\0') + e.value;  // in place
    entries[17].value = c.value;
    const FileReport r = VerifyTableBytes(BuildPebbleTable(entries, spec));
    ExpectFirstFinding(r, finding_kind::kStructure, Severity::kError, c.expected);
  }
  // The same values in place are healthy; a DEL's value carries no prefix.
  std::vector<PebbleEntry> entries = NumberedEntries(40);
  for (PebbleEntry& e : entries) e.value = std::string(1, '\0') + e.value;
  entries[3].kind = testing::kDel;
  entries[3].value = "";
  EXPECT_TRUE(VerifyTableBytes(BuildPebbleTable(entries, spec)).findings.empty());
}

TEST(PebbleTableDamaged, EveryByteFlipBeforeTheFooterIsFound) {
  PebbleTableSpec spec;
  spec.version = 3;
  spec.two_level = true;
  spec.block_properties = true;
  const ByteVector t = BuildPebbleTable(NumberedEntries(120), spec);
  for (std::size_t i = 0; i < t.size(); i += 7) {
    ByteVector bad = t;
    bad[i] ^= 0x5a;
    const FileReport r = VerifyTableBytes(bad);
    // Checksums cover every block: a flip before the footer is a structure error (the footer's
    // zero padding is not checked, as Pebble does not check it).
    if (i < t.size() - 53) {
      ASSERT_FALSE(r.findings.empty()) << i;
      EXPECT_EQ(r.findings[0].kind, finding_kind::kStructure) << i << FindingLines(r);
    }
  }
}

}  // namespace
}  // namespace bloomcodec::pebble

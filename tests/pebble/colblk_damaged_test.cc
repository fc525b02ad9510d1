// Damaged columnar blocks: every decoder refuses them with a Corrupt status naming the file, the
// absolute byte offset (the block's position in the file plus the position inside the block)
// and what was expected; and no truncation or single-byte change of any golden block makes a
// decoder, iterator or verifier read outside it (run under the sanitizers in CI).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "pebble/colblk/data_block.h"
#include "pebble/colblk/index_block.h"
#include "pebble/colblk/keyspan.h"
#include "pebble/colblk/kv_block.h"
#include "pebble/colblk_goldens.h"
#include "support/test_support.h"

namespace bloomcodec::pebble::colblk {
namespace {

using ::bloomcodec::testing::HexBytes;
using goldens::Squeeze;

constexpr std::uint64_t kBlockAt = 1000;  // where the block sits in its (imaginary) file
const BlockPlace kPlace{"damaged.sst", kBlockAt, false, "data block"};

ByteVector Golden(const std::string& hex) { return HexBytes(Squeeze(hex)); }

Status DecodeDefaultData(ByteSpan bytes) {
  static const KeySchema schema = DefaultKeySchema();
  Result<DataBlock> b = DataBlock::Decode(bytes, schema, false, kPlace);
  return b.ok() ? Status() : b.status();
}

void ExpectCorrupt(const Status& s, std::uint64_t position, const std::string& fragment,
                   const std::string& what) {
  ASSERT_FALSE(s.ok()) << what;
  EXPECT_EQ(s.code(), StatusCode::kCorrupt) << what;
  EXPECT_EQ(s.file(), "damaged.sst") << what;
  ASSERT_TRUE(s.offset().has_value()) << what;
  EXPECT_EQ(*s.offset(), kBlockAt + position) << what << ": " << s.ToString();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << what << ": " << s.ToString();
}

// The two-key data block (colblk_goldens.h): custom header 4 bytes; directory entries at 11 + 5i
// (type) and 12 + 5i (start); columns at 46, 54, 55, 60, 80, 85, 86; padding byte at 87.
struct DataDamage {
  const char* what;
  std::function<void(ByteVector&)> damage;
  std::uint64_t position;
  const char* fragment;
};

TEST(PebbleColblkDamaged, DataBlockRefusals) {
  const std::vector<DataDamage> cases = {
      {"cut inside the directory", [](ByteVector& b) { b.resize(40); }, 5, "column count"},
      {"cut before a column", [](ByteVector& b) { b.resize(70); }, 32,
       "at most at the padding byte"},
      {"a column overlapping the directory", [](ByteVector& b) { b[12] = 40; }, 12,
       "after the column directory"},
      {"columns out of order", [](ByteVector& b) { b[22] = 53; }, 22,
       "at or after the previous column's"},
      {"a column past the data", [](ByteVector& b) { b[27] = 200; }, 27, "padding byte"},
      {"an unknown data type", [](ByteVector& b) { b[11] = 0; }, 11, "column data type"},
      {"the wrong data type", [](ByteVector& b) { b[16] = 2; }, 16, "data type 3 (bytes)"},
      // Column 5 then ends at the padding byte, where Pebble's DecodeColumn panics too.
      {"too few columns", [](ByteVector& b) { b[5] = 6; }, 86, "to end at block byte 87"},
      {"no rows", [](ByteVector& b) { b[7] = 0; }, 46, "at least one row"},
      {"a uint of width 3", [](ByteVector& b) { b[55] = 0x03; }, 55, "uint encoding"},
      {"a uint of width 8 with delta", [](ByteVector& b) { b[55] = 0x88; }, 55, "uint encoding"},
      {"offsets past the data", [](ByteVector& b) { b[83] = 9; }, 80, "last offset inside"},
      {"decreasing offsets", [](ByteVector& b) { b[81] = 1, b[82] = 0; }, 80, "non-decreasing"},
      {"a bundle shift over 31", [](ByteVector& b) { b[46] = 32; }, 46, "bundle shift"},
      {"a bitmap past its column", [](ByteVector& b) { b[32] = 75; }, 60, "a bitmap of 2 rows"},
      {"a bitmap past the block", [](ByteVector& b) { b[86] = 0; }, 86, "a bitmap of 2 rows"},
      {"an unknown bitmap encoding", [](ByteVector& b) { b[85] = 2; }, 85, "bitmap encoding"},
      {"an all-zero prefix-changed bitmap", [](ByteVector& b) { b[60] = 1; }, 60,
       "stored prefix-changed"},
      {"bytes no column accounts for", [](ByteVector& b) { b[37] = 86; }, 85,
       "to end at block byte 86"},
  };
  for (const DataDamage& c : cases) {
    ByteVector b = Golden(goldens::kTwoKeysDataBlock);
    c.damage(b);
    ExpectCorrupt(DecodeDefaultData(b), c.position, c.fragment, c.what);
  }
}

TEST(PebbleColblkDamaged, TieringColumnsMissing) {
  static const KeySchema schema = DefaultKeySchema();
  const ByteVector b = Golden(goldens::kTwoKeysDataBlock);
  ExpectCorrupt(DataBlock::Decode(b, schema, true, kPlace).status(), 5, "at least 8 columns",
                "a Pebblev8 block without tiering columns");
}

TEST(PebbleColblkDamaged, VerifyRefusesWhatTheWriterNeverWrites) {
  struct Case {
    const char* what;
    std::function<void(ByteVector&)> damage;
    std::uint64_t position;
    const char* fragment;
  };
  const std::vector<Case> cases = {
      {"version 2", [](ByteVector& b) { b[4] = 2; }, 4, "version 1"},
      {"a padding byte", [](ByteVector& b) { b[87] = 7; }, 87, "padding byte 0x00"},
      {"a shorter maximum key length", [](ByteVector& b) { b[0] = 0; }, 0, "maximum key length"},
      {"a wrong prefix-changed bit", [](ByteVector& b) { b[64] = 0x01; }, 60,
       "prefix-changed bit of 1 (row 1)"},
      {"a stale summary word", [](ByteVector& b) { b[72] = 0x03; }, 72, "summary word 0"},
      {"a bit past the rows", [](ByteVector& b) { b[64] = 0x07; }, 64, "no bit set past"},
      {"keys out of order", [](ByteVector& b) { b[52] = 'c'; }, 46, "increasing order"},
      {"a range deletion among points", [](ByteVector& b) { b[56] = 15; }, 55, "point key kinds"},
      {"another bundle size", [](ByteVector& b) { b[46] = 3; }, 46, "bundles of 16 rows"},
  };
  static const KeySchema schema = DefaultKeySchema();
  for (const Case& c : cases) {
    ByteVector b = Golden(goldens::kTwoKeysDataBlock);
    c.damage(b);
    Result<DataBlock> d = DataBlock::Decode(b, schema, false, kPlace);
    ASSERT_TRUE(d.ok()) << c.what << ": " << d.status().ToString();
    ExpectCorrupt(VerifyDataBlock(*d), c.position, c.fragment, c.what);
  }
}

TEST(PebbleColblkDamaged, OtherBlocks) {
  // Keyspan (colblk_goldens.h kRangeDelKeyspanBlock): start indices at 48: 01 | 00 01 04 06 07.
  ByteVector spans = Golden(goldens::kRangeDelKeyspanBlock);
  spans[51] = 0;
  ExpectCorrupt(KeyspanBlock::Decode(spans, kPlace).status(), 48, "do not decrease", "decrease");
  spans = Golden(goldens::kRangeDelKeyspanBlock);
  spans[53] = 9;
  ExpectCorrupt(KeyspanBlock::Decode(spans, kPlace).status(), 48, "at most the 7 keys", "past");
  spans = Golden(goldens::kRangeDelKeyspanBlock);
  spans[0] = 6;
  EXPECT_FALSE(KeyspanBlock::Decode(spans, kPlace).ok());
  // Index (kSixEntryIndexBlock): separators' offsets at 27, offsets column at 76.
  ByteVector index = Golden(goldens::kSixEntryIndexBlock);
  index[76] = 0x88;
  ExpectCorrupt(IndexBlock::Decode(index, kPlace).status(), 76, "uint encoding", "width 8 delta");
  index = Golden(goldens::kSixEntryIndexBlock);
  index[27] = 0x81;  // a delta base for offsets: Pebble panics
  ExpectCorrupt(IndexBlock::Decode(index, kPlace).status(), 27, "without a delta base", "base");
  // Key-value: cut inside the directory.
  ByteVector kv = Golden(goldens::kMetaIndexBlock);
  kv.resize(10);
  ExpectCorrupt(KeyValueBlock::Decode(kv, kPlace).status(), 1, "column count", "cut");
  kv.resize(3);
  ExpectCorrupt(KeyValueBlock::Decode(kv, kPlace).status(), 0, "at least 8 bytes", "tiny");
}

TEST(PebbleColblkDamaged, DecompressedBlocksNameTheBlockAndThePosition) {
  ByteVector b = Golden(goldens::kTwoKeysDataBlock);
  b[55] = 0x03;
  static const KeySchema schema = DefaultKeySchema();
  const BlockPlace place{"z.sst", 4096, true, "data block"};
  Result<DataBlock> d = DataBlock::Decode(b, schema, false, place);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().offset(), 4096u);
  EXPECT_NE(d.status().message().find("byte 55 of the uncompressed data block, column 2"),
            std::string::npos)
      << d.status().ToString();
}

// Every cut and every one-byte change of every golden block: decoded, walked and verified
// without reading outside it; every refusal inside the block.
TEST(PebbleColblkDamaged, NoDamageLeadsOutsideTheBlock) {
  const KeySchema def = DefaultKeySchema();
  const KeySchema crdb = Crdb1KeySchema();
  auto exercise = [&](const ByteVector& bytes, int kind) {
    Status s;
    if (kind <= 1) {
      Result<DataBlock> d = DataBlock::Decode(bytes, kind == 0 ? def : crdb, false, kPlace);
      if (d.ok()) {
        std::uint64_t sum = 0;
        for (DataBlockIterator it(*d); it.Valid(); it.Next()) sum += it.user_key().size();
        (void)sum;
        s = VerifyDataBlock(*d);
      } else {
        s = d.status();
      }
    } else if (kind == 2) {
      Result<IndexBlock> d = IndexBlock::Decode(bytes, kPlace);
      s = d.ok() ? VerifyIndexBlock(*d, KeyComparer::kBytewise) : d.status();
    } else if (kind == 3) {
      Result<KeyspanBlock> d = KeyspanBlock::Decode(bytes, kPlace);
      s = d.ok() ? VerifyKeyspanBlock(*d, KeyComparer::kBytewise) : d.status();
    } else {
      Result<KeyValueBlock> d = KeyValueBlock::Decode(bytes, kPlace);
      s = d.ok() ? VerifyKeyValueBlock(*d) : d.status();
    }
    if (!s.ok()) {
      ASSERT_TRUE(s.offset().has_value()) << s.ToString();
      EXPECT_GE(*s.offset(), kBlockAt);
      EXPECT_LE(*s.offset(), kBlockAt + bytes.size()) << s.ToString();
    }
  };
  const std::vector<std::pair<std::string, int>> blocks = {
      {goldens::kTwoKeysDataBlock, 0}, {goldens::kThreeFruitsDataBlock, 0},
      {goldens::kCrdb1DataBlock, 1},   {goldens::kSixEntryIndexBlock, 2},
      {goldens::kRangeKeyBlock, 3},    {goldens::kRangeDelKeyspanBlock, 3},
      {goldens::kMetaIndexBlock, 4}};
  for (const auto& [hex, kind] : blocks) {
    const ByteVector golden = Golden(hex);
    for (std::size_t n = 0; n < golden.size(); ++n) {
      exercise(ByteVector(golden.begin(), golden.begin() + n), kind);
    }
    for (std::size_t i = 0; i < golden.size(); ++i) {
      for (std::uint8_t v : {0x00, 0x01, 0x03, 0x7f, 0x80, 0x88, 0xff}) {
        ByteVector b = golden;
        b[i] = v;
        exercise(b, kind);
        b[i] = static_cast<std::uint8_t>(golden[i] + 1);
        exercise(b, kind);
      }
    }
  }
}

}  // namespace
}  // namespace bloomcodec::pebble::colblk

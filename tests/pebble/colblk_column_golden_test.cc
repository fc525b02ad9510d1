// Pebble's columnar encodings, column by column: our builders must write the bytes Pebble's
// UintBuilder, PrefixBytesBuilder and BitmapBuilder write for the same inputs (the cases of
// Pebble's sstable/colblk/testdata/{uints,prefix_bytes,bitmap}, restated from the writers' rules),
// and our decoders must read them back.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "pebble/colblk/bitmap.h"
#include "pebble/colblk/prefix_bytes.h"
#include "pebble/colblk/uints.h"
#include "pebble/colblk_goldens.h"
#include "support/test_support.h"

namespace bloomcodec::pebble::colblk {
namespace {

using ::bloomcodec::testing::HexBytes;
using goldens::Squeeze;

std::string Le(std::uint64_t v, int width) {
  std::string s;
  static constexpr char kDigits[] = "0123456789abcdef";
  for (int i = 0; i < width; ++i, v >>= 8) {
    s.push_back(kDigits[(v >> 4) & 15]);
    s.push_back(kDigits[v & 15]);
  }
  return s;
}

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// ---- uint columns ----------------------------------------------------------------------------

struct UintCase {
  const char* name;
  bool default_zero;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> sets;
  std::uint32_t rows;
  std::uint32_t offset;  // zero bytes before the column (alignment is from byte 0)
  std::string hex;       // the whole buffer, those bytes included
};

std::vector<UintCase> UintCases() {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> grow = {{0, 0}, {1, 0},  {2, 0}, {3, 0},
                                                               {4, 0}, {5, 10}, {6, 0}, {7, 10}};
  auto with = [&](std::vector<std::pair<std::uint32_t, std::uint64_t>> more) {
    auto all = grow;
    all.insert(all.end(), more.begin(), more.end());
    return all;
  };
  std::vector<std::pair<std::uint32_t, std::uint64_t>> thousands, shifted, fives, ones;
  for (std::uint32_t i = 0; i < 8; ++i) thousands.push_back({i, 1000 + i});
  for (std::uint32_t i = 0; i < 10; ++i) shifted.push_back({i, 1000 + i});
  shifted.push_back({10, 990});
  for (std::uint32_t i = 0; i < 8; ++i) fives.push_back({i, 5});
  for (std::uint32_t i = 0; i < 6; ++i) ones.push_back({i, 1});
  const std::string w2 = Repeat("0000", 5) + "0a00 0000 0a00";
  const std::string w4 = Repeat("00000000", 5) + "0a000000 00000000 0a000000";
  const std::string w8 = Repeat("0000000000000000", 5) +
                         "0a00000000000000 0000000000000000"
                         "0a00000000000000";
  return {
      {"nothing set, default zero", true, {}, 100, 0, "00"},
      {"zeros", false, {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}}, 5, 0, "00"},
      {"one byte", false, grow, 8, 0, "01 0000000000 0a 00 0a"},
      {"two bytes", false, with({{8, 1000}, {9, 65535}}), 10, 0, "02 00" + w2 + "e803 ffff"},
      {"four bytes", false, with({{8, 1000}, {9, 65535}, {10, 65536}, {11, 4294967295u}}), 12, 0,
       "04 000000" + w4 + "e8030000 ffff0000 00000100 ffffffff"},
      {"eight bytes", false,
       with({{8, 1000}, {9, 65535}, {10, 65536}, {11, 4294967295u}, {12, 4294967296u}}), 13, 0,
       "08 00000000000000" + w8 +
           "e803000000000000 ffff000000000000 0000010000000000"
           "ffffffff00000000 0000000001000000"},
      {"a wider last row left out",
       false,
       {{0, 0}, {1, 29}, {2, 595}, {3, 2}, {4, 2}, {5, 9}, {6, 70395}},
       6,
       0,
       "02 00 0000 1d00 5302 0200 0200 0900"},
      {"the wider last row kept",
       false,
       {{0, 0}, {1, 29}, {2, 595}, {3, 2}, {4, 2}, {5, 9}, {6, 70395}},
       7,
       0,
       "04 000000 00000000 1d000000 53020000 02000000 02000000 09000000 fb120100"},
      // Six equal values: 6 one-byte rows cost less than an 8-byte base.
      {"few equal values", false, ones, 6, 0, "01 010101010101"},
      {"eight equal values: constant", false, fives, 8, 0, "80 0500000000000000"},
      {"delta", false, thousands, 8, 0, "81 e803000000000000 0001020304050607"},
      // Pebble keeps the running encoding and its base when the encoding did not change: the
      // base is the minimum over every row set, including the one left out.
      {"the base of a row left out", false, shifted, 10, 0,
       "81 de03000000000000 0a0b0c0d0e0f10111213"},
      {"four-byte delta after one byte",
       false,
       {{0, 1}, {1, 63936}, {2, 4294967296u}},
       3,
       1,
       "00 84 0100000000000000 0000 00000000 bff90000 ffffffff"},
      {"default zero assumes a zero",
       true,
       {{0, 1000000}, {1, 1000010}, {2, 1000020}, {3, 1000030}, {4, 1000040}, {5, 44333222111u}},
       4,
       0,
       "04 000000 40420f00 4a420f00 54420f00 5e420f00"},
      {"rows never set are zero",
       true,
       {{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}},
       100,
       0,
       "01" + Repeat("01", 5) + Repeat("00", 95)},
  };
}

TEST(PebbleUints, BuilderWritesPebblesBytes) {
  for (const UintCase& c : UintCases()) {
    UintBuilder b(c.default_zero);
    for (const auto& [row, value] : c.sets) b.Set(row, value);
    const std::uint32_t end = b.Size(c.rows, c.offset);
    ByteVector buf(end, 0xee);
    std::fill(buf.begin(), buf.begin() + c.offset, 0);
    EXPECT_EQ(b.Finish(c.rows, c.offset, buf.data()), end) << c.name;
    EXPECT_EQ(ToHex(buf), Squeeze(c.hex)) << c.name;
  }
}

TEST(PebbleUints, DecoderReadsPebblesBytes) {
  for (const UintCase& c : UintCases()) {
    const ByteVector buf = HexBytes(Squeeze(c.hex));
    const ColumnBytes column =
        StandaloneColumn(buf, c.offset, static_cast<std::uint32_t>(buf.size()), c.name);
    Result<Uints> u = DecodeUintColumn(column, c.rows);
    ASSERT_TRUE(u.ok()) << c.name << ": " << u.status().ToString();
    std::vector<std::uint64_t> expected(c.rows, 0);
    for (const auto& [row, value] : c.sets) {
      if (row < c.rows) expected[row] = value;
    }
    for (std::uint32_t i = 0; i < c.rows; ++i)
      EXPECT_EQ(u->At(i), expected[i]) << c.name << " " << i;
  }
}

TEST(PebbleUints, EncodingChoice) {
  // DetermineUintEncoding(min, max, rows): width of the range; delta when max needs more.
  EXPECT_EQ(DetermineUintEncoding(257, 512, 2).byte(), 0x02);  // the trailers of kTwoKeys
  EXPECT_EQ(DetermineUintEncoding(257, 257, 3).byte(), 0x02);
  EXPECT_EQ(DetermineUintEncoding(257, 257, 5).byte(), 0x80);  // 5 x 2 bytes > 8
  EXPECT_EQ(DetermineUintEncoding(0, ~std::uint64_t{0}, 1).byte(), 0x08);
  EXPECT_EQ(DetermineUintEncoding(1ull << 40, (1ull << 40) + 70000, 100).byte(), 0x84);
  EXPECT_EQ(DetermineUintEncoding(0, 0, 100).byte(), 0x00);
  EXPECT_EQ(DetermineUintEncodingNoDelta(65536).byte(), 0x04);
  for (unsigned b = 0; b < 256; ++b) {
    const UintEncoding e(static_cast<std::uint8_t>(b));
    const unsigned w = b & 0x7f;
    EXPECT_EQ(e.valid(), w == 0 || w == 1 || w == 2 || w == 4 || b == 8) << b;
  }
}

// ---- prefixbytes columns -----------------------------------------------------------------------

struct PrefixCase {
  const char* name;
  std::uint32_t bundle;
  std::vector<std::string> keys;
  std::uint32_t rows;
  std::string hex;
};

std::vector<PrefixCase> PrefixCases() {
  const std::string a110(110, 'a');
  std::vector<std::string> six;
  for (char c = 'a'; c <= 'f'; ++c) six.push_back(std::string(110, c));
  std::string six_data;
  for (const auto& k : six) six_data += ToHex(AsBytes(k));
  std::vector<std::string> dups(7, "a");
  for (int i = 0; i < 5; ++i) dups.push_back("aa");
  for (int i = 0; i < 4; ++i) dups.push_back("ab");
  const std::string p(70000, 'x');
  const std::string x4465 = ToHex(AsBytes(std::string(4465, 'x')));
  return {
      {"one key", 4, {"abc"}, 1, "02 01 030303 616263"},
      // FORMAT.md §6.5's example.
      {"four keys, one left out",
       4,
       {"abc", "abcd", "abce", "abdd", "abde"},
       4,
       "02 01 020203050709 6162 63 6364 6365 6464"},
      // A bundle of one key keeps it whole as the bundle prefix, with an empty row.
      {"five keys",
       4,
       {"abc", "abcd", "abce", "abdd", "abde"},
       5,
       "02 01 0202030507090b0b 6162 63 6364 6365 6464 6465"},
      {"the left-out key shortens both prefixes",
       4,
       {"abcd", "abce", "abcf", "abg"},
       3,
       "02 01 0303040506 616263 64 65 66"},
      {"the left-out key shortens the bundle prefix",
       2,
       {"abad", "abae", "abbf", "abc"},
       3,
       "01 01 020304050707 6162 61 64 65 6266"},
      {"two-byte offsets, no shared prefix", 2, six, 6,
       "01 02 0000 0000 6e00 dc00 dc00 4a01 b801 b801 2602 9402" + six_data},
      {"the left-out key shortens the shared prefix",
       4,
       {"aaaaa", "aaaab", "aaaac", "aaaad", "aaaae", "aab"},
       5,
       "02 01 0404050607080909 61616161 61 62 63 64 65"},
      // Repeats inside a bundle are empty slices; a bundle's first row is not.
      {"repeated keys", 4, dups, 16, "02 01 010101010101010101010203030303030404040404 61616162"},
      // Prefixes stop at 65535 bytes.
      {"a shared prefix over 65535 bytes",
       16,
       {p + "a", p + "b"},
       2,
       "04 04 0000" + Le(65535, 4) + Le(65535, 4) + Le(70001, 4) + Le(74467, 4) +
           ToHex(AsBytes(std::string(65535, 'x'))) + x4465 + "61" + x4465 + "62"},
      // One row: the whole key is the shared prefix, whatever its length.
      {"one long key",
       16,
       {p},
       1,
       "04 04 0000" + Le(70000, 4) + Le(70000, 4) + Le(70000, 4) + ToHex(AsBytes(p))},
  };
}

TEST(PebblePrefixBytes, BuilderWritesPebblesBytes) {
  for (const PrefixCase& c : PrefixCases()) {
    PrefixBytesBuilder b(c.bundle);
    for (const auto& k : c.keys) b.Put(AsBytes(k));
    const std::uint32_t end = b.Size(c.rows, 0);
    ByteVector buf(end, 0xee);
    EXPECT_EQ(b.Finish(c.rows, 0, buf.data()), end) << c.name;
    EXPECT_EQ(ToHex(buf), Squeeze(c.hex)) << c.name;
  }
}

TEST(PebblePrefixBytes, DecoderReadsEveryRow) {
  for (const PrefixCase& c : PrefixCases()) {
    const ByteVector buf = HexBytes(Squeeze(c.hex));
    const ColumnBytes column = StandaloneColumn(buf, 0, static_cast<std::uint32_t>(buf.size()));
    Result<PrefixBytes> p = DecodePrefixBytesColumn(column, c.rows);
    ASSERT_TRUE(p.ok()) << c.name << ": " << p.status().ToString();
    KeyBuffer key;
    PrefixBytesCursor cursor;
    for (std::uint32_t r = 0; r < c.rows; ++r) {
      ByteVector whole;
      p->AppendRow(r, whole);
      EXPECT_EQ(AsChars(whole), c.keys[r]) << c.name << " row " << r;
      if (r == 0) {
        cursor.SetAt(*p, 0, key);
      } else {
        cursor.SetNext(*p, key);
      }
      EXPECT_EQ(AsChars(ByteSpan(key.data(), cursor.length())), c.keys[r]) << c.name << " " << r;
    }
  }
}

// ---- bitmaps -----------------------------------------------------------------------------------

TEST(PebbleBitmap, BuilderWritesPebblesBytes) {
  struct Case {
    const char* name;
    std::vector<std::uint32_t> bits;
    std::uint32_t rows;
    bool invert;
    std::uint32_t offset;
    std::string hex;
  };
  const std::vector<Case> cases = {
      {"no bit", {}, 5, false, 0, "01"},
      {"no bit, at an offset", {}, 5, false, 3, "000000 01"},
      {"two rows", {0, 1}, 2, false, 0, "00 00000000000000 0300000000000000 0100000000000000"},
      {"17 rows",
       {0, 2, 4, 6, 7, 8, 12, 13, 14},
       17,
       false,
       0,
       "00 00000000000000 d571000000000000 0100000000000000"},
      {"inverted zeros", {}, 5, true, 3, "000000 00 00000000 1f00000000000000 0100000000000000"},
      // An inverted bitmap is always stored, even when it has no bit left.
      {"inverted ones",
       {0, 1, 2, 3, 4},
       5,
       true,
       0,
       "00 00000000000000 0000000000000000 0000000000000000"},
      {"three words",
       {0, 64, 129},
       130,
       false,
       0,
       "00 00000000000000 0100000000000000 0100000000000000 0200000000000000"
       "0700000000000000"},
      {"only a bit past the rows", {5}, 5, false, 0, "01"},
  };
  for (const Case& c : cases) {
    BitmapBuilder b;
    for (std::uint32_t bit : c.bits) b.Set(bit);
    if (c.invert) b.Invert(c.rows);
    const std::uint32_t end =
        c.invert ? BitmapBuilder::InvertedSize(c.rows, c.offset) : b.Size(c.rows, c.offset);
    ByteVector buf(end, 0xee);
    std::fill(buf.begin(), buf.begin() + c.offset, 0);
    EXPECT_EQ(b.Finish(c.rows, c.offset, buf.data()), end) << c.name;
    EXPECT_EQ(ToHex(buf), Squeeze(c.hex)) << c.name;
    const ColumnBytes column =
        StandaloneColumn(buf, c.offset, static_cast<std::uint32_t>(buf.size()), c.name);
    Result<Bitmap> d = DecodeBitmapColumn(column, c.rows);
    ASSERT_TRUE(d.ok()) << c.name << ": " << d.status().ToString();
    for (std::uint32_t i = 0; i < c.rows; ++i) {
      const bool set = std::find(c.bits.begin(), c.bits.end(), i) != c.bits.end();
      EXPECT_EQ(d->At(i), set != c.invert) << c.name << " " << i;
    }
    EXPECT_TRUE(d->Verify(column, c.invert).ok()) << c.name;
  }
}

TEST(PebbleBitmap, TwoSummaryWords) {
  BitmapBuilder b;
  b.Set(4096);
  const std::uint32_t rows = 4097;  // 65 words, 2 summary words
  ByteVector buf(b.Size(rows, 0));
  ASSERT_EQ(b.Finish(rows, 0, buf.data()), buf.size());
  ASSERT_EQ(buf.size(), 8u + 65 * 8 + 2 * 8);
  EXPECT_EQ(ToHex(ByteSpan(buf).subspan(8 + 64 * 8, 8)), "0100000000000000");
  EXPECT_EQ(ToHex(ByteSpan(buf).subspan(8 + 65 * 8, 16)),
            Squeeze("0000000000000000 0100000000000000"));
  Result<Bitmap> d = DecodeBitmapColumn(StandaloneColumn(buf, 0, buf.size()), rows);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->NextSet(0), 4096u);
  EXPECT_TRUE(d->At(4096));
}

}  // namespace
}  // namespace bloomcodec::pebble::colblk

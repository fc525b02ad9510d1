// Keys as Java Strings (cassandra-0.6): UTF-8 and modified UTF-8 decoding, getBytes("UTF-16"),
// the keys of a pre-c Index.db, and the 0.6 BloomFilter's own sizing. The JVM checks the same on
// random strings in tests/oracle; here are the cases whose answers are known by hand.
#include <gtest/gtest.h>

#include <string>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/java_string.h"
#include "bloomcodec/cassandra/sizing.h"
#include "support/test_support.h"

namespace bloomcodec::cassandra {
namespace {

std::string Utf16Hex(std::u16string_view s) { return ToHex(JavaUtf16Bytes(s)); }

TEST(JavaString, GetBytesUtf16) {
  // No characters, no byte order mark (what a JDK's encoder gives).
  EXPECT_EQ(Utf16Hex(u""), "");
  EXPECT_EQ(Utf16Hex(u"a"), "feff0061");
  EXPECT_EQ(Utf16Hex(std::u16string(1, u'\0')), "feff0000");
  // A pair stays a pair; an unpaired half of either kind becomes U+FFFD.
  EXPECT_EQ(Utf16Hex(u"\U0001F600"), "feffd83dde00");
  EXPECT_EQ(Utf16Hex(std::u16string{0xd800}), "fefffffd");
  EXPECT_EQ(Utf16Hex(std::u16string{u'a', 0xdc00, u'b'}), "feff0061fffd0062");
  EXPECT_EQ(Utf16Hex(std::u16string{0xd800, 0xd800, 0xdc00}), "fefffffdd800dc00");
  EXPECT_EQ(Utf16Hex(std::u16string{0xdc00, 0xd800}), "fefffffdfffd");
}

TEST(JavaString, Utf8IsDecodedStrictly) {
  auto ok = DecodeUtf8Text(testing::HexBytes("6bc3a9e282acf09f9880"), "k");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok, (std::u16string{u'k', 0xe9, 0x20ac, 0xd83d, 0xde00}));
  struct Bad {
    const char* hex;
    const char* why;
  };
  for (const Bad& b : {Bad{"80", "byte 80 cannot start a character at byte 0"},
                       Bad{"6bff", "byte ff cannot start a character at byte 1"},
                       Bad{"c080", "byte c0 cannot start"},  // overlong NUL (modified UTF-8)
                       Bad{"e08080", "overlong"}, Bad{"eda080", "encoded surrogate"},
                       Bad{"f4908080", "above U+10FFFF"}, Bad{"e282", "cut off"},
                       Bad{"c3c3", "byte c3 where a continuation byte"}}) {
    auto r = DecodeUtf8Text(testing::HexBytes(b.hex), "key 7");
    ASSERT_FALSE(r.ok()) << b.hex;
    EXPECT_NE(r.status().message().find(b.why), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find("key 7"), std::string::npos);
  }
}

TEST(JavaString, ModifiedUtf8IsDecodedAsReadUtf) {
  // NUL as c0 80, a supplementary character as its two surrogates (3 bytes each), a raw 00 byte
  // (readUTF takes it too), and an unpaired surrogate, which readUTF keeps.
  auto ok = DecodeModifiedUtf8(testing::HexBytes("c080eda0bdedb88000eda080"), "k");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok, (std::u16string{0, 0xd83d, 0xde00, 0, 0xd800}));
  for (const char* hex : {"f09f9880", "80", "c0", "e080", "c000", "e0c080"}) {
    auto r = DecodeModifiedUtf8(testing::HexBytes(hex), "k");
    EXPECT_FALSE(r.ok()) << hex;
  }
}

TEST(JavaString, KeysFromUtf8NameTheBadKey) {
  KeyList keys;
  keys.Add(std::string_view("ok"));
  keys.Add(testing::HexBytes("6bff"));
  auto r = JavaStringKeysFromUtf8(keys, "keys.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("keys.txt: key 2 (hex 6bff)"), std::string::npos)
      << r.status().ToString();
  KeyList good;
  good.Add(std::string_view("k1"));
  good.Add(std::string_view(""));
  auto g = JavaStringKeysFromUtf8(good, "keys.txt");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(ToHex((*g)[0]), "feff006b0031");
  EXPECT_EQ((*g)[1].size(), 0u);
}

TEST(JavaString, IndexKeysCarryTheEntryOffset) {
  KeyList stored;
  stored.Add(std::string_view("abc"));    // entry at 0, 2 + 3 + 8 bytes
  stored.Add(testing::HexBytes("c080"));  // entry at 13: NUL
  stored.Add(testing::HexBytes("41f0"));  // entry at 25: f0 is not modified UTF-8
  KeyList out;
  Status s = JavaStringKeysFromIndex(stored, "x-b-1-Index.db", out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.offset(), 25u + 2u);
  EXPECT_EQ(out.size(), 2u);
  EXPECT_EQ(ToHex(out[1]), "feff0000");
  EXPECT_NE(s.ToString().find("x-b-1-Index.db"), std::string::npos);
}

TEST(JavaString, ZeroPointSixSizing) {
  // 0.6's table stops at K = 8: 15 buckets per element give K 8 where 1.0 / legacy give 10.
  auto small = StringFilterSizeForBucketsPerElement(900, 15);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->hash_count, 8);
  EXPECT_EQ(LegacySizeForBucketsPerElement(900, 15)->hash_count, 10);
  EXPECT_EQ(small->nbits, 900 * 15 + 20);
  EXPECT_EQ(small->word_count, 212);  // the wild b sstable: 13568 bits
  EXPECT_TRUE(small->warning.empty());
  // (2^31 - 21) / n below 15: fewer buckets, with the original's warning.
  auto big = StringFilterSizeForBucketsPerElement(200000000, 15);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->buckets_per_element, 10);
  EXPECT_EQ(big->hash_count, 7);
  EXPECT_EQ(big->warning,
            "Cannot provide an optimal BloomFilter for 200000000 elements (10/15 buckets per "
            "element).");
  // More than 15 buckets per element asked: 15, with the warning.
  auto capped = StringFilterSizeForBucketsPerElement(10, 20);
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(capped->buckets_per_element, 15);
  EXPECT_EQ(capped->hash_count, 8);
  EXPECT_FALSE(capped->warning.empty());
  // The legacy (0.7) sizing saturates instead.
  auto legacy = LegacySizeForBucketsPerElement(200000000, 15);
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->buckets_per_element, 15);
  auto refused = StringFilterSizeForFpChance(3000000000LL, 0.01);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "UnsupportedOperationException: Cannot compute probabilities for 3000000000 "
            "elements.");
  auto fp = StringFilterSizeForFpChance(1000, 0.01);
  auto fp_legacy = LegacySizeForFpChance(1000, 0.01);
  ASSERT_TRUE(fp.ok() && fp_legacy.ok());
  EXPECT_EQ(fp->hash_count, fp_legacy->hash_count);
  EXPECT_EQ(fp->word_count, fp_legacy->word_count);
  // Below probs[15][8] the 0.6 table cannot satisfy the chance; 1.0's 20-row table can.
  auto tight = StringFilterSizeForFpChance(1000, 0.0005);
  ASSERT_FALSE(tight.ok());
  EXPECT_EQ(tight.status().message(),
            "UnsupportedOperationException: Unable to satisfy 5.0E-4 with 15 buckets per element");
  EXPECT_TRUE(LegacySizeForFpChance(1000, 0.0005).ok());
}

}  // namespace
}  // namespace bloomcodec::cassandra

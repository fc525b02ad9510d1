// Index.db (Cassandra 0.6 - 1.1): the reader's decoding and its errors at offsets.
#include "cassandra/index_db.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "codec/byte_writer.h"

namespace bloomcodec::cassandra {
namespace {

KeyList Keys(std::initializer_list<std::string_view> keys) {
  KeyList list;
  for (std::string_view k : keys) list.Add(k);
  return list;
}

ByteVector Entry(std::string_view stored, std::int64_t position) {
  ByteVector out;
  ByteWriter w(out);
  w.PutBigU16(static_cast<std::uint16_t>(stored.size()));
  w.PutBytes(AsBytes(stored));
  w.PutBigI64(position);
  return out;
}

ByteVector Concat(std::initializer_list<ByteVector> parts) {
  ByteVector out;
  for (const ByteVector& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(IndexDb, LayoutIsLengthKeyPosition) {
  KeyList keys = Keys({"", "ab", "xyz"});
  auto bytes = WriteIndexDb(keys, std::vector<std::int64_t>{0, 17, 1u << 20});
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(ToHex(*bytes),
            "0000"
            "0000000000000000"
            "0002"
            "6162"
            "0000000000000011"
            "0003"
            "78797a"
            "0000000000100000");
  auto index = ReadIndexDb(*bytes, "i");
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  ASSERT_EQ(index->keys.size(), 3u);
  EXPECT_EQ(AsChars(index->keys[2]), "xyz");
  EXPECT_TRUE(index->keys[0].empty());
  EXPECT_EQ(index->positions, (std::vector<std::int64_t>{0, 17, 1 << 20}));
}

TEST(IndexDb, EmptyFileHasNoKeys) {
  auto index = ReadIndexDb({}, "i");
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->keys.size(), 0u);
}

TEST(IndexDb, TruncatedMidEntryNamesTheOffsetAndKeepsEarlierKeys) {
  ByteVector full = Concat({Entry("first", 0), Entry("second", 100)});
  // Cut inside the second entry's key (2 + 5 + 8 = 15 bytes of entry 0, then 2 + 3 bytes).
  for (std::size_t cut : {16u, 20u, 25u, 30u}) {
    ByteSpan part(full.data(), cut);
    IndexDb index;
    Status s = ReadIndexDbInto(part, "Standard1-hc-1-Index.db", IndexKeyForm::kRaw, index);
    ASSERT_FALSE(s.ok()) << cut;
    EXPECT_EQ(s.code(), StatusCode::kCorrupt);
    EXPECT_EQ(s.file(), "Standard1-hc-1-Index.db");
    // The offset is where the field that does not fit starts.
    std::uint64_t expected = cut < 17 ? 15 : (cut < 23 ? 17 : 23);
    EXPECT_EQ(s.offset(), expected) << cut << " " << s.ToString();
    EXPECT_NE(s.message().find("entry 1"), std::string::npos) << s.ToString();
    ASSERT_EQ(index.keys.size(), 1u);
    EXPECT_EQ(AsChars(index.keys[0]), "first");
  }
}

TEST(IndexDb, NegativeAndNonIncreasingPositionsAreCorrupt) {
  auto negative = ReadIndexDb(Concat({Entry("a", 0), Entry("b", -5)}), "i");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().offset(), 11u + 3u);
  EXPECT_NE(negative.status().message().find("non-negative"), std::string::npos);
  auto backwards = ReadIndexDb(Concat({Entry("a", 50), Entry("b", 50)}), "i");
  ASSERT_FALSE(backwards.ok());
  EXPECT_EQ(backwards.status().offset(), 14u);
}

TEST(IndexDb, VersionsBeforeEStoreRandomPartitionerEncodedKeys) {
  EXPECT_EQ(IndexKeyFormForVersion("a"), IndexKeyForm::kRandomPartitionerEncoded);
  EXPECT_EQ(IndexKeyFormForVersion("d"), IndexKeyForm::kRandomPartitionerEncoded);
  EXPECT_EQ(IndexKeyFormForVersion("e"), IndexKeyForm::kRaw);
  EXPECT_EQ(IndexKeyFormForVersion("hc"), IndexKeyForm::kRaw);
  ByteVector file = Concat({Entry("12345:key:with:colons", 0), Entry("0:", 9)});
  auto index = ReadIndexDb(file, "i", IndexKeyForm::kRandomPartitionerEncoded);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ(AsChars(index->keys[0]), "key:with:colons");
  EXPECT_TRUE(index->keys[1].empty());
  // The same bytes read raw keep the token.
  auto raw = ReadIndexDb(file, "i");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(AsChars(raw->keys[0]), "12345:key:with:colons");
  // No "<digits>:" prefix: refused at the first byte that breaks it.
  auto bad = ReadIndexDb(Concat({Entry("12x:k", 0)}), "i", IndexKeyForm::kRandomPartitionerEncoded);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().offset(), 2u + 2u);
}

TEST(IndexDb, RandomPartitionerTokensAndThePartitionerToldFromTheData) {
  // new BigInteger(md5).abs() in decimal; MD5("") starts d4 (negative), MD5("abc") 90 (negative),
  // MD5("key0") 21 (positive).
  EXPECT_EQ(RandomPartitionerToken({}), "58332598431525814501020785164969033090");
  EXPECT_EQ(RandomPartitionerToken(AsBytes("abc")), "148866708576779697295343134153845407886");
  EXPECT_EQ(RandomPartitionerToken(AsBytes("key0")), "45131504060613900271599024054269708792");
  const ByteVector random = Concat({Entry("45131504060613900271599024054269708792:key0", 0)});
  EXPECT_EQ(DetectIndexKeyFormBeforeE(random), IndexKeyForm::kRandomPartitionerEncoded);
  EXPECT_EQ(IndexKeyFormFor("b", random), IndexKeyForm::kRandomPartitionerEncoded);
  EXPECT_EQ(IndexKeyFormFor("e", random), IndexKeyForm::kRaw);
  // A token that is not the key's MD5 (or no token at all): the key itself, order-preserving.
  EXPECT_EQ(DetectIndexKeyFormBeforeE(Concat({Entry("12:key0", 0), Entry("zz", 9)})),
            IndexKeyForm::kRaw);
  // One matching entry among the first decides.
  EXPECT_EQ(DetectIndexKeyFormBeforeE(
                Concat({Entry("0:a", 0), Entry("45131504060613900271599024054269708792:key0", 9)})),
            IndexKeyForm::kRandomPartitionerEncoded);
  // Nothing readable: the releases' default, so damage is reported as before.
  EXPECT_EQ(DetectIndexKeyFormBeforeE({}), IndexKeyForm::kRandomPartitionerEncoded);
  EXPECT_EQ(DetectIndexKeyFormBeforeE(ByteVector{0x00, 0xff, 0x61}),
            IndexKeyForm::kRandomPartitionerEncoded);
}

TEST(IndexDb, WriterRefusesKeysLongerThanAShort) {
  KeyList keys;
  keys.Add(ByteVector(65536, 'k'));
  EXPECT_FALSE(WriteIndexDb(keys).ok());
  KeyList fits;
  fits.Add(ByteVector(65535, 'k'));
  EXPECT_TRUE(WriteIndexDb(fits).ok());
}

RC_GTEST_PROP(IndexDbProperty, WriteThenReadGivesTheKeysBack,
              (const std::vector<std::string>& raw_keys)) {
  KeyList keys;
  for (const std::string& k : raw_keys) keys.Add(std::string_view(k).substr(0, 300));
  auto bytes = WriteIndexDb(keys, 7);
  RC_ASSERT(bytes.ok());
  auto index = ReadIndexDb(*bytes, "i");
  RC_ASSERT(index.ok());
  RC_ASSERT(index->keys.size() == keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    RC_ASSERT(ToHex(index->keys[i]) == ToHex(keys[i]));
    RC_ASSERT(index->positions[i] == static_cast<std::int64_t>(i) * 7);
  }
  // Any strict prefix that ends inside an entry is refused, never read past its end.
  if (!bytes->empty()) {
    std::size_t cut = *rc::gen::inRange<std::size_t>(0, bytes->size());
    IndexDb partial;
    Status s = ReadIndexDbInto(ByteSpan(bytes->data(), cut), "i", IndexKeyForm::kRaw, partial);
    RC_ASSERT(partial.keys.size() <= keys.size());
    if (s.ok()) {
      RC_ASSERT(cut == 0 || partial.keys.size() > 0);
    } else {
      RC_ASSERT(s.offset().has_value());
      RC_ASSERT(*s.offset() <= cut);
    }
  }
}

}  // namespace
}  // namespace bloomcodec::cassandra

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "bloomcodec/bit_view.h"
#include "codec/byte_reader.h"
#include "codec/byte_writer.h"

namespace bloomcodec {
namespace {

TEST(ByteReader, ReadsBigAndLittleEndian) {
  const ByteVector bytes = {0x00, 0x00, 0x00, 0x0a, 0xff, 0xff, 0xff, 0xfe, 0x01, 0x02, 0x03, 0x04};
  ByteReader r(bytes, "x");
  EXPECT_EQ(r.ReadBigI32("a").value(), 10);
  EXPECT_EQ(r.ReadBigI32("b").value(), -2);
  EXPECT_EQ(r.ReadLittleU32("c").value(), 0x04030201u);
  EXPECT_TRUE(r.at_end());
}

TEST(ByteReader, ShortReadNamesSourceOffsetAndExpectation) {
  const ByteVector bytes = {1, 2, 3, 4, 5, 6};
  ByteReader r(bytes, "Filter.db", 100);
  ASSERT_TRUE(r.ReadBigU32("hash count").ok());
  auto w = r.ReadBigU32("word count");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(w.status().offset(), 104u);
  EXPECT_EQ(
      w.status().ToString(),
      "Filter.db: byte 104: expected word count (4 bytes), found only 2 bytes before the end");
  EXPECT_EQ(r.position(), 4u) << "a failed read must not move the reader";
}

TEST(ByteReader, HugeLengthIsRefusedWithoutReading) {
  const ByteVector bytes(10);
  ByteReader r(bytes, "x");
  EXPECT_FALSE(r.ReadBytes(std::uint64_t{1} << 62, "payload").ok());
  EXPECT_FALSE(r.Skip(11, "payload").ok());
}

TEST(ByteReader, VarintRejectsUnterminatedAndOverlong) {
  const ByteVector unterminated = {0x80, 0x80, 0x80};
  ByteReader a(unterminated, "x");
  EXPECT_FALSE(a.ReadVarint64("v").ok());
  const ByteVector overlong32 = {0xff, 0xff, 0xff, 0xff, 0x1f};
  ByteReader b(overlong32, "x");
  EXPECT_FALSE(b.ReadVarint32("v").ok());
  const ByteVector eleven(11, 0x80);
  ByteReader c(eleven, "x");
  EXPECT_FALSE(c.ReadVarint64("v").ok());
}

TEST(ByteReader, ExpectReportsFirstDifferingByte) {
  const ByteVector bytes = {0xac, 0xed, 0x00, 0x06};
  const ByteVector magic = {0xac, 0xed, 0x00, 0x05};
  ByteReader r(bytes, "s");
  Status s = r.Expect(magic, "stream header");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.offset(), 3u);
  EXPECT_NE(s.message().find("aced0005"), std::string::npos);
}

RC_GTEST_PROP(ByteWriter, IntegersAndVarintsRoundTrip,
              (std::uint32_t a, std::uint64_t b, std::uint32_t c, std::uint64_t d,
               std::int32_t e)) {
  ByteVector out;
  ByteWriter w(out);
  w.PutBigU32(a);
  w.PutBigU64(b);
  w.PutLittleU32(c);
  w.PutLittleU64(d);
  w.PutVarint32(a);
  w.PutVarint64(b);
  w.PutBigI32(e);
  ByteReader r(out, "rt");
  RC_ASSERT(r.ReadBigU32("").value() == a);
  RC_ASSERT(r.ReadBigU64("").value() == b);
  RC_ASSERT(r.ReadLittleU32("").value() == c);
  RC_ASSERT(r.ReadLittleU64("").value() == d);
  RC_ASSERT(r.ReadVarint32("").value() == a);
  RC_ASSERT(r.ReadVarint64("").value() == b);
  RC_ASSERT(r.ReadBigI32("").value() == e);
  RC_ASSERT(r.at_end());
}

TEST(BitView, BigEndianWordsPutBitZeroInTheLastByteOfTheWord) {
  ByteVector bytes(16, 0);
  MutableBitView<BitOrder::kBigEndianWords64> v(bytes);
  v.Set(0);
  v.Set(64 + 63);
  EXPECT_EQ(bytes[7], 0x01);
  EXPECT_EQ(bytes[8], 0x80);
  EXPECT_TRUE(v.Test(0));
  EXPECT_FALSE(v.Test(1));
  EXPECT_EQ(v.PopCount(), 2u);
}

TEST(BitView, LsbFirstBytes) {
  ByteVector bytes(3, 0);
  MutableBitView<BitOrder::kLsbFirstBytes> v(bytes);
  v.Set(9);
  v.Set(23);
  EXPECT_EQ(bytes[1], 0x02);
  EXPECT_EQ(bytes[2], 0x80);
  EXPECT_EQ(v.PopCount(), 2u);
  EXPECT_EQ(v.bit_count(), 24u);
}

RC_GTEST_PROP(Bytes, HexAndBase64RoundTrip, (const std::vector<std::uint8_t>& data)) {
  ByteVector back;
  RC_ASSERT(FromHex(ToHex(data), back));
  RC_ASSERT(back == data);
  back.clear();
  RC_ASSERT(FromBase64(ToBase64(data), back));
  RC_ASSERT(back == data);
}

TEST(Bytes, Base64KnownAnswers) {
  EXPECT_EQ(ToBase64(AsBytes("")), "");
  EXPECT_EQ(ToBase64(AsBytes("f")), "Zg==");
  EXPECT_EQ(ToBase64(AsBytes("fo")), "Zm8=");
  EXPECT_EQ(ToBase64(AsBytes("foobar")), "Zm9vYmFy");
  ByteVector out;
  EXPECT_FALSE(FromBase64("Zg=", out));
  EXPECT_FALSE(FromBase64("Z!==", out));
}

}  // namespace
}  // namespace bloomcodec

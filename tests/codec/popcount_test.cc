// PopCountBytes, whichever clone the CPU runs, counts what a bit-by-bit count counts: every length
// (whole words and a tail of 1 - 7 bytes) and every offset (words read unaligned).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <vector>

#include "codec/popcount.h"

namespace bloomcodec {
namespace {

std::uint64_t BitByBit(ByteSpan bytes) {
  std::uint64_t n = 0;
  for (std::uint8_t b : bytes) {
    for (int i = 0; i < 8; ++i) n += (b >> i) & 1u;
  }
  return n;
}

TEST(PopCountBytes, CountsKnownBytes) {
  EXPECT_EQ(PopCountBytes({}), 0u);
  const ByteVector ones(17, 0xff);
  EXPECT_EQ(PopCountBytes(ones), 17u * 8);
  const ByteVector mixed = {0x01, 0x80, 0x0f, 0x00, 0xf0, 0x55, 0xaa, 0x11, 0x03};
  EXPECT_EQ(PopCountBytes(mixed), 1u + 1 + 4 + 0 + 4 + 4 + 4 + 2 + 2);
}

RC_GTEST_PROP(PopCountBytesProperty, EqualsABitByBitCount, (const std::vector<std::uint8_t>& v)) {
  const std::size_t offset = v.empty() ? 0 : *rc::gen::inRange<std::size_t>(0, v.size());
  const ByteSpan bytes = ByteSpan(v).subspan(offset);
  RC_ASSERT(PopCountBytes(bytes) == BitByBit(bytes));
}

}  // namespace
}  // namespace bloomcodec

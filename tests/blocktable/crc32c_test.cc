// CRC-32C and its masking (the block trailers of LevelDB tables and of RocksDB SSTs with
// checksum type 1): known vectors.
#include <gtest/gtest.h>

#include <cstdint>

#include "blocktable/crc32c.h"
#include "bloomcodec/bytes.h"

namespace bloomcodec::blocktable {
namespace {

TEST(Crc32cTest, KnownVectorsAndMask) {
  EXPECT_EQ(Crc32c(AsBytes("123456789")), 0xE3069283u);
  EXPECT_EQ(Crc32c(AsBytes("")), 0u);
  ByteVector zeros(32, 0);
  EXPECT_EQ(Crc32c(zeros), 0x8A9136AAu);  // RFC 3720 B.4
  ByteVector ones(32, 0xff);
  EXPECT_EQ(Crc32c(ones), 0x62A8AB43u);
  EXPECT_EQ(Crc32cExtend(Crc32c(AsBytes("1234")), AsBytes("56789")), 0xE3069283u);
  for (std::uint32_t v : {0u, 1u, 0xE3069283u, 0xffffffffu}) EXPECT_EQ(UnmaskCrc(MaskCrc(v)), v);
  EXPECT_NE(MaskCrc(0xE3069283u), 0xE3069283u);
}

}  // namespace
}  // namespace bloomcodec::blocktable

// The LevelDB hash against raw/hash_vectors.tsv: LevelDB 1.23's leveldb::Hash and the v1.17 hash
// compiled with signed and with unsigned char.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "bloomcodec/leveldb/hash.h"
#include "support/test_support.h"

namespace bloomcodec::leveldb {
namespace {

using ::bloomcodec::testing::HexBytes;
using ::bloomcodec::testing::ReadTsvFixture;

std::uint32_t ParseHex32(const std::string& s) {
  return static_cast<std::uint32_t>(std::stoul(s, nullptr, 16));
}

TEST(HashGolden, BothFlavoursMatchEveryVector) {
  const auto table = ReadTsvFixture("leveldb/raw/hash_vectors.tsv");
  ASSERT_GE(table.rows.size(), 100u);
  int differing = 0;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const ByteVector data = HexBytes(table.At(i, "data_hex"));
    const std::uint32_t seed = ParseHex32(table.At(i, "seed"));
    const std::uint32_t v123 = ParseHex32(table.At(i, "hash_leveldb_1_23"));
    const std::uint32_t signed_tail = ParseHex32(table.At(i, "hash_legacy_signed_tail"));
    const std::uint32_t v117_unsigned = ParseHex32(table.At(i, "hash_legacy_v1_17_unsigned_char"));
    SCOPED_TRACE("row " + std::to_string(i + 2) + ": " + table.At(i, "data_hex"));
    EXPECT_EQ(Hash(data, seed, HashFlavor::kUnsignedTail), v123);
    EXPECT_EQ(Hash(data, seed, HashFlavor::kSignedTail), signed_tail);
    // LevelDB 1.17 built with unsigned char is the 1.18+ hash.
    EXPECT_EQ(Hash(data, seed, HashFlavor::kUnsignedTail), v117_unsigned);
    if (seed == kBloomHashSeed) {
      EXPECT_EQ(BloomHash(data, HashFlavor::kUnsignedTail), v123);
      EXPECT_EQ(BloomHash(data, HashFlavor::kSignedTail), signed_tail);
    }
    differing += v123 != signed_tail;
  }
  // The vectors must exercise the sign-extension trap, or they prove nothing about it.
  EXPECT_GT(differing, 10);
}

}  // namespace
}  // namespace bloomcodec::leveldb

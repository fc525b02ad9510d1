// Every hash and bucket vector the original classes produced (fixtures/cassandra-1.0).
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/murmur_hash.h"
#include "bloomcodec/cassandra/sizing.h"
#include "golden_util.h"

namespace bloomcodec::cassandra {
namespace {

using bloomcodec::testing::HexBytes;
using bloomcodec::testing::ReadTsvFixture;
using testing::kDir;
using testing::ParseHex64;
using testing::ParseI64;
using testing::SplitComma;

TEST(CassandraHashGolden, Hash64EveryVector) {
  auto t = ReadTsvFixture(kDir + "hash64_vectors.tsv");
  ASSERT_EQ(t.rows.size(), 3981u);
  int high_tail = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ByteVector key = HexBytes(t.At(i, "key_hex"));
    ASSERT_EQ(key.size(), static_cast<std::size_t>(ParseI64(t.At(i, "len"))));
    const std::int64_t h1 = MurmurHash64(key, 0);
    const std::int64_t h2 = MurmurHash64(key, h1);
    EXPECT_EQ(h1, ParseI64(t.At(i, "h1_dec"))) << "row " << i;
    EXPECT_EQ(h2, ParseI64(t.At(i, "h2_dec"))) << "row " << i;
    EXPECT_EQ(static_cast<std::uint64_t>(h1), ParseHex64(t.At(i, "h1_hex"))) << "row " << i;
    const KeyHashes64 both = HashKey64(key);
    EXPECT_EQ(both.h1, h1);
    EXPECT_EQ(both.h2, h2);
    high_tail += t.At(i, "tail_has_high_byte") == "1";
  }
  EXPECT_EQ(high_tail, 2920);  // the sign-extension trap is exercised
}

TEST(CassandraHashGolden, Hash32EveryVector) {
  auto t = ReadTsvFixture(kDir + "legacy/hash32_vectors.tsv");
  ASSERT_EQ(t.rows.size(), 3981u);
  int order_matters = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ByteVector key = HexBytes(t.At(i, "key_hex"));
    const std::int32_t h1 = MurmurHash32(key, 0);
    const std::int32_t h2 = MurmurHash32(key, h1);
    EXPECT_EQ(h1, ParseI64(t.At(i, "h1_dec"))) << "row " << i;
    EXPECT_EQ(h2, ParseI64(t.At(i, "h2_dec"))) << "row " << i;
    order_matters += t.At(i, "tail_order_matters") == "1";
  }
  EXPECT_GT(order_matters, 0);
}

TEST(CassandraHashGolden, BucketVectors) {
  auto t = ReadTsvFixture(kDir + "bucket_vectors.tsv");
  ASSERT_EQ(t.rows.size(), 4000u);
  std::vector<std::int64_t> out(32);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ByteVector key = HexBytes(t.At(i, "key_hex"));
    const auto k = static_cast<std::int32_t>(ParseI64(t.At(i, "hash_count")));
    const std::int64_t max = ParseI64(t.At(i, "max"));
    const auto expected = SplitComma(t.At(i, "buckets"));
    ASSERT_EQ(expected.size(), static_cast<std::size_t>(k)) << "row " << i;
    HashBuckets(key, k, max, out);
    for (std::int32_t j = 0; j < k; ++j) {
      EXPECT_EQ(out[static_cast<std::size_t>(j)], ParseI64(expected[static_cast<std::size_t>(j)]))
          << "row " << i << " bucket " << j;
    }
  }
}

TEST(CassandraHashGolden, LegacyBucketVectors) {
  auto t = ReadTsvFixture(kDir + "legacy/legacy_bucket_vectors.tsv");
  ASSERT_EQ(t.rows.size(), 2000u);
  std::vector<std::int32_t> out(32);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ByteVector key = HexBytes(t.At(i, "key_hex"));
    const auto k = static_cast<std::int32_t>(ParseI64(t.At(i, "hash_count")));
    const auto max = static_cast<std::int32_t>(ParseI64(t.At(i, "max")));
    const auto expected = SplitComma(t.At(i, "buckets"));
    ASSERT_EQ(expected.size(), static_cast<std::size_t>(k));
    LegacyHashBuckets(key, k, max, out);
    for (std::int32_t j = 0; j < k; ++j) {
      EXPECT_EQ(out[static_cast<std::size_t>(j)], ParseI64(expected[static_cast<std::size_t>(j)]))
          << "row " << i << " bucket " << j;
    }
  }
}

TEST(CassandraHashGolden, BloomCalculationsTable) {
  const std::string text =
      bloomcodec::testing::ReadFixtureText(kDir + "bloom_calculations_table.tsv");
  auto t = ReadTsvFixture(kDir + "bloom_calculations_table.tsv");
  ASSERT_EQ(t.rows.size(), 21u);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const int bpe = static_cast<int>(ParseI64(t.rows[i][0]));
    EXPECT_EQ(OptimalHashCount(bpe), ParseI64(t.rows[i][1])) << "row " << bpe;
    const auto values = SplitComma(t.rows[i][2]);
    const auto probs = BloomProbabilities(bpe);
    ASSERT_EQ(probs.size(), values.size()) << "row " << bpe;
    for (std::size_t j = 0; j < values.size(); ++j) {
      // The golden text is Java's Double.toString: parsing it gives back the exact double.
      EXPECT_EQ(probs[j], std::strtod(values[j].c_str(), nullptr)) << bpe << "," << j;
      EXPECT_EQ(JavaDoubleToString(probs[j]), values[j]) << bpe << "," << j;
    }
  }
}

}  // namespace
}  // namespace bloomcodec::cassandra

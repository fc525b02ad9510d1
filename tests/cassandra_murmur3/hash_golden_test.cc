// Every Murmur3 vector and every bit-index row of the golden data, made by the original classes.
#include <gtest/gtest.h>

#include <string>

#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "murmur3_util.h"

namespace bloomcodec::cassandra {
namespace {

using bloomcodec::testing::HexBytes;
using bloomcodec::testing::ReadTsvFixture;
using murmur3_testing::kDir;

TEST(CassandraMurmur3Hash, EveryVectorBothHalvesAndWhereCanonicalDiffers) {
  const auto t = ReadTsvFixture(kDir + "murmur3_vectors.tsv");
  ASSERT_EQ(t.rows.size(), 1363u);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ByteVector key = HexBytes(t.At(i, "key_hex"));
    ASSERT_EQ(std::to_string(key.size()), t.At(i, "len")) << i;
    const Murmur3Hash ours = CassandraMurmur3(key);
    ASSERT_EQ(std::to_string(ours.h0), t.At(i, "h0_dec")) << "row " << i;
    ASSERT_EQ(std::to_string(ours.h1), t.At(i, "h1_dec")) << "row " << i;
    const Murmur3Hash canonical = CanonicalMurmur3(key);
    ASSERT_EQ(std::to_string(canonical.h0), t.At(i, "ref_h0_dec")) << "row " << i;
    ASSERT_EQ(std::to_string(canonical.h1), t.At(i, "ref_h1_dec")) << "row " << i;
    const bool same = ours.h0 == canonical.h0 && ours.h1 == canonical.h1;
    EXPECT_EQ(same ? "1" : "0", t.At(i, "same_as_reference")) << "row " << i;
    // The rule of the sign-extended tail: a high tail byte anywhere but tail position 7.
    bool predicted_differs = false;
    const std::size_t tail = key.size() & 15;
    for (std::size_t p = 0; p < tail; ++p) {
      if (p != 7 && key[key.size() - tail + p] >= 0x80) predicted_differs = true;
    }
    EXPECT_EQ(predicted_differs, !same) << "row " << i;
    differing += same ? 0 : 1;
  }
  EXPECT_EQ(differing, 892u);
}

TEST(CassandraMurmur3Hash, HelloFromTheSpec) {
  const Murmur3Hash h = CassandraMurmur3(AsBytes(std::string_view("hello")));
  EXPECT_EQ(h.h0, -3758069500696749310);
  EXPECT_EQ(h.h1, 6565844092913065241);
  const Murmur3Hash empty = CassandraMurmur3(ByteSpan());
  EXPECT_EQ(empty.h0, 0);
  EXPECT_EQ(empty.h1, 0);
}

void CheckIndexes(const std::string& file, IndexOrder order) {
  const auto t = ReadTsvFixture(kDir + file);
  ASSERT_EQ(t.rows.size(), 1600u) << file;
  std::vector<std::int64_t> out(32);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ByteVector key = HexBytes(t.At(i, "key_hex"));
    const auto k = static_cast<std::int32_t>(std::stol(t.At(i, "hash_count")));
    const std::int64_t max = std::stoll(t.At(i, "capacity_bits"));
    Murmur3BitIndexes(key, order, k, max, out);
    const auto expected = murmur3_testing::SplitComma(t.At(i, "indexes"));
    ASSERT_EQ(expected.size(), static_cast<std::size_t>(k)) << file << " row " << i;
    for (std::int32_t j = 0; j < k; ++j) {
      ASSERT_EQ(std::to_string(out[static_cast<std::size_t>(j)]),
                expected[static_cast<std::size_t>(j)])
          << file << " row " << i << " index " << j;
    }
  }
}

TEST(CassandraMurmur3Hash, EveryIndexRowOldOrder) {
  CheckIndexes("indexes_old_order.tsv", IndexOrder::kOld);
}
TEST(CassandraMurmur3Hash, EveryIndexRowNewOrder) {
  CheckIndexes("indexes_new_order.tsv", IndexOrder::kNew);
}

TEST(CassandraMurmur3Hash, HelloIndexesFromTheSpec) {
  std::vector<std::int64_t> out(3);
  Murmur3BitIndexes(AsBytes(std::string_view("hello")), IndexOrder::kOld, 3, 10048, out);
  EXPECT_EQ(out, (std::vector<std::int64_t>{8446, 8027, 9740}));
  Murmur3BitIndexes(AsBytes(std::string_view("hello")), IndexOrder::kNew, 3, 10048, out);
  EXPECT_EQ(out, (std::vector<std::int64_t>{6425, 8027, 419}));
}

}  // namespace
}  // namespace bloomcodec::cassandra

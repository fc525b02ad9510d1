// Every row of the golden sizing table (33 element counts x 32 fp chances), through
// SizeMurmur3Filter and through each codec's Size.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/sizing.h"
#include "murmur3_util.h"

namespace bloomcodec::cassandra {
namespace {

using bloomcodec::testing::ReadTsvFixture;
using murmur3_testing::Codec;
using murmur3_testing::kDir;

TEST(CassandraMurmur3SizingGolden, EveryRow) {
  const auto t = ReadTsvFixture(kDir + "sizing.tsv");
  ASSERT_EQ(t.rows.size(), 1056u);
  std::size_t ok = 0, always = 0, refused = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::int64_t n = std::stoll(t.At(i, "num_elements"));
    const std::string fp_text = t.At(i, "fp_chance");
    const double fp = fp_text == "NaN" ? std::nan("") : std::stod(fp_text);
    const std::string where = "n=" + t.At(i, "num_elements") + " fp=" + fp_text;
    const std::string result = t.At(i, "result");
    const Result<Murmur3FilterSpec> spec = SizeMurmur3Filter(n, fp);
    FilterParams params;
    params.fp_chance = fp;
    params.expected_keys = n;
    if (result == "REFUSED") {
      ++refused;
      ASSERT_FALSE(spec.ok()) << where;
      EXPECT_EQ(spec.status().code(), StatusCode::kRefused) << where;
      EXPECT_EQ(spec.status().message(), t.At(i, "message")) << where;
      if (!t.At(i, "hash_count").empty()) {
        // The 16 GB refusal comes after K and buckets were chosen: those match too.
        const Result<FilterSpec> chosen = SizeForFpChance(n, fp);
        ASSERT_TRUE(chosen.ok()) << where;
        EXPECT_EQ(std::to_string(chosen->hash_count), t.At(i, "hash_count")) << where;
        EXPECT_EQ(std::to_string(chosen->buckets_per_element), t.At(i, "buckets_per_element"))
            << where;
        EXPECT_EQ(std::to_string(chosen->requested_bits), t.At(i, "num_bits_requested")) << where;
        const std::uint64_t words =
            ((static_cast<std::uint64_t>(chosen->requested_bits) - 1) >> 6) + 1;
        EXPECT_EQ(std::to_string(words), t.At(i, "word_count")) << where;
      }
      for (const auto& v : murmur3_testing::Variants()) {
        const Result<SizeInfo> size = Codec(v.format).Size(params);
        ASSERT_FALSE(size.ok()) << where;
        EXPECT_EQ(size.status().code(), StatusCode::kRefused) << where;
        EXPECT_EQ(size.status().message(), t.At(i, "message")) << where;
      }
      continue;
    }
    ASSERT_TRUE(spec.ok()) << where << ": " << spec.status().ToString();
    if (result == "ALWAYS_PRESENT") {
      ++always;
      EXPECT_TRUE(spec->always_present) << where;
      for (const auto& v : murmur3_testing::Variants()) {
        const Result<SizeInfo> size = Codec(v.format).Size(params);
        ASSERT_TRUE(size.ok()) << where;
        EXPECT_TRUE(size->always_present) << where;
        EXPECT_EQ(size->file_bytes, 0) << where;
        ASSERT_TRUE(size->writes_filter_file.has_value());
        EXPECT_EQ(*size->writes_filter_file, v.era == Era::kV40) << where;
      }
      continue;
    }
    ASSERT_EQ(result, "OK") << where;
    ++ok;
    EXPECT_FALSE(spec->always_present) << where;
    EXPECT_EQ(std::to_string(spec->hash_count), t.At(i, "hash_count")) << where;
    EXPECT_EQ(std::to_string(spec->buckets_per_element), t.At(i, "buckets_per_element")) << where;
    EXPECT_EQ(std::to_string(spec->requested_bits), t.At(i, "num_bits_requested")) << where;
    EXPECT_EQ(std::to_string(spec->word_count), t.At(i, "word_count")) << where;
    EXPECT_EQ(std::to_string(spec->capacity_bits()), t.At(i, "capacity_bits")) << where;
    EXPECT_EQ(std::to_string(spec->file_bytes()), t.At(i, "file_bytes")) << where;
    for (const auto& v : murmur3_testing::Variants()) {
      const Result<SizeInfo> size = Codec(v.format).Size(params);
      ASSERT_TRUE(size.ok()) << where;
      EXPECT_FALSE(size->always_present);
      EXPECT_EQ(size->hash_count, spec->hash_count) << where;
      EXPECT_EQ(size->buckets_per_element, spec->buckets_per_element) << where;
      EXPECT_EQ(size->words, spec->word_count) << where;
      EXPECT_EQ(size->bits, spec->capacity_bits()) << where;
      EXPECT_EQ(size->file_bytes, spec->file_bytes()) << where;
    }
  }
  EXPECT_EQ(ok, 510u);
  EXPECT_EQ(always, 33u);
  EXPECT_EQ(refused, 513u);
}

TEST(CassandraMurmur3Sizing, CodecsTakeOnlyTheFpChance) {
  FilterParams params;
  params.expected_keys = 10;
  params.buckets_per_element = 15;
  for (const auto& v : murmur3_testing::Variants()) {
    EXPECT_EQ(Codec(v.format).Size(params).status().code(), StatusCode::kInvalidArgument);
  }
  params.buckets_per_element.reset();
  EXPECT_EQ(Codec("cassandra-3.0").Size(params).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bloomcodec::cassandra

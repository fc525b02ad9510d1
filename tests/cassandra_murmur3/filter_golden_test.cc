// Every golden Filter.db of the three variants: rebuilt from its keys byte for byte through the
// codecs, parsed in place, every probe answered as the original answered it, and the long and
// raw-bytes serializations shown to be one bit set.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/murmur3_filter.h"
#include "murmur3_util.h"

namespace bloomcodec::cassandra {
namespace {

using bloomcodec::testing::ReadFixture;
using bloomcodec::testing::ReadHexKeysFixture;
using bloomcodec::testing::ReadTsvFixture;
using murmur3_testing::Codec;
using murmur3_testing::kDir;
using murmur3_testing::ReadAnswers;
using murmur3_testing::VariantOf;

KeyList KeysOf(const std::string& n) {
  return ReadHexKeysFixture(kDir + "keys/keys_n" + n + ".txt");
}

TEST(CassandraMurmur3FilterGolden, EveryRowOfFiltersTsv) {
  const auto t = ReadTsvFixture(kDir + "filters.tsv");
  ASSERT_EQ(t.rows.size(), 48u);
  const KeyList probes = ReadHexKeysFixture(kDir + "keys/probes.txt");
  ASSERT_EQ(probes.size(), 5000u);
  std::size_t bloom_rows = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const auto& variant = VariantOf(t.At(i, "variant"));
    const FormatCodec& codec = Codec(variant.format);
    const std::string n = t.At(i, "num_keys");
    const std::string where = variant.folder + " n" + n + " fp" + t.At(i, "fp_chance");
    const KeyList keys = KeysOf(n);
    ASSERT_EQ(std::to_string(keys.size()), n) << where;
    FilterParams params;
    params.fp_chance = std::stod(t.At(i, "fp_chance"));
    Result<ByteVector> built = codec.Build(keys, params);
    std::vector<std::uint8_t> answers(probes.size());

    if (t.At(i, "result") == "ALWAYS_PRESENT") {
      if (variant.era == Era::kV40) {
        ASSERT_TRUE(built.ok()) << where << ": " << built.status().ToString();
        const ByteVector golden = ReadFixture(kDir + variant.folder + "/" + t.At(i, "file"));
        EXPECT_EQ(*built, golden) << where;
        EXPECT_TRUE(golden.empty()) << where;
        ASSERT_TRUE(codec.Probe(golden, where, probes, {}, answers).ok()) << where;
      } else {
        // No Filter.db exists for these: the build says so instead of inventing bytes.
        EXPECT_TRUE(t.At(i, "file").empty()) << where;
        ASSERT_FALSE(built.ok()) << where;
        EXPECT_EQ(built.status().code(), StatusCode::kRefused) << where;
        EXPECT_NE(built.status().message().find("no Filter.db"), std::string::npos) << where;
        answers.assign(probes.size(), 1);  // the always-present filter
      }
      const auto hits = std::count(answers.begin(), answers.end(), 1);
      EXPECT_EQ(std::to_string(hits), t.At(i, "probe_hits")) << where;
      continue;
    }
    ++bloom_rows;
    const std::string file = kDir + variant.folder + "/" + t.At(i, "file");
    const ByteVector golden = ReadFixture(file);
    ASSERT_TRUE(built.ok()) << where << ": " << built.status().ToString();
    EXPECT_EQ(*built, golden) << where << ": rebuilt bytes differ";
    EXPECT_EQ(std::to_string(golden.size()), t.At(i, "file_bytes")) << where;

    auto parsed = Murmur3Filter::Parse(golden, file, variant.era);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->serialized().data(), golden.data()) << "zero-copy view";
    EXPECT_EQ(std::to_string(parsed->signed_hash_count()), t.At(i, "hash_count")) << where;
    EXPECT_EQ(std::to_string(parsed->word_count()), t.At(i, "word_count")) << where;
    EXPECT_EQ(std::to_string(parsed->modulus()), t.At(i, "capacity_bits")) << where;
    EXPECT_EQ(parsed->trailing_bytes(), 0u);

    // Probes: the batch path, the key-at-a-time path and the codec all give the original's
    // answers; every inserted key is present.
    const std::vector<std::uint8_t> expected = ReadAnswers(
        kDir + variant.folder + "/n" + n + "_fp" + t.At(i, "fp_chance") + ".probe_results.txt");
    ASSERT_EQ(expected.size(), probes.size()) << where;
    ASSERT_TRUE(codec.Probe(golden, file, probes, {}, answers).ok());
    for (std::size_t p = 0; p < probes.size(); ++p) {
      ASSERT_EQ(answers[p], expected[p]) << where << " probe " << p;
      ASSERT_EQ(parsed->MayContain(probes[p]) ? 1 : 0, expected[p]) << where << " probe " << p;
    }
    const auto hits = std::count(answers.begin(), answers.end(), 1);
    EXPECT_EQ(std::to_string(hits), t.At(i, "probe_hits")) << where;
    std::vector<std::uint8_t> present(keys.size());
    parsed->MayContainBatch(keys, present);
    EXPECT_EQ(std::count(present.begin(), present.end(), 0), 0) << where << ": a false negative";
  }
  EXPECT_EQ(bloom_rows, 45u);
}

// Fixture integrity, not a test of our code: the one-key files are the specification's example
// byte for byte (EveryRowOfFiltersTsv rebuilds them with ours).
TEST(CassandraMurmur3FixtureIntegrity, OneKeyFilesAreTheSpecExample) {
  const ByteVector old_order = ReadFixture(kDir + "v1_2_to_2_2/n1_fp0.01.Filter.db");
  const ByteVector new_longs = ReadFixture(kDir + "v3_x/n1_fp0.01.Filter.db");
  const ByteVector raw = ReadFixture(kDir + "v4_0_to_5_0/n1_fp0.01.Filter.db");
  EXPECT_EQ(ToHex(old_order), "00000005000000010000040000400000");
  EXPECT_EQ(ToHex(new_longs), "00000005000000014000000001500001");
  EXPECT_EQ(ToHex(raw), "00000005000000010100500100000040");
}

// The 3.x and 4.0+ files of every case are the same bit set: each 8-byte group reversed.
TEST(CassandraMurmur3FilterGolden, LongAndRawSerializationsAreOneBitSet) {
  const auto t = ReadTsvFixture(kDir + "filters.tsv");
  std::size_t compared = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (t.At(i, "variant") != "v3_x" || t.At(i, "file").empty()) continue;
    const ByteVector longs = ReadFixture(kDir + "v3_x/" + t.At(i, "file"));
    const ByteVector raw = ReadFixture(kDir + "v4_0_to_5_0/" + t.At(i, "file"));
    auto to_raw = SwapMurmur3Serialization(longs, "v3", Era::kV30, Era::kV40);
    ASSERT_TRUE(to_raw.ok()) << to_raw.status().ToString();
    EXPECT_EQ(*to_raw, raw) << t.At(i, "file");
    auto back = SwapMurmur3Serialization(raw, "v4", Era::kV40, Era::kV30);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, longs) << t.At(i, "file");
    ++compared;
  }
  EXPECT_EQ(compared, 15u);
  // Old and new index orders do not carry over.
  const ByteVector old_order = ReadFixture(kDir + "v1_2_to_2_2/n10_fp0.01.Filter.db");
  EXPECT_FALSE(SwapMurmur3Serialization(old_order, "v1", Era::kV12, Era::kV30).ok());
}

}  // namespace
}  // namespace bloomcodec::cassandra

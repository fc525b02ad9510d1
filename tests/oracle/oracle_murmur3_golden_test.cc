// The Java oracle proves its Murmur3 half: over every golden case of fixtures/cassandra-murmur3
// (made by the original Cassandra 1.2 - 5.0 classes) it must reproduce every hash3_x64_128
// vector, every bit-index vector in both orders, every FilterFactory sizing row (refusal texts
// included), every Filter.db byte of the three variants from its keys, and every probe answer.
// Only then do its answers judge our C++ (oracle_murmur3_property_test.cc). No C++ codec is called.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "oracle/jvm_oracle.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

constexpr const char* kDir = "cassandra-murmur3/";

std::int64_t ParseI64(const std::string& s) { return std::strtoll(s.c_str(), nullptr, 10); }

OracleAnswers AskOrFail(const OracleRequest& request) {
  auto answer = JvmOracle::Shared().Call(request);
  if (!answer.ok()) {
    ADD_FAILURE() << answer.status().ToString();
    return OracleAnswers(ByteVector{});
  }
  return OracleAnswers(std::move(*answer));
}

TEST(JavaOracleGolden, ReproducesEveryMurmur3Vector) {
  TsvTable t = ReadTsvFixture(std::string(kDir) + "murmur3_vectors.tsv");
  ASSERT_EQ(t.rows.size(), 1363u);
  OracleRequest request(OracleOp::kMurmur3);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    request.Bytes(HexBytes(t.At(r, "key_hex")));
    request.EndCase();
  }
  OracleAnswers a = AskOrFail(request);
  std::size_t differing_from_canonical = 0;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::int64_t h0 = a.I64(), h1 = a.I64();
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(std::to_string(h0), t.At(r, "h0_dec")) << "key " << t.At(r, "key_hex");
    EXPECT_EQ(std::to_string(h1), t.At(r, "h1_dec")) << "key " << t.At(r, "key_hex");
    differing_from_canonical += t.At(r, "same_as_reference") == "0";
  }
  EXPECT_TRUE(a.at_end());
  // The sign-extended tail is exercised, not merely allowed.
  EXPECT_EQ(differing_from_canonical, 892u);
  std::cout << t.rows.size() << " Murmur3 vectors reproduced (" << differing_from_canonical
            << " differ from canonical MurmurHash3)\n";
}

void CheckIndexes(const std::string& file, bool old_order) {
  TsvTable t = ReadTsvFixture(std::string(kDir) + file);
  ASSERT_EQ(t.rows.size(), 1600u);
  OracleRequest request(OracleOp::kIndexesMurmur3);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    request.Bytes(HexBytes(t.At(r, "key_hex")));
    request.U8(old_order ? 1 : 0);
    request.I32(static_cast<std::int32_t>(ParseI64(t.At(r, "hash_count"))));
    request.I64(ParseI64(t.At(r, "capacity_bits")));
    request.EndCase();
  }
  OracleAnswers a = AskOrFail(request);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    std::string indexes;
    const std::int64_t k = ParseI64(t.At(r, "hash_count"));
    for (std::int64_t i = 0; i < k; ++i) indexes += (i ? "," : "") + std::to_string(a.I64());
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(indexes, t.At(r, "indexes")) << file << " key " << t.At(r, "key_hex") << " K " << k;
  }
  EXPECT_TRUE(a.at_end());
  std::cout << file << ": " << t.rows.size() << " index vectors reproduced\n";
}

TEST(JavaOracleGolden, ReproducesEveryOldOrderIndexVector) {
  CheckIndexes("indexes_old_order.tsv", true);
}
TEST(JavaOracleGolden, ReproducesEveryNewOrderIndexVector) {
  CheckIndexes("indexes_new_order.tsv", false);
}

TEST(JavaOracleGolden, ReproducesEveryMurmur3SizingRow) {
  TsvTable t = ReadTsvFixture(std::string(kDir) + "sizing.tsv");
  ASSERT_EQ(t.rows.size(), 1056u);
  OracleRequest request(OracleOp::kSizeMurmur3);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    request.U8(1);  // Cassandra runs with assertions enabled
    request.I64(ParseI64(t.At(r, "num_elements")));
    // The golden fp chances went through Double.parseDouble; strtod reads the same decimals.
    request.F64(std::strtod(t.At(r, "fp_chance").c_str(), nullptr));
    request.EndCase();
  }
  OracleAnswers a = AskOrFail(request);
  std::size_t refused = 0, always = 0;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string row = "n " + t.At(r, "num_elements") + " fp " + t.At(r, "fp_chance");
    const std::string outcome = a.Utf();
    const std::string& result = t.At(r, "result");
    if (result == "REFUSED") {
      ++refused;
      EXPECT_EQ(outcome, t.At(r, "message")) << row;
      continue;
    }
    ASSERT_EQ(outcome, "OK") << row;
    const bool always_present = a.U8() != 0;
    const std::int32_t k = a.I32(), bpe = a.I32();
    const std::int64_t bits = a.I64();
    const std::int32_t words = a.I32();
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(always_present, result == "ALWAYS_PRESENT") << row;
    if (always_present) {
      ++always;
      continue;
    }
    EXPECT_EQ(std::to_string(k), t.At(r, "hash_count")) << row;
    EXPECT_EQ(std::to_string(bpe), t.At(r, "buckets_per_element")) << row;
    EXPECT_EQ(std::to_string(bits), t.At(r, "num_bits_requested")) << row;
    EXPECT_EQ(std::to_string(words), t.At(r, "word_count")) << row;
  }
  EXPECT_TRUE(a.at_end());
  EXPECT_GT(refused, 300u);
  EXPECT_EQ(always, 33u);
  std::cout << t.rows.size() << " sizing rows reproduced (" << refused << " refusals, " << always
            << " always-present)\n";
}

struct Variant {
  const char* folder;
  Murmur3Variant variant;
};
constexpr Variant kVariants[] = {
    {"v1_2_to_2_2", Murmur3Variant::k1_2},
    {"v3_x", Murmur3Variant::k3_0},
    {"v4_0_to_5_0", Murmur3Variant::k4_0},
};

Murmur3Variant VariantOf(const std::string& folder) {
  for (const Variant& v : kVariants) {
    if (folder == v.folder) return v.variant;
  }
  ADD_FAILURE() << "unknown variant " << folder;
  return Murmur3Variant::k1_2;
}

std::vector<std::uint8_t> ReadAnswers(const std::string& relative) {
  std::vector<std::uint8_t> out;
  for (char c : ReadFixtureText(relative)) {
    if (c == '0' || c == '1') out.push_back(static_cast<std::uint8_t>(c - '0'));
  }
  return out;
}

TEST(JavaOracleGolden, RebuildsEveryMurmur3FilterDbAndAnswersEveryProbe) {
  TsvTable t = ReadTsvFixture(std::string(kDir) + "filters.tsv");
  ASSERT_EQ(t.rows.size(), 48u);
  const KeyList probes = ReadHexKeysFixture(std::string(kDir) + "keys/probes.txt");
  ASSERT_EQ(probes.size(), 5000u);
  OracleRequest build(OracleOp::kBuildMurmur3);
  OracleRequest probe(OracleOp::kProbeMurmur3);
  std::vector<std::size_t> probed_rows;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const Murmur3Variant variant = VariantOf(t.At(r, "variant"));
    const KeyList keys =
        ReadHexKeysFixture(std::string(kDir) + "keys/keys_n" + t.At(r, "num_keys") + ".txt");
    ASSERT_EQ(static_cast<std::int64_t>(keys.size()), ParseI64(t.At(r, "num_keys")));
    build.U8(static_cast<std::uint8_t>(variant));
    build.I64(ParseI64(t.At(r, "num_keys")));
    build.F64(std::strtod(t.At(r, "fp_chance").c_str(), nullptr));
    build.Keys(keys);
    build.EndCase();
    if (t.At(r, "file").empty()) continue;
    const ByteVector golden =
        ReadFixture(std::string(kDir) + t.At(r, "variant") + "/" + t.At(r, "file"));
    probe.U8(static_cast<std::uint8_t>(variant));
    probe.Bytes(golden);
    probe.Keys(probes);
    probe.EndCase();
    probed_rows.push_back(r);
  }
  OracleAnswers built = AskOrFail(build);
  OracleAnswers answered = AskOrFail(probe);
  std::size_t files = 0, no_file = 0;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string name =
        t.At(r, "variant") + "/n" + t.At(r, "num_keys") + "_fp" + t.At(r, "fp_chance");
    const std::string outcome = built.Utf();
    if (t.At(r, "file").empty()) {
      EXPECT_EQ(outcome, "NoFilterComponent") << name;
      ++no_file;
      continue;
    }
    ASSERT_EQ(outcome, "OK") << name;
    const ByteVector java = built.Bytes();
    ASSERT_TRUE(built.ok()) << built.error();
    const ByteVector golden =
        ReadFixture(std::string(kDir) + t.At(r, "variant") + "/" + t.At(r, "file"));
    EXPECT_EQ(static_cast<std::int64_t>(java.size()), ParseI64(t.At(r, "file_bytes"))) << name;
    EXPECT_TRUE(java == golden) << name << ": the JVM's bytes differ from the original's";
    ++files;
  }
  EXPECT_TRUE(built.at_end());
  std::size_t answers = 0;
  for (std::size_t r : probed_rows) {
    const std::string name = t.At(r, "variant") + "/" + t.At(r, "file");
    ASSERT_EQ(answered.Utf(), "OK") << name;
    const std::int32_t k = answered.I32(), w = answered.I32();
    const bool always_present = t.At(r, "result") == "ALWAYS_PRESENT";
    if (always_present) {
      // No bit set: the table leaves K and W empty, the oracle reports 0 for both.
      EXPECT_EQ(k, 0) << name;
      EXPECT_EQ(w, 0) << name;
    } else {
      EXPECT_EQ(std::to_string(k), t.At(r, "hash_count")) << name;
      EXPECT_EQ(std::to_string(w), t.At(r, "word_count")) << name;
    }
    std::string stem = t.At(r, "file");
    stem = stem.substr(0, stem.size() - std::string(".Filter.db").size());
    const std::vector<std::uint8_t> golden =
        always_present ? std::vector<std::uint8_t>(probes.size(), 1)
                       : ReadAnswers(std::string(kDir) + t.At(r, "variant") + "/" + stem +
                                     ".probe_results.txt");
    ASSERT_EQ(golden.size(), probes.size()) << name;
    std::int64_t hits = 0, mismatches = 0;
    for (std::size_t p = 0; p < probes.size(); ++p) {
      const std::uint8_t java = answered.U8();
      hits += java;
      mismatches += java != golden[p];
    }
    ASSERT_TRUE(answered.ok()) << answered.error();
    EXPECT_EQ(mismatches, 0) << name << ": probe answers differ from the original's";
    EXPECT_EQ(std::to_string(hits), t.At(r, "probe_hits")) << name;
    answers += probes.size();
  }
  EXPECT_TRUE(answered.at_end());
  EXPECT_EQ(no_file, 2u);  // fp 1.0 in 1.2 - 2.2 and 3.x: no Filter.db
  std::cout << files << " golden Murmur3 Filter.db files rebuilt byte for byte, " << answers
            << " probe answers reproduced\n";
}

}  // namespace
}  // namespace bloomcodec::testing

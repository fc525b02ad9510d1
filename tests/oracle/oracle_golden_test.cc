// The Java oracle proves itself: over every golden case of fixtures/cassandra-1.0 (made by the
// original Cassandra 1.0 classes) it must reproduce every hash, bucket vector, sizing row
// (refusal texts included, with assertions on and off), every Filter.db, legacy and row filter
// byte from its keys, and every probe answer. Only then do its answers judge our C++
// (oracle_property_test.cc). Nothing here calls the C++ codecs.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "oracle/jvm_oracle.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

constexpr const char* kDir = "cassandra-1.0/";

std::int64_t ParseI64(const std::string& s) { return std::strtoll(s.c_str(), nullptr, 10); }

double DoubleFromHexBits(const std::string& hex) {
  std::uint64_t bits = std::strtoull(hex.c_str(), nullptr, 16);
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// Asks the oracle; a failed call fails the test with the oracle's message.
bool Ask(const OracleRequest& request, ByteVector& out) {
  JvmOracle& oracle = JvmOracle::Shared();
  auto answer = oracle.Call(request);
  if (!answer.ok()) {
    ADD_FAILURE() << answer.status().ToString();
    return false;
  }
  out = std::move(*answer);
  return true;
}

// A probes file: "key_hex<TAB>answer" per line, no header.
struct Probes {
  KeyList keys;
  std::vector<std::uint8_t> answers;
};

Probes ReadProbes(const std::string& relative) {
  Probes p;
  std::string text = ReadFixtureText(relative);
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    std::size_t tab = line.find('\t');
    EXPECT_NE(tab, std::string::npos) << relative << ": " << line;
    if (tab == std::string::npos) break;
    p.keys.Add(ByteSpan(HexBytes(line.substr(0, tab))));
    p.answers.push_back(static_cast<std::uint8_t>(line.substr(tab + 1) == "1"));
    begin = end + 1;
  }
  return p;
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::size_t begin = 0;
  for (;;) {
    std::size_t comma = s.find(',', begin);
    out.push_back(s.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) return out;
    begin = comma + 1;
  }
}

// ---------------------------------------------------------------------------------- hashes

void CheckHashVectors(const std::string& file, OracleOp op, bool wide) {
  TsvTable t = ReadTsvFixture(kDir + file);
  ASSERT_GT(t.rows.size(), 3000u);
  OracleRequest request(op);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    ByteVector key = HexBytes(t.At(r, "key_hex"));
    std::int64_t h1 = ParseI64(t.At(r, "h1_dec"));
    for (std::int64_t seed : {std::int64_t{0}, h1}) {  // h2 = hash(key, h1)
      request.Bytes(key);
      if (wide)
        request.I64(seed);
      else
        request.I32(static_cast<std::int32_t>(seed));
      request.EndCase();
    }
  }
  ByteVector bytes;
  ASSERT_TRUE(Ask(request, bytes));
  OracleAnswers a(std::move(bytes));
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    for (const char* column : {"h1_dec", "h2_dec"}) {
      std::int64_t java = wide ? a.I64() : a.I32();
      ASSERT_TRUE(a.ok()) << a.error();
      EXPECT_EQ(java, ParseI64(t.At(r, column))) << file << " row " << r << " " << column;
    }
  }
  EXPECT_TRUE(a.at_end());
  std::cout << file << ": " << 2 * t.rows.size() << " golden hashes reproduced\n";
}

TEST(JavaOracleGolden, ReproducesEveryHash64Vector) {
  CheckHashVectors("hash64_vectors.tsv", OracleOp::kHash64, true);
}

TEST(JavaOracleGolden, ReproducesEveryHash32Vector) {
  CheckHashVectors("legacy/hash32_vectors.tsv", OracleOp::kHash32, false);
}

// ---------------------------------------------------------------------------------- buckets

void CheckBucketVectors(const std::string& file, OracleOp op, bool wide) {
  TsvTable t = ReadTsvFixture(kDir + file);
  ASSERT_GT(t.rows.size(), 1000u);
  OracleRequest request(op);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    request.Bytes(HexBytes(t.At(r, "key_hex")));
    request.I32(static_cast<std::int32_t>(ParseI64(t.At(r, "hash_count"))));
    std::int64_t max = ParseI64(t.At(r, "max"));
    if (wide)
      request.I64(max);
    else
      request.I32(static_cast<std::int32_t>(max));
    request.EndCase();
  }
  ByteVector bytes;
  ASSERT_TRUE(Ask(request, bytes));
  OracleAnswers a(std::move(bytes));
  std::size_t buckets = 0;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    std::vector<std::string> expected = SplitCommas(t.At(r, "buckets"));
    ASSERT_EQ(static_cast<std::int64_t>(expected.size()), ParseI64(t.At(r, "hash_count")));
    for (std::size_t i = 0; i < expected.size(); ++i) {
      std::int64_t java = wide ? a.I64() : a.I32();
      ASSERT_TRUE(a.ok()) << a.error();
      EXPECT_EQ(java, ParseI64(expected[i])) << file << " row " << r << " bucket " << i;
      ++buckets;
    }
  }
  EXPECT_TRUE(a.at_end());
  std::cout << file << ": " << buckets << " golden bucket indices reproduced\n";
}

TEST(JavaOracleGolden, ReproducesEveryBucketVector) {
  CheckBucketVectors("bucket_vectors.tsv", OracleOp::kBuckets64, true);
}

TEST(JavaOracleGolden, ReproducesEveryLegacyBucketVector) {
  CheckBucketVectors("legacy/legacy_bucket_vectors.tsv", OracleOp::kBuckets32, false);
}

// ---------------------------------------------------------------------------------- sizing

struct SizingRow {
  std::size_t row;
  bool assertions;
};

// One sizing answer against the golden columns of one assertion mode. `columns` names the
// golden columns for outcome, K, buckets per element, bits and words ("" = not in the file).
struct SizingColumns {
  const char* outcome;
  const char* k;
  const char* bpe;
  const char* bits;
  const char* words;
  const char* warning;
};

void CheckSizing(const std::string& file, SizeKind fp_kind, SizeKind buckets_kind,
                 const char* overload_column, const char* param_column, SizingColumns ea,
                 SizingColumns noea) {
  TsvTable t = ReadTsvFixture(kDir + file);
  ASSERT_GT(t.rows.size(), 500u);
  const bool legacy = fp_kind == SizeKind::kLegacyFp;
  OracleRequest request(OracleOp::kSize);
  std::vector<SizingRow> asked;
  std::vector<SizeKind> kinds;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    bool fp;
    double fp_value = 0;
    std::int32_t target = 0;
    if (overload_column != nullptr) {
      fp = t.At(r, overload_column) == "fp";
      const std::string& param = t.At(r, param_column);
      if (fp)
        fp_value = std::strtod(param.c_str(), nullptr);
      else
        target = static_cast<std::int32_t>(ParseI64(param));
    } else if (t.Column("fp_bits_hex") >= 0) {
      fp = true;
      fp_value = DoubleFromHexBits(t.At(r, "fp_bits_hex"));
    } else {
      fp = false;
      target = static_cast<std::int32_t>(ParseI64(t.At(r, param_column)));
    }
    for (bool assertions : {true, false}) {
      SizeKind kind = fp ? fp_kind : buckets_kind;
      request.U8(static_cast<std::uint8_t>(kind));
      request.U8(assertions ? 1 : 0);
      request.I64(ParseI64(t.At(r, "num_elements")));
      request.F64(fp_value);
      request.I32(target);
      request.EndCase();
      asked.push_back({r, assertions});
    }
  }
  ByteVector bytes;
  ASSERT_TRUE(Ask(request, bytes));
  OracleAnswers a(std::move(bytes));
  std::size_t refusals = 0;
  for (const auto& q : asked) {
    const SizingColumns& c = q.assertions ? ea : noea;
    std::string where =
        file + " row " + std::to_string(q.row) + (q.assertions ? " (-ea)" : " (-da)");
    std::string outcome = a.Utf();
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(outcome, t.At(q.row, c.outcome)) << where;
    if (outcome != "OK") {
      ++refusals;
      continue;
    }
    std::int32_t k = a.I32(), bpe = a.I32();
    std::int64_t bits = a.I64();
    std::int32_t words = a.I32();
    std::string warning = a.Utf();
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(std::to_string(k), t.At(q.row, c.k)) << where;
    if (*c.bpe) {
      EXPECT_EQ(std::to_string(bpe), t.At(q.row, c.bpe)) << where;
    }
    if (*c.bits) {
      EXPECT_EQ(std::to_string(bits), t.At(q.row, c.bits)) << where;
    }
    // Legacy: the oracle says -1 words where new BitSet(nbits) would throw; the file says NA.
    EXPECT_EQ(legacy && words < 0 ? std::string("NA") : std::to_string(words), t.At(q.row, c.words))
        << where;
    if (*c.warning) {
      EXPECT_EQ(warning, t.At(q.row, c.warning)) << where;
    }
  }
  EXPECT_TRUE(a.at_end());
  std::cout << file << ": " << asked.size() << " golden sizing answers reproduced (" << refusals
            << " refusals)\n";
}

// The oracle's BloomCalculations table, which every sizing answer rests on, is the original's:
// each row's optimal K and every probability, printed by Double.toString as the golden data was.
TEST(JavaOracleGolden, HoldsTheOriginalProbabilityTable) {
  TsvTable t = ReadTsvFixture(std::string(kDir) + "bloom_calculations_table.tsv");
  ASSERT_EQ(t.rows.size(), 21u);
  OracleRequest request(OracleOp::kProbabilities);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    request.I32(static_cast<std::int32_t>(ParseI64(t.At(r, "buckets_per_element"))));
    request.EndCase();
  }
  ByteVector bytes;
  ASSERT_TRUE(Ask(request, bytes));
  OracleAnswers a(std::move(bytes));
  std::size_t values = 0;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::int32_t opt_k = a.I32();
    const std::int32_t count = a.I32();
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(opt_k, ParseI64(t.At(r, "opt_k"))) << "row " << r;
    const std::vector<std::string> expected =
        SplitCommas(t.At(r, "probs_k0..kmax (Java double, Double.toString)"));
    ASSERT_EQ(static_cast<std::size_t>(count), expected.size()) << "row " << r;
    for (const std::string& e : expected) {
      EXPECT_EQ(a.Utf(), e) << "row " << r;
      ++values;
    }
  }
  EXPECT_TRUE(a.at_end());
  std::cout << "bloom_calculations_table.tsv: " << values << " probabilities reproduced\n";
}

TEST(JavaOracleGolden, ReproducesEverySizingRowForFpChance) {
  CheckSizing("sizing/sizing_fp.tsv", SizeKind::kV10Fp, SizeKind::kV10Buckets, nullptr, nullptr,
              {"outcome", "K", "buckets_per_element", "requested_bits", "num_words", ""},
              {"outcome_noea", "K_noea", "buckets_per_element_noea", "", "num_words_noea", ""});
}

TEST(JavaOracleGolden, ReproducesEverySizingRowForBucketsPerElement) {
  CheckSizing("sizing/sizing_buckets.tsv", SizeKind::kV10Fp, SizeKind::kV10Buckets, nullptr,
              "target_buckets_per_element",
              {"outcome", "K", "buckets_per_element", "requested_bits", "num_words", "warning"},
              {"outcome_noea", "K_noea", "buckets_per_element_noea", "", "num_words_noea", ""});
}

TEST(JavaOracleGolden, ReproducesEveryLegacySizingRow) {
  CheckSizing("sizing/sizing_legacy.tsv", SizeKind::kLegacyFp, SizeKind::kLegacyBuckets, "overload",
              "param", {"outcome", "K", "", "bitset_nbits_requested", "bitset_words", ""},
              {"outcome_noea", "K_noea", "", "", "bitset_words_noea", ""});
}

// ---------------------------------------------------------------------------------- filters

// Builds every filter of `table` from its keys in the JVM and compares the bytes with the golden
// file, then lets the JVM read the golden file and answer every probe.
void CheckFilters(const std::string& table_file, OracleOp build_op, OracleOp probe_op, bool row) {
  TsvTable t = ReadTsvFixture(kDir + table_file);
  ASSERT_GE(t.rows.size(), 6u);
  const char* keys_column = row ? "names_file" : "keys_file";
  OracleRequest build(build_op);
  OracleRequest probe(probe_op);
  std::vector<ByteVector> golden;
  std::vector<Probes> probes;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string& keys_file = t.At(r, keys_column);
    KeyList keys = keys_file.empty() ? KeyList() : ReadHexKeysFixture(kDir + keys_file);
    if (row) {
      build.I64(ParseI64(t.At(r, "estimated_columns")));
      EXPECT_EQ(static_cast<std::int64_t>(keys.size()), ParseI64(t.At(r, "names_added")));
    } else {
      const std::string& overload = t.At(r, "overload");
      BuildKind kind = overload == "fp"        ? BuildKind::kFp
                       : overload == "buckets" ? BuildKind::kBuckets
                                               : BuildKind::kEmptyFilter;
      const std::string& param = t.At(r, "param");
      std::int64_t n =
          t.Column("n_sized") >= 0 ? ParseI64(t.At(r, "n_sized")) : ParseI64(t.At(r, "n_inserted"));
      build.U8(static_cast<std::uint8_t>(kind));
      build.I64(n);
      build.F64(kind == BuildKind::kFp ? std::strtod(param.c_str(), nullptr) : 0.0);
      build.I32(kind == BuildKind::kBuckets ? static_cast<std::int32_t>(ParseI64(param)) : 0);
      EXPECT_EQ(static_cast<std::int64_t>(keys.size()), ParseI64(t.At(r, "n_inserted")));
    }
    build.Keys(keys);
    build.EndCase();
    golden.push_back(ReadFixture(kDir + t.At(r, "file")));
    probes.push_back(ReadProbes(kDir + t.At(r, "probes_file")));
    ASSERT_EQ(static_cast<std::int64_t>(probes.back().keys.size()), ParseI64(t.At(r, "probes")));
    if (row) probe.U8(0);  // 1.0 row filters are the 1.0 format
    probe.Bytes(golden.back());
    probe.Keys(probes.back().keys);
    probe.EndCase();
  }
  ByteVector built_bytes, probe_bytes;
  ASSERT_TRUE(Ask(build, built_bytes));
  ASSERT_TRUE(Ask(probe, probe_bytes));
  OracleAnswers built(std::move(built_bytes));
  OracleAnswers answered(std::move(probe_bytes));
  std::size_t probe_count = 0, positives = 0;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string& name = t.At(r, "name");
    EXPECT_EQ(built.Utf(), "OK") << name;
    ByteVector java = built.Bytes();
    ASSERT_TRUE(built.ok()) << built.error();
    EXPECT_EQ(java.size(), golden[r].size()) << name;
    EXPECT_TRUE(java == golden[r]) << name << ": the JVM's bytes differ from the original's";

    EXPECT_EQ(answered.Utf(), "OK") << name;
    std::int32_t k = answered.I32(), w = answered.I32();
    EXPECT_EQ(std::to_string(k), t.At(r, "hash_count")) << name;
    EXPECT_EQ(
        std::int64_t{w} * 64,
        ParseI64(t.At(r, row ? "size_bits"
                             : (t.Column("size_bits") >= 0 ? "size_bits" : "bitset_size_bits"))))
        << name;
    std::size_t mismatches = 0;
    for (std::size_t p = 0; p < probes[r].answers.size(); ++p) {
      std::uint8_t java_answer = answered.U8();
      mismatches += java_answer != probes[r].answers[p];
      positives += java_answer;
    }
    ASSERT_TRUE(answered.ok()) << answered.error();
    EXPECT_EQ(mismatches, 0u) << name << ": probe answers differ from the original's";
    probe_count += probes[r].answers.size();
  }
  EXPECT_TRUE(built.at_end());
  EXPECT_TRUE(answered.at_end());
  std::cout << table_file << ": " << t.rows.size() << " golden filters rebuilt byte for byte, "
            << probe_count << " probe answers reproduced (" << positives << " false positives)\n";
}

TEST(JavaOracleGolden, RebuildsEveryFilterDbAndAnswersEveryProbe) {
  CheckFilters("filters/filters.tsv", OracleOp::kBuildV10, OracleOp::kProbeV10, false);
}

TEST(JavaOracleGolden, RebuildsEveryLegacyFilterAndAnswersEveryProbe) {
  CheckFilters("legacy/legacy_filters.tsv", OracleOp::kBuildLegacy, OracleOp::kProbeLegacy, false);
}

TEST(JavaOracleGolden, RebuildsEveryRowFilterAndAnswersEveryProbe) {
  CheckFilters("rowfilter/rowfilters.tsv", OracleOp::kBuildRow, OracleOp::kProbeRow, true);
}

}  // namespace
}  // namespace bloomcodec::testing

// Every sizing row of the original getFilter overloads, with -ea and -da, and the CLI's `size`.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "formats/cassandra/family.h"
#include "golden_util.h"

namespace bloomcodec::cassandra {
namespace {

using bloomcodec::testing::ReadTsvFixture;
using bloomcodec::testing::TsvTable;
using testing::kDir;
using testing::ParseHex64;
using testing::ParseI64;

const FormatCodec& Codec(std::string_view name) {
  for (const FormatCodec* f : Formats()) {
    if (f->name() == name) return *f;
  }
  throw std::logic_error("no format");
}

// Checks one sizing result against the row's -ea or -da columns.
template <typename Spec>
void ExpectOutcome(const Result<Spec>& r, const std::string& outcome, const std::string& where) {
  if (outcome == "OK") {
    EXPECT_TRUE(r.ok()) << where << ": " << r.status().ToString();
  } else {
    ASSERT_FALSE(r.ok()) << where << ": expected " << outcome;
    EXPECT_EQ(r.status().code(), StatusCode::kRefused) << where;
    EXPECT_EQ(r.status().message(), outcome) << where;
  }
}

void CheckV10Row(const TsvTable& t, std::size_t i, const Result<FilterSpec>& ea,
                 const Result<FilterSpec>& da, const Result<SizeInfo>& cli,
                 const std::string& where) {
  ExpectOutcome(ea, t.At(i, "outcome"), where + " -ea");
  ExpectOutcome(da, t.At(i, "outcome_noea"), where + " -da");
  if (t.At(i, "max_buckets_per_element") != "NA") {
    EXPECT_EQ(MaxBucketsPerElement(ParseI64(t.At(i, "num_elements"))),
              ParseI64(t.At(i, "max_buckets_per_element")))
        << where;
  }
  if (ea.ok()) {
    EXPECT_EQ(ea->hash_count, ParseI64(t.At(i, "K"))) << where;
    EXPECT_EQ(ea->buckets_per_element, ParseI64(t.At(i, "buckets_per_element"))) << where;
    EXPECT_EQ(ea->requested_bits, ParseI64(t.At(i, "requested_bits"))) << where;
    EXPECT_EQ(ea->word_count, ParseI64(t.At(i, "num_words"))) << where;
    EXPECT_EQ(ea->bit_count(), ParseI64(t.At(i, "size_bits"))) << where;
    if (t.At(i, "serialized_bytes") != "NA") {
      EXPECT_EQ(ea->file_bytes(), ParseI64(t.At(i, "serialized_bytes"))) << where;
    }
    const std::string& constructed = t.At(i, "constructed");
    if (constructed == "ctor:NegativeArraySizeException") {
      EXPECT_LT(ea->word_count, 0) << where;
      EXPECT_FALSE(V10Filter::Create(*ea).ok()) << where;
      ASSERT_FALSE(cli.ok()) << where;
      EXPECT_EQ(cli.status().code(), StatusCode::kRefused) << where;
    } else {
      EXPECT_GE(ea->word_count, 0) << where;
      ASSERT_TRUE(cli.ok()) << where << ": " << cli.status().ToString();
      EXPECT_EQ(cli->hash_count, ea->hash_count);
      EXPECT_EQ(cli->words, ea->word_count);
      EXPECT_EQ(cli->bits, ParseI64(t.At(i, "size_bits")));
      if (ea->word_count > 0 && ea->word_count <= (1 << 16)) {
        auto f = V10Filter::Create(*ea);
        ASSERT_TRUE(f.ok()) << where;
        EXPECT_EQ(f->modulus(), ParseI64(t.At(i, "size_bits")));
        EXPECT_EQ(static_cast<std::int64_t>(f->serialized().size()),
                  ParseI64(t.At(i, "serialized_bytes")));
      }
    }
  } else {
    ASSERT_FALSE(cli.ok()) << where;
    EXPECT_EQ(cli.status().message(), t.At(i, "outcome")) << where;
  }
  if (da.ok()) {
    EXPECT_EQ(da->hash_count, ParseI64(t.At(i, "K_noea"))) << where;
    EXPECT_EQ(da->buckets_per_element, ParseI64(t.At(i, "buckets_per_element_noea"))) << where;
    EXPECT_EQ(da->word_count, ParseI64(t.At(i, "num_words_noea"))) << where;
  }
}

double DoubleFromBits(const std::string& hex) { return std::bit_cast<double>(ParseHex64(hex)); }

TEST(CassandraSizingGolden, FpOverloadEveryRow) {
  auto t = ReadTsvFixture(kDir + "sizing/sizing_fp.tsv");
  ASSERT_EQ(t.rows.size(), 3374u);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::int64_t n = ParseI64(t.At(i, "num_elements"));
    const double fp = DoubleFromBits(t.At(i, "fp_bits_hex"));
    const std::string where = "n=" + t.At(i, "num_elements") + " fp=" + t.At(i, "fp");
    EXPECT_EQ(JavaDoubleToString(fp), t.At(i, "fp")) << where;
    FilterParams params;
    params.fp_chance = fp;
    params.expected_keys = n;
    CheckV10Row(t, i, SizeForFpChance(n, fp, JavaAssertions::kEnabled),
                SizeForFpChance(n, fp, JavaAssertions::kDisabled),
                Codec("cassandra-1.0").Size(params), where);
  }
}

TEST(CassandraSizingGolden, BucketsOverloadEveryRow) {
  auto t = ReadTsvFixture(kDir + "sizing/sizing_buckets.tsv");
  ASSERT_EQ(t.rows.size(), 2025u);
  int warnings = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::int64_t n = ParseI64(t.At(i, "num_elements"));
    const auto target = static_cast<std::int32_t>(ParseI64(t.At(i, "target_buckets_per_element")));
    const std::string where = "n=" + t.At(i, "num_elements") + " target=" + std::to_string(target);
    auto ea = SizeForBucketsPerElement(n, target, JavaAssertions::kEnabled);
    FilterParams params;
    params.buckets_per_element = target;
    params.expected_keys = n;
    auto cli = Codec("cassandra-1.0").Size(params);
    CheckV10Row(t, i, ea, SizeForBucketsPerElement(n, target, JavaAssertions::kDisabled), cli,
                where);
    const std::string& warning = t.At(i, "warning");
    if (ea.ok()) {
      EXPECT_EQ(ea->warning, warning) << where;
      if (cli.ok()) {
        EXPECT_EQ(!cli->warnings.empty() && cli->warnings[0] == warning, !warning.empty()) << where;
      }
    }
    warnings += !warning.empty();
    if (target == kRowFilterBucketsPerElement) {
      FilterParams row;
      row.expected_keys = n;
      auto row_info = Codec("cassandra-1.0-row").Size(row);
      EXPECT_EQ(row_info.ok(), cli.ok()) << where;
      if (row_info.ok() && cli.ok()) {
        EXPECT_EQ(row_info->words, cli->words);
        EXPECT_EQ(row_info->hash_count, cli->hash_count);
        EXPECT_EQ(row_info->file_bytes, cli->file_bytes + 4);
      }
    }
  }
  EXPECT_GT(warnings, 100);
}

TEST(CassandraSizingGolden, LegacyEveryRow) {
  auto t = ReadTsvFixture(kDir + "sizing/sizing_legacy.tsv");
  ASSERT_EQ(t.rows.size(), 567u);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::int64_t n = ParseI64(t.At(i, "num_elements"));
    const std::string& param = t.At(i, "param");
    const bool fp = t.At(i, "overload") == "fp";
    const std::string where =
        "n=" + t.At(i, "num_elements") + " " + t.At(i, "overload") + "=" + param;
    auto run = [&](JavaAssertions a) {
      return fp ? LegacySizeForFpChance(n, std::strtod(param.c_str(), nullptr), a)
                : LegacySizeForBucketsPerElement(n, static_cast<std::int32_t>(ParseI64(param)), a);
    };
    auto ea = run(JavaAssertions::kEnabled);
    auto da = run(JavaAssertions::kDisabled);
    ExpectOutcome(ea, t.At(i, "outcome"), where);
    ExpectOutcome(da, t.At(i, "outcome_noea"), where);
    FilterParams params;
    params.expected_keys = n;
    if (fp)
      params.fp_chance = std::strtod(param.c_str(), nullptr);
    else
      params.buckets_per_element = ParseI64(param);
    auto cli = Codec("cassandra-legacy").Size(params);
    if (!ea.ok()) {
      ASSERT_FALSE(cli.ok());
      EXPECT_EQ(cli.status().message(), t.At(i, "outcome"));
      continue;
    }
    EXPECT_EQ(ea->hash_count, ParseI64(t.At(i, "K"))) << where;
    EXPECT_EQ(ea->nbits, ParseI64(t.At(i, "bitset_nbits_requested"))) << where;
    if (t.At(i, "constructed") == "ctor:NegativeArraySizeException") {
      EXPECT_LT(ea->nbits, 0) << where;
      EXPECT_FALSE(LegacyFilter::Create(*ea).ok()) << where;
      EXPECT_FALSE(cli.ok()) << where;
    } else {
      EXPECT_EQ(ea->word_count, ParseI64(t.At(i, "bitset_words"))) << where;
      ASSERT_TRUE(cli.ok()) << where;
      EXPECT_EQ(cli->bits, ParseI64(t.At(i, "bitset_size_bits"))) << where;
      EXPECT_EQ(cli->file_bytes, 77 + 8 * ParseI64(t.At(i, "bitset_words"))) << where;
    }
    if (da.ok()) {
      EXPECT_EQ(da->hash_count, ParseI64(t.At(i, "K_noea"))) << where;
      if (t.At(i, "bitset_words_noea") != "NA") {
        EXPECT_EQ(da->word_count, ParseI64(t.At(i, "bitset_words_noea"))) << where;
      }
    }
  }
}

TEST(CassandraSizing, DocumentedExamples) {
  struct Case {
    double fp;
    int k, bpe;
  } cases[] = {{0.01, 5, 10}, {0.001, 7, 15}, {0.1, 3, 5}, {1e-4, 10, 20}, {0.393, 2, 1}};
  for (const Case& c : cases) {
    auto s = SizeForFpChance(1000, c.fp);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->hash_count, c.k) << c.fp;
    EXPECT_EQ(s->buckets_per_element, c.bpe) << c.fp;
  }
  auto row = SizeForBucketsPerElement(0, kRowFilterBucketsPerElement);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->hash_count, 3);
  EXPECT_EQ(row->word_count, 1);
  auto sst = SizeForBucketsPerElement(100000, kDefaultBucketsPerElement);
  ASSERT_TRUE(sst.ok());
  EXPECT_EQ(sst->hash_count, 10);
  EXPECT_EQ(sst->word_count, 23438);
  // The largest int word count, and the first n past it (negative word count).
  auto top = SizeForBucketsPerElement(9162596892LL, 15);
  ASSERT_TRUE(top.ok());
  EXPECT_GT(top->word_count, 0);
  auto past = SizeForBucketsPerElement(9162596900LL, 15);
  ASSERT_TRUE(past.ok());
  EXPECT_LT(past->word_count, 0);
}

TEST(CassandraSizing, JavaDoubleToString) {
  EXPECT_EQ(JavaDoubleToString(1e-5), "1.0E-5");
  EXPECT_EQ(JavaDoubleToString(0.001), "0.001");
  EXPECT_EQ(JavaDoubleToString(8.52e-4), "8.52E-4");
  EXPECT_EQ(JavaDoubleToString(1.0), "1.0");
  EXPECT_EQ(JavaDoubleToString(1e7), "1.0E7");
  EXPECT_EQ(JavaDoubleToString(1234567.0), "1234567.0");
  EXPECT_EQ(JavaDoubleToString(4.9e-324), "4.9E-324");
  EXPECT_EQ(JavaDoubleToString(-0.0), "-0.0");
}

}  // namespace
}  // namespace bloomcodec::cassandra

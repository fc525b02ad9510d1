#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "bloomcodec/bit_view.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/filter_stats.h"

namespace bloomcodec {
namespace {

// Simulates the model the estimators assume: n keys, k uniformly random bits each.
std::uint64_t SimulateBitsSet(std::uint64_t m, std::uint32_t k, std::uint64_t n,
                              std::uint64_t seed) {
  ByteVector bytes((m + 7) / 8);
  MutableBitView<BitOrder::kLsbFirstBytes> view(bytes);
  std::mt19937_64 rng(seed);
  for (std::uint64_t i = 0; i < n * k; ++i) view.Set(rng() % m);
  return view.PopCount();
}

TEST(FillStatistics, EstimatesTheKeyCountOfASimulatedFilter) {
  const std::uint64_t m = 1 << 20;
  const std::uint32_t k = 7;
  for (std::uint64_t n : {1000u, 50000u, 150000u}) {
    std::uint64_t set = SimulateBitsSet(m, k, n, n);
    FillStatistics s = ComputeFillStatistics(m, set, k);
    EXPECT_NEAR(s.estimated_keys, static_cast<double>(n), 0.02 * static_cast<double>(n)) << n;
    EXPECT_NEAR(s.false_positive_rate, ExpectedFalsePositiveRate(m, k, static_cast<double>(n)),
                0.05 * s.false_positive_rate + 1e-12);
  }
}

TEST(FillStatistics, EdgeCases) {
  FillStatistics full = ComputeFillStatistics(64, 64, 3);
  EXPECT_TRUE(std::isinf(full.estimated_keys));
  EXPECT_EQ(full.false_positive_rate, 1.0);
  FillStatistics none = ComputeFillStatistics(64, 0, 3);
  EXPECT_EQ(none.estimated_keys, 0.0);
  EXPECT_EQ(none.false_positive_rate, 0.0);
  FillStatistics k0 = ComputeFillStatistics(64, 5, 0);
  EXPECT_TRUE(std::isnan(k0.estimated_keys));
  EXPECT_EQ(k0.false_positive_rate, 1.0) << "k = 0 answers present for every key";
}

TEST(OverfillThreshold, SimulatedFillsLieBelowItAndOverfillIsCaught) {
  const std::uint64_t m = 15020 / 64 * 64 + 64;
  const std::uint32_t k = 10;
  const OverfillBound b = OverfillThreshold(m, k, 1000);
  ASSERT_TRUE(b.judged);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    EXPECT_LE(static_cast<double>(SimulateBitsSet(m, k, 1000, seed)), b.threshold) << seed;
  }
  // Three times the keys the filter was sized for is a finding.
  EXPECT_GT(static_cast<double>(SimulateBitsSet(m, k, 1000 * 3, 99)), b.threshold);
}

TEST(OverfillThreshold, IsTheCertainBoundForFewKeysAndNotJudgedWhenItReachesTheSize) {
  // 4 keys of k = 6 set at most 24 bits, whatever their hashes: above that is certain.
  const OverfillBound few = OverfillThreshold(512, 6, 4);
  EXPECT_TRUE(few.certain);
  EXPECT_EQ(few.threshold, 24.0);
  EXPECT_TRUE(few.judged);
  // 100 keys of k = 6 in 512 bits can set every bit: such a filter is not judged.
  EXPECT_FALSE(OverfillThreshold(512, 6, 100).judged);
  // The mean bound is at least the classical mean (it allows for any layout).
  const double n = 1000;
  EXPECT_GE(OverfillThreshold(10000, 7, n).mean_bound, ExpectedBitsSet(10000, 7, n).mean_bits_set);
  EXPECT_FALSE(OverfillThreshold(0, 7, n).judged);
  EXPECT_FALSE(OverfillThreshold(64, 0, n).judged);
}

TEST(CombinedFalsePositiveRate, IsOneMinusProductOfMisses) {
  std::vector<double> p = {0.01, 0.02, 0.5};
  EXPECT_NEAR(CombinedFalsePositiveRate(p), 1 - 0.99 * 0.98 * 0.5, 1e-15);
  std::vector<double> tiny(1000, 1e-12);
  EXPECT_NEAR(CombinedFalsePositiveRate(tiny), 1e-9, 1e-15);
  std::vector<double> certain = {0.1, 1.0};
  EXPECT_EQ(CombinedFalsePositiveRate(certain), 1.0);
  EXPECT_EQ(CombinedFalsePositiveRate({}), 0.0);
}

RC_GTEST_PROP(FillStatistics, EstimateInvertsTheExpectedFill, ()) {
  const auto m = *rc::gen::inRange<std::uint64_t>(64, 1u << 24);
  const auto k = *rc::gen::inRange<std::uint32_t>(1, 31);
  const auto n = *rc::gen::inRange<std::uint64_t>(0, m / k);
  const double expected_set = ExpectedBitsSet(m, k, static_cast<double>(n)).mean_bits_set;
  const auto set = static_cast<std::uint64_t>(std::llround(expected_set));
  const FillStatistics s = ComputeFillStatistics(m, set, k);
  // Rounding the set-bit count to an integer moves the estimate by at most ~1/k keys per bit.
  RC_ASSERT(std::abs(s.estimated_keys - static_cast<double>(n)) <=
            2.0 + 1e-6 * static_cast<double>(n));
}

}  // namespace
}  // namespace bloomcodec

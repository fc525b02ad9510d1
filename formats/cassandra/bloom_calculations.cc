// BloomCalculations of Cassandra 1.0: the false-positive table and its two searches.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "bloomcodec/cassandra/sizing.h"

namespace bloomcodec::cassandra {
namespace {

// probs[i][j]: false-positive rate with i buckets per element and j hashes. The literals are the
// ones of the Java source, so the compiler rounds them to the same doubles Java holds; comparisons
// against a user's fp chance must see exactly these values (an fp equal to an entry counts as
// satisfied). Rows have unequal lengths; column 0 and rows 0-1 are dummies.
constexpr double kRow0[] = {1.0};
constexpr double kRow1[] = {1.0, 1.0};
constexpr double kRow2[] = {1.0, 0.393, 0.400};
constexpr double kRow3[] = {1.0, 0.283, 0.237, 0.253};
constexpr double kRow4[] = {1.0, 0.221, 0.155, 0.147, 0.160};
constexpr double kRow5[] = {1.0, 0.181, 0.109, 0.092, 0.092, 0.101};
constexpr double kRow6[] = {1.0, 0.154, 0.0804, 0.0609, 0.0561, 0.0578, 0.0638};
constexpr double kRow7[] = {1.0, 0.133, 0.0618, 0.0423, 0.0359, 0.0347, 0.0364};
constexpr double kRow8[] = {1.0, 0.118, 0.0489, 0.0306, 0.024, 0.0217, 0.0216, 0.0229};
constexpr double kRow9[] = {1.0, 0.105, 0.0397, 0.0228, 0.0166, 0.0141, 0.0133, 0.0135, 0.0145};
constexpr double kRow10[] = {1.0,     0.0952,  0.0329,  0.0174, 0.0118,
                             0.00943, 0.00844, 0.00819, 0.00846};
constexpr double kRow11[] = {1.0,    0.0869,  0.0276,  0.0136, 0.00864,
                             0.0065, 0.00552, 0.00513, 0.00509};
constexpr double kRow12[] = {1.0,     0.08,    0.0236,  0.0108, 0.00646,
                             0.00459, 0.00371, 0.00329, 0.00314};
constexpr double kRow13[] = {1.0,     0.0740,  0.0203,  0.00875, 0.00492,
                             0.00332, 0.00255, 0.00217, 0.00199, 0.00194};
constexpr double kRow14[] = {1.0,     0.0689,  0.0177,  0.00718, 0.00381, 0.00244,
                             0.00179, 0.00146, 0.00129, 0.00121, 0.0012};
constexpr double kRow15[] = {1.0,     0.0645, 0.0156,   0.00596,  0.003,   0.00183,
                             0.00128, 0.001,  0.000852, 0.000775, 0.000744};
constexpr double kRow16[] = {1.0,      0.0606,   0.0138,   0.005,    0.00239, 0.00139,
                             0.000935, 0.000702, 0.000574, 0.000505, 0.00047, 0.000459};
constexpr double kRow17[] = {1.0,      0.0571,   0.0123,   0.00423,  0.00193,  0.00107, 0.000692,
                             0.000499, 0.000394, 0.000335, 0.000302, 0.000287, 0.000284};
constexpr double kRow18[] = {1.0,     0.054,    0.0111,   0.00362,  0.00158,  0.000839, 0.000519,
                             0.00036, 0.000275, 0.000226, 0.000198, 0.000183, 0.000176};
constexpr double kRow19[] = {1.0,      0.0513,   0.00998,  0.00312,  0.0013,   0.000663, 0.000394,
                             0.000264, 0.000194, 0.000155, 0.000132, 0.000118, 0.000111, 0.000109};
constexpr double kRow20[] = {1.0,      0.0488,   0.00906,  0.0027,   0.00108,
                             0.00053,  0.000303, 0.000196, 0.00014,  0.000108,
                             8.89e-05, 7.77e-05, 7.12e-05, 6.79e-05, 6.71e-05};

constexpr std::array<std::span<const double>, 21> kProbs = {
    kRow0,  kRow1,  kRow2,  kRow3,  kRow4,  kRow5,  kRow6,  kRow7,  kRow8,  kRow9, kRow10,
    kRow11, kRow12, kRow13, kRow14, kRow15, kRow16, kRow17, kRow18, kRow19, kRow20};

// optKPerBuckets: the j of the smallest entry of each row, the FIRST on ties (strict `<`), and
// at least 1 - computed the way the Java static initializer does.
constexpr std::array<int, 21> ComputeOptK() {
  std::array<int, 21> opt{};
  for (std::size_t i = 0; i < kProbs.size(); ++i) {
    double min = std::numeric_limits<double>::max();
    int best = 0;
    for (std::size_t j = 0; j < kProbs[i].size(); ++j) {
      if (kProbs[i][j] < min) {
        min = kProbs[i][j];
        best = static_cast<int>(j);
      }
    }
    opt[i] = std::max(1, best);
  }
  return opt;
}
constexpr std::array<int, 21> kOptK = ComputeOptK();

}  // namespace

std::span<const double> BloomProbabilities(int buckets_per_element) {
  return kProbs[static_cast<std::size_t>(buckets_per_element)];
}

int OptimalHashCount(int buckets_per_element) {
  return kOptK[static_cast<std::size_t>(buckets_per_element)];
}

int MaxBucketsPerElement(std::int64_t num_elements) {
  const std::int64_t n = std::max<std::int64_t>(1, num_elements);
  // `(Long.MAX_VALUE - EXCESS) / (double) n`: the long numerator becomes the double 2^63.
  const double v = static_cast<double>(std::numeric_limits<std::int64_t>::max() - kExcessBits) /
                   static_cast<double>(n);
  // v < 1.0 (the "Cannot compute probabilities" exception) cannot happen: (double) n <= 2^63.
  // Java's (int) v truncates and saturates at Integer.MAX_VALUE; C++ would be undefined above
  // INT_MAX, so the min with 20 is taken on the double first.
  if (v >= kMaxBucketsPerElement) return kMaxBucketsPerElement;
  return static_cast<int>(v);
}

}  // namespace bloomcodec::cassandra

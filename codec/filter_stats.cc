#include "bloomcodec/filter_stats.h"

#include <cmath>
#include <limits>

namespace bloomcodec {

namespace {
// log(1 - 1/m) without losing the 1/m to rounding when m is large.
double LogMiss(std::uint64_t bits) { return std::log1p(-1.0 / static_cast<double>(bits)); }
}  // namespace

FillStatistics ComputeFillStatistics(std::uint64_t bits, std::uint64_t bits_set,
                                     std::uint32_t hash_count) {
  FillStatistics s;
  s.bits = bits;
  s.bits_set = bits_set;
  s.hash_count = hash_count;
  if (bits == 0) {
    s.estimated_keys = 0;
    s.false_positive_rate = hash_count == 0 ? 1.0 : 0.0;
    return s;
  }
  const double m = static_cast<double>(bits);
  s.fill_ratio = static_cast<double>(bits_set) / m;
  if (hash_count == 0) {
    s.estimated_keys = std::numeric_limits<double>::quiet_NaN();
    s.false_positive_rate = 1.0;
    return s;
  }
  const double k = hash_count;
  s.estimated_keys = bits_set >= bits ? std::numeric_limits<double>::infinity()
                                      : -(m / k) * std::log1p(-s.fill_ratio);
  s.false_positive_rate = std::pow(s.fill_ratio, k);
  return s;
}

double ExpectedFillRatio(std::uint64_t bits, std::uint32_t hash_count, double keys) {
  if (bits == 0) return 0;
  return -std::expm1(static_cast<double>(hash_count) * keys * LogMiss(bits));
}

double ExpectedFalsePositiveRate(std::uint64_t bits, std::uint32_t hash_count, double keys) {
  if (hash_count == 0) return 1.0;
  return std::pow(ExpectedFillRatio(bits, hash_count, keys), hash_count);
}

FillExpectation ExpectedBitsSet(std::uint64_t bits, std::uint32_t hash_count, double keys) {
  FillExpectation e;
  if (bits == 0) return e;
  const double m = static_cast<double>(bits);
  const double t = static_cast<double>(hash_count) * keys;  // balls thrown
  // Empty bins E: mean m q1, variance m (m - 1) q2 + m q1 - m^2 q1^2 with
  // q1 = (1 - 1/m)^t and q2 = (1 - 2/m)^t.
  const double q1 = std::exp(t * LogMiss(bits));
  const double q2 = bits >= 2 ? std::exp(t * std::log1p(-2.0 / m)) : 0.0;
  e.mean_bits_set = m * (1 - q1);
  double variance = m * (m - 1) * q2 + m * q1 - m * m * q1 * q1;
  e.stddev_bits_set = variance > 0 ? std::sqrt(variance) : 0.0;
  return e;
}

OverfillBound OverfillThreshold(std::uint64_t bits, std::uint32_t hash_count, double keys,
                                double false_alarm) {
  OverfillBound b;
  if (bits == 0 || hash_count == 0) return b;
  const double m = static_cast<double>(bits);
  const double k = hash_count;
  const double n = keys > 0 ? keys : 0;
  b.mean_bound = k >= m ? m : -m * std::expm1(n * std::log1p(-k / m));
  const double deviation = k * std::sqrt(n * std::log(1 / false_alarm) / 2);
  const double most = k * n;  // every key sets at most k bits
  b.certain = most <= b.mean_bound + deviation;
  b.threshold = b.certain ? most : b.mean_bound + deviation;
  b.judged = b.threshold < m;
  return b;
}

double CombinedFalsePositiveRate(std::span<const double> per_filter_rates) {
  // 1 - prod(1 - p) computed as -expm1(sum log1p(-p)) so that many tiny rates do not vanish.
  double log_all_miss = 0;
  for (double p : per_filter_rates) {
    if (p >= 1.0) return 1.0;
    log_all_miss += std::log1p(-p);
  }
  return -std::expm1(log_all_miss);
}

}  // namespace bloomcodec

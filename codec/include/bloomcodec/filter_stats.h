// What a bloom filter's fill says about it: estimated key count, implied false-positive rate,
// and whether the fill is plausible for the number of keys its parameters were sized for.
//
//   bloomcodec::FillStatistics s = bloomcodec::ComputeFillStatistics(bits, bits_set, k);
//   std::printf("~%.0f keys, fp %.3g\n", s.estimated_keys, s.false_positive_rate);
//
// The formulas assume each key sets k uniformly random bits among m (the classical model). Real
// filters use double hashing (Cassandra, LevelDB) or cache-local blocks (RocksDB), which is close
// to, but not exactly, this model; the numbers are estimates and are labelled as such.
#pragma once

#include <cstdint>
#include <span>

namespace bloomcodec {

struct FillStatistics {
  std::uint64_t bits = 0;        // m: the bucket modulus
  std::uint64_t bits_set = 0;    // X
  std::uint32_t hash_count = 0;  // k
  double fill_ratio = 0;         // X / m
  // Swamidass & Baldi (2007): n* = -(m / k) ln(1 - X / m). Infinite when every bit is set,
  // NaN when k = 0 (such a filter answers "present" for every key and carries no count).
  double estimated_keys = 0;
  // The chance that an absent key finds all k probed bits set: (X / m)^k. 1 when k = 0.
  double false_positive_rate = 0;
};

FillStatistics ComputeFillStatistics(std::uint64_t bits, std::uint64_t bits_set,
                                     std::uint32_t hash_count);

// Expected fraction of set bits after inserting `keys` distinct keys: 1 - (1 - 1/m)^(k n).
double ExpectedFillRatio(std::uint64_t bits, std::uint32_t hash_count, double keys);
// Expected false-positive rate after `keys` keys: ExpectedFillRatio^k.
double ExpectedFalsePositiveRate(std::uint64_t bits, std::uint32_t hash_count, double keys);

// Mean and standard deviation of the number of set bits after `keys` keys (occupancy of m bins
// by t = k n balls, the classical model): what inspect and the tests compare a fill with.
struct FillExpectation {
  double mean_bits_set = 0;
  double stddev_bits_set = 0;
};
FillExpectation ExpectedBitsSet(std::uint64_t bits, std::uint32_t hash_count, double keys);

// The overfill test of verify (docs/cli.md, "Evidence standard"): the most bits `keys` keys can
// plausibly set, valid for every layout read here (standard, double-hashed and cache-local Bloom
// filters), with no normal approximation. It rests on two facts of every such layout: a key sets
// at most k bits (X <= k n always), and the keys' hashes are independent, so X, the number of
// set bits, changes by at most k when one key changes. Then
//   E[X] <= m (1 - (1 - k/m)^n)       (each bit is set by one key with a chance averaging at
//                                      most k/m over the bits; 1 - (1 - p)^n is concave in p)
//   P(X - E[X] >= t) <= exp(-2 t^2 / (n k^2))                 (McDiarmid's inequality)
// and t = k sqrt(n ln(1/alpha) / 2) makes the second alpha. A fill above the threshold has a
// chance of at most alpha = kOverfillFalseAlarm under the counted keys (0 above k n).
inline constexpr double kOverfillFalseAlarm = 1e-6;
struct OverfillBound {
  double mean_bound = 0;  // the bound on E[X] above
  double threshold = 0;   // min(k n, mean_bound + t): more set bits than this is overfilled
  bool certain = false;   // the threshold is k n: above it no chance at all, not only alpha
  // A filter whose threshold reaches its size can never be called overfilled: not judged.
  bool judged = false;
};
// `false_alarm` is alpha (verify uses kOverfillFalseAlarm; tests measure the bound at larger
// alphas, where a wrong bound shows in a few thousand filters).
OverfillBound OverfillThreshold(std::uint64_t bits, std::uint32_t hash_count, double keys,
                                double false_alarm = kOverfillFalseAlarm);

// The false-positive rate a read sees when it consults every one of several filters (one per
// table): 1 - prod(1 - p_i).
double CombinedFalsePositiveRate(std::span<const double> per_filter_rates);

}  // namespace bloomcodec

// How Cassandra 1.0 sizes a bloom filter: BloomFilter.getFilter(n, fp), getFilter(n, buckets)
// and LegacyBloomFilter.getFilter, with BloomCalculations' probability table.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec spec, SizeForBucketsPerElement(key_count, 15));
//   BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter filter, V10Filter::Create(spec));
//
// Compatibility contract: for every argument, the result (hash count, buckets per element, the
// Java long bit count and the int word count, including their wraparound and truncation for
// absurd n) or the refusal text equals what the original classes compute, with Java assertions
// enabled (as Cassandra's start script runs) or disabled. Refusal texts are the Java exception's
// simple class name and message as `Class: message` (JDK 17 wording for JDK exceptions), or the
// bare class name when the message is empty (an `assert` without text).
//
// A spec may describe a filter the original cannot construct (word_count <= 0: the constructor
// throws NegativeArraySizeException, or lookups divide by zero); V10Filter::Create refuses those.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

enum class JavaAssertions { kEnabled, kDisabled };  // Cassandra runs with -ea

// BloomFilter.EXCESS: extra bits added to every filter's requested size.
inline constexpr std::int64_t kExcessBits = 20;

struct FilterSpec {
  std::int32_t hash_count = 0;
  std::int32_t buckets_per_element = 0;
  std::int64_t requested_bits = 0;  // n * bpe + 20, Java long arithmetic (wraps)
  std::int32_t word_count = 0;      // (int)(((bits - 1) >>> 6) + 1), truncation reproduced
  std::string warning;              // Cassandra's WARN text, empty if none

  std::int64_t bit_count() const { return std::int64_t{word_count} * 64; }  // the modulus
  std::int64_t file_bytes() const { return 8 + std::int64_t{word_count} * 8; }
};

Result<FilterSpec> SizeForFpChance(std::int64_t num_elements, double fp_chance,
                                   JavaAssertions assertions = JavaAssertions::kEnabled);
Result<FilterSpec> SizeForBucketsPerElement(std::int64_t num_elements, std::int32_t target_buckets,
                                            JavaAssertions assertions = JavaAssertions::kEnabled);

// The row (column-name) filter: getFilter(estimated_columns, 4).
inline constexpr std::int32_t kRowFilterBucketsPerElement = 4;
// The SSTable writer's default: getFilter(key_count, 15).
inline constexpr std::int32_t kDefaultBucketsPerElement = 15;

struct LegacyFilterSpec {
  std::int32_t hash_count = 0;
  std::int32_t buckets_per_element = 0;
  std::int32_t nbits = 0;  // (int) min(Integer.MAX_VALUE, n * bpe + 20)
  std::int32_t word_count =
      0;                // ceil(nbits / 64) as java.util.BitSet computes it (<= 0 if nbits < 0)
  std::string warning;  // Cassandra's WARN text, empty if none
};
Result<LegacyFilterSpec> LegacySizeForFpChance(std::int64_t n, double fp,
                                               JavaAssertions = JavaAssertions::kEnabled);
Result<LegacyFilterSpec> LegacySizeForBucketsPerElement(std::int64_t n, std::int32_t target,
                                                        JavaAssertions = JavaAssertions::kEnabled);

// The 0.6 BloomFilter (SSTable versions before c, keys hashed as Java Strings): the legacy
// filter's bit set, sized by 0.6's BloomCalculations, whose table stops at 15 buckets per element
// and K = 8 (15 buckets per element give K 8, not 1.0's 10), and by its own
// maxBucketsPerElement, min(15, (Integer.MAX_VALUE - 20) / n): more than 143165575 keys get
// fewer buckets per element, more than 2147483627 are refused ("UnsupportedOperationException:
// Cannot compute probabilities for N elements."). The warning names the class BloomFilter.
Result<LegacyFilterSpec> StringFilterSizeForFpChance(std::int64_t n, double fp,
                                                     JavaAssertions = JavaAssertions::kEnabled);
Result<LegacyFilterSpec> StringFilterSizeForBucketsPerElement(
    std::int64_t n, std::int32_t target, JavaAssertions = JavaAssertions::kEnabled);

// BloomCalculations, exposed for tests and `inspect`.
inline constexpr int kMaxBucketsPerElement = 20;
// probs[buckets][k] as the Java class holds it (rows of unequal length; column 0 is a dummy).
std::span<const double> BloomProbabilities(int buckets_per_element);
// optKPerBuckets[buckets].
int OptimalHashCount(int buckets_per_element);
// BloomCalculations.maxBucketsPerElement(n).
int MaxBucketsPerElement(std::int64_t num_elements);

// Java's Double.toString(d), as the refusal texts print the fp chance: the digits of JDKs before
// 19 (Cassandra's), which are not always the shortest (java_double.cc).
std::string JavaDoubleToString(double d);

}  // namespace bloomcodec::cassandra

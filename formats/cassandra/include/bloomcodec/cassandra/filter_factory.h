// How Cassandra 1.2 - 5.0 size a bloom filter: FilterFactory.getFilter(numElements, fpChance)
// with BloomCalculations' table (the same table and search as 1.0, sizing.h).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(cassandra::Murmur3FilterSpec spec,
//                               cassandra::SizeMurmur3Filter(estimated_keys, 0.01));
//   if (spec.always_present) ...   // fp chance 1.0: no bits at all
//
// Compatibility contract: for every (numElements, fpChance) the result - always-present, or
// (K, buckets per element, the Java long bit count, the word count) - or the refusal text equals
// what the original computes with Java assertions enabled (as Cassandra runs). Refusals are
// "SimpleClassName: message": "AssertionError: Invalid probability" (fp > 1 or NaN),
// "UnsupportedOperationException: Unable to satisfy <fp> with <b> buckets per element" and
// "UnsupportedOperationException: Bloom filter size is > 16GB, reduce the bloom_filter_fp_chance"
// (more than 2^31 - 1 words). The sizing is the same in every release from 1.2 to 5.0.
#pragma once

#include <cstdint>

#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

struct Murmur3FilterSpec {
  bool always_present = false;  // fp chance 1.0: AlwaysPresentFilter, nothing below is set
  std::int32_t hash_count = 0;
  std::int32_t buckets_per_element = 0;
  std::int64_t requested_bits = 0;  // numElements * buckets + 20, Java long arithmetic (wraps)
  std::int32_t word_count = 0;      // ((bits - 1) >>> 6) + 1, at most 2^31 - 1

  std::int64_t capacity_bits() const { return std::int64_t{word_count} * 64; }
  std::int64_t file_bytes() const { return 8 + std::int64_t{word_count} * 8; }
};

Result<Murmur3FilterSpec> SizeMurmur3Filter(std::int64_t num_elements, double fp_chance);

}  // namespace bloomcodec::cassandra

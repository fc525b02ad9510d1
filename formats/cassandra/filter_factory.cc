// FilterFactory.getFilter(long, double) of Cassandra 1.2 - 5.0. BloomCalculations is unchanged
// since 1.0, so the choice of K and buckets is sizing.cc's SizeForFpChance; what differs is the
// always-present filter for 1.0 and the word count kept as a long and refused above an int.
#include "bloomcodec/cassandra/filter_factory.h"

#include <climits>

#include "bloomcodec/cassandra/sizing.h"

namespace bloomcodec::cassandra {

Result<Murmur3FilterSpec> SizeMurmur3Filter(std::int64_t num_elements, double fp_chance) {
  // `assert maxFalsePosProbability <= 1.0 : "Invalid probability"` comes first (NaN fails it).
  if (!(fp_chance <= 1.0)) return Status::Refused("AssertionError: Invalid probability");
  Murmur3FilterSpec spec;
  if (fp_chance == 1.0) {
    spec.always_present = true;
    return spec;
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterSpec chosen, SizeForFpChance(num_elements, fp_chance));
  spec.hash_count = chosen.hash_count;
  spec.buckets_per_element = chosen.buckets_per_element;
  spec.requested_bits = chosen.requested_bits;
  // `long numLongs = ((numBits - 1) >>> 6) + 1` without 1.0's int cast; a wrapped (negative)
  // bit count shifts logically into a huge count and is refused like a real one.
  const std::uint64_t words = ((static_cast<std::uint64_t>(chosen.requested_bits) - 1) >> 6) + 1;
  if (words > static_cast<std::uint64_t>(INT32_MAX)) {
    return Status::Refused(
        "UnsupportedOperationException: Bloom filter size is > 16GB, reduce the "
        "bloom_filter_fp_chance");
  }
  spec.word_count = static_cast<std::int32_t>(words);
  return spec;
}

}  // namespace bloomcodec::cassandra

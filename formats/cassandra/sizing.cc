// BloomFilter.getFilter (both overloads) and LegacyBloomFilter.getFilter of Cassandra 1.0.
// Refusals reproduce the exception the Java code throws, as "SimpleClassName: message".
#include "bloomcodec/cassandra/sizing.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

namespace bloomcodec::cassandra {
namespace {

struct BloomSpec {
  int hash_count;
  int buckets_per_element;
};

std::string WarningText(std::string_view filter_class, std::int64_t n, int bpe, int target) {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "Cannot provide an optimal %.*s for %lld elements (%d/%d buckets per element).",
                static_cast<int>(filter_class.size()), filter_class.data(),
                static_cast<long long>(n), bpe, target);
  return buf;
}

// BloomCalculations.computeBloomSpec(int bucketsPerElement).
Result<BloomSpec> SpecForBuckets(int bpe, JavaAssertions assertions) {
  if (bpe < 1 || bpe > kMaxBucketsPerElement) {
    // `assert bucketsPerElement >= 1; assert bucketsPerElement <= probs.length - 1;` - asserts
    // without a message, so with -ea the exception prints as its bare class name.
    if (assertions == JavaAssertions::kEnabled) return Status::Refused("AssertionError");
    // Without -ea, the table lookup optKPerBuckets[bpe] itself fails for negative (or > 20)
    // buckets; 0 is a valid index (K = 1, 0 buckets per element).
    if (bpe < 0 || bpe > kMaxBucketsPerElement) {
      return Status::Refused("ArrayIndexOutOfBoundsException: Index " + std::to_string(bpe) +
                             " out of bounds for length 21");
    }
  }
  return BloomSpec{OptimalHashCount(bpe), bpe};
}

// BloomCalculations.computeBloomSpec(int maxBucketsPerElement, double maxFalsePosProb).
Result<BloomSpec> SpecForFpChance(int max_bpe, double fp) {
  // max_bpe is MaxBucketsPerElement(n), always in 1..20, so its assertions always hold.
  const std::span<const double> last_row = BloomProbabilities(max_bpe);
  const int max_k = static_cast<int>(last_row.size()) - 1;
  // Trap (section 10.6): the first branch builds `new BloomSpecification(2, optKPerBuckets[2])`
  // = (K = 2, 1 bucket per element) for any fp >= probs[2][1] (0.393). NaN fails every
  // comparison below and falls through to (K = 1, 2 buckets) when assertions are off.
  if (fp >= BloomProbabilities(2)[1]) return BloomSpec{2, OptimalHashCount(2)};
  if (fp < last_row[static_cast<std::size_t>(max_k)]) {
    return Status::Refused("UnsupportedOperationException: Unable to satisfy " +
                           JavaDoubleToString(fp) + " with " + std::to_string(max_bpe) +
                           " buckets per element");
  }
  int bpe = 2;
  int k = OptimalHashCount(2);
  while (BloomProbabilities(bpe)[static_cast<std::size_t>(k)] > fp) {
    ++bpe;
    k = OptimalHashCount(bpe);
  }
  // Fewer hashes while that still satisfies fp (the stored doubles compare exactly).
  while (BloomProbabilities(bpe)[static_cast<std::size_t>(k - 1)] <= fp) --k;
  return BloomSpec{k, bpe};
}

// BloomFilter.bucketsFor + OpenBitSet.bits2words.
void FillWords(std::int64_t n, int bpe, FilterSpec& spec) {
  // Trap (section 10.7): `numElements * bucketsPer + EXCESS` in Java long arithmetic wraps for
  // huge n; formed on u64 to keep C++ free of signed overflow.
  const std::uint64_t bits =
      static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(static_cast<std::int64_t>(bpe)) +
      static_cast<std::uint64_t>(kExcessBits);
  spec.requested_bits = static_cast<std::int64_t>(bits);
  // `(int) (((numBits - 1) >>> 6) + 1)`: logical shift of the long, then the int cast keeps the
  // low 32 bits - negative or small garbage word counts for absurd n, 0 for bits == 0.
  const std::uint64_t words = ((bits - 1) >> 6) + 1;
  spec.word_count = static_cast<std::int32_t>(static_cast<std::uint32_t>(words));
}

}  // namespace

Result<FilterSpec> SizeForBucketsPerElement(std::int64_t num_elements, std::int32_t target,
                                            JavaAssertions assertions) {
  FilterSpec spec;
  const int max_bpe = std::max(1, MaxBucketsPerElement(num_elements));
  const int bpe = std::min(target, max_bpe);
  if (bpe < target) spec.warning = WarningText("BloomFilter", num_elements, bpe, target);
  BLOOMCODEC_ASSIGN_OR_RETURN(BloomSpec bloom, SpecForBuckets(bpe, assertions));
  spec.hash_count = bloom.hash_count;
  spec.buckets_per_element = bloom.buckets_per_element;
  FillWords(num_elements, bloom.buckets_per_element, spec);
  return spec;
}

Result<FilterSpec> SizeForFpChance(std::int64_t num_elements, double fp,
                                   JavaAssertions assertions) {
  // `assert maxFalsePosProbability <= 1.0 : "Invalid probability"` - NaN fails it too.
  if (assertions == JavaAssertions::kEnabled && !(fp <= 1.0)) {
    return Status::Refused("AssertionError: Invalid probability");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(BloomSpec bloom,
                              SpecForFpChance(MaxBucketsPerElement(num_elements), fp));
  FilterSpec spec;
  spec.hash_count = bloom.hash_count;
  spec.buckets_per_element = bloom.buckets_per_element;
  FillWords(num_elements, bloom.buckets_per_element, spec);
  return spec;
}

namespace {

// LegacyBloomFilter.bucketsFor + java.util.BitSet(int nbits).
void FillLegacyWords(std::int64_t n, int bpe, LegacyFilterSpec& spec) {
  const std::int64_t bits = static_cast<std::int64_t>(
      static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(static_cast<std::int64_t>(bpe)) +
      static_cast<std::uint64_t>(kExcessBits));
  // `(int) Math.min(Integer.MAX_VALUE, numBits)`: saturates above, but a wrapped negative long
  // passes min() unchanged and the cast keeps its low 32 bits.
  const std::int64_t clamped =
      std::min<std::int64_t>(std::numeric_limits<std::int32_t>::max(), bits);
  spec.nbits =
      static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(clamped)));
  // BitSet: words = wordIndex(nbits - 1) + 1 = ((nbits - 1) >> 6) + 1 (the constructor throws
  // NegativeArraySizeException for nbits < 0; the value is then meaningless but <= 0).
  // Formed in 64 bits so that nbits = Integer.MIN_VALUE does not overflow.
  const std::int64_t words = ((std::int64_t{spec.nbits} - 1) >> 6) + 1;
  spec.word_count =
      static_cast<std::int32_t>(std::min<std::int64_t>(words, spec.nbits < 0 ? 0 : words));
}

}  // namespace

Result<LegacyFilterSpec> LegacySizeForBucketsPerElement(std::int64_t n, std::int32_t target,
                                                        JavaAssertions assertions) {
  LegacyFilterSpec spec;
  const int max_bpe = std::max(1, MaxBucketsPerElement(n));
  const int bpe = std::min(target, max_bpe);
  if (bpe < target) spec.warning = WarningText("LegacyBloomFilter", n, bpe, target);
  BLOOMCODEC_ASSIGN_OR_RETURN(BloomSpec bloom, SpecForBuckets(bpe, assertions));
  spec.hash_count = bloom.hash_count;
  spec.buckets_per_element = bloom.buckets_per_element;
  FillLegacyWords(n, bloom.buckets_per_element, spec);
  return spec;
}

Result<LegacyFilterSpec> LegacySizeForFpChance(std::int64_t n, double fp,
                                               JavaAssertions assertions) {
  if (assertions == JavaAssertions::kEnabled && !(fp <= 1.0)) {
    return Status::Refused("AssertionError: Invalid probability");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(BloomSpec bloom, SpecForFpChance(MaxBucketsPerElement(n), fp));
  LegacyFilterSpec spec;
  spec.hash_count = bloom.hash_count;
  spec.buckets_per_element = bloom.buckets_per_element;
  FillLegacyWords(n, bloom.buckets_per_element, spec);
  return spec;
}

namespace {

// Cassandra 0.6's BloomCalculations: the table of 1.0 cut at 15 buckets per element and K 8
// (probs rows 0 .. 15 of at most 9 entries; optKPerBuckets the optimum capped at 8: 15 buckets
// per element give K = 8, as the corpus's version-b Filter.db has it).
constexpr int kStringFilterMaxBuckets = 15;
constexpr int kStringFilterMaxK = 8;

std::span<const double> StringFilterRow(int bpe) {
  const std::span<const double> row = BloomProbabilities(bpe);
  return row.first(std::min<std::size_t>(row.size(), kStringFilterMaxK + 1));
}
int StringFilterOptK(int bpe) { return std::min(kStringFilterMaxK, OptimalHashCount(bpe)); }

// The 0.6 BloomFilter's own maxBucketsPerElement (an int bit set: Integer.MAX_VALUE, not
// Long.MAX_VALUE as 0.7's BloomCalculations), capped at the table's 15.
Result<int> StringFilterMaxBucketsPerElement(std::int64_t num_elements) {
  const std::int64_t n = std::max<std::int64_t>(1, num_elements);
  const double v = static_cast<double>(std::numeric_limits<std::int32_t>::max() - kExcessBits) /
                   static_cast<double>(n);
  if (v < 1.0) {
    return Status::Refused("UnsupportedOperationException: Cannot compute probabilities for " +
                           std::to_string(n) + " elements.");
  }
  if (v >= kStringFilterMaxBuckets) return kStringFilterMaxBuckets;
  return static_cast<int>(v);
}

Result<BloomSpec> StringFilterSpecForBuckets(int bpe, JavaAssertions assertions) {
  if (bpe < 1 || bpe > kStringFilterMaxBuckets) {
    if (assertions == JavaAssertions::kEnabled) return Status::Refused("AssertionError");
    if (bpe < 0 || bpe > kStringFilterMaxBuckets) {
      return Status::Refused("ArrayIndexOutOfBoundsException: Index " + std::to_string(bpe) +
                             " out of bounds for length 16");
    }
  }
  return BloomSpec{StringFilterOptK(bpe), bpe};
}

// computeBloomSpec(maxBucketsPerElement, fp) on the 0.6 table (the same search as 1.0's).
Result<BloomSpec> StringFilterSpecForFpChance(int max_bpe, double fp) {
  const std::span<const double> last_row = StringFilterRow(max_bpe);
  const int max_k = static_cast<int>(last_row.size()) - 1;
  if (fp >= StringFilterRow(2)[1]) return BloomSpec{2, StringFilterOptK(2)};
  if (fp < last_row[static_cast<std::size_t>(max_k)]) {
    return Status::Refused("UnsupportedOperationException: Unable to satisfy " +
                           JavaDoubleToString(fp) + " with " + std::to_string(max_bpe) +
                           " buckets per element");
  }
  int bpe = 2;
  int k = StringFilterOptK(2);
  while (StringFilterRow(bpe)[static_cast<std::size_t>(k)] > fp) {
    ++bpe;
    k = StringFilterOptK(bpe);
  }
  while (StringFilterRow(bpe)[static_cast<std::size_t>(k - 1)] <= fp) --k;
  return BloomSpec{k, bpe};
}

}  // namespace

Result<LegacyFilterSpec> StringFilterSizeForBucketsPerElement(std::int64_t n, std::int32_t target,
                                                              JavaAssertions assertions) {
  BLOOMCODEC_ASSIGN_OR_RETURN(int max_bpe, StringFilterMaxBucketsPerElement(n));
  LegacyFilterSpec spec;
  const int bpe = std::min(target, std::max(1, max_bpe));
  if (bpe < target) spec.warning = WarningText("BloomFilter", n, bpe, target);
  BLOOMCODEC_ASSIGN_OR_RETURN(BloomSpec bloom, StringFilterSpecForBuckets(bpe, assertions));
  spec.hash_count = bloom.hash_count;
  spec.buckets_per_element = bloom.buckets_per_element;
  FillLegacyWords(n, bloom.buckets_per_element, spec);
  return spec;
}

Result<LegacyFilterSpec> StringFilterSizeForFpChance(std::int64_t n, double fp,
                                                     JavaAssertions assertions) {
  if (assertions == JavaAssertions::kEnabled && !(fp <= 1.0)) {
    return Status::Refused("AssertionError: Invalid probability");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(int max_bpe, StringFilterMaxBucketsPerElement(n));
  BLOOMCODEC_ASSIGN_OR_RETURN(BloomSpec bloom, StringFilterSpecForFpChance(max_bpe, fp));
  LegacyFilterSpec spec;
  spec.hash_count = bloom.hash_count;
  spec.buckets_per_element = bloom.buckets_per_element;
  FillLegacyWords(n, bloom.buckets_per_element, spec);
  return spec;
}

}  // namespace bloomcodec::cassandra

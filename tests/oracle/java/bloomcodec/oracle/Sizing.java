package bloomcodec.oracle;

import java.util.BitSet;

/**
 * BloomCalculations and the getFilter overloads of BloomFilter and LegacyBloomFilter, written
 * from our format notes (section 5 and 7.2). The asserts are real Java asserts: their effect
 * depends on the assertion status this class was loaded with (see AssertionLoader).
 */
public final class Sizing implements SizingRules {
  static final long EXCESS = 20;

  // probs[buckets per element][hash count], the decimal literals of the original table.
  static final double[][] PROBS = {
    {1.0},
    {1.0, 1.0},
    {1.0, 0.393, 0.4},
    {1.0, 0.283, 0.237, 0.253},
    {1.0, 0.221, 0.155, 0.147, 0.16},
    {1.0, 0.181, 0.109, 0.092, 0.092, 0.101},
    {1.0, 0.154, 0.0804, 0.0609, 0.0561, 0.0578, 0.0638},
    {1.0, 0.133, 0.0618, 0.0423, 0.0359, 0.0347, 0.0364},
    {1.0, 0.118, 0.0489, 0.0306, 0.024, 0.0217, 0.0216, 0.0229},
    {1.0, 0.105, 0.0397, 0.0228, 0.0166, 0.0141, 0.0133, 0.0135, 0.0145},
    {1.0, 0.0952, 0.0329, 0.0174, 0.0118, 0.00943, 0.00844, 0.00819, 0.00846},
    {1.0, 0.0869, 0.0276, 0.0136, 0.00864, 0.0065, 0.00552, 0.00513, 0.00509},
    {1.0, 0.08, 0.0236, 0.0108, 0.00646, 0.00459, 0.00371, 0.00329, 0.00314},
    {1.0, 0.074, 0.0203, 0.00875, 0.00492, 0.00332, 0.00255, 0.00217, 0.00199, 0.00194},
    {1.0, 0.0689, 0.0177, 0.00718, 0.00381, 0.00244, 0.00179, 0.00146, 0.00129, 0.00121,
        0.0012},
    {1.0, 0.0645, 0.0156, 0.00596, 0.003, 0.00183, 0.00128, 0.001, 8.52e-4, 7.75e-4, 7.44e-4},
    {1.0, 0.0606, 0.0138, 0.005, 0.00239, 0.00139, 9.35e-4, 7.02e-4, 5.74e-4, 5.05e-4, 4.7e-4,
        4.59e-4},
    {1.0, 0.0571, 0.0123, 0.00423, 0.00193, 0.00107, 6.92e-4, 4.99e-4, 3.94e-4, 3.35e-4,
        3.02e-4, 2.87e-4, 2.84e-4},
    {1.0, 0.054, 0.0111, 0.00362, 0.00158, 8.39e-4, 5.19e-4, 3.6e-4, 2.75e-4, 2.26e-4, 1.98e-4,
        1.83e-4, 1.76e-4},
    {1.0, 0.0513, 0.00998, 0.00312, 0.0013, 6.63e-4, 3.94e-4, 2.64e-4, 1.94e-4, 1.55e-4,
        1.32e-4, 1.18e-4, 1.11e-4, 1.09e-4},
    {1.0, 0.0488, 0.00906, 0.0027, 0.00108, 5.3e-4, 3.03e-4, 1.96e-4, 1.4e-4, 1.08e-4, 8.89e-5,
        7.77e-5, 7.12e-5, 6.79e-5, 6.71e-5},
  };

  static final int[] OPT_K = new int[PROBS.length];

  static {
    for (int i = 0; i < PROBS.length; ++i) {
      double min = Double.MAX_VALUE;
      int k = 0;
      for (int j = 0; j < PROBS[i].length; ++j) {
        if (PROBS[i][j] < min) {  // strict: the first of equal minima wins
          min = PROBS[i][j];
          k = j;
        }
      }
      OPT_K[i] = Math.max(1, k);
    }
  }

  public Sizing() {}

  @Override
  public boolean assertionsEnabled() {
    boolean on = false;
    assert on = true;
    return on;
  }

  static int maxBucketsPerElement(long numElements) {
    numElements = Math.max(1, numElements);
    double v = (Long.MAX_VALUE - EXCESS) / (double) numElements;
    if (v < 1.0) {
      throw new UnsupportedOperationException(
          "Cannot compute probabilities for " + numElements + " elements.");
    }
    // (int) of a double truncates toward zero and saturates.
    return Math.min(PROBS.length - 1, (int) v);
  }

  /** {K, buckets per element}. */
  static int[] computeBloomSpec(int bucketsPerElement) {
    assert bucketsPerElement >= 1;
    assert bucketsPerElement <= PROBS.length - 1;
    return new int[] {OPT_K[bucketsPerElement], bucketsPerElement};
  }

  static int[] computeBloomSpec(int maxBucketsPerElement, double maxFalsePosProb) {
    assert maxBucketsPerElement >= 1;
    assert maxBucketsPerElement <= PROBS.length - 1;
    int maxK = PROBS[maxBucketsPerElement].length - 1;
    if (maxFalsePosProb >= PROBS[2][1]) {
      // K = 2 with optK[2] = 1 bucket per element: what every 1.0 node computes.
      return new int[] {2, OPT_K[2]};
    }
    if (maxFalsePosProb < PROBS[maxBucketsPerElement][maxK]) {
      throw new UnsupportedOperationException("Unable to satisfy " + maxFalsePosProb + " with "
          + maxBucketsPerElement + " buckets per element");
    }
    int buckets = 2;
    int k = OPT_K[2];
    while (PROBS[buckets][k] > maxFalsePosProb) {
      buckets++;
      k = OPT_K[buckets];
    }
    while (PROBS[buckets][k - 1] <= maxFalsePosProb) k--;
    return new int[] {k, buckets};
  }

  private static SizingResult v10(long numElements, int[] spec, String warning) {
    SizingResult r = new SizingResult();
    r.hashCount = spec[0];
    r.bucketsPerElement = spec[1];
    r.requestedBits = numElements * spec[1] + EXCESS;  // wraps
    // OpenBitSet.bits2words: logical shift, then (int) keeps the low 32 bits.
    r.wordCount = (int) (((r.requestedBits - 1) >>> 6) + 1);
    r.warning = warning;
    return r;
  }

  // The WARN text; the legacy class names itself ("LegacyBloomFilter") in the same sentence.
  private static String warning(String filterClass, long n, int buckets, int target) {
    return String.format("Cannot provide an optimal %s for %d elements (%d/%d buckets per element).",
        filterClass, n, buckets, target);
  }

  @Override
  public SizingResult v10ForFp(long numElements, double fp) {
    assert fp <= 1.0 : "Invalid probability";
    int maxBuckets = maxBucketsPerElement(numElements);
    return v10(numElements, computeBloomSpec(maxBuckets, fp), "");
  }

  @Override
  public SizingResult v10ForBuckets(long numElements, int target) {
    int maxBuckets = Math.max(1, maxBucketsPerElement(numElements));
    int buckets = Math.min(target, maxBuckets);
    String warning = buckets < target ? warning("BloomFilter", numElements, buckets, target) : "";
    return v10(numElements, computeBloomSpec(buckets), warning);
  }

  private static SizingResult legacy(long numElements, int[] spec, String warning) {
    SizingResult r = new SizingResult();
    r.hashCount = spec[0];
    r.bucketsPerElement = spec[1];
    long bits = numElements * spec[1] + EXCESS;
    int nbits = (int) Math.min(Integer.MAX_VALUE, bits);  // saturated, not truncated
    r.requestedBits = nbits;
    if (nbits < 0) {
      r.wordCount = -1;
    } else if (nbits <= (1 << 22)) {
      r.wordCount = new BitSet(nbits).size() / 64;  // the JDK decides
    } else {
      r.wordCount = ((nbits - 1) >> 6) + 1;  // BitSet.wordIndex(nbits - 1) + 1, not allocated
    }
    r.warning = warning;
    return r;
  }

  @Override
  public SizingResult legacyForFp(long numElements, double fp) {
    assert fp <= 1.0 : "Invalid probability";
    int maxBuckets = maxBucketsPerElement(numElements);
    return legacy(numElements, computeBloomSpec(maxBuckets, fp), "");
  }

  @Override
  public SizingResult legacyForBuckets(long numElements, int target) {
    int maxBuckets = Math.max(1, maxBucketsPerElement(numElements));
    int buckets = Math.min(target, maxBuckets);
    String warning =
        buckets < target ? warning("LegacyBloomFilter", numElements, buckets, target) : "";
    return legacy(numElements, computeBloomSpec(buckets), warning);
  }

  // Cassandra 0.6 (FORMAT.md, "0.6 Filter.db"): 1.0's table cut at 15 buckets per element and
  // K = 8, and a maxBucketsPerElement of its own, bounded by an int bit set.
  static final int STRING_MAX_BUCKETS = 15;
  static final int STRING_MAX_K = 8;

  static double stringProb(int buckets, int k) {
    return PROBS[buckets][k];
  }

  static int stringMaxK(int buckets) {
    return Math.min(STRING_MAX_K, PROBS[buckets].length - 1);
  }

  static int stringOptK(int buckets) {
    double min = Double.MAX_VALUE;
    int k = 0;
    for (int j = 0; j <= stringMaxK(buckets); ++j) {
      if (stringProb(buckets, j) < min) {
        min = stringProb(buckets, j);
        k = j;
      }
    }
    return Math.max(1, k);
  }

  static int stringMaxBucketsPerElement(long numElements) {
    numElements = Math.max(1, numElements);
    double v = (Integer.MAX_VALUE - EXCESS) / (double) numElements;
    if (v < 1.0) {
      throw new UnsupportedOperationException(
          "Cannot compute probabilities for " + numElements + " elements.");
    }
    return Math.min(STRING_MAX_BUCKETS, (int) v);
  }

  @Override
  public SizingResult stringForBuckets(long numElements, int target) {
    int maxBuckets = Math.max(1, stringMaxBucketsPerElement(numElements));
    int buckets = Math.min(target, maxBuckets);
    assert buckets >= 1 && buckets <= STRING_MAX_BUCKETS;
    String warning = buckets < target ? warning("BloomFilter", numElements, buckets, target) : "";
    return legacy(numElements, new int[] {stringOptK(buckets), buckets}, warning);
  }

  @Override
  public SizingResult stringForFp(long numElements, double fp) {
    assert fp <= 1.0 : "Invalid probability";
    int maxBuckets = stringMaxBucketsPerElement(numElements);
    if (fp >= stringProb(2, 1)) return legacy(numElements, new int[] {2, stringOptK(2)}, "");
    if (fp < stringProb(maxBuckets, stringMaxK(maxBuckets))) {
      throw new UnsupportedOperationException(
          "Unable to satisfy " + fp + " with " + maxBuckets + " buckets per element");
    }
    int buckets = 2;
    int k = stringOptK(2);
    while (stringProb(buckets, k) > fp) {
      buckets++;
      k = stringOptK(buckets);
    }
    while (stringProb(buckets, k - 1) <= fp) k--;
    return legacy(numElements, new int[] {k, buckets}, "");
  }

  /**
   * FilterFactory.getFilter(numElements, fpChance) of 1.2 - 5.0 (cassandra-later-filter.md
   * section 5): the same tables, fp 1.0 gives the always-present filter, and the off-heap bit
   * set refuses more than 2^31 - 1 words instead of truncating the count.
   */
  @Override
  public SizingResult murmur3ForFp(long numElements, double fp) {
    assert fp <= 1.0 : "Invalid probability";
    if (fp == 1.0) {
      SizingResult r = new SizingResult();
      r.alwaysPresent = true;
      return r;
    }
    int[] spec = computeBloomSpec(maxBucketsPerElement(numElements), fp);
    SizingResult r = new SizingResult();
    r.hashCount = spec[0];
    r.bucketsPerElement = spec[1];
    r.requestedBits = numElements * spec[1] + EXCESS;  // wraps
    long words = ((r.requestedBits - 1) >>> 6) + 1;
    if (words > Integer.MAX_VALUE) {
      throw new UnsupportedOperationException(
          "Bloom filter size is > 16GB, reduce the bloom_filter_fp_chance");
    }
    r.wordCount = (int) words;
    return r;
  }
}

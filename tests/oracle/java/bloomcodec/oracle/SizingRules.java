package bloomcodec.oracle;

/**
 * The sizing entry points. Implemented by {@link Sizing}, which {@link Main} loads twice through
 * {@link AssertionLoader}: once with Java assertions enabled (as Cassandra runs) and once with
 * them disabled, so both behaviours come from real {@code assert} statements.
 */
public interface SizingRules {
  boolean assertionsEnabled();

  SizingResult v10ForFp(long numElements, double fp);

  SizingResult v10ForBuckets(long numElements, int targetBucketsPerElement);

  SizingResult legacyForFp(long numElements, double fp);

  SizingResult legacyForBuckets(long numElements, int targetBucketsPerElement);

  /** 0.6's BloomFilter.getFilter(numElements, fp) (SSTable versions before c). */
  SizingResult stringForFp(long numElements, double fp);

  /** 0.6's BloomFilter.getFilter(numElements, targetBucketsPerElement): its writer passes 15. */
  SizingResult stringForBuckets(long numElements, int targetBucketsPerElement);

  /** FilterFactory.getFilter(numElements, fpChance) of Cassandra 1.2 - 5.0. */
  SizingResult murmur3ForFp(long numElements, double fp);
}

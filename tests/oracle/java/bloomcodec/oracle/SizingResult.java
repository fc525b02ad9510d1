package bloomcodec.oracle;

/**
 * What a getFilter overload decided, before any bit set is allocated. Public: Sizing is defined
 * by another class loader, which makes it a different runtime package.
 */
public final class SizingResult {
  public int hashCount;
  public int bucketsPerElement;
  public long requestedBits;  // 1.0: n * bpe + 20 (wraps); legacy: the int nbits, widened
  public int wordCount;       // 1.0: bits2words; legacy: BitSet's long[] length (-1: nbits < 0)
  public String warning = "";
  public boolean alwaysPresent;  // murmur3: fp chance 1.0, no bit set at all
}

package bloomcodec.oracle;

import java.nio.ByteBuffer;

/**
 * hash3_x64_128 with seed 0 as Cassandra 1.2 - 5.0 computes it for its filters, written from our
 * format notes (cassandra-later-filter.md section 3) with plain Java types: the JVM supplies the
 * semantics under test, above all the widening of a tail byte, {@code (long) key.get(i)}, which
 * sign-extends. Body bytes are masked to 0..255, as the notes say.
 */
final class JavaMurmur3 {
  private JavaMurmur3() {}

  private static final long C1 = 0x87c37b91114253d5L;
  private static final long C2 = 0x4cf5ad432745937fL;

  /** The little-endian long of 8 masked bytes at {@code at}. */
  private static long blockLong(ByteBuffer key, int at) {
    long v = 0;
    for (int j = 7; j >= 0; --j) v = (v << 8) | (key.get(at + j) & 0xffL);
    return v;
  }

  private static long fmix(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }

  /** {h[0], h[1]} over key.get(offset .. offset + length). */
  static long[] hash(ByteBuffer key, int offset, int length, long seed) {
    long h1 = seed;
    long h2 = seed;
    int blocks = length >> 4;
    for (int i = 0; i < blocks; ++i) {
      long k1 = blockLong(key, offset + 16 * i);
      long k2 = blockLong(key, offset + 16 * i + 8);
      k1 *= C1;
      k1 = Long.rotateLeft(k1, 31);
      k1 *= C2;
      h1 ^= k1;
      h1 = Long.rotateLeft(h1, 27);
      h1 += h2;
      h1 = h1 * 5 + 0x52dce729;
      k2 *= C2;
      k2 = Long.rotateLeft(k2, 33);
      k2 *= C1;
      h2 ^= k2;
      h2 = Long.rotateLeft(h2, 31);
      h2 += h1;
      h2 = h2 * 5 + 0x38495ab5;
    }
    int tail = offset + 16 * blocks;
    int rest = length & 15;
    long k1 = 0;
    long k2 = 0;
    // The deviation under test: (long) of a byte sign-extends, so a high tail byte also sets
    // every bit above its own in its lane.
    for (int t = rest - 1; t >= 8; --t) k2 ^= ((long) key.get(tail + t)) << (8 * (t - 8));
    if (rest > 8) {
      k2 *= C2;
      k2 = Long.rotateLeft(k2, 33);
      k2 *= C1;
      h2 ^= k2;
    }
    for (int t = Math.min(rest, 8) - 1; t >= 0; --t) k1 ^= ((long) key.get(tail + t)) << (8 * t);
    if (rest > 0) {
      k1 *= C1;
      k1 = Long.rotateLeft(k1, 31);
      k1 *= C2;
      h1 ^= k1;
    }
    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 += h2;
    h2 += h1;
    return new long[] {h1, h2};
  }

  static long[] hash(ByteBuffer key) {
    return hash(key, key.position(), key.remaining(), 0L);
  }
}

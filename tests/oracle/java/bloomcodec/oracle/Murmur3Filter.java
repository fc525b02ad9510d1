package bloomcodec.oracle;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The Murmur3 filter of Cassandra 1.2 - 5.0, written from our format notes
 * (cassandra-later-filter.md sections 2 and 4): a byte-addressed bit set (bit j in byte j >> 3,
 * mask 1 << (j & 7), as the off-heap bit set stores it), K hash functions from one Murmur3 hash in
 * the old (1.2 - 2.2) or new (3.0+) order, and the two serializations.
 */
final class Murmur3Filter {
  /** The three on-disk variants: old order + BE longs, new order + BE longs, new + raw bytes. */
  static final int V1_2 = 0;
  static final int V3_0 = 1;
  static final int V4_0 = 2;

  /** The reusable per-thread index array of the lookup path: K > 21 overruns it. */
  private static final ThreadLocal<long[]> REUSABLE = ThreadLocal.withInitial(() -> new long[21]);

  final int hashCount;
  final byte[] bits;  // wordCount * 8 bytes in address order
  final boolean oldOrder;

  Murmur3Filter(int hashCount, long wordCount, boolean oldOrder) {
    this.hashCount = hashCount;
    this.bits = new byte[Math.toIntExact(wordCount * 8)];
    this.oldOrder = oldOrder;
  }

  long capacity() {
    return (long) bits.length * 8;
  }

  /** FBUtilities.abs: the branch-free absolute value. */
  static long abs(long x) {
    long sign = x >> 63;
    return (x ^ sign) - sign;
  }

  /** Writes K indexes into {@code out} (which may be the reusable array: Java checks bounds). */
  static void indexes(ByteBuffer key, int hashCount, long max, boolean oldOrder, long[] out) {
    long[] h = JavaMurmur3.hash(key);
    long base = oldOrder ? h[0] : h[1];
    long inc = oldOrder ? h[1] : h[0];
    for (int i = 0; i < hashCount; ++i) {
      out[i] = abs(base % max);
      base += inc;
    }
  }

  /** The test-only getHashBuckets: a fresh array, so any K. */
  static long[] hashBuckets(ByteBuffer key, int hashCount, long max, boolean oldOrder) {
    long[] out = new long[hashCount];
    indexes(key, hashCount, max, oldOrder, out);
    return out;
  }

  void add(ByteBuffer key) {
    long[] idx = REUSABLE.get();
    indexes(key, hashCount, capacity(), oldOrder, idx);
    for (int i = 0; i < hashCount; ++i) bits[(int) (idx[i] >>> 3)] |= (byte) (1 << (idx[i] & 7));
  }

  boolean isPresent(ByteBuffer key) {
    long[] idx = REUSABLE.get();
    indexes(key, hashCount, capacity(), oldOrder, idx);
    for (int i = 0; i < hashCount; ++i) {
      if ((bits[(int) (idx[i] >>> 3)] & (1 << (idx[i] & 7))) == 0) return false;
    }
    return true;
  }

  void serialize(DataOutputStream out, int variant) throws IOException {
    out.writeInt(hashCount);
    out.writeInt(bits.length / 8);
    if (variant == V4_0) {
      out.write(bits);
      return;
    }
    for (int w = 0; w < bits.length; w += 8) {
      long word = 0;
      for (int b = 7; b >= 0; --b) word = (word << 8) | (bits[w + b] & 0xffL);
      out.writeLong(word);
    }
  }

  /** Reads K, W, then W words (W * 8 in long arithmetic); the rest of the stream is ignored. */
  static Murmur3Filter deserialize(DataInputStream in, int variant) throws IOException {
    int hashCount = in.readInt();
    long wordCount = in.readInt();
    Murmur3Filter f = new Murmur3Filter(hashCount, wordCount, variant == V1_2);
    if (variant == V4_0) {
      in.readFully(f.bits);
      return f;
    }
    for (int w = 0; w < f.bits.length; w += 8) {
      long word = in.readLong();
      for (int b = 0; b < 8; ++b) f.bits[w + b] = (byte) (word >>> (8 * b));
    }
    return f;
  }
}

package bloomcodec.oracle;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The 1.0 (version f .. hf) filter: hash count K and a flat long[] of W words. The modulus
 * is the bit set's capacity 64 * W, never the requested bit count.
 */
final class V10Filter {
  final int hashCount;
  final long[] words;

  V10Filter(int hashCount, int wordCount) {
    this.hashCount = hashCount;
    this.words = new long[wordCount];  // NegativeArraySizeException for W < 0, as the original
  }

  private V10Filter(int hashCount, long[] words) {
    this.hashCount = hashCount;
    this.words = words;
  }

  long size() {
    return (long) words.length << 6;
  }

  static long[] hashBuckets(ByteBuffer key, int hashCount, long max) {
    long[] out = new long[hashCount];
    long hash1 = JavaMurmur.hash64(key, 0L);
    long hash2 = JavaMurmur.hash64(key, hash1);
    for (int i = 0; i < hashCount; ++i) {
      // Java long arithmetic wraps; % truncates toward zero; the magnitude is below max.
      out[i] = Math.abs((hash1 + (long) i * hash2) % max);
    }
    return out;
  }

  void add(ByteBuffer key) {
    for (long b : hashBuckets(key, hashCount, size())) words[(int) (b >>> 6)] |= 1L << (b & 63);
  }

  boolean isPresent(ByteBuffer key) {
    for (long b : hashBuckets(key, hashCount, size())) {
      if ((words[(int) (b >>> 6)] & (1L << (b & 63))) == 0) return false;
    }
    return true;
  }

  void serialize(DataOutputStream out) throws IOException {
    out.writeInt(hashCount);
    out.writeInt(words.length);
    for (long w : words) out.writeLong(w);
  }

  /** As BloomFilterSerializer.deserialize: reads K, W, then exactly W longs; ignores the rest. */
  static V10Filter deserialize(DataInputStream in) throws IOException {
    int hashCount = in.readInt();
    int wordCount = in.readInt();
    long[] words = new long[wordCount];
    for (int i = 0; i < wordCount; ++i) words[i] = in.readLong();
    return new V10Filter(hashCount, words);
  }
}

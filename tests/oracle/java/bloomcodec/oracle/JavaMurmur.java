package bloomcodec.oracle;

import java.nio.ByteBuffer;

/**
 * The two MurmurHash2 variants as Cassandra 1.0 computes them, written from our format notes
 * with plain Java types, so that the JVM itself supplies the semantics under test: signed bytes,
 * wrapping long/int arithmetic, and absolute ByteBuffer reads at {@code offset + i}.
 */
final class JavaMurmur {
  private JavaMurmur() {}

  /** hash64 over key.get(offset .. offset + length); only the low 32 bits of seed are used. */
  static long hash64(ByteBuffer key, int offset, int length, long seed) {
    final long m = 0xc6a4a7935bd1e995L;
    final int r = 47;
    long h = (seed & 0xffffffffL) ^ (length * m);
    int blocks = length >> 3;
    for (int i = 0; i < blocks; ++i) {
      int base = offset + (i << 3);
      // Block bytes are masked to 0..255: no sign extension inside a block.
      long k = 0;
      for (int j = 7; j >= 0; --j) k = (k << 8) | (key.get(base + j) & 0xffL);
      k *= m;
      k ^= k >>> r;
      k *= m;
      h ^= k;
      h *= m;
    }
    int tail = offset + (blocks << 3);
    int tailLength = length & 7;
    if (tailLength > 0) {
      // The trap under test: a tail byte is widened as a signed byte, so a byte >= 0x80 also
      // flips every bit above its own position.
      for (int j = 0; j < tailLength; ++j) h ^= ((long) key.get(tail + j)) << (8 * j);
      h *= m;
    }
    h ^= h >>> r;
    h *= m;
    h ^= h >>> r;
    return h;
  }

  /** hash32 (MurmurHash2) over key.get(offset .. offset + length). */
  static int hash32(ByteBuffer key, int offset, int length, int seed) {
    final int m = 0x5bd1e995;
    final int r = 24;
    int h = seed ^ length;
    int blocks = length >> 2;
    for (int i = 0; i < blocks; ++i) {
      int base = offset + (i << 2);
      // The top byte is sign-extended but shifted out; the others are masked.
      int k = (key.get(base + 3) << 24) | ((key.get(base + 2) & 0xff) << 16)
          | ((key.get(base + 1) & 0xff) << 8) | (key.get(base) & 0xff);
      k *= m;
      k ^= k >>> r;
      k *= m;
      h *= m;
      h ^= k;
    }
    int tailLength = length & 3;
    if (tailLength != 0) {
      // Sign-extended tail bytes, and the LAST byte lowest (the reverse of the C code).
      if (tailLength >= 3) h ^= key.get(offset + length - 3) << 16;
      if (tailLength >= 2) h ^= key.get(offset + length - 2) << 8;
      h ^= key.get(offset + length - 1);
      h *= m;
    }
    h ^= h >>> 13;
    h *= m;
    h ^= h >>> 15;
    return h;
  }

  static long hash64(ByteBuffer key, long seed) {
    return hash64(key, key.position(), key.remaining(), seed);
  }

  static int hash32(ByteBuffer key, int seed) {
    return hash32(key, key.position(), key.remaining(), seed);
  }
}

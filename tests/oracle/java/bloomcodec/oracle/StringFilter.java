package bloomcodec.oracle;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UnsupportedEncodingException;
import java.nio.ByteBuffer;
import java.util.BitSet;

/**
 * The filter of Cassandra 0.4 - 0.7 beta (SSTable versions before c): the legacy filter's bit set
 * and 32-bit buckets, given Java Strings and hashing each one's getBytes("UTF-16").
 */
final class StringFilter {
  private final LegacyFilter filter;

  StringFilter(int hashCount, int nbits) {
    filter = new LegacyFilter(hashCount, new BitSet(nbits));
  }

  static byte[] hashed(String key) {
    try {
      return key.getBytes("UTF-16");
    } catch (UnsupportedEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  void add(String key) {
    filter.add(ByteBuffer.wrap(hashed(key)));
  }

  boolean isPresent(String key) {
    return filter.isPresent(ByteBuffer.wrap(hashed(key)));
  }

  void serialize(DataOutputStream out) throws IOException {
    filter.serialize(out);
  }

  /** A String from its UTF-16 code units, big-endian (any units, unpaired surrogates too). */
  static String fromCodeUnits(ByteBuffer units) {
    char[] chars = new char[units.remaining() / 2];
    for (int i = 0; i < chars.length; ++i) chars[i] = units.getChar();
    return new String(chars);
  }
}

package bloomcodec.oracle;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.util.BitSet;

/**
 * The legacy (versions c .. e) filter: a hash count and a java.util.BitSet, serialized by the
 * JDK's own ObjectOutputStream. 32-bit hashes and 32-bit int bucket arithmetic.
 */
final class LegacyFilter {
  final int hashCount;
  final BitSet bits;

  LegacyFilter(int hashCount, BitSet bits) {
    this.hashCount = hashCount;
    this.bits = bits;
  }

  static int[] hashBuckets(ByteBuffer key, int hashCount, int max) {
    int[] out = new int[hashCount];
    int hash1 = JavaMurmur.hash32(key, 0);
    int hash2 = JavaMurmur.hash32(key, hash1);
    for (int i = 0; i < hashCount; ++i) out[i] = Math.abs((hash1 + i * hash2) % max);
    return out;
  }

  void add(ByteBuffer key) {
    // The modulus is BitSet.size() (64 * the long[] length), an int.
    for (int b : hashBuckets(key, hashCount, bits.size())) bits.set(b);
  }

  boolean isPresent(ByteBuffer key) {
    for (int b : hashBuckets(key, hashCount, bits.size())) {
      if (!bits.get(b)) return false;
    }
    return true;
  }

  /** The statements 1.0 keeps commented out in LegacyBloomFilterSerializer.serialize. */
  void serialize(DataOutputStream out) throws IOException {
    out.writeInt(hashCount);
    ObjectOutputStream oos = new ObjectOutputStream(out);
    oos.writeObject(bits);
    oos.flush();
  }

  static LegacyFilter deserialize(DataInputStream in) throws IOException, ClassNotFoundException {
    int hashCount = in.readInt();
    ObjectInputStream ois = new ObjectInputStream(in);
    BitSet bits = (BitSet) ois.readObject();
    return new LegacyFilter(hashCount, bits);
  }
}

package bloomcodec.oracle;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.BitSet;

/**
 * The Java-semantics oracle of the bloomcodec tests: a long-lived process that answers batches
 * of questions about the filters of Cassandra 0.7 - 5.0 on stdin/stdout. The protocol is described in
 * tests/oracle/oracle_protocol.h; every integer is big-endian (DataInput/DataOutput order).
 *
 * Request frame:  i32 payload length, payload = u8 op, i32 case count, the cases.
 * Response frame: i32 payload length, payload = u8 status (0 ok, 1 error + UTF message), answers.
 *
 * Keys are handed to the filter code as ByteBuffers that view the request payload in place,
 * so their position is non-zero and their array is shared, as Cassandra passes row keys.
 */
public final class Main {
  static final int OP_HASH64 = 1;
  static final int OP_HASH32 = 2;
  static final int OP_BUCKETS64 = 3;
  static final int OP_BUCKETS32 = 4;
  static final int OP_SIZE = 5;
  static final int OP_BUILD_V10 = 6;
  static final int OP_BUILD_LEGACY = 7;
  static final int OP_BUILD_ROW = 8;
  static final int OP_PROBE_V10 = 9;
  static final int OP_PROBE_LEGACY = 10;
  static final int OP_WRITE_BITSET = 11;
  static final int OP_PROBE_ROW = 12;
  static final int OP_DOUBLE_TO_STRING = 13;
  static final int OP_PROBABILITIES = 14;
  static final int OP_MURMUR3 = 15;
  static final int OP_INDEXES_MURMUR3 = 16;
  static final int OP_SIZE_MURMUR3 = 17;
  static final int OP_BUILD_MURMUR3 = 18;
  static final int OP_PROBE_MURMUR3 = 19;
  static final int OP_STRING_BYTES = 20;
  static final int OP_BUILD_STRING = 21;
  static final int OP_BUILD_STRING_SIZED = 22;

  static final int KIND_FP = 0;
  static final int KIND_BUCKETS = 1;
  static final int KIND_EMPTY = 2;

  static final int MAX_FRAME = 1 << 30;

  private final SizingRules withAssertions;
  private final SizingRules withoutAssertions;

  Main() throws ReflectiveOperationException {
    withAssertions = AssertionLoader.load(true);
    withoutAssertions = AssertionLoader.load(false);
  }

  public static void main(String[] args) throws Exception {
    Main oracle = new Main();
    DataInputStream in = new DataInputStream(
        new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16));
    DataOutputStream out = new DataOutputStream(
        new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16));
    for (;;) {
      int length;
      try {
        length = in.readInt();
      } catch (EOFException e) {
        return;  // the test process closed the pipe: done
      }
      if (length < 0 || length > MAX_FRAME) {
        System.err.println("bloomcodec oracle: bad frame length " + length);
        System.exit(2);
      }
      byte[] payload = new byte[length];
      in.readFully(payload);
      // The whole request is read before any answer is written, so the caller may send a
      // complete batch without reading concurrently.
      byte[] answer = oracle.answer(payload);
      out.writeInt(answer.length);
      out.write(answer);
      out.flush();
    }
  }

  byte[] answer(byte[] payload) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    try {
      out.writeByte(0);
      ByteBuffer in = ByteBuffer.wrap(payload);
      int op = in.get() & 0xff;
      int count = in.getInt();
      for (int i = 0; i < count; ++i) answerCase(op, payload, in, out);
      if (in.hasRemaining()) throw new IllegalStateException(in.remaining() + " bytes left over");
      out.flush();
      return bytes.toByteArray();
    } catch (Throwable e) {  // a broken batch is reported, the oracle stays up for the next
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      DataOutputStream eo = new DataOutputStream(err);
      try {
        eo.writeByte(1);
        eo.writeUTF(String.valueOf(e));
        eo.flush();
      } catch (IOException never) {
        throw new IllegalStateException(never);
      }
      return err.toByteArray();
    }
  }

  /** A view of the next length-prefixed byte string, in place (non-zero position). */
  static ByteBuffer bytesView(byte[] payload, ByteBuffer in) {
    int length = in.getInt();
    int at = in.position();
    in.position(at + length);
    return ByteBuffer.wrap(payload, at, length);
  }

  static ByteBuffer[] keysView(byte[] payload, ByteBuffer in) {
    int count = in.getInt();
    ByteBuffer[] keys = new ByteBuffer[count];
    for (int i = 0; i < count; ++i) keys[i] = bytesView(payload, in);
    return keys;
  }

  static byte[] copy(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b.length);
    out.write(b);
  }

  /** The same key as a slice (non-zero arrayOffset) and as a direct buffer. */
  static ByteBuffer[] otherViews(ByteBuffer key) {
    ByteBuffer direct = ByteBuffer.allocateDirect(key.remaining() + 3);
    direct.position(3);
    direct.put(key.duplicate());
    direct.position(3);
    return new ByteBuffer[] {key.slice(), direct};
  }

  static String outcome(Throwable t) {
    // "SimpleClassName: message", or the bare name when there is no message.
    String name = t.getClass().getSimpleName();
    return t.getMessage() == null ? name : name + ": " + t.getMessage();
  }

  SizingRules rules(int assertions) {
    return assertions != 0 ? withAssertions : withoutAssertions;
  }

  void answerCase(int op, byte[] payload, ByteBuffer in, DataOutputStream out) throws Exception {
    switch (op) {
      case OP_STRING_BYTES: {
        String s = StringFilter.fromCodeUnits(bytesView(payload, in));
        writeBytes(out, StringFilter.hashed(s));
        // DataOutput.writeUTF's bytes (after its length), which Index.db keys of 0.6 are.
        ByteArrayOutputStream utf = new ByteArrayOutputStream();
        new DataOutputStream(utf).writeUTF(s);
        byte[] all = utf.toByteArray();
        writeBytes(out, java.util.Arrays.copyOfRange(all, 2, all.length));
        return;
      }
      case OP_BUILD_STRING: {
        int hashCount = in.getInt();
        int nbits = in.getInt();
        int count = in.getInt();
        String[] keys = new String[count];
        for (int i = 0; i < count; ++i) keys[i] = StringFilter.fromCodeUnits(bytesView(payload, in));
        int probeCount = in.getInt();
        String[] probes = new String[probeCount];
        for (int i = 0; i < probeCount; ++i) {
          probes[i] = StringFilter.fromCodeUnits(bytesView(payload, in));
        }
        StringFilter filter = new StringFilter(hashCount, nbits);
        for (String key : keys) filter.add(key);
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        DataOutputStream fileOut = new DataOutputStream(file);
        filter.serialize(fileOut);
        fileOut.flush();
        writeBytes(out, file.toByteArray());
        for (String probe : probes) out.writeByte(filter.isPresent(probe) ? 1 : 0);
        return;
      }
      case OP_BUILD_STRING_SIZED: {
        // 0.6's SSTableWriter: getFilter(keyCount, 15) (or a given fp chance), every String added.
        int kind = in.get();
        long n = in.getLong();
        double fp = in.getDouble();
        int target = in.getInt();
        int count = in.getInt();
        String[] keys = new String[count];
        for (int i = 0; i < count; ++i) keys[i] = StringFilter.fromCodeUnits(bytesView(payload, in));
        SizingResult r;
        try {
          r = kind == KIND_FP ? withAssertions.stringForFp(n, fp)
                              : withAssertions.stringForBuckets(n, target);
        } catch (RuntimeException | AssertionError e) {
          out.writeUTF(outcome(e));
          return;
        }
        StringFilter filter = new StringFilter(r.hashCount, (int) r.requestedBits);
        for (String key : keys) filter.add(key);
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        DataOutputStream fileOut = new DataOutputStream(file);
        filter.serialize(fileOut);
        fileOut.flush();
        out.writeUTF("OK");
        writeBytes(out, file.toByteArray());
        return;
      }
      case OP_HASH64: {
        ByteBuffer key = bytesView(payload, in);
        long seed = in.getLong();
        long h = JavaMurmur.hash64(key, seed);
        for (ByteBuffer view : otherViews(key)) {
          if (JavaMurmur.hash64(view, seed) != h) throw new IllegalStateException("views differ");
        }
        out.writeLong(h);
        return;
      }
      case OP_HASH32: {
        ByteBuffer key = bytesView(payload, in);
        int seed = in.getInt();
        int h = JavaMurmur.hash32(key, seed);
        for (ByteBuffer view : otherViews(key)) {
          if (JavaMurmur.hash32(view, seed) != h) throw new IllegalStateException("views differ");
        }
        out.writeInt(h);
        return;
      }
      case OP_BUCKETS64: {
        ByteBuffer key = bytesView(payload, in);
        int hashCount = in.getInt();
        long max = in.getLong();
        for (long b : V10Filter.hashBuckets(key, hashCount, max)) out.writeLong(b);
        return;
      }
      case OP_BUCKETS32: {
        ByteBuffer key = bytesView(payload, in);
        int hashCount = in.getInt();
        int max = in.getInt();
        for (int b : LegacyFilter.hashBuckets(key, hashCount, max)) out.writeInt(b);
        return;
      }
      case OP_SIZE: {
        int kind = in.get();
        SizingRules rules = rules(in.get());
        long n = in.getLong();
        double fp = in.getDouble();
        int target = in.getInt();
        SizingResult r;
        try {
          switch (kind) {
            case 0: r = rules.v10ForFp(n, fp); break;
            case 1: r = rules.v10ForBuckets(n, target); break;
            case 2: r = rules.legacyForFp(n, fp); break;
            case 3: r = rules.legacyForBuckets(n, target); break;
            default: throw new IllegalArgumentException("sizing kind " + kind);
          }
        } catch (RuntimeException | AssertionError e) {
          if (e instanceof IllegalArgumentException) throw e;
          out.writeUTF(outcome(e));
          return;
        }
        out.writeUTF("OK");
        out.writeInt(r.hashCount);
        out.writeInt(r.bucketsPerElement);
        out.writeLong(r.requestedBits);
        out.writeInt(r.wordCount);
        out.writeUTF(r.warning);
        return;
      }
      case OP_BUILD_V10: {
        int kind = in.get();
        long n = in.getLong();
        double fp = in.getDouble();
        int target = in.getInt();
        ByteBuffer[] keys = keysView(payload, in);
        V10Filter filter;
        try {
          if (kind == KIND_EMPTY) {
            filter = new V10Filter(0, 1);  // BloomFilter.emptyFilter()
          } else {
            SizingResult r = kind == KIND_FP ? withAssertions.v10ForFp(n, fp)
                                             : withAssertions.v10ForBuckets(n, target);
            filter = new V10Filter(r.hashCount, r.wordCount);
          }
        } catch (RuntimeException | AssertionError e) {
          out.writeUTF(outcome(e));
          return;
        }
        for (ByteBuffer key : keys) filter.add(key);
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        DataOutputStream fileOut = new DataOutputStream(file);
        filter.serialize(fileOut);
        fileOut.flush();
        out.writeUTF("OK");
        writeBytes(out, file.toByteArray());
        return;
      }
      case OP_BUILD_LEGACY: {
        int kind = in.get();
        long n = in.getLong();
        double fp = in.getDouble();
        int target = in.getInt();
        ByteBuffer[] keys = keysView(payload, in);
        LegacyFilter filter;
        try {
          SizingResult r = kind == KIND_FP ? withAssertions.legacyForFp(n, fp)
                                           : withAssertions.legacyForBuckets(n, target);
          // LegacyBloomFilter.bucketsFor: a BitSet constructed with a fixed size.
          filter = new LegacyFilter(r.hashCount, new BitSet((int) r.requestedBits));
        } catch (RuntimeException | AssertionError e) {
          out.writeUTF(outcome(e));
          return;
        }
        for (ByteBuffer key : keys) filter.add(key);
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        DataOutputStream fileOut = new DataOutputStream(file);
        filter.serialize(fileOut);
        fileOut.flush();
        out.writeUTF("OK");
        writeBytes(out, file.toByteArray());
        return;
      }
      case OP_BUILD_ROW: {
        long estimated = in.getLong();
        ByteBuffer[] names = keysView(payload, in);
        V10Filter filter;
        try {
          SizingResult r = withAssertions.v10ForBuckets(estimated, 4);  // ColumnIndexer
          filter = new V10Filter(r.hashCount, r.wordCount);
        } catch (RuntimeException | AssertionError e) {
          out.writeUTF(outcome(e));
          return;
        }
        for (ByteBuffer name : names) filter.add(name);
        ByteArrayOutputStream serialized = new ByteArrayOutputStream();
        DataOutputStream filterOut = new DataOutputStream(serialized);
        filter.serialize(filterOut);
        filterOut.flush();
        ByteArrayOutputStream row = new ByteArrayOutputStream();
        DataOutputStream rowOut = new DataOutputStream(row);
        rowOut.writeInt(serialized.size());  // the length prefix of the column filter
        serialized.writeTo(rowOut);
        rowOut.flush();
        out.writeUTF("OK");
        writeBytes(out, row.toByteArray());
        return;
      }
      case OP_PROBE_V10: {
        byte[] file = copy(bytesView(payload, in));
        ByteBuffer[] keys = keysView(payload, in);
        V10Filter filter;
        try {
          filter = V10Filter.deserialize(new DataInputStream(new ByteArrayInputStream(file)));
          writeProbeAnswers(out, filter.hashCount, filter.words.length, keys, filter::isPresent);
        } catch (IOException | RuntimeException e) {
          out.writeUTF(outcome(e));
        }
        return;
      }
      case OP_PROBE_LEGACY: {
        byte[] file = copy(bytesView(payload, in));
        ByteBuffer[] keys = keysView(payload, in);
        LegacyFilter filter;
        try {
          filter = LegacyFilter.deserialize(new DataInputStream(new ByteArrayInputStream(file)));
          writeProbeAnswers(out, filter.hashCount, filter.bits.size() / 64, keys, filter::isPresent);
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
          out.writeUTF(outcome(e));
        }
        return;
      }
      case OP_WRITE_BITSET: {
        int hashCount = in.getInt();
        boolean fixedSize = in.get() != 0;
        int nbits = in.getInt();
        int setCount = in.getInt();
        // Fixed size keeps trailing zero words in the stream; a growing BitSet is trimmed by
        // its writeObject to the highest set bit.
        BitSet bits = fixedSize ? new BitSet(nbits) : new BitSet();
        for (int i = 0; i < setCount; ++i) bits.set(in.getInt());
        LegacyFilter filter = new LegacyFilter(hashCount, bits);
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        DataOutputStream fileOut = new DataOutputStream(file);
        filter.serialize(fileOut);
        fileOut.flush();
        out.writeUTF("OK");
        writeBytes(out, file.toByteArray());
        return;
      }
      case OP_PROBE_ROW: {
        boolean legacy = in.get() != 0;
        ByteBuffer row = bytesView(payload, in);
        ByteBuffer[] keys = keysView(payload, in);
        // IndexHelper.defreezeBloomFilter: length, bounds check, then the filter from L bytes.
        DataInputStream rowIn = new DataInputStream(new ByteArrayInputStream(copy(row)));
        try {
          int length = rowIn.readInt();
          if (length <= 0 || length > row.remaining() - 4) {
            throw new IOException("bad column filter length " + length);
          }
          byte[] serialized = new byte[length];
          rowIn.readFully(serialized);
          DataInputStream filterIn = new DataInputStream(new ByteArrayInputStream(serialized));
          if (legacy) {
            LegacyFilter f = LegacyFilter.deserialize(filterIn);
            writeProbeAnswers(out, f.hashCount, f.bits.size() / 64, keys, f::isPresent);
          } else {
            V10Filter f = V10Filter.deserialize(filterIn);
            writeProbeAnswers(out, f.hashCount, f.words.length, keys, f::isPresent);
          }
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
          out.writeUTF(outcome(e));
        }
        return;
      }
      case OP_DOUBLE_TO_STRING:
        // How the refusal texts print an fp chance ("Unable to satisfy " + fp + ...).
        out.writeUTF(Double.toString(in.getDouble()));
        return;
      case OP_PROBABILITIES: {
        // The table every sizing answer above rests on, row by row, for the golden check.
        int bpe = in.getInt();
        if (bpe < 0 || bpe >= Sizing.PROBS.length) {
          throw new IllegalArgumentException("buckets per element " + bpe);
        }
        out.writeInt(Sizing.OPT_K[bpe]);
        out.writeInt(Sizing.PROBS[bpe].length);
        for (double p : Sizing.PROBS[bpe]) out.writeUTF(Double.toString(p));
        return;
      }
      case OP_MURMUR3: {
        ByteBuffer key = bytesView(payload, in);
        long[] h = JavaMurmur3.hash(key);
        for (ByteBuffer view : otherViews(key)) {
          long[] v = JavaMurmur3.hash(view);
          if (v[0] != h[0] || v[1] != h[1]) throw new IllegalStateException("views differ");
        }
        out.writeLong(h[0]);
        out.writeLong(h[1]);
        return;
      }
      case OP_INDEXES_MURMUR3: {
        ByteBuffer key = bytesView(payload, in);
        boolean oldOrder = in.get() != 0;
        int hashCount = in.getInt();
        long max = in.getLong();
        for (long b : Murmur3Filter.hashBuckets(key, hashCount, max, oldOrder)) out.writeLong(b);
        return;
      }
      case OP_SIZE_MURMUR3: {
        SizingRules rules = rules(in.get());
        long n = in.getLong();
        double fp = in.getDouble();
        SizingResult r;
        try {
          r = rules.murmur3ForFp(n, fp);
        } catch (RuntimeException | AssertionError e) {
          out.writeUTF(outcome(e));
          return;
        }
        out.writeUTF("OK");
        out.writeByte(r.alwaysPresent ? 1 : 0);
        out.writeInt(r.hashCount);
        out.writeInt(r.bucketsPerElement);
        out.writeLong(r.requestedBits);
        out.writeInt(r.wordCount);
        return;
      }
      case OP_BUILD_MURMUR3: {
        int variant = in.get();
        long n = in.getLong();
        double fp = in.getDouble();
        ByteBuffer[] keys = keysView(payload, in);
        SizingResult r;
        try {
          r = withAssertions.murmur3ForFp(n, fp);
        } catch (RuntimeException | AssertionError e) {
          out.writeUTF(outcome(e));
          return;
        }
        if (r.alwaysPresent) {
          // 3.x/4.x writers add no FILTER component; 5.0's always-present filter writes nothing.
          if (variant == Murmur3Filter.V4_0) {
            out.writeUTF("OK");
            writeBytes(out, new byte[0]);
          } else {
            out.writeUTF("NoFilterComponent");
          }
          return;
        }
        Murmur3Filter filter = new Murmur3Filter(r.hashCount, r.wordCount, variant == Murmur3Filter.V1_2);
        for (ByteBuffer key : keys) filter.add(key);
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        DataOutputStream fileOut = new DataOutputStream(file);
        filter.serialize(fileOut, variant);
        fileOut.flush();
        out.writeUTF("OK");
        writeBytes(out, file.toByteArray());
        return;
      }
      case OP_PROBE_MURMUR3: {
        int variant = in.get();
        byte[] file = copy(bytesView(payload, in));
        ByteBuffer[] keys = keysView(payload, in);
        if (variant == Murmur3Filter.V4_0 && file.length == 0) {
          // 5.0 loads a 0-byte Filter.db as the always-present filter.
          writeProbeAnswers(out, 0, 0, keys, key -> true);
          return;
        }
        try {
          Murmur3Filter filter =
              Murmur3Filter.deserialize(new DataInputStream(new ByteArrayInputStream(file)), variant);
          writeProbeAnswers(out, filter.hashCount, filter.bits.length / 8, keys, filter::isPresent);
        } catch (IOException | RuntimeException e) {
          out.writeUTF(outcome(e));
        }
        return;
      }
      default:
        throw new IllegalArgumentException("unknown op " + op);
    }
  }

  interface Membership {
    boolean isPresent(ByteBuffer key);
  }

  static void writeProbeAnswers(DataOutputStream out, int hashCount, int wordCount,
      ByteBuffer[] keys, Membership filter) throws IOException {
    // All answers first: a lookup that throws must not leave a half-written answer behind.
    byte[] answers = new byte[keys.length];
    for (int i = 0; i < keys.length; ++i) answers[i] = (byte) (filter.isPresent(keys[i]) ? 1 : 0);
    out.writeUTF("OK");
    out.writeInt(hashCount);
    out.writeInt(wordCount);
    out.write(answers);
  }
}

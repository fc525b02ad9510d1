package bloomcodec.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * The JVM side of the Cassandra benchmarks: what Cassandra 1.0's BloomFilter does, on the JDK,
 * timed inside the JVM after a warm-up so that start-up and JIT compilation are not counted.
 *
 * <p>Per key, as the original: MurmurHash.hash64 twice over the key's ByteBuffer (absolute
 * get(i), signed bytes), getHashBuckets allocating a long[K] of Math.abs((h1 + i*h2) % max),
 * OpenBitSet-style set/get on a long[] (word b >>> 6, bit b & 63). Filter.db is written with
 * DataOutputStream.writeInt/writeLong and read with DataInputStream.readInt/readLong, both over
 * buffered file streams (no fsync). Keys come from the same splitmix64 stream as the C++ side
 * (bench_keys.h), so both sides hash the same bytes and the printed bit counts can be compared.
 *
 * <p>Times are CPU time of the benchmark thread, best of the timed runs.
 *
 * <p>Usage: java -Xmx6g -cp JAR bloomcodec.bench.CassandraBench DIR N:K:W [N:K:W ...]
 * prints one JSON object per line: {"name": ..., "ns": per key, "check": ...}.
 */
public final class CassandraBench {
  private CassandraBench() {}

  static final int KEY_LENGTH = 16;

  // --- Key stream, identical to bench_keys.h ----------------------------------------------

  static long splitmix64(long x) {
    long z = x + 0x9e3779b97f4a7c15L;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** n keys of KEY_LENGTH bytes back to back; set 0 = stored keys, set 1 = absent keys. */
  static ByteBuffer keys(int n, int set) {
    byte[] all = new byte[n * KEY_LENGTH];
    for (int i = 0; i < n; ++i) {
      long base = ((long) set << 48) ^ ((long) i << 8);
      for (int w = 0; w < KEY_LENGTH / 8; ++w) {
        long v = splitmix64(base + w);
        for (int b = 0; b < 8; ++b) all[i * KEY_LENGTH + w * 8 + b] = (byte) (v >>> (8 * b));
      }
    }
    return ByteBuffer.wrap(all);
  }

  // --- Cassandra 1.0 MurmurHash.hash64 ----------------------------------------------------

  static long hash64(ByteBuffer key, int offset, int length, long seed) {
    final long m = 0xc6a4a7935bd1e995L;
    final int r = 47;
    long h = (seed & 0xffffffffL) ^ (length * m);
    int len8 = length >> 3;
    for (int i = 0; i < len8; ++i) {
      int i8 = i << 3;
      long k = ((long) key.get(offset + i8 + 0) & 0xff) + (((long) key.get(offset + i8 + 1) & 0xff) << 8)
          + (((long) key.get(offset + i8 + 2) & 0xff) << 16) + (((long) key.get(offset + i8 + 3) & 0xff) << 24)
          + (((long) key.get(offset + i8 + 4) & 0xff) << 32) + (((long) key.get(offset + i8 + 5) & 0xff) << 40)
          + (((long) key.get(offset + i8 + 6) & 0xff) << 48) + (((long) key.get(offset + i8 + 7) & 0xff) << 56);
      k *= m;
      k ^= k >>> r;
      k *= m;
      h ^= k;
      h *= m;
    }
    int tail = offset + (len8 << 3);
    int tailLength = length & 7;
    if (tailLength > 0) {
      // Tail bytes widened as signed bytes (no & 0xff): a byte >= 0x80 flips every bit above it.
      for (int j = 0; j < tailLength; ++j) h ^= ((long) key.get(tail + j)) << (8 * j);
      h *= m;
    }
    h ^= h >>> r;
    h *= m;
    h ^= h >>> r;
    return h;
  }

  // --- BloomFilter + OpenBitSet -----------------------------------------------------------

  static final class Filter {
    final int hashCount;
    final long[] bits;

    Filter(int hashCount, int words) {
      this.hashCount = hashCount;
      this.bits = new long[words];
    }

    Filter(int hashCount, long[] bits) {
      this.hashCount = hashCount;
      this.bits = bits;
    }

    long capacity() {
      return (long) bits.length << 6;
    }

    // BloomFilter.getHashBuckets(ByteBuffer key, int hashCount, long max): a fresh long[] per key.
    long[] getHashBuckets(ByteBuffer key, int offset, int length) {
      long max = capacity();
      long[] result = new long[hashCount];
      long hash1 = hash64(key, offset, length, 0L);
      long hash2 = hash64(key, offset, length, hash1);
      for (int i = 0; i < hashCount; ++i) result[i] = Math.abs((hash1 + (long) i * hash2) % max);
      return result;
    }

    void add(ByteBuffer key, int offset, int length) {
      for (long bucket : getHashBuckets(key, offset, length)) {
        int i = (int) (bucket >> 6);
        bits[i] |= 1L << (bucket & 63);  // OpenBitSet.set(long)
      }
    }

    boolean isPresent(ByteBuffer key, int offset, int length) {
      for (long bucket : getHashBuckets(key, offset, length)) {
        int i = (int) (bucket >> 6);
        if ((bits[i] & (1L << (bucket & 63))) == 0) return false;  // OpenBitSet.get(long)
      }
      return true;
    }

    long cardinality() {
      long c = 0;
      for (long w : bits) c += Long.bitCount(w);
      return c;
    }
  }


  static void serialize(Filter f, File file) throws IOException {
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(new FileOutputStream(file)))) {
      out.writeInt(f.hashCount);
      out.writeInt(f.bits.length);
      for (long w : f.bits) out.writeLong(w);
    }
  }

  static Filter deserialize(File file) throws IOException {
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(new FileInputStream(file)))) {
      int hashCount = in.readInt();
      int words = in.readInt();
      long[] bits = new long[words];
      for (int i = 0; i < words; ++i) bits[i] = in.readLong();
      return new Filter(hashCount, bits);
    }
  }

  // --- Timing -----------------------------------------------------------------------------

  interface Work {
    long run() throws IOException;  // returns a check value so the JIT cannot drop the work
  }

  // CPU time of this thread, as the C++ side reports (Google Benchmark's cpu_time): the machine
  // is shared, and wall time would count other processes. GC and JIT threads are not counted,
  // which can only flatter the JVM.
  static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** Warms up, then repeats `work` until ~minNanos have passed; returns ns per key of the best. */
  static double time(Work work, int keysPerRun, long minNanos, long[] check) throws IOException {
    // The big sizes run after the small ones in the same JVM, so the code is compiled by then;
    // they warm up once and keep the best of two runs.
    final boolean big = keysPerRun >= 10_000_000;
    final int minWarm = big ? 1 : 3;
    final int minRuns = big ? 2 : 3;
    long warmStart = System.nanoTime();
    int warm = 0;
    while (warm < minWarm || (System.nanoTime() - warmStart < minNanos && warm < 20)) {
      check[0] = work.run();
      ++warm;
    }
    double best = Double.MAX_VALUE;
    long start = System.nanoTime();
    int runs = 0;
    while (runs < minRuns || (System.nanoTime() - start < minNanos && runs < 50)) {
      long t0 = THREADS.getCurrentThreadCpuTime();
      check[0] = work.run();
      long t1 = THREADS.getCurrentThreadCpuTime();
      best = Math.min(best, (double) (t1 - t0) / keysPerRun);
      ++runs;
    }
    return best;
  }

  static void report(String name, double ns, long check) {
    System.out.println(String.format(Locale.ROOT, "{\"name\": \"%s\", \"ns\": %.3f, \"check\": %d}",
        name, ns, check));
    System.out.flush();
  }

  public static void main(String[] args) throws IOException {
    File dir = new File(args[0]);
    for (int a = 1; a < args.length; ++a) {
      // N:K:W - key count, and the hash and word counts getFilter(N, 15) gives (the sizing itself
      // is not timed on either side, and is checked bit for bit by the tests).
      String[] spec = args[a].split(":");
      final int n = Integer.parseInt(spec[0]);
      final int hashCount = Integer.parseInt(spec[1]);
      final int words = Integer.parseInt(spec[2]);
      // The big sizes run once after one warm-up; small ones repeat for ~0.3 s.
      final long minNanos = n >= 10_000_000 ? 0L : 300_000_000L;
      final ByteBuffer present = keys(n, 0);
      final ByteBuffer absent = keys(Math.min(n, 1 << 20), 1);
      final int probes = Math.min(n, 1 << 20);
      long[] check = new long[1];
      final Filter[] built = new Filter[1];
      String suffix = "/keys:" + n + "/original";

      double ns = time(() -> {
        Filter f = new Filter(hashCount, words);
        for (int i = 0; i < n; ++i) f.add(present, i * KEY_LENGTH, KEY_LENGTH);
        built[0] = f;
        return f.bits.length;
      }, n, minNanos, check);
      report("cassandra/build" + suffix, ns, built[0].cardinality());

      ns = time(() -> {
        long hits = 0;
        for (int i = 0; i < probes; ++i) if (built[0].isPresent(present, i * KEY_LENGTH, KEY_LENGTH)) ++hits;
        return hits;
      }, probes, minNanos, check);
      report("cassandra/query_hit" + suffix, ns, check[0]);

      ns = time(() -> {
        long hits = 0;
        for (int i = 0; i < probes; ++i) if (built[0].isPresent(absent, i * KEY_LENGTH, KEY_LENGTH)) ++hits;
        return hits;
      }, probes, minNanos, check);
      report("cassandra/query_miss" + suffix, ns, check[0]);

      // Filter.db for the load benchmark; writing is not compared (ours would fsync).
      final File file = new File(dir, "jvm-Filter-" + n + ".db");
      serialize(built[0], file);

      ns = time(() -> deserialize(file).cardinality(), n, minNanos, check);
      report("cassandra/load" + suffix, ns, check[0]);

      if (n == 10_000_000) {
        // verify: load Filter.db and ask it for every stored key; all must be present.
        ns = time(() -> {
          Filter f = deserialize(file);
          long hits = 0;
          for (int i = 0; i < n; ++i) if (f.isPresent(present, i * KEY_LENGTH, KEY_LENGTH)) ++hits;
          if (hits != n) throw new IllegalStateException("false negative");
          return hits;
        }, n, minNanos, check);
        report("cassandra/verify/keys:" + n + "/original", ns, check[0]);
      }
      file.delete();
      built[0] = null;
    }
  }
}

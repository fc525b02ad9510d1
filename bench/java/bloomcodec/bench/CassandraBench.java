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
 * <p>The Murmur3 filter of Cassandra 3.0 - 5.0 (Murmur3Filter below, "cassandra4/" rows) is
 * timed the same way; its bits live in a direct ByteBuffer, as the original's OffHeapBitSet keeps
 * them in native memory, and its hash and indexes go into reusable arrays, as the original's do.
 *
 * <p>Usage: java -Xmx6g -cp JAR bloomcodec.bench.CassandraBench DIR N:K:W|m3:N:K:W ...
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


  // --- Cassandra 3.0+ BloomFilter: Murmur3 hash3_x64_128, new index order, OffHeapBitSet --

  static long getBlock(ByteBuffer key, int at) {
    // As hash3_x64_128's getblock: eight absolute get()s, masked, little-endian.
    return ((long) key.get(at) & 0xff) | (((long) key.get(at + 1) & 0xff) << 8)
        | (((long) key.get(at + 2) & 0xff) << 16) | (((long) key.get(at + 3) & 0xff) << 24)
        | (((long) key.get(at + 4) & 0xff) << 32) | (((long) key.get(at + 5) & 0xff) << 40)
        | (((long) key.get(at + 6) & 0xff) << 48) | (((long) key.get(at + 7) & 0xff) << 56);
  }

  static long fmix(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }

  /** hash3_x64_128(key, offset, length, seed 0) into result[0..1] (2.0+ fills a caller array). */
  static void hash3(ByteBuffer key, int offset, int length, long[] result) {
    final long c1 = 0x87c37b91114253d5L;
    final long c2 = 0x4cf5ad432745937fL;
    long h1 = 0;
    long h2 = 0;
    int blocks = length >> 4;
    for (int i = 0; i < blocks; ++i) {
      long k1 = getBlock(key, offset + 16 * i);
      long k2 = getBlock(key, offset + 16 * i + 8);
      k1 *= c1; k1 = Long.rotateLeft(k1, 31); k1 *= c2; h1 ^= k1;
      h1 = Long.rotateLeft(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
      k2 *= c2; k2 = Long.rotateLeft(k2, 33); k2 *= c1; h2 ^= k2;
      h2 = Long.rotateLeft(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
    }
    int tail = offset + 16 * blocks;
    int rest = length & 15;
    long k1 = 0;
    long k2 = 0;
    // Tail bytes widened as signed bytes, as Cassandra's text does.
    for (int t = rest - 1; t >= 8; --t) k2 ^= ((long) key.get(tail + t)) << (8 * (t - 8));
    if (rest > 8) { k2 *= c2; k2 = Long.rotateLeft(k2, 33); k2 *= c1; h2 ^= k2; }
    for (int t = Math.min(rest, 8) - 1; t >= 0; --t) k1 ^= ((long) key.get(tail + t)) << (8 * t);
    if (rest > 0) { k1 *= c1; k1 = Long.rotateLeft(k1, 31); k1 *= c2; h1 ^= k1; }
    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 += h2;
    h2 += h1;
    result[0] = h1;
    result[1] = h2;
  }

  /**
   * 3.0 - 5.0's BloomFilter over an OffHeapBitSet: the bits in native memory (a direct
   * ByteBuffer here, byte get/put as Memory.getByte/setByte), the hash and the K indexes written
   * into per-thread reusable arrays, index i = FBUtilities.abs(base % max) with base += inc.
   */
  static final class Murmur3Filter {
    final int hashCount;
    final ByteBuffer bits;
    final long max;
    final long[] indexes = new long[21];  // the reusable index array (FastThreadLocal in 3.0+)

    Murmur3Filter(int hashCount, int words) {
      this.hashCount = hashCount;
      this.bits = ByteBuffer.allocateDirect(words * 8);
      this.max = (long) words * 64;
    }

    void setIndexes(ByteBuffer key, int offset, int length) {
      hash3(key, offset, length, indexes);
      long base = indexes[1];  // new order: base h1, step h0
      long inc = indexes[0];
      for (int i = 0; i < hashCount; ++i) {
        long x = base % max;
        long sign = x >> 63;
        indexes[i] = (x ^ sign) - sign;
        base += inc;
      }
    }

    void add(ByteBuffer key, int offset, int length) {
      setIndexes(key, offset, length);
      for (int i = 0; i < hashCount; ++i) {
        int at = (int) (indexes[i] >> 3);
        bits.put(at, (byte) (bits.get(at) | (1 << (indexes[i] & 7))));
      }
    }

    boolean isPresent(ByteBuffer key, int offset, int length) {
      setIndexes(key, offset, length);
      for (int i = 0; i < hashCount; ++i) {
        if ((bits.get((int) (indexes[i] >> 3)) & (1 << (indexes[i] & 7))) == 0) return false;
      }
      return true;
    }

    long cardinality() {
      long c = 0;
      for (int i = 0; i + 8 <= bits.capacity(); i += 8) c += Long.bitCount(bits.getLong(i));
      return c;
    }
  }

  static void benchMurmur3(int n, int hashCount, int words) throws IOException {
    final long minNanos = n >= 10_000_000 ? 0L : 300_000_000L;
    final ByteBuffer present = keys(n, 0);
    final ByteBuffer absent = keys(Math.min(n, 1 << 20), 1);
    final int probes = Math.min(n, 1 << 20);
    long[] check = new long[1];
    final Murmur3Filter[] built = new Murmur3Filter[1];
    String suffix = "/keys:" + n + "/original";
    double ns = time(() -> {
      Murmur3Filter f = new Murmur3Filter(hashCount, words);
      for (int i = 0; i < n; ++i) f.add(present, i * KEY_LENGTH, KEY_LENGTH);
      built[0] = f;
      return f.max;
    }, n, minNanos, check);
    report("cassandra4/build" + suffix, ns, built[0].cardinality());
    ns = time(() -> {
      long hits = 0;
      for (int i = 0; i < probes; ++i) if (built[0].isPresent(present, i * KEY_LENGTH, KEY_LENGTH)) ++hits;
      return hits;
    }, probes, minNanos, check);
    report("cassandra4/query_hit" + suffix, ns, check[0]);
    ns = time(() -> {
      long hits = 0;
      for (int i = 0; i < probes; ++i) if (built[0].isPresent(absent, i * KEY_LENGTH, KEY_LENGTH)) ++hits;
      return hits;
    }, probes, minNanos, check);
    report("cassandra4/query_miss" + suffix, ns, check[0]);
    built[0] = null;
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
      if (args[a].startsWith("m3:")) {
        // m3:N:K:W - the Murmur3 filter of 3.0 - 5.0, sized as FilterFactory.getFilter(N, 0.01).
        String[] m3 = args[a].split(":");
        benchMurmur3(Integer.parseInt(m3[1]), Integer.parseInt(m3[2]), Integer.parseInt(m3[3]));
        continue;
      }
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

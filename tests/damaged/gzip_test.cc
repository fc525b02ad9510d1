// .gz inputs that lie: a lying filter header inside a gzip stream, a gzip trailer whose ISIZE
// lies (too large, too small), and gzip streams cut short. The CLI inflates a .gz input into
// memory before reading it, so the bound here is relative to the inflated size: the buffer is
// reserved from ISIZE (capped by deflate's 1032:1) and filled once, so peak memory stays about
// 1 x the inflated content (never the 3 x of a doubling buffer).
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "codec/byte_writer.h"
#include "damaged/damaged_runner.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

const std::string kKeys = "key0\nkey1\nbloomcodec\n";

ByteVector Gzip(ByteSpan plain) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  ByteVector out(deflateBound(&z, plain.size()) + 64);
  z.next_in = const_cast<Bytef*>(plain.data());
  z.avail_in = static_cast<uInt>(plain.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void SetIsize(ByteVector& gz, std::uint32_t isize) {
  for (int i = 0; i < 4; ++i) gz[gz.size() - 4 + i] = static_cast<std::uint8_t>(isize >> (8 * i));
}

// A Cassandra Filter.db whose header claims 2^31 - 1 words, followed by `zeros` zero bytes.
ByteVector LyingFilterDb(std::size_t zeros) {
  ByteVector bytes;
  ByteWriter w(bytes);
  w.PutBigI32(3);
  w.PutBigI32(0x7fffffff);
  bytes.resize(8 + zeros, 0);
  return bytes;
}

constexpr std::size_t kInflated = std::size_t{64} << 20;

// About 1 x the inflated content: the baseline, the content, a quarter for zlib's window, the
// mapped input and the allocator, and the usual 16 MiB.
std::int64_t InflatedBoundKib(std::size_t inflated) {
  return BaselineRssKib() + static_cast<std::int64_t>(inflated / 1024) * 5 / 4 + 16 * 1024;
}

TEST(DamagedGzip, LyingHeaderInsideAGzipStreamCostsAboutTheInflatedSize) {
  const ByteVector gz = Gzip(LyingFilterDb(kInflated));
  ASSERT_LT(gz.size(), std::size_t{200} << 10);  // a small file that inflates to 64 MiB
  DamagedDir dir;
  const std::string keys = dir.Write("keys.txt", kKeys);
  const std::string file = dir.Write("lying-Filter.db.gz", gz);
  Child r = RunChild({"probe", "--format", "cassandra-1.0", "--keys", keys, file});
  ExpectCorruptMessage(r, "probe", file, 8);
  EXPECT_NE(r.err.find("2147483647 words"), std::string::npos) << r.err;
  EXPECT_LE(r.peak_rss_kib, InflatedBoundKib(kInflated)) << "baseline " << BaselineRssKib();
}

TEST(DamagedGzip, IsizeThatLiesIsRefusedWithinBoundedMemory) {
  const ByteVector honest = Gzip(LyingFilterDb(kInflated));
  struct Lie {
    const char* what;
    std::uint32_t isize;
    std::int64_t bound_kib;  // a low ISIZE means growing the buffer: the usual 4 x bound
  };
  const Lie lies[] = {
      {"ISIZE 2^32 - 1 (capped at 1032 x the file)", 0xffffffffu, InflatedBoundKib(kInflated)},
      {"ISIZE 0", 0, RssBoundKib(kInflated)},
      {"ISIZE half the content", static_cast<std::uint32_t>(kInflated / 2), RssBoundKib(kInflated)},
  };
  for (const Lie& lie : lies) {
    SCOPED_TRACE(lie.what);
    ByteVector gz = honest;
    SetIsize(gz, lie.isize);
    DamagedDir dir;
    const std::string keys = dir.Write("keys.txt", kKeys);
    const std::string file = dir.Write("Filter.db.gz", gz);
    Child r = RunChild({"probe", "--format", "cassandra-1.0", "--keys", keys, file});
    // zlib checks ISIZE after the last byte: the gzip stream itself is refused.
    ExpectCorruptMessage(r, "probe", file, gz.size());
    EXPECT_NE(r.err.find("gzip"), std::string::npos) << r.err;
    EXPECT_LE(r.peak_rss_kib, lie.bound_kib) << "baseline " << BaselineRssKib();
  }
}

TEST(DamagedGzip, IsizeThatLiesOnAValidFilterIsRefused) {
  const ByteVector plain = ReadFixture("cassandra-1.0/legacy/legacy_n10_b15.Filter.db");
  for (std::uint32_t isize : {0u, 1u, 0xffffffffu, static_cast<std::uint32_t>(plain.size() + 1)}) {
    SCOPED_TRACE(isize);
    ByteVector gz = Gzip(plain);
    SetIsize(gz, isize);
    DamagedDir dir;
    const std::string keys = dir.Write("keys.txt", kKeys);
    const std::string file = dir.Write("Filter.db.gz", gz);
    Child r = RunChild({"probe", "--format", "cassandra-legacy", "--keys", keys, file});
    ExpectCorruptMessage(r, "probe", file, gz.size());
    EXPECT_LE(r.peak_rss_kib, RssBoundKib(plain.size())) << "baseline " << BaselineRssKib();
  }
  // The honest one is read.
  DamagedDir dir;
  const std::string keys = dir.Write("keys.txt", kKeys);
  const std::string file = dir.Write("Filter.db.gz", Gzip(plain));
  Child r = RunChild({"probe", "--format", "cassandra-legacy", "--keys", keys, file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(DamagedGzip, TruncatedGzipIsRefused) {
  const ByteVector plain = ReadFixture("cassandra-1.0/legacy/legacy_n10_b15.Filter.db");
  const std::size_t big_inflated = 8 + (std::size_t{4} << 20);
  const std::vector<std::pair<ByteVector, std::size_t>> streams = {
      {Gzip(plain), plain.size()}, {Gzip(LyingFilterDb(big_inflated - 8)), big_inflated}};
  for (const auto& [gz, inflated] : streams) {
    std::vector<std::size_t> cuts = {
        0, 1, 2, 9, 10, 11, gz.size() / 2, gz.size() - 8, gz.size() - 5, gz.size() - 1};
    for (std::size_t cut : cuts) {
      SCOPED_TRACE("cut at " + std::to_string(cut) + " of " + std::to_string(gz.size()));
      DamagedDir dir;
      const std::string keys = dir.Write("keys.txt", kKeys);
      const std::string file = dir.Write("Filter.db.gz", ByteSpan(gz).first(cut));
      Child r = RunChild({"probe", "--format", "cassandra-legacy", "--keys", keys, file});
      ExpectCorruptMessage(r, "probe", file, cut);
      EXPECT_LE(r.peak_rss_kib, RssBoundKib(inflated)) << "baseline " << BaselineRssKib();
    }
  }
}

}  // namespace
}  // namespace bloomcodec::testing

// Filters beyond 2 GiB, as sparse files (a valid header and a few bits written, the rest holes):
// the CLI reads them with the original's arithmetic, touching only the pages it probes.
// * Cassandra 1.0: W is an i32, so the largest filter is 2^31 - 1 words (16 GiB + 8 bytes) with
//   modulus 64 W = 2^37 - 64 (a long); W >= 2^31 cannot be written (negative: refused).
// * LevelDB: bits = (len - 1) * 8 is a size_t and positions are `h % bits` with a 32-bit h, so a
//   filter of more than 2^32 bits (> 512 MiB) uses only its first 2^32 bits.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/format.h"
#include "bloomcodec/leveldb/hash.h"
#include "damaged/damaged_runner.h"

namespace bloomcodec::testing {
namespace {

const std::string kKeys = "needle\nhay0\nhay1\nhay2\nhay3\n";

// Creates `path` as a sparse file of `size` bytes with `bytes` written at their offsets.
bool MakeSparse(const std::string& path, std::uint64_t size,
                const std::vector<std::pair<std::uint64_t, std::uint8_t>>& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  bool ok = ::ftruncate(fd, static_cast<off_t>(size)) == 0;
  for (const auto& [at, value] : bytes) {
    ok = ok && ::pwrite(fd, &value, 1, static_cast<off_t>(at)) == 1;
  }
  return ::close(fd) == 0 && ok;
}

// Memory of a probe that touches a few pages of a huge mapped file: far below its size.
constexpr std::int64_t kSparseSlackKib = 64 * 1024;

TEST(BigFiles, CassandraFilterOfTheLargestWordCount) {
  constexpr std::int32_t kWords = 0x7fffffff;
  constexpr std::int32_t kHashes = 3;
  const std::int64_t modulus = std::int64_t{kWords} * 64;
  const std::uint64_t size = 8 + std::uint64_t{kWords} * 8;
  // The needle's buckets, set in the big-endian word layout: bucket b is bit b & 63 of word b >> 6.
  std::set<std::int64_t> buckets;
  const cassandra::KeyHashes64 h = cassandra::HashKey64(AsBytes("needle"));
  for (std::int32_t i = 0; i < kHashes; ++i) buckets.insert(cassandra::BucketIndex(h, i, modulus));
  std::map<std::uint64_t, std::uint8_t> bytes = {
      {3, kHashes}, {4, 0x7f}, {5, 0xff}, {6, 0xff}, {7, 0xff}};
  for (std::int64_t b : buckets) {
    const std::uint64_t byte = 8 + ((static_cast<std::uint64_t>(b) >> 3) ^ 7);
    bytes[byte] |= static_cast<std::uint8_t>(1u << (b & 7));
  }
  // Far buckets exist: the filter is really read beyond 4 GiB.
  EXPECT_GT(*buckets.rbegin(), std::int64_t{1} << 35);

  DamagedDir dir;
  const std::string file = dir.Path("big-Filter.db");
  ASSERT_TRUE(MakeSparse(file, size, {bytes.begin(), bytes.end()})) << "sparse file " << file;
  const std::string keys = dir.Write("keys.txt", kKeys);
  Child r = RunChild({"probe", "--format", "cassandra-1.0", "--keys", keys, file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected;
  for (std::string_view key : {"needle", "hay0", "hay1", "hay2", "hay3"}) {
    const cassandra::KeyHashes64 kh = cassandra::HashKey64(AsBytes(key));
    bool all = true;
    for (std::int32_t i = 0; i < kHashes; ++i)
      all = all && buckets.count(cassandra::BucketIndex(kh, i, modulus));
    expected += all ? "1\n" : "0\n";
  }
  EXPECT_EQ(expected.substr(0, 2), "1\n");
  EXPECT_EQ(r.out, expected);
  EXPECT_LE(r.peak_rss_kib, BaselineRssKib() + kSparseSlackKib);

  // One byte short of the words the header promises: refused, naming the size.
  ::truncate(file.c_str(), static_cast<off_t>(size - 1));
  r = RunChild({"probe", "--format", "cassandra-1.0", "--keys", keys, file});
  ExpectCorruptMessage(r, "probe", file, 8);
  EXPECT_NE(r.err.find("2147483647 words (17179869176 bytes)"), std::string::npos) << r.err;
}

TEST(BigFiles, LevelDbFilterBeyondTwoToThe32Bits) {
  // len - 1 = 2^29 + 4096 bytes: bits = 2^32 + 32768; `h % bits` = h for every 32-bit h.
  const std::uint64_t data_bytes = (std::uint64_t{1} << 29) + 4096;
  const std::uint64_t bits = data_bytes * 8;
  constexpr std::uint8_t k = 6;
  std::map<std::uint64_t, std::uint8_t> bytes = {{data_bytes, k}};
  auto positions = [&](std::string_view key) {
    // LevelDB's KeyMayMatch: double hashing with a 17-bit rotation, positions h % bits.
    std::uint32_t h = leveldb::BloomHash(AsBytes(key), leveldb::HashFlavor::kUnsignedTail);
    const std::uint32_t delta = (h >> 17) | (h << 15);
    std::vector<std::uint64_t> out;
    for (int j = 0; j < k; ++j) {
      out.push_back(std::uint64_t{h} % bits);
      h += delta;
    }
    return out;
  };
  for (std::uint64_t pos : positions("needle"))
    bytes[pos / 8] |= static_cast<std::uint8_t>(1u << (pos % 8));

  DamagedDir dir;
  const std::string file = dir.Path("big.bloom");
  ASSERT_TRUE(MakeSparse(file, data_bytes + 1, {bytes.begin(), bytes.end()}));
  const std::string keys = dir.Write("keys.txt", kKeys);
  Child r = RunChild({"probe", "--format", "leveldb-bloom", "--keys", keys, file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected;
  for (std::string_view key : {"needle", "hay0", "hay1", "hay2", "hay3"}) {
    bool all = true;
    for (std::uint64_t pos : positions(key)) {
      auto it = bytes.find(pos / 8);
      all = all && it != bytes.end() && (it->second >> (pos % 8) & 1);
    }
    expected += all ? "1\n" : "0\n";
  }
  EXPECT_EQ(expected.substr(0, 2), "1\n");
  EXPECT_EQ(r.out, expected);
  EXPECT_LE(r.peak_rss_kib, BaselineRssKib() + kSparseSlackKib);
}

TEST(BigFiles, LevelDbInspectCountsOnlyTheReachableBits) {
  // 2^29 + 4096 bytes of bits: 2^32 reachable, 32768 beyond. A byte of set bits on each side.
  const std::uint64_t data_bytes = (std::uint64_t{1} << 29) + 4096;
  const std::uint64_t reachable_bytes = std::uint64_t{1} << 29;
  DamagedDir dir;
  const std::string file = dir.Path("big.bloom");
  ASSERT_TRUE(MakeSparse(file, data_bytes + 1,
                         {{0, 0x0f},
                          {reachable_bytes - 1, 0x01},
                          {reachable_bytes, 0xff},
                          {data_bytes - 1, 0xff},
                          {data_bytes, 6}}));
  Child r = RunChild({"inspect", "--format", "leveldb-bloom", "--json", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Document doc = Document::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  const Document& f = doc["files"][0];
  EXPECT_EQ(f["bits"].get<std::uint64_t>(), std::uint64_t{1} << 32) << f.dump();
  EXPECT_EQ(f["bits_set"].get<std::uint64_t>(), 5u)
      << f.dump();  // 0x0f and 0x01: the reachable ones
  EXPECT_EQ(f["bits_total"].get<std::uint64_t>(), data_bytes * 8) << f.dump();
  EXPECT_EQ(f["bits_unreachable"].get<std::uint64_t>(), 32768u) << f.dump();
  ASSERT_TRUE(f.contains("note")) << f.dump();
  EXPECT_NE(f["note"].get<std::string>().find("only the first 2^32 bits"), std::string::npos);
  EXPECT_LE(r.peak_rss_kib, RssBoundKib(data_bytes + 1));
  // The human form carries the note too.
  r = RunChild({"inspect", "--format", "leveldb-bloom", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("only the first 2^32 bits"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace bloomcodec::testing

// Pebble's binary fuse filter. Where the expected values come from:
// * Construction vectors (kVectors): produced once, outside the tree, by FastFilter/xorfilter's
//   binaryfusefilter.go at 4e5a4d9 (the version Pebble's go.mod pins) and Pebble's
//   bitpacking.go (f82e3ff74d10), compiled with Debian's Go 1.19 (only the Go 1.20+ helpers
//   unsafe.SliceData, clear, slices.Sort and max replaced by equivalents), given the hashes
//   below, with Pebble's 14-byte trailer appended as filter.go's build does. They pin the seeds,
//   the attempts (re-seeding, the halved segment length of attempts 2 and 6, the restore of 3
//   and 7), duplicate pruning, the peeling order and the packing of every fingerprint width.
// * The sizing table: xorfilter's own TestBinaryFuseParams, restated.
// * The one-key filter and the query: derived in this file from the formulas of FORMAT.md §7.4
//   with code written here (splitmix64, fmix64, the slot formula, a bit-by-bit unpacker).
// * XXH3-64 of the empty input: xxHash's published value.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cmath>
#include <string>
#include <vector>

#include "leveldb/random_keys.h"
#include "pebble/binary_fuse.h"
#include "support/test_support.h"

namespace bloomcodec::pebble {
namespace {

using ::bloomcodec::testing::HexBytes;
using ::bloomcodec::testing::RandomKeys;
using ::bloomcodec::testing::SplitMix64;

// The test hashes: splitmix64 from `seed` (xorfilter's generator, state += golden first); with
// dup_every, hash i (i >= 3, i % dup_every == 0) repeats hash i - 3; then equal neighbours drop.
std::vector<std::uint64_t> TestHashes(std::uint64_t seed, std::size_t n, std::size_t dup_every) {
  SplitMix64 rng(seed);
  std::vector<std::uint64_t> h(n);
  for (auto& v : h) v = rng.Next();
  for (std::size_t i = 3; dup_every != 0 && i < n; ++i) {
    if (i % dup_every == 0) h[i] = h[i - 3];
  }
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || h[i] != h[i - 1]) out.push_back(h[i]);
  }
  return out;
}

std::uint64_t Fnv1a(ByteSpan b) {
  std::uint64_t h = 14695981039346656037ULL;
  for (std::uint8_t c : b) h = (h ^ c) * 1099511628211ULL;
  return h;
}

struct Vector {
  std::uint64_t seed;
  std::size_t n;  // before the collapse
  std::uint32_t bits;
  std::size_t dup_every;
  std::uint32_t attempts;
  std::uint32_t segment_count;
  std::uint32_t segment_length;
  std::size_t bytes;
  std::uint64_t fnv;
  const char* hex;  // the whole filter when short
};

const Vector kVectors[] = {
    {1, 1, 8, 0, 1, 1, 4, 26, 0x0e42553cd13ff39a,
     "000000000000000046000000c15c0289ec2d0a91010000000208"},
    {7, 3, 4, 0, 1, 1, 8, 26, 0xa55b0b947edf7533,
     "00070000000000000000e00dc15c0289ec2d0a91010000000304"},
    {11, 2, 16, 0, 1, 1, 4, 38, 0x53646c1c6ea9551a,
     "000000000000a5e50000000000000000000000000000687cc15c0289ec2d0a91010000000210"},
    {12, 4, 10, 0, 1, 1, 8, 47, 0x687ddf369dd1cd14,
     "000000000000000000000000b03b000000000000000000403700b88a1b00000000c15c0289ec2d0a9101000000"
     "030a"},
    {9, 100, 12, 0, 1, 1, 64, 303, 0xa85eaf74ea2acf26, nullptr},
    {29, 5, 8, 3, 2, 4, 4, 38, 0x7f57ebf7f91b1090,
     "000000000038000000006400006d000000007d000000000067ec8e65a18debbe040000000208"},
    {37, 5, 12, 3, 2, 4, 4, 51, 0x2d8d829af01cfb38,
     "000000000000e50a00000000e50a0000000000000000000000f0ae008029000000590e000067ec8e65a18debbe"
     "04000000020c"},
    {56, 5, 16, 0, 3, 1, 8, 62, 0x92c89d8803ff7015,
     "000000000000000000000000000000000000000000000000000016f90000e08a000000000000c9310000884700"
     "005a835e5532fbeea293f8010000000310"},
    {1958, 7, 10, 0, 4, 1, 8, 47, 0x482903aa56bd092a,
     "0000a008000000000000000000c02f1f990e0000000000000000d8526e0e0000000bc942ee9086c17101000000"
     "030a"},
    {1071, 20, 4, 3, 6, 4, 8, 38, 0x4d4ecd0f5cf9a5b4,
     "0000000b50f05000006010084050c000000060900000060480021590ff0b4dc3040000000304"},
    {331, 1000, 8, 3, 7, 9, 128, 1422, 0x9009abf89ebdb096, nullptr},
    {418, 1000, 16, 3, 6, 20, 64, 2830, 0x74e1e3bab978be87, nullptr},
    {3, 10000, 4, 0, 1, 23, 512, 6414, 0x455c7e460ede6184, nullptr},
    {5, 100000, 16, 0, 1, 56, 2048, 237582, 0x0c62e873c7108e82, nullptr},
    {6, 1000000, 10, 0, 1, 136, 8192, 1413137, 0xfacbc14a5f06ed37, nullptr},
    {8, 1000000, 12, 2, 2, 136, 8192, 1695759, 0x0267cd8de2f40115, nullptr},
};

TEST(PebbleBinaryFuse, XorfilterConstructionVectors) {
  for (const Vector& v : kVectors) {
    SCOPED_TRACE("seed " + std::to_string(v.seed) + " n " + std::to_string(v.n));
    const std::vector<std::uint64_t> hashes = TestHashes(v.seed, v.n, v.dup_every);
    BinaryFuseBuildInfo info;
    auto built = BuildBinaryFuseFromHashes(v.bits, hashes, &info);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    ASSERT_TRUE(built->has_value());
    const ByteVector& f = **built;
    EXPECT_EQ(info.attempts, v.attempts);
    EXPECT_EQ(info.geometry.segment_count, v.segment_count);
    EXPECT_EQ(info.geometry.segment_length, v.segment_length);
    EXPECT_EQ(f.size(), v.bytes);
    EXPECT_EQ(Fnv1a(f), v.fnv);
    if (v.hex != nullptr) {
      EXPECT_EQ(ToHex(f), v.hex);
    }
    auto r = BinaryFuseReader::Parse(f, "built");
    ASSERT_TRUE(r.ok());
    for (std::uint64_t h : hashes) ASSERT_TRUE(r->HashMayMatch(h));
  }
}

TEST(PebbleBinaryFuse, SizingIsXorfiltersTable) {
  // xorfilter's TestBinaryFuseParams: per segment length, the key counts and segment counts.
  struct Row {
    std::uint32_t length, count_min, count_max, size_min, size_max;
  };
  const Row rows[] = {
      {4, 1, 1, 1, 2},
      {8, 1, 1, 3, 8},
      {16, 1, 2, 9, 27},
      {32, 1, 3, 28, 91},
      {64, 1, 5, 92, 303},
      {128, 2, 9, 304, 1009},
      {256, 4, 16, 1010, 3361},
      {512, 7, 26, 3362, 11192},
      {1024, 12, 42, 11193, 37272},
      {2048, 20, 69, 37273, 124117},
      {4096, 34, 114, 124118, 413309},
      {8192, 56, 188, 413310, 1376321},
      {16384, 93, 313, 1376322, 4583149},
  };
  for (const Row& row : rows) {
    for (std::uint32_t n = row.size_min; n <= row.size_max; ++n) {
      const BinaryFuseGeometry g = BinaryFuseInitialGeometry(n);
      ASSERT_EQ(g.segment_length, row.length) << n;
      ASSERT_GE(g.segment_count, row.count_min) << n;
      ASSERT_LE(g.segment_count, row.count_max) << n;
    }
    EXPECT_EQ(BinaryFuseInitialGeometry(row.size_min).segment_count, row.count_min);
    EXPECT_EQ(BinaryFuseInitialGeometry(row.size_max).segment_count, row.count_max);
  }
  EXPECT_EQ(BinaryFuseInitialGeometry(0), (BinaryFuseGeometry{4, 1}));
}

// Everything below is computed here from FORMAT.md §7.4, not by the library.
std::uint64_t Fmix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

struct Trailer {
  std::uint64_t seed = 0;
  std::uint32_t count = 0, shift = 0, bits = 0;
};
Trailer ReadTrailer(const ByteVector& f) {
  Trailer t;
  const std::size_t at = f.size() - 14;
  for (int i = 7; i >= 0; --i) t.seed = (t.seed << 8) | f[at + i];
  for (int i = 3; i >= 0; --i) t.count = (t.count << 8) | f[at + 8 + i];
  t.shift = f[at + 12];
  t.bits = f[at + 13];
  return t;
}
// Entry i: bit by bit from bit i * B, least significant first.
std::uint32_t Entry(const ByteVector& f, std::uint64_t i, std::uint32_t bits) {
  std::uint32_t v = 0;
  for (std::uint32_t b = 0; b < bits; ++b) {
    const std::uint64_t at = i * bits + b;
    v |= static_cast<std::uint32_t>((f[at / 8] >> (at % 8)) & 1) << b;
  }
  return v;
}
bool PlainQuery(const ByteVector& f, std::uint64_t hash) {
  const Trailer t = ReadTrailer(f);
  const std::uint64_t m = Fmix(hash + t.seed);
  const std::uint64_t length = std::uint64_t{1} << t.shift;
  const unsigned __int128 product = static_cast<unsigned __int128>(m) * (t.count * length);
  const auto h0 = static_cast<std::uint64_t>(product >> 64);
  const std::uint64_t h1 = (h0 + length) ^ ((m >> 18) & (length - 1));
  const std::uint64_t h2 = (h0 + 2 * length) ^ (m & (length - 1));
  const std::uint32_t fp = static_cast<std::uint32_t>(m ^ (m >> 32)) & ((1U << t.bits) - 1);
  return fp == (Entry(f, h0, t.bits) ^ Entry(f, h1, t.bits) ^ Entry(f, h2, t.bits));
}

TEST(PebbleBinaryFuse, OneKeyByHand) {
  // One key: L = 4, C = 1, 12 slots. All three slots hold one key; the queue lists them in slot
  // order and pops the last, h2: the key is peeled there (slot number 2) and its fingerprint
  // goes to F[h2]; every other entry stays 0.
  const std::uint64_t hash = XXH3_64bits("pebble", 6);
  std::uint64_t state = 1;
  state += 0x9E3779B97F4A7C15ULL;
  std::uint64_t seed = state;
  seed = (seed ^ (seed >> 30)) * 0xBF58476D1CE4E5B9ULL;
  seed = (seed ^ (seed >> 27)) * 0x94D049BB133111EBULL;
  seed ^= seed >> 31;
  const std::uint64_t m = Fmix(hash + seed);
  const std::uint64_t h0 = m >> 62;  // the high word of m * 4
  const std::uint64_t h2 = (h0 + 8) ^ (m & 3);
  for (std::uint32_t bits : {4U, 8U, 10U, 12U, 16U}) {
    KeyList keys;
    keys.Add(std::string_view("pebble"));
    auto built = BuildBinaryFuse(bits, keys);
    ASSERT_TRUE(built.ok() && built->has_value());
    const ByteVector& f = **built;
    ByteVector expected(FingerprintArrayBytes(12, bits), 0);
    const std::uint32_t fp = static_cast<std::uint32_t>(m ^ (m >> 32)) & ((1U << bits) - 1);
    for (std::uint32_t b = 0; b < bits; ++b) {
      const std::uint64_t at = h2 * bits + b;
      expected[at / 8] |= static_cast<std::uint8_t>(((fp >> b) & 1) << (at % 8));
    }
    for (int i = 0; i < 8; ++i) expected.push_back(static_cast<std::uint8_t>(seed >> (8 * i)));
    for (std::uint8_t b : {1, 0, 0, 0, 2}) expected.push_back(b);
    expected.push_back(static_cast<std::uint8_t>(bits));
    EXPECT_EQ(ToHex(f), ToHex(expected)) << bits;
    EXPECT_TRUE(PlainQuery(f, hash));
  }
  // The packed sizes of FORMAT.md §7.4 for 12 entries: 6, 12, 15 + 3, 18 + 1, 24.
  EXPECT_EQ(FingerprintArrayBytes(12, 4), 6u);
  EXPECT_EQ(FingerprintArrayBytes(12, 10), 18u);
  EXPECT_EQ(FingerprintArrayBytes(13, 12), 22u);
  EXPECT_EQ(FingerprintArrayBytes(12, 16), 24u);
}

TEST(PebbleBinaryFuse, HashIsReleasedXxh3) {
  EXPECT_EQ(BinaryFuseHash(ByteSpan()), 0x2D06800538D394C2ULL);
  for (const std::string& k : RandomKeys(2, 300)) {
    EXPECT_EQ(BinaryFuseHash(AsBytes(k)), XXH3_64bits(k.data(), k.size()));
  }
}

TEST(PebbleBinaryFuse, EveryKeyPresentTrailerConsistent) {
  for (std::uint32_t bits : {4U, 8U, 10U, 12U, 16U}) {
    for (std::size_t n : {1U, 2U, 5U, 64U, 999U, 5000U, 30000U}) {
      KeyList keys;
      for (const std::string& k : RandomKeys(bits * 1000 + n, n, 50)) keys.Add(k);
      const std::vector<std::uint64_t> hashes = CollapsedBinaryFuseHashes(keys);
      BinaryFuseBuildInfo info;
      auto built = BuildBinaryFuseFromHashes(bits, hashes, &info);
      ASSERT_TRUE(built.ok() && built->has_value()) << bits << " " << n;
      const ByteVector& f = **built;
      const Trailer t = ReadTrailer(f);
      EXPECT_EQ(t.bits, bits);
      // The trailer's geometry is the sizing of n, or its halving (same array).
      const BinaryFuseGeometry sized =
          BinaryFuseInitialGeometry(static_cast<std::uint32_t>(hashes.size()));
      const BinaryFuseGeometry got{std::uint32_t{1} << t.shift, t.count};
      const BinaryFuseGeometry halved{sized.segment_length / 2, sized.segment_count * 2 + 2};
      EXPECT_TRUE(got == sized || got == halved) << bits << " " << n;
      EXPECT_EQ(f.size(), FingerprintArrayBytes(sized.entries(), bits) + 14);
      bool covered = false;
      for (const BinaryFuseKeyRange& r : BinaryFuseKeyCapacity(got)) {
        covered = covered || (r.min <= hashes.size() && hashes.size() <= r.max);
      }
      EXPECT_TRUE(covered) << bits << " " << n;
      auto r = BinaryFuseReader::Parse(f, "built");
      ASSERT_TRUE(r.ok());
      std::vector<std::uint8_t> answers(keys.size());
      r->MayContainBatch(keys, answers);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        ASSERT_EQ(answers[i], 1) << i;
        ASSERT_TRUE(PlainQuery(f, XXH3_64bits(keys[i].data(), keys[i].size()))) << i;
      }
    }
  }
}

TEST(PebbleBinaryFuse, AbsentKeysPassAtTwoToTheMinusB) {
  for (std::uint32_t bits : {4U, 8U, 10U, 12U, 16U}) {
    SplitMix64 rng(bits);
    std::vector<std::uint64_t> hashes(20000);
    for (auto& h : hashes) h = rng.Next();
    const ByteVector f = BuildBinaryFuseFromHashes(bits, hashes)->value();
    auto r = BinaryFuseReader::Parse(f, "built");
    ASSERT_TRUE(r.ok());
    EXPECT_DOUBLE_EQ(r->expected_fp_rate(), std::ldexp(1.0, -static_cast<int>(bits)));
    const std::uint64_t trials = 1ULL << 22;
    std::uint64_t passed = 0, agree = 0;
    for (std::uint64_t i = 0; i < trials; ++i) {
      const std::uint64_t h = rng.Next();
      const bool p = r->HashMayMatch(h);
      passed += p ? 1 : 0;
      if (i < 20000) agree += p == PlainQuery(f, h) ? 1 : 0;
    }
    EXPECT_EQ(agree, 20000u);
    const double mean = static_cast<double>(trials) * r->expected_fp_rate();
    // Six standard deviations of a binomial count and then some: a generous bound that a wrong
    // fingerprint width (a factor of 4 or more) still fails.
    EXPECT_LT(std::abs(static_cast<double>(passed) - mean), 6 * std::sqrt(mean) + 0.15 * mean + 2)
        << bits << ": " << passed << " of " << trials;
  }
}

TEST(PebbleBinaryFuse, WhenPebbleWritesNoFilter) {
  EXPECT_FALSE(BuildBinaryFuse(8, KeyList())->has_value());
  EXPECT_EQ(BuildBinaryFuse(7, KeyList()).status().code(), StatusCode::kInvalidArgument);
  // A set of only equal neighbours is one hash.
  KeyList same;
  for (int i = 0; i < 5; ++i) same.Add(std::string_view("k"));
  EXPECT_EQ(CollapsedBinaryFuseHashes(same).size(), 1u);
  EXPECT_TRUE(BuildBinaryFuse(8, same)->has_value());
}

TEST(PebbleBinaryFuse, KeyCapacityOfAGeometry) {
  const auto ranges = BinaryFuseKeyCapacity(BinaryFuseGeometry{4, 4});  // 5 keys, halved
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_TRUE(ranges[0].halved);
  EXPECT_EQ(ranges[0].min, 5u);
  EXPECT_EQ(ranges[0].max, 8u);
  const auto sized = BinaryFuseKeyCapacity(BinaryFuseGeometry{64, 5});
  ASSERT_FALSE(sized.empty());
  EXPECT_FALSE(sized[0].halved);
  EXPECT_EQ(sized[0].max, 303u);  // the last count of the 64-slot row
  EXPECT_TRUE(BinaryFuseKeyCapacity(BinaryFuseGeometry{64, 100}).empty());
}

}  // namespace
}  // namespace bloomcodec::pebble

// Unit tests of the bloom policy with hand-computed expectations, and properties of our own API
// (batch = single, appending, the Filter view).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <bit>
#include <string>
#include <vector>

#include "bloomcodec/leveldb/bloom.h"
#include "leveldb/filter_kernels.h"
#include "random_keys.h"
#include "rc_check.h"
#include "support/cpu_kernels.h"
#include "support/rc_rates.h"

namespace bloomcodec::leveldb {
namespace {

using ::bloomcodec::testing::CheckProperty;
using ::bloomcodec::testing::RandomKeys;

TEST(BloomPolicy, NamesAndFlavours) {
  EXPECT_EQ(BloomPolicy::Current(10).name(), "leveldb.BuiltinBloomFilter2");
  EXPECT_EQ(BloomPolicy::Legacy117(10).name(), "leveldb.BuiltinBloomFilter");
  EXPECT_EQ(BloomPolicy::Current(10).flavor, HashFlavor::kUnsignedTail);
  EXPECT_EQ(BloomPolicy::Legacy117(10).flavor, HashFlavor::kSignedTail);
}

TEST(BloomPolicy, ProbesTruncateInDoubleAndClamp) {
  EXPECT_EQ(BloomPolicy::Current(0).probes(), 1);    // 0 -> clamped up
  EXPECT_EQ(BloomPolicy::Current(1).probes(), 1);    // 0.69 -> 0 -> 1
  EXPECT_EQ(BloomPolicy::Current(2).probes(), 1);    // 1.38
  EXPECT_EQ(BloomPolicy::Current(10).probes(), 6);   // 6.9
  EXPECT_EQ(BloomPolicy::Current(43).probes(), 29);  // 29.67
  EXPECT_EQ(BloomPolicy::Current(44).probes(), 30);  // 30.36 -> clamped
  EXPECT_EQ(BloomPolicy::Current(1000).probes(), 30);
  EXPECT_EQ(BloomPolicy::Current(-5).probes(), 1);  // documented: negative acts as 0
}

TEST(BloomPolicy, GeometryRoundsUpToBytesWithA64BitFloor) {
  const BloomPolicy p = BloomPolicy::Current(10);
  EXPECT_EQ(GeometryFor(p, 0).bits, 64u);
  EXPECT_EQ(GeometryFor(p, 0).filter_bytes, 9u);
  EXPECT_EQ(GeometryFor(p, 6).bits, 64u);  // 60 -> 64
  EXPECT_EQ(GeometryFor(p, 7).bits, 72u);  // 70 -> 72 (rounded up to whole bytes)
  EXPECT_EQ(GeometryFor(p, 7).filter_bytes, 10u);
  EXPECT_EQ(GeometryFor(BloomPolicy::Current(3), 23).bits, 72u);  // 69 -> 72
  EXPECT_EQ(GeometryFor(p, 1000).bits, 10000u);
  EXPECT_EQ(GeometryFor(BloomPolicy::Current(0), 1000).bits, 64u);
}

TEST(BloomFilter, EmptyKeySetIsNineZeroBytesAndK) {
  ByteVector f;
  AppendBloomFilter(BloomPolicy::Current(10), KeyList(), f);
  EXPECT_EQ(ToHex(f), "000000000000000006");
  for (HashFlavor flavor : {HashFlavor::kUnsignedTail, HashFlavor::kSignedTail}) {
    EXPECT_FALSE(BloomKeyMayMatch(flavor, AsBytes("a"), f));
  }
}

TEST(BloomFilter, OneKeySetsTheHandComputedBits) {
  // One key, k = 1 (bits_per_key 1), 64 bits: exactly bit (h % 64) is set.
  const std::uint32_t h = BloomHash(AsBytes("x"), HashFlavor::kUnsignedTail);
  ByteVector f;
  KeyList keys;
  keys.Add("x");
  AppendBloomFilter(BloomPolicy::Current(1), keys, f);
  ASSERT_EQ(f.size(), 9u);
  ByteVector expected(9, 0);
  expected[(h % 64) / 8] = static_cast<std::uint8_t>(1u << (h % 8));
  expected[8] = 1;
  EXPECT_EQ(f, expected);
  // k = 2: the second probe is h + rotr(h, 17).
  f.clear();
  AppendBloomFilter(BloomPolicy::Current(3), keys, f);  // 3 * 0.69 = 2.07 -> k = 2
  const std::uint32_t h2 = h + ((h >> 17) | (h << 15));
  expected.assign(9, 0);
  expected[(h % 64) / 8] |= static_cast<std::uint8_t>(1u << (h % 8));
  expected[(h2 % 64) / 8] |= static_cast<std::uint8_t>(1u << (h2 % 8));
  expected[8] = 2;
  EXPECT_EQ(f, expected);
}

TEST(BloomFilter, AppendsAfterExistingBytes) {
  ByteVector dst = {0xaa, 0xbb};
  KeyList keys;
  keys.Add("k1");
  keys.Add("k2");
  AppendBloomFilter(BloomPolicy::Current(10), keys, dst);
  ByteVector alone;
  AppendBloomFilter(BloomPolicy::Current(10), keys, alone);
  ASSERT_EQ(dst.size(), alone.size() + 2);
  EXPECT_EQ(dst[0], 0xaa);
  EXPECT_EQ(dst[1], 0xbb);
  EXPECT_TRUE(std::equal(alone.begin(), alone.end(), dst.begin() + 2));
}

TEST(BloomKeyMayMatch, ReaderEdgeCases) {
  const ByteSpan key = AsBytes("anything");
  const auto answer = [&](const char* hex) {
    ByteVector f;
    EXPECT_TRUE(FromHex(hex, f));
    return BloomKeyMayMatch(HashFlavor::kUnsignedTail, key, f);
  };
  EXPECT_FALSE(answer(""));                   // length 0
  EXPECT_FALSE(answer("ff"));                 // length 1, whatever the byte
  EXPECT_FALSE(answer("0001"));               // length 2, k 1, no bits: absent
  EXPECT_TRUE(answer("ff01"));                // length 2 (8 bits, no 64-bit floor on read)
  EXPECT_TRUE(answer("000000000000000000"));  // k = 0: no probes, may match
  EXPECT_TRUE(answer("00000000000000001f"));  // k = 31: reserved, may match
  EXPECT_TRUE(answer("000000000000000080"));  // 0x80 (negative char in the original)
  EXPECT_TRUE(answer("0000000000000000ff"));
  EXPECT_FALSE(answer("00000000000000001e"));  // k = 30 is still probed
  EXPECT_TRUE(answer("ffffffffffffffff1e"));
}

TEST(BloomFilterView, ReportsTheStoredGeometry) {
  const ByteVector f = {0x01, 0x03, 0xff, 0x00, 0x05};
  const BloomFilterView view(f, HashFlavor::kUnsignedTail);
  EXPECT_EQ(view.hash_count(), 5u);
  EXPECT_EQ(view.bit_count(), 32u);
  EXPECT_EQ(view.bits_set(), 11u);
  const ByteVector tiny = {0x07};
  const BloomFilterView empty(tiny, HashFlavor::kUnsignedTail);
  EXPECT_EQ(empty.hash_count(), 0u);
  EXPECT_EQ(empty.bit_count(), 0u);
  EXPECT_EQ(empty.bits_set(), 0u);
  EXPECT_FALSE(empty.MayContain(AsBytes("x")));
}

TEST(BloomFilter, BatchEqualsSingleAndFindsEveryInsertedKey) {
  CheckProperty(300, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto count = *rc::gen::inRange<std::size_t>(0, 2000);
    const int bits_per_key = *rc::gen::inRange(0, 30);
    const HashFlavor flavor = *rc::gen::element(HashFlavor::kUnsignedTail, HashFlavor::kSignedTail);
    KeyList keys;
    for (const auto& k : RandomKeys(seed, count)) keys.Add(k);
    ByteVector f;
    AppendBloomFilter(BloomPolicy{bits_per_key, flavor}, keys, f);
    RC_ASSERT(f.size() == GeometryFor(BloomPolicy{bits_per_key, flavor}, count).filter_bytes);
    std::vector<std::uint8_t> answers(keys.size());
    BloomKeyMayMatchBatch(flavor, keys, f, answers);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      RC_ASSERT(answers[i] == 1);
      RC_ASSERT(BloomKeyMayMatch(flavor, keys[i], f));
    }
    KeyList others;
    for (const auto& k : RandomKeys(~seed, 300)) others.Add(k);
    std::vector<std::uint8_t> other_answers(others.size());
    BloomFilterView(f, flavor).MayContainBatch(others, other_answers);
    for (std::size_t i = 0; i < others.size(); ++i) {
      RC_ASSERT((other_answers[i] == 1) == BloomKeyMayMatch(flavor, others[i], f));
      RC_ASSERT(BloomHashMayMatch(BloomHash(others[i], flavor), f) == (other_answers[i] == 1));
    }
  });
}

// Both flavours, keys of one length (bytes >= 0x80 in the tails too): the batch kernel that
// reads 16 bytes of eight keys at a time answers as the single-key path.
TEST(BloomFilter, BatchEqualsSingleForSameLengthKeys) {
  CheckProperty(200, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto length = *testing::Uniform<std::size_t>(0, 120);
    const auto count = *testing::Uniform<std::size_t>(0, 400);
    // The kernel reads 16 bytes of eight keys at a time: a group of eight keys, 16 bytes each.
    RC_TAG(count >= 16 && length >= 16 ? "groups of 8 keys of >= 16 bytes" : "shorter or fewer");
    const int bits_per_key = *rc::gen::inRange(1, 25);
    const HashFlavor flavor = *rc::gen::element(HashFlavor::kUnsignedTail, HashFlavor::kSignedTail);
    ::bloomcodec::testing::SplitMix64 rng(seed);
    KeyList keys, probes;
    for (std::size_t i = 0; i < count; ++i) {
      std::string key(length, '\0');
      for (char& c : key) c = static_cast<char>(rng.Next());
      (i % 2 == 0 ? keys : probes).Add(key);
      if (i % 3 == 0) probes.Add(key);
    }
    ByteVector f;
    AppendBloomFilter(BloomPolicy{bits_per_key, flavor}, keys, f);
    std::vector<std::uint8_t> answers(probes.size());
    BloomKeyMayMatchBatch(flavor, probes, f, answers);
    for (std::size_t i = 0; i < probes.size(); ++i) {
      RC_ASSERT((answers[i] == 1) == BloomKeyMayMatch(flavor, probes[i], f));
    }
  });
}

const char* LaneKernelName(LaneKernel k) {
  return k == LaneKernel::kPortable ? "portable" : "avx2";
}

// Every lane kernel this CPU supports, reported (once per test) with those it does not.
std::vector<LaneKernel> LaneKernelsToTest() {
  std::vector<LaneKernel> out;
  std::vector<testing::KernelRun> runs;
  for (LaneKernel k : kAllLaneKernels) {
    const bool supported = LaneKernelSupported(k);
    if (supported) out.push_back(k);
    runs.push_back({LaneKernelName(k), supported, "the CPU lacks avx2"});
  }
  testing::ReportKernels("filter_kernels", "formats/leveldb/filter_kernels.h", runs,
                         LaneKernelName(BestLaneKernel()));
  return out;
}

TEST(LaneHash, TheBestKernelIsSupportedAndThePortableOneAlwaysIs) {
  EXPECT_TRUE(LaneKernelSupported(LaneKernel::kPortable));
  EXPECT_EQ(BestLaneKernel(),
            LaneKernelSupported(LaneKernel::kAvx2) ? LaneKernel::kAvx2 : LaneKernel::kPortable);
  const std::vector<LaneKernel> walked = LaneKernelsToTest();
  EXPECT_NE(std::find(walked.begin(), walked.end(), BestLaneKernel()), walked.end());
}

// Every kernel hashes a chunk of keys as BloomHash hashes each: chunks of one key length (a
// multiple of 4 or not) in 1 case of 2, of lengths a few bytes apart otherwise; at least one
// group of eight keys in 3 cases of 4; bytes uniform, so tails hold bytes >= 0x80.
TEST(LaneHash, EveryKernelHashesAChunkAsBloomHash) {
  CheckProperty(300, 100, [] {
    const HashFlavor flavor = *rc::gen::element(HashFlavor::kUnsignedTail, HashFlavor::kSignedTail);
    const std::size_t n = *testing::Uniform<std::size_t>(0, kChunk + 1);
    const std::size_t length = *testing::Uniform<std::size_t>(0, 80);
    const std::size_t spread =
        *rc::gen::weightedElement<std::size_t>({{4, 0}, {1, 1}, {1, 3}, {1, 7}, {1, 16}});
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t len = length + *testing::Uniform<std::size_t>(0, spread + 1);
      keys.push_back(*rc::gen::container<std::string>(
          len,
          rc::gen::map(testing::AnyByte(), [](std::uint8_t b) { return static_cast<char>(b); })));
    }
    RC_TAG(n < 8          ? "no group of 8"
           : length >= 16 ? "groups, >= 16 shared bytes"
                          : "groups, short keys",
           spread == 0 ? "one length" : "lengths apart");
    for (LaneKernel kernel : LaneKernelsToTest()) {
      std::array<std::uint32_t, kChunk> out;
      out.fill(0x5a5a5a5a);
      HashChunk(
          kernel, flavor, [&](std::size_t i) { return AsBytes(keys[i]); }, n, out.data());
      for (std::size_t i = 0; i < n; ++i) RC_ASSERT(out[i] == BloomHash(AsBytes(keys[i]), flavor));
    }
  });
}

}  // namespace
}  // namespace bloomcodec::leveldb

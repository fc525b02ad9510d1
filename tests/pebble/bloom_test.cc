// Pebble's Bloom filter against facts stated outside our code: RocksDB's hash test vectors (which
// Pebble's bloom_test.go checks since its 2020 fix), LevelDB's C++ hash vectors (what Pebble's
// test checked before), RocksDB's FullBloomTest.FullSmall filter (Pebble's TestSmallBloomFilter),
// Pebble's probe tables and sizing arithmetic, its adaptive policy's rules (adaptive_policy_test.go
// restated), and its reader's answers at the edges. Where a value is computed here rather than
// quoted, it is by a straightforward formula written in the test, not by our library.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "leveldb/random_keys.h"
#include "pebble/bloom.h"
#include "support/test_support.h"

namespace bloomcodec::pebble {
namespace {

using ::bloomcodec::testing::HexBytes;
using ::bloomcodec::testing::RandomKeys;

BloomReader Read(ByteVector&&) = delete;  // a view: no temporaries
BloomReader Read(const ByteVector& bytes, HashFlavor flavor = HashFlavor::kSignedTail) {
  auto r = BloomReader::Parse(bytes, "test", flavor);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

KeyList ToKeyList(const std::vector<std::string>& keys) {
  KeyList list;
  for (const auto& k : keys) list.Add(k);
  return list;
}

ByteVector Build(const BloomPolicy& policy, const KeyList& keys) {
  auto r = BuildBloom(policy, keys);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r.value().has_value());
  return r.value().value_or(ByteVector());
}

// LevelDB's hash written out plainly: the tail bytes either zero- or sign-extended.
std::uint32_t PlainHash(const std::string& s, bool sign_extend) {
  constexpr std::uint32_t m = 0xc6a4a793;
  std::uint32_t h = 0xbc9f1d34U ^ static_cast<std::uint32_t>(s.size() * m);
  std::size_t i = 0;
  for (; i + 4 <= s.size(); i += 4) {
    std::uint32_t w = 0;
    for (int j = 3; j >= 0; --j) w = (w << 8) | static_cast<std::uint8_t>(s[i + j]);
    h += w;
    h *= m;
    h ^= h >> 16;
  }
  const std::size_t rest = s.size() - i;
  if (rest == 0) return h;
  for (std::size_t j = rest; j-- > 0;) {
    const auto b = static_cast<std::uint8_t>(s[i + j]);
    const std::uint32_t v =
        sign_extend ? static_cast<std::uint32_t>(static_cast<std::int8_t>(b)) : b;
    h += v << (8 * j);
  }
  h *= m;
  h ^= h >> 24;
  return h;
}

TEST(PebbleBloom, HashIsRocksDbsBloomHash) {
  // RocksDB's util/hash_test.cc TestHash vectors, as Pebble's TestHash states them since 2020.
  const std::vector<std::pair<std::string, std::uint32_t>> cases = {
      {"", 3164544308},
      {"08", 422599524},
      {"17", 3168152998},
      {"9a", 3195034349},
      {"1c", 2651681383},
      {"4d76", 2447836956},
      {"52d5", 3854228105},
      {"91f7", 31066776},
      {"d627", 1806091603},
      {"30460b", 3808221797},
      {"56dcd6", 2157698265},
      {"d45233", 1721992661},
      {"6ab5f4", 2469105222},
      {"6753811c", 118283265},
      {"69b8c088", 3416318611},
      {"1e84af2d", 3315003572},
      {"46dc54be", 447346355},
      {"d07a6eea56", 4255445370},
      {"8683d5a4d8", 2390603402},
      {"b746bb77ce", 2048907743},
      {"6ca8bce599", 2177978500},
      {"5c5ee1a07381", 1036846008},
      {"085d731ce52e", 229980482},
      {"42fbf252b410", 3655585422},
      {"73e1ff569cce", 3502708029},
      {"5cbe9775549a52", 815120748},
      {"16823949882b36", 3056033698},
      {"5977f0a724f478", 587205227},
      {"d3a57c0ec00207", 2030937252},
      {"311b98759622d39a", 469635402},
      {"38d6f72820b48ae9", 3530274698},
      {"bb185df41203f799", 1974545809},
      {"80d43b3bae22a278", 3563570120},
      {"1ab5d0feabc361b299", 2706087434},
      {"8e4ac318202f06e63c", 1534654151},
      {"b6c0dd053fc4864cef", 2355554696},
      {"9a5f780daf50e11f55", 1400800912},
      {"226f391ff8dd4f521794", 3420325137},
      {"32892a75483a4a0269dd", 3427803584},
      {"06925cf4880e7e68383e", 1152407945},
      {"bd2c6338bfe978b7bf15", 3382479516},
  };
  for (const auto& [hex, expected] : cases) {
    const ByteVector key = HexBytes(hex);
    EXPECT_EQ(BloomKeyHash(key), expected) << hex;
    EXPECT_EQ(BloomKeyHash(key, HashFlavor::kSignedTail), expected) << hex;
  }
}

TEST(PebbleBloom, UnsignedFlavourIsPebbleBefore2020) {
  // LevelDB's C++ hash.cc values, which Pebble's TestHash checked until the 2020-04-17 fix:
  // ASCII only, so both flavours give them.
  const std::vector<std::pair<std::string, std::uint32_t>> cases = {
      {"", 0xbc9f1d34},       {"g", 0xd04a8bda},
      {"go", 0x3e0b0745},     {"gop", 0x0c326610},
      {"goph", 0x8c9d6390},   {"gophe", 0x9bfd4b0a},
      {"gopher", 0xa78edc7c}, {"I had a dream it would end this way.", 0xe14a9db9},
  };
  for (const auto& [key, expected] : cases) {
    EXPECT_EQ(BloomKeyHash(AsBytes(key), HashFlavor::kUnsignedTail), expected) << key;
    EXPECT_EQ(BloomKeyHash(AsBytes(key), HashFlavor::kSignedTail), expected) << key;
  }
  // Each flavour is the plain formula; they differ exactly when a tail byte is >= 0x80.
  for (const std::string& key : RandomKeys(41, 3000)) {
    const std::uint32_t s = BloomKeyHash(AsBytes(key), HashFlavor::kSignedTail);
    const std::uint32_t u = BloomKeyHash(AsBytes(key), HashFlavor::kUnsignedTail);
    EXPECT_EQ(s, PlainHash(key, true));
    EXPECT_EQ(u, PlainHash(key, false));
    bool high_tail = false;
    for (std::size_t i = key.size() - key.size() % 4; i < key.size(); ++i) {
      high_tail = high_tail || static_cast<std::uint8_t>(key[i]) >= 0x80;
    }
    EXPECT_EQ(s != u, high_tail) << ToHex(AsBytes(key));
  }
}

TEST(PebbleBloom, SmallFilterIsRocksDbsFullSmall) {
  // RocksDB's FullBloomTest.FullSmall bits for "hello" and "world" at 10 bits per key (Pebble's
  // TestSmallBloomFilter), one 64-byte line, trailer 6 probes, 1 line.
  const ByteVector expected = HexBytes(
      "0000000100000000004000400000000010000000000000000000000000000010000000000400000001000000"
      "00004000000000000010000001000000440000000601000000");
  const KeyList keys = ToKeyList({"hello", "world"});
  for (BloomProbes era : {BloomProbes::kRounded, BloomProbes::kTable}) {
    BloomPolicy policy;
    policy.probes = era;
    const ByteVector f = Build(policy, keys);
    EXPECT_EQ(ToHex(f), ToHex(expected));
    const BloomReader r = Read(f);
    EXPECT_TRUE(r.MayContain(AsBytes("hello")));
    EXPECT_TRUE(r.MayContain(AsBytes("world")));
    EXPECT_FALSE(r.MayContain(AsBytes("x")));
    EXPECT_FALSE(r.MayContain(AsBytes("foo")));
  }
}

TEST(PebbleBloom, ProbeCountsOfBothEras) {
  // The table of 352fbf1f5, written out: bits per key 1..10, 6 above.
  const std::uint32_t table[] = {1, 1, 2, 3, 3, 4, 4, 5, 5, 6};
  for (std::uint32_t b = 1; b <= 200; ++b) {
    const auto rounded =
        static_cast<std::uint32_t>(std::clamp(static_cast<int>(std::floor(b * 0.69)), 1, 30));
    EXPECT_EQ(BloomProbeCount(b, BloomProbes::kRounded), rounded) << b;
    const std::uint32_t t = b <= 10 ? table[b - 1] : 6;
    EXPECT_EQ(BloomProbeCount(b, BloomProbes::kTable), t) << b;
    // FORMAT.md §7.2: the eras differ at 4 (2 vs 3), 9 (6 vs 5) and from 11 on.
    EXPECT_EQ(rounded != t, b == 4 || b == 9 || b >= 11) << b;
  }
  EXPECT_EQ(BloomProbeCount(4294967295U, BloomProbes::kRounded), 30u);
  EXPECT_EQ(BloomProbeCount(4294967295U, BloomProbes::kTable), 6u);
}

TEST(PebbleBloom, LinesAreOddWithNoCap) {
  for (std::uint64_t n : {1ULL, 2ULL, 51ULL, 52ULL, 100ULL, 1000ULL, 12345ULL}) {
    for (std::uint32_t b : {1U, 2U, 7U, 10U, 16U, 33U}) {
      std::uint64_t lines = (n * b + 511) / 512;
      if (lines % 2 == 0) ++lines;
      EXPECT_EQ(BloomLines(n, b), lines) << n << " " << b;
      EXPECT_EQ(BloomFilterBytes(n, b), lines * 64 + 5);
    }
  }
  // 10^9 keys at 10 bits: 10^10 bits, past RocksDB's 0xffff0000 cap; Pebble has none.
  auto plan = PlanBloom(BloomPolicy{}, 1000000000);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->num_lines, 19531251u);
  EXPECT_EQ(plan->filter_bytes, 19531251ULL * 64 + 5);
  EXPECT_EQ(plan->num_probes, 6u);
  // 2^26 lines and more are 4 GiB: Pebble's reader would truncate the length to 32 bits.
  auto huge = PlanBloom(BloomPolicy{}, 3435973837ULL);  // 10 bpk: 67108865 lines
  EXPECT_EQ(huge.status().code(), StatusCode::kRefused) << huge.status().ToString();
  auto below = PlanBloom(BloomPolicy{}, 3435973836ULL - 3300);
  EXPECT_TRUE(below.ok()) << below.status().ToString();
  BloomPolicy zero;
  zero.bits_per_key = 0;
  EXPECT_EQ(PlanBloom(zero, 10).status().code(), StatusCode::kInvalidArgument);
}

TEST(PebbleBloom, AdaptivePolicyArithmetic) {
  // adaptive_policy_test.go's edge cases.
  EXPECT_EQ(BloomFilterBytes(0, 10), 0u);
  EXPECT_EQ(BloomFilterBytes(10, 0), 0u);
  EXPECT_EQ(BloomMaxBitsPerKey(0, 1000), 0u);
  EXPECT_EQ(BloomMaxBitsPerKey(100, 0), 0u);
  EXPECT_EQ(BloomMaxBitsPerKey(100, 5), 0u);
  // And its properties: the result's filter fits, one more bit per key does not (below 512).
  testing::SplitMix64 rng(7);
  for (int i = 0; i < 3000; ++i) {
    const std::uint64_t n = 1 + rng.Below(5000);
    for (std::uint32_t b = 1; b <= 20; ++b) {
      const std::uint64_t size = BloomFilterBytes(n, b);
      EXPECT_LT(BloomMaxBitsPerKey(n, size - 1), b) << n << " " << b;
      EXPECT_GE(BloomMaxBitsPerKey(n, size), b) << n << " " << b;
    }
    const std::uint64_t max = rng.Below(20000);
    const std::uint32_t r = BloomMaxBitsPerKey(n, max);
    if (r > 0) {
      EXPECT_LE(BloomFilterBytes(n, r), max);
    }
    if (r < 512) {
      EXPECT_GT(BloomFilterBytes(n, r + 1), max);
    }
  }
}

TEST(PebbleBloom, AdaptivePolicyBuilds) {
  std::vector<std::string> raw;
  for (int i = 0; i < 10000; ++i) {
    raw.push_back(std::string{static_cast<char>(i), static_cast<char>(i >> 8), 0, 0});
  }
  const KeyList keys = ToKeyList(raw);
  BloomPolicy plain;
  plain.probes = BloomProbes::kTable;
  const ByteVector full = Build(plain, keys);
  BloomPolicy adaptive = plain;
  for (std::uint64_t max : {full.size(), full.size() * 10}) {
    adaptive.max_filter_bytes = max;  // never more than the target
    EXPECT_EQ(Build(adaptive, keys), full) << max;
  }
  adaptive.max_filter_bytes = full.size() / 2;
  const ByteVector half = Build(adaptive, keys);
  EXPECT_LE(half.size(), full.size() / 2);
  auto plan = PlanBloom(adaptive, 10000);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->bits_per_key, BloomMaxBitsPerKey(10000, full.size() / 2));
  EXPECT_EQ(plan->num_probes, BloomProbeCount(plan->bits_per_key, BloomProbes::kTable));
  const BloomReader r = Read(half);
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(r.MayContain(keys[i])) << i;
  // Below 2 bits per key the adaptive writer gives up: no filter.
  adaptive.max_filter_bytes = BloomFilterBytes(10000, 2) - 1;
  auto none = BuildBloom(adaptive, keys);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  adaptive.max_filter_bytes = BloomFilterBytes(10000, 2);
  EXPECT_TRUE(BuildBloom(adaptive, keys)->has_value());
}

TEST(PebbleBloom, NoKeysNoFilterAndNeighboursCollapse) {
  auto none = BuildBloom(BloomPolicy{}, KeyList());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  EXPECT_EQ(
      CollapsedBloomHashes(ToKeyList({"a", "a", "b", "b", "a"}), HashFlavor::kSignedTail).size(),
      3u);
  EXPECT_EQ(Build(BloomPolicy{}, ToKeyList({"a", "a", "b"})),
            Build(BloomPolicy{}, ToKeyList({"a", "b"})));
  // Chunks collapse across their boundary as one list does.
  std::vector<std::uint64_t> hashes;
  const ByteSpan first[] = {AsBytes("a"), AsBytes("b")};
  const ByteSpan second[] = {AsBytes("b"), AsBytes("c")};
  AppendBloomHashes(first, HashFlavor::kSignedTail, hashes);
  AppendBloomHashes(second, HashFlavor::kSignedTail, hashes);
  EXPECT_EQ(hashes.size(), 3u);
}

TEST(PebbleBloom, ReaderEdges) {
  for (std::size_t n = 0; n <= 5; ++n) {
    const ByteVector bytes(n, 0xFF);
    const BloomReader r = Read(bytes);
    EXPECT_TRUE(r.empty());
    EXPECT_FALSE(r.MayContain(AsBytes("x")));
    EXPECT_EQ(r.bit_count(), 0u);
  }
  // Probe byte 0: no bit is asked, every key passes (Pebble's loop runs zero times).
  ByteVector zero_probes(64, 0);
  for (std::uint8_t b : {0, 1, 0, 0, 0}) zero_probes.push_back(b);
  EXPECT_TRUE(Read(zero_probes).MayContain(AsBytes("anything")));
  // Up to a byte per line after the lines passes Pebble's line-size check and is never read.
  const KeyList keys = ToKeyList(RandomKeys(3, 2000));
  const ByteVector f = Build(BloomPolicy{}, keys);
  const BloomReader plain = Read(f);
  ByteVector padded(f.begin(), f.end() - 5);
  padded.insert(padded.end(), plain.num_lines() - 1, 0xFF);
  padded.insert(padded.end(), f.end() - 5, f.end());
  const BloomReader longer = Read(padded);
  EXPECT_EQ(longer.unused_tail_bytes(), plain.num_lines() - 1);
  EXPECT_EQ(longer.bits_set(), plain.bits_set());
  for (const std::string& k : RandomKeys(4, 2000)) {
    EXPECT_EQ(longer.MayContain(AsBytes(k)), plain.MayContain(AsBytes(k)));
  }
}

TEST(PebbleBloom, EveryKeyPresentAndBatchesAgree) {
  for (std::uint32_t b : {1U, 4U, 9U, 10U, 16U, 40U}) {
    for (BloomProbes era : {BloomProbes::kRounded, BloomProbes::kTable}) {
      for (HashFlavor flavor : {HashFlavor::kSignedTail, HashFlavor::kUnsignedTail}) {
        const KeyList keys = ToKeyList(RandomKeys(b * 10 + 1, 3000));
        BloomPolicy policy{b, era, flavor, 0};
        const ByteVector f = Build(policy, keys);
        const BloomReader r = Read(f, flavor);
        EXPECT_EQ(r.num_probes(), BloomProbeCount(b, era));
        std::vector<std::uint8_t> answers(keys.size());
        r.MayContainBatch(keys, answers);
        for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(answers[i], 1) << i;
      }
    }
  }
  // A filter over 256 KiB takes the prefetching batch path: it must answer as single probes.
  std::vector<std::string> many = RandomKeys(9, 250000, 1000000);
  const KeyList keys = ToKeyList(many);
  const ByteVector big = Build(BloomPolicy{}, keys);
  ASSERT_GT(big.size(), 256u * 1024);
  const BloomReader r = Read(big);
  const KeyList probes = ToKeyList(RandomKeys(10, 5000));
  std::vector<std::uint8_t> batch(probes.size()), spans(probes.size());
  r.MayContainBatch(probes, batch);
  std::vector<ByteSpan> views;
  for (std::size_t i = 0; i < probes.size(); ++i) views.push_back(probes[i]);
  r.MayContainBatch(std::span<const ByteSpan>(views), spans);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    EXPECT_EQ(batch[i], r.MayContain(probes[i]) ? 1 : 0) << i;
    EXPECT_EQ(spans[i], batch[i]) << i;
  }
}

TEST(PebbleBloom, HashFlavourFromTheKeys) {
  // Keys with tail bytes >= 0x80 (RandomKeys draws them often) tell the flavours apart.
  const KeyList keys = ToKeyList(RandomKeys(12, 5000));
  for (HashFlavor writer : {HashFlavor::kSignedTail, HashFlavor::kUnsignedTail}) {
    BloomPolicy policy;
    policy.flavor = writer;
    const ByteVector f = Build(policy, keys);
    const HashFlavorEvidence e = DecideHashFlavor(Read(f), keys);
    // Each run of equal keys counts once (RandomKeys repeats some).
    std::uint64_t runs = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i == 0 || !std::ranges::equal(keys[i], keys[i - 1])) ++runs;
    }
    EXPECT_LT(runs, keys.size());
    EXPECT_EQ(e.keys, runs);
    EXPECT_GT(e.keys_that_differ, 0u);
    EXPECT_FALSE(e.ambiguous());
    EXPECT_EQ(e.flavor(), writer);
    EXPECT_EQ(writer == HashFlavor::kSignedTail ? e.signed_misses : e.unsigned_misses, 0u);
    EXPECT_GT(writer == HashFlavor::kSignedTail ? e.unsigned_misses : e.signed_misses, 0u);
  }
  // ASCII keys hash alike: both flavours fit, the decision says so and keeps the signed one.
  std::vector<std::string> ascii;
  for (int i = 0; i < 500; ++i) ascii.push_back("key" + std::to_string(i));
  const KeyList plain = ToKeyList(ascii);
  BloomPolicy old;
  old.flavor = HashFlavor::kUnsignedTail;
  const ByteVector f = Build(old, plain);
  const HashFlavorEvidence e = DecideHashFlavor(Read(f), plain);
  EXPECT_TRUE(e.ambiguous());
  EXPECT_EQ(e.signed_misses, 0u);
  EXPECT_EQ(e.unsigned_misses, 0u);
  EXPECT_EQ(e.flavor(), HashFlavor::kSignedTail);
}

}  // namespace
}  // namespace bloomcodec::pebble

// Our hash and bloom policy against the original: LevelDB 1.23's NewBloomFilterPolicy(b)
// (CreateFilter, KeyMayMatch) and leveldb::Hash, linked from Debian's libleveldb.a.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/hash.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"
#include "leveldb_internal.h"
#include "random_keys.h"
#include "rc_check.h"
#include "support/rc_rates.h"

namespace bloomcodec::leveldb {
namespace {

using ::bloomcodec::testing::CheckProperty;
using ::bloomcodec::testing::RandomKeys;

std::unique_ptr<const ::leveldb::FilterPolicy> OriginalPolicy(int bits_per_key) {
  return std::unique_ptr<const ::leveldb::FilterPolicy>(
      ::leveldb::NewBloomFilterPolicy(bits_per_key));
}

// A key: often short, often with bytes >= 0x80, lengths of every residue mod 4.
rc::Gen<std::string> ArbitraryKey() {
  return rc::gen::container<std::string>(rc::gen::oneOf(
      rc::gen::arbitrary<char>(),
      rc::gen::map(rc::gen::inRange(0x80, 0x100), [](int v) { return static_cast<char>(v); })));
}

// Runs both implementations on the same keys and compares bytes and answers.
void CompareWithOriginal(const std::vector<std::string>& keys, int bits_per_key,
                         const std::vector<std::string>& extra_probes) {
  const auto original = OriginalPolicy(bits_per_key);
  std::vector<::leveldb::Slice> slices(keys.begin(), keys.end());
  // CreateFilter appends: start both outputs with the same unrelated bytes.
  std::string theirs = "prefix";
  original->CreateFilter(slices.data(), static_cast<int>(slices.size()), &theirs);

  ByteVector ours(AsBytes("prefix").begin(), AsBytes("prefix").end());
  KeyList list;
  for (const auto& k : keys) list.Add(k);
  AppendBloomFilter(BloomPolicy::Current(bits_per_key), list, ours);
  RC_ASSERT(AsChars(ours) == theirs);

  // The span overload and the from-hashes overload append the same bytes.
  std::vector<ByteSpan> spans;
  std::vector<std::uint32_t> hashes;
  for (const auto& k : keys) {
    spans.push_back(AsBytes(k));
    hashes.push_back(BloomHash(AsBytes(k), HashFlavor::kUnsignedTail));
  }
  ByteVector from_spans, from_hashes;
  AppendBloomFilter(BloomPolicy::Current(bits_per_key), spans, from_spans);
  AppendBloomFilterFromHashes(BloomPolicy::Current(bits_per_key), hashes, from_hashes);
  RC_ASSERT(from_spans == ByteVector(ours.begin() + 6, ours.end()));
  RC_ASSERT(from_hashes == from_spans);

  const ::leveldb::Slice filter(theirs.data() + 6, theirs.size() - 6);
  const ByteSpan our_filter = ByteSpan(ours).subspan(6);
  KeyList probes;
  for (const auto& k : keys) probes.Add(k);
  for (const auto& k : extra_probes) probes.Add(k);
  std::vector<std::uint8_t> batch(probes.size());
  BloomKeyMayMatchBatch(HashFlavor::kUnsignedTail, probes, our_filter, batch);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const bool expected = original->KeyMayMatch(
        ::leveldb::Slice(AsChars(probes[i]).data(), probes[i].size()), filter);
    RC_ASSERT(BloomKeyMayMatch(HashFlavor::kUnsignedTail, probes[i], our_filter) == expected);
    RC_ASSERT((batch[i] == 1) == expected);
  }
}

TEST(BloomDifferential, SmallKeySetsEqualCreateFilterAndKeyMayMatch) {
  CheckProperty(500, 60, [] {
    auto keys = *rc::gen::container<std::vector<std::string>>(ArbitraryKey());
    // Duplicates count toward n and set the same bits again.
    const auto repeats = *rc::gen::inRange<std::size_t>(0, 4);
    for (std::size_t i = 0; i < repeats && !keys.empty(); ++i) {
      keys.push_back(keys[*rc::gen::inRange<std::size_t>(0, keys.size())]);
    }
    const int bits_per_key = *rc::gen::inRange(0, 101);
    const auto probes = *rc::gen::container<std::vector<std::string>>(ArbitraryKey());
    CompareWithOriginal(keys, bits_per_key, probes);
  });
}

TEST(BloomDifferential, LargeKeySetsEqualCreateFilterAndKeyMayMatch) {
  CheckProperty(200, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto count = *rc::gen::inRange<std::size_t>(0, 4000);
    const int bits_per_key = *rc::gen::inRange(0, 101);
    const auto keys = RandomKeys(seed, count);
    const auto probes = RandomKeys(~seed, 500, /*duplicate_every=*/1000);
    CompareWithOriginal(keys, bits_per_key, probes);
  });
}

// Keys of one length, or of lengths a few bytes apart: the batch path then hashes groups of
// eight keys over many shared 4-byte blocks (its 16-bytes-at-a-time kernel), which keys of
// random lengths rarely reach.
TEST(BloomDifferential, SameLengthKeysEqualKeyMayMatch) {
  CheckProperty(200, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto length = *testing::Uniform<std::size_t>(0, 150);
    const auto spread = *testing::Uniform<std::size_t>(0, 6);
    const auto count = *testing::Uniform<std::size_t>(0, 600);
    RC_TAG(count >= 8 && length >= 16 ? "groups of 8 keys sharing >= 16 bytes"
                                      : "shorter or fewer");
    const int bits_per_key = *rc::gen::inRange(1, 25);
    ::bloomcodec::testing::SplitMix64 rng(seed);
    const auto make_keys = [&](std::size_t n) {
      std::vector<std::string> keys;
      for (std::size_t i = 0; i < n; ++i) {
        std::string key(length + rng.Below(spread + 1), '\0');
        for (char& c : key) c = static_cast<char>(rng.Next());
        keys.push_back(std::move(key));
      }
      return keys;
    };
    const auto keys = make_keys(count);
    CompareWithOriginal(keys, bits_per_key, make_keys(count / 2 + 7));
  });
}

TEST(BloomDifferential, ArbitraryFilterBytesAnswerAsKeyMayMatch) {
  const auto original = OriginalPolicy(10);  // the reader ignores the policy's parameters
  CheckProperty(500, 100, [&] {
    const auto length = *rc::gen::inRange<std::size_t>(0, 301);
    auto bytes = *rc::gen::container<std::string>(length, rc::gen::arbitrary<char>());
    if (!bytes.empty()) {
      // Mostly readable k values, sometimes anything (0, > 30, >= 0x80), whatever the case size.
      bytes.back() =
          static_cast<char>(*rc::gen::oneOf(testing::Uniform(0, 33), testing::Uniform(0, 256)));
      const auto k = static_cast<std::uint8_t>(bytes.back());
      RC_TAG(k == 0 ? "k = 0" : k <= 30 ? "k 1 - 30" : k < 0x80 ? "k 31 - 127" : "k >= 0x80");
    } else {
      RC_TAG("empty");
    }
    // Dense bit arrays too, or almost every probe stops at the first clear bit.
    if (*rc::gen::arbitrary<bool>()) {
      for (std::size_t i = 0; i + 1 < bytes.size(); ++i)
        bytes[i] = static_cast<char>(bytes[i] | 0xf7);
    }
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    KeyList probes;
    for (const auto& k : RandomKeys(seed, 64)) probes.Add(k);
    std::vector<std::uint8_t> batch(probes.size());
    BloomKeyMayMatchBatch(HashFlavor::kUnsignedTail, probes, AsBytes(bytes), batch);
    for (std::size_t i = 0; i < probes.size(); ++i) {
      const bool expected = original->KeyMayMatch(
          ::leveldb::Slice(AsChars(probes[i]).data(), probes[i].size()), ::leveldb::Slice(bytes));
      RC_ASSERT(BloomKeyMayMatch(HashFlavor::kUnsignedTail, probes[i], AsBytes(bytes)) == expected);
      RC_ASSERT((batch[i] == 1) == expected);
    }
  });
}

TEST(BloomDifferential, HashEqualsLevelDBHash) {
  CheckProperty(1000, 100, [] {
    const auto data = *rc::gen::container<std::string>(rc::gen::oneOf(
        rc::gen::arbitrary<char>(),
        rc::gen::map(rc::gen::inRange(0x80, 0x100), [](int v) { return static_cast<char>(v); })));
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    RC_ASSERT(Hash(AsBytes(data), seed, HashFlavor::kUnsignedTail) ==
              ::leveldb::Hash(data.data(), data.size(), seed));
  });
}

TEST(BloomDifferential, PolicyNameMatches) {
  EXPECT_EQ(BloomPolicy::Current(10).name(), OriginalPolicy(10)->Name());
}

}  // namespace
}  // namespace bloomcodec::leveldb

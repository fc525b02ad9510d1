// Our RocksDB full filters against the original: Debian's librocksdb 7.8.3, driven through its
// public filter policies (NewBloomFilterPolicy with format_version 4 and 5, NewRibbonFilterPolicy)
// and the builder / reader interfaces of rocksdb_internal.h.
//
// The Debian library is built with assertions on. Inputs it would abort on, or read outside the
// filter for, are kept away from: bits_per_key below 0.5 (no builder at all: we refuse it),
// FastLocalBloom payloads shorter than one 64-byte line and legacy line counts whose byte size
// wraps 32 bits (RocksDB reads past the filter; undefined, so not comparable).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/hash.h"
#include "leveldb/random_keys.h"
#include "leveldb/rc_check.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/filter_sizing.h"
#include "rocksdb/table.h"
#include "rocksdb_internal.h"
#include "support/rc_rates.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {

// While non-zero, operator new[] (below) allocates this many bytes more than asked: an allocator
// that grants more than the request, as glibc does now and then, which RocksDB's
// optimize_filters_for_memory sees through malloc_usable_size.
thread_local std::size_t new_array_extra = 0;

namespace {

using ::bloomcodec::testing::CheckProperty;
using ::bloomcodec::testing::RandomKeys;

struct Original {
  std::unique_ptr<const ::rocksdb::FilterPolicy> policy;
  int format_version;
};

Original OriginalFor(FilterEncoding encoding, double bits_per_key) {
  switch (encoding) {
    case FilterEncoding::kLegacyBloom:
      return {std::unique_ptr<const ::rocksdb::FilterPolicy>(
                  ::rocksdb::NewBloomFilterPolicy(bits_per_key)),
              4};
    case FilterEncoding::kFastLocalBloom:
      return {std::unique_ptr<const ::rocksdb::FilterPolicy>(
                  ::rocksdb::NewBloomFilterPolicy(bits_per_key)),
              5};
    case FilterEncoding::kRibbon: break;
  }
  return {std::unique_ptr<const ::rocksdb::FilterPolicy>(
              ::rocksdb::NewRibbonFilterPolicy(bits_per_key)),
          5};
}

std::string OriginalBuild(const Original& o, const std::vector<std::string>& keys,
                          bool optimize_filters_for_memory = false) {
  ::rocksdb::BlockBasedTableOptions options;
  options.format_version = o.format_version;
  options.optimize_filters_for_memory = optimize_filters_for_memory;
  ::rocksdb::FilterBuildingContext context(options);
  std::unique_ptr<::rocksdb::FilterBitsBuilder> builder(o.policy->GetBuilderWithContext(context));
  if (!builder) return "<no builder>";
  for (const std::string& k : keys) builder->AddKey(::rocksdb::Slice(k));
  std::unique_ptr<const char[]> owner;
  const ::rocksdb::Slice s = builder->Finish(&owner);
  return s.ToString();
}

std::vector<std::uint8_t> OriginalAnswers(const Original& o, const std::string& filter,
                                          const std::vector<std::string>& probes) {
  std::unique_ptr<::rocksdb::FilterBitsReader> reader(
      o.policy->GetFilterBitsReader(::rocksdb::Slice(filter)));
  std::vector<std::uint8_t> a;
  for (const std::string& p : probes) a.push_back(reader->MayMatch(::rocksdb::Slice(p)) ? 1 : 0);
  return a;
}

std::vector<std::uint8_t> OurAnswers(ByteSpan filter, const std::vector<std::string>& probes) {
  auto reader = FullFilterReader::Parse(filter, "ours");
  RC_ASSERT(reader.ok());
  KeyList list;
  for (const std::string& p : probes) list.Add(p);
  std::vector<std::uint8_t> a(list.size());
  reader.value().MayContainBatch(list, a);
  return a;
}

// A decimal bits_per_key as a user would write it: up to three decimals, 0.5 .. 110.
rc::Gen<double> BitsPerKey() {
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange(500, 110001), [](int m) { return m / 1000.0; }),
      rc::gen::map(rc::gen::inRange(1, 40), [](int b) { return static_cast<double>(b); }),
      rc::gen::map(rc::gen::inRange(5, 400), [](int d) { return d / 10.0; }));
}

KeyList ToKeyList(const std::vector<std::string>& keys) {
  KeyList list;
  for (const auto& k : keys) list.Add(k);
  return list;
}

void CompareBuild(FilterEncoding encoding, int max_keys) {
  CheckProperty(60, 100, [encoding, max_keys] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto count = static_cast<std::size_t>(*rc::gen::inRange(0, max_keys));
    const double bpk = *BitsPerKey();
    const auto keys = RandomKeys(seed, count, /*duplicate_every=*/4);
    const auto probes = RandomKeys(seed ^ 0x5555, 300);
    const Original original = OriginalFor(encoding, bpk);
    const std::string theirs = OriginalBuild(original, keys);
    auto ours = BuildFullFilter(encoding, bpk, ToKeyList(keys));
    RC_ASSERT(ours.ok());
    // What was written: a Ribbon policy writes Bloom for few keys (its fallback).
    const std::uint8_t marker = ours->size() > 5 ? (*ours)[ours->size() - 5] : 0;
    RC_TAG(ours->size() <= 5 ? "no keys"
           : marker == 0xfe  ? "Ribbon"
           : marker == 0xff  ? "FastLocalBloom"
                             : "legacy Bloom");
    RC_ASSERT(ToHex(ours.value()) == ToHex(AsBytes(theirs)));
    RC_ASSERT(OurAnswers(ours.value(), probes) == OriginalAnswers(original, theirs, probes));
    RC_ASSERT(OurAnswers(ours.value(), keys) == OriginalAnswers(original, theirs, keys));
  });
}

TEST(RocksdbDifferential, LegacyBloomBytesAndAnswers) {
  CompareBuild(FilterEncoding::kLegacyBloom, 3000);
}
TEST(RocksdbDifferential, FastLocalBloomBytesAndAnswers) {
  CompareBuild(FilterEncoding::kFastLocalBloom, 3000);
}
TEST(RocksdbDifferential, RibbonBytesAndAnswers) { CompareBuild(FilterEncoding::kRibbon, 6000); }

// Ribbon near its Bloom fallback and seed boundaries: many small key sets.
TEST(RocksdbDifferential, RibbonSmallSets) { CompareBuild(FilterEncoding::kRibbon, 400); }

// One large key set per encoding: Ribbon's extrapolated sizing (beyond 2^17 slots) and the
// batch reader's prefetching path (filters above 256 KiB).
TEST(RocksdbDifferential, LargeFilters) {
  const auto keys = RandomKeys(2024, 300000);
  const auto probes = RandomKeys(2025, 20000);
  for (FilterEncoding e :
       {FilterEncoding::kLegacyBloom, FilterEncoding::kFastLocalBloom, FilterEncoding::kRibbon}) {
    const Original original = OriginalFor(e, 9.5);
    const std::string theirs = OriginalBuild(original, keys);
    const ByteVector ours = BuildFullFilter(e, 9.5, ToKeyList(keys)).value();
    EXPECT_EQ(ToHex(ours), ToHex(AsBytes(theirs)));
    auto reader = FullFilterReader::Parse(ours, "ours");
    ASSERT_TRUE(reader.ok());
    const KeyList list = ToKeyList(probes);
    std::vector<std::uint8_t> answers(list.size());
    reader.value().MayContainBatch(list, answers);
    EXPECT_EQ(answers, OriginalAnswers(original, theirs, probes));
  }
}

// optimize_filters_for_memory: RocksDB sizes a filter by what malloc_usable_size grants and,
// while its policy's rounding balance is negative, cuts the next ones to 3/4 - 15/16 of the size
// the keys ask: a history of the writing process, not of the keys. One policy per encoding and
// bits_per_key lives through the run, so its balance moves as in a writer. Every filter rebuilt
// at RocksDB's size is RocksDB's byte for byte; one at the size the keys ask is also
// BuildFullFilter's with the option on.
TEST(RocksdbDifferential, MemoryOptimizedFiltersRebuiltAtTheSizeRocksDbChose) {
  std::map<std::pair<FilterEncoding, double>, Original> policies;
  CheckProperty(150, 100, [&policies] {
    const FilterEncoding e =
        *rc::gen::element(FilterEncoding::kFastLocalBloom, FilterEncoding::kRibbon);
    const double bpk = *rc::gen::element(6.0, 9.9, 10.0, 15.5);
    Original& original = policies[{e, bpk}];
    if (!original.policy) original = OriginalFor(e, bpk);
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto count = static_cast<std::size_t>(*::bloomcodec::testing::Uniform(1, 3000));
    const auto keys = RandomKeys(seed, count, /*duplicate_every=*/4);
    // A grant 16 - 80 bytes larger in 3 cases of 5: RocksDB then writes a larger filter, which
    // makes its rounding balance negative, and cuts the next filters of that policy.
    new_array_extra = *rc::gen::element<std::size_t>(0, 0, 16, 32, 80);
    const std::string theirs = OriginalBuild(original, keys, /*optimize_filters_for_memory=*/true);
    new_array_extra = 0;
    auto at_size = BuildMemoryOptimizedFilterAtSize(e, bpk, ToKeyList(keys), theirs.size());
    RC_ASSERT(at_size.ok());
    RC_ASSERT(ToHex(*at_size) == ToHex(AsBytes(theirs)));
    auto asked = BuildFullFilter(e, bpk, ToKeyList(keys), /*optimize_filters_for_memory=*/true);
    RC_ASSERT(asked.ok());
    if (asked->size() == theirs.size()) RC_ASSERT(ToHex(*asked) == ToHex(AsBytes(theirs)));
    RC_TAG(theirs[theirs.size() - 5] == '\xfe' ? "Ribbon" : "FastLocalBloom",
           asked->size() == theirs.size()  ? "the size the keys ask"
           : theirs.size() < asked->size() ? "cut (rounding balance negative)"
                                           : "grown (allocator's grant)");
  });
}

// The sizes RocksDB's rounding never gives are refused, as is the builder that does not round.
TEST(RocksdbMemoryOptimizedBuild, RefusesSizesRocksDbNeverWrites) {
  const KeyList keys = ToKeyList(RandomKeys(5, 2000));
  const ByteVector ribbon = BuildFullFilter(FilterEncoding::kRibbon, 10, keys, true).value();
  EXPECT_TRUE(
      BuildMemoryOptimizedFilterAtSize(FilterEncoding::kRibbon, 10, keys, ribbon.size()).ok());
  EXPECT_FALSE(
      BuildMemoryOptimizedFilterAtSize(FilterEncoding::kRibbon, 10, keys, ribbon.size() + 8).ok());
  EXPECT_FALSE(BuildMemoryOptimizedFilterAtSize(FilterEncoding::kRibbon, 10, keys, 5).ok());
  EXPECT_FALSE(
      BuildMemoryOptimizedFilterAtSize(FilterEncoding::kFastLocalBloom, 10, keys, 64 * 40 + 21)
          .ok());
  EXPECT_FALSE(
      BuildMemoryOptimizedFilterAtSize(FilterEncoding::kLegacyBloom, 10, keys, 64 * 40 + 5).ok());
  EXPECT_FALSE(BuildMemoryOptimizedFilterAtSize(FilterEncoding::kRibbon, 10, KeyList(), 21).ok());
}

// Consecutive duplicates collapse, others do not: runs of equal keys.
TEST(RocksdbDifferential, DuplicateRuns) {
  CheckProperty(40, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto base = RandomKeys(seed, static_cast<std::size_t>(*rc::gen::inRange(1, 800)), 1000);
    std::vector<std::string> keys;
    ::bloomcodec::testing::SplitMix64 rng(seed);
    for (const auto& k : base) {
      const std::size_t run = 1 + rng.Below(4);
      for (std::size_t i = 0; i < run; ++i) keys.push_back(k);
    }
    const double bpk = *BitsPerKey();
    for (FilterEncoding e :
         {FilterEncoding::kLegacyBloom, FilterEncoding::kFastLocalBloom, FilterEncoding::kRibbon}) {
      auto ours = BuildFullFilter(e, bpk, ToKeyList(keys));
      RC_ASSERT(ours.ok());
      RC_ASSERT(ToHex(ours.value()) == ToHex(AsBytes(OriginalBuild(OriginalFor(e, bpk), keys))));
    }
  });
}

// Arbitrary filter bytes under each trailer kind: the reader agrees with RocksDB's on every probe.
TEST(RocksdbDifferential, ReaderOnArbitraryBytes) {
  CheckProperty(300, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    ::bloomcodec::testing::SplitMix64 rng(seed);
    const int shape = *::bloomcodec::testing::Uniform(0, 6);  // each in 1 case of 6
    static const char* const kShapes[] = {"legacy Bloom",    "FastLocalBloom", "Ribbon",
                                          "reserved marker", "0 - 5 bytes",    "0 - 5 bytes"};
    RC_TAG(kShapes[shape]);
    std::string f;
    auto payload = [&](std::size_t n, int density) {
      for (std::size_t i = 0; i < n; ++i) {
        std::uint8_t b = 0;
        for (int bit = 0; bit < 8; ++bit) {
          if (static_cast<int>(rng.Below(8)) < density) b |= static_cast<std::uint8_t>(1U << bit);
        }
        f.push_back(static_cast<char>(b));
      }
    };
    const int density = *::bloomcodec::testing::Uniform(0, 9);
    switch (shape) {
      case 0: {  // legacy: num_probes 1..127, valid or invalid line counts (never wrapping)
        const std::uint32_t lines = 1 + static_cast<std::uint32_t>(rng.Below(40));
        const std::uint32_t line_bytes = std::uint32_t{1} << rng.Below(9);
        payload(lines * line_bytes + (rng.Below(4) == 0 ? rng.Below(7) : 0), density);
        const std::uint32_t stored_lines =
            rng.Below(5) == 0 ? static_cast<std::uint32_t>(rng.Below(50)) : lines;
        f.push_back(static_cast<char>(1 + rng.Below(127)));
        for (int i = 0; i < 4; ++i) f.push_back(static_cast<char>(stored_lines >> (8 * i)));
        break;
      }
      case 1: {  // new Bloom: any block_and_probes, sub-implementation, reserved bytes
        payload(64 * (1 + rng.Below(40)), density);
        f.push_back(static_cast<char>(0xFF));
        f.push_back(static_cast<char>(rng.Below(5) == 0 ? rng.Below(256) : 0));
        f.push_back(static_cast<char>(rng.Below(3) == 0 ? rng.Below(256) : rng.Below(32)));
        f.push_back(static_cast<char>(rng.Below(6) == 0 ? 1 : 0));
        f.push_back(0);
        break;
      }
      case 2: {  // Ribbon: any seed, any block count (including 0 and 1), any segment count
        const std::uint32_t blocks = static_cast<std::uint32_t>(rng.Below(40));
        payload(16 * rng.Below(400) + (rng.Below(4) == 0 ? rng.Below(16) : 0), density);
        f.push_back(static_cast<char>(0xFE));
        f.push_back(static_cast<char>(rng.Below(256)));
        for (int i = 0; i < 3; ++i) f.push_back(static_cast<char>(blocks >> (8 * i)));
        break;
      }
      case 3: {  // reserved markers and marker 0
        payload(rng.Below(300), density);
        f.push_back(static_cast<char>(rng.Below(2) == 0 ? 0 : 0x80 + rng.Below(126)));
        payload(4, 4);
        break;
      }
      default: {  // 0..5 bytes: "no keys"
        payload(rng.Below(6), density);
        break;
      }
    }
    const auto probes = RandomKeys(seed ^ 0xabcdef, 200);
    const Original original = OriginalFor(FilterEncoding::kFastLocalBloom, 10);
    RC_ASSERT(OurAnswers(AsBytes(f), probes) == OriginalAnswers(original, f, probes));
  });
}

TEST(RocksdbDifferential, Hashes) {
  CheckProperty(500, 300, [] {
    const auto data = *rc::gen::container<std::string>(rc::gen::arbitrary<char>());
    RC_ASSERT(Hash64(AsBytes(data)) == ::rocksdb::Hash64(data.data(), data.size()));
    RC_ASSERT(LegacyBloomHash(AsBytes(data)) ==
              ::rocksdb::Hash(data.data(), data.size(), 0xbc9f1d34));
  });
  // Every length through the long-input path's block boundary (1024 bytes per block).
  ::bloomcodec::testing::SplitMix64 rng(7);
  std::string data;
  for (int n = 0; n <= 2200; ++n) {
    EXPECT_EQ(Hash64(AsBytes(data)), ::rocksdb::Hash64(data.data(), data.size())) << "length " << n;
    data.push_back(static_cast<char>(rng.Next()));
  }
}

}  // namespace
}  // namespace bloomcodec::rocksdb

// The allocator of new_array_extra. RocksDB's filter builders allocate with new char[]; every
// other allocation of this test binary goes through here too, unchanged while the extra is 0.
void* operator new[](std::size_t n) {
  void* p = std::malloc(n + bloomcodec::rocksdb::new_array_extra + (n == 0 ? 1 : 0));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

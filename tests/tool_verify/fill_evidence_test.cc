// The overfill test's false-alarm rate, measured on healthy filters of every family verify
// judges (docs/cli.md, "Evidence standard"): filters built by our writers (byte-identical to the
// originals) from random keys, at small and large key counts, must never be `overfilled` at
// verify's 1e-6, and at a false-alarm probability of 1e-2 must alarm at most about that often
// (a bound wrong by orders of magnitude shows there). A filter holding twice the keys counted is
// caught from a few hundred keys on.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/verify.h"

namespace bloomcodec {
namespace {

// The fill of a filter sized (as its writer sizes) for the keys of `first`, holding them and,
// when given, the keys of `extra` too: a filter with more keys than its writer counted.
using BuildFn = std::function<FillStatistics(const KeyList& first, const KeyList* extra)>;

FillStatistics Of(const Filter& f) {
  return ComputeFillStatistics(f.bit_count(), f.bits_set(), f.hash_count());
}

// LevelDB and RocksDB size a filter by the keys they are given: the filter of `first` with the
// bits of an equally sized filter of `extra` ORed in (the same size and k, so the same trailer).
ByteVector Union(ByteVector a, const ByteVector& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) a[i] |= b[i];
  return a;
}

struct Family {
  std::string name;
  BuildFn build;
};

std::vector<Family> Families() {
  std::vector<Family> out;
  out.push_back({"cassandra-1.0", [](const KeyList& first, const KeyList* extra) {
                   auto spec =
                       cassandra::SizeForBucketsPerElement(static_cast<std::int64_t>(first.size()),
                                                           cassandra::kDefaultBucketsPerElement);
                   auto f = cassandra::V10Filter::Create(*spec);
                   f->AddAll(first);
                   if (extra) f->AddAll(*extra);
                   return Of(*f);
                 }});
  out.push_back({"cassandra-4.0", [](const KeyList& first, const KeyList* extra) {
                   auto spec =
                       cassandra::SizeMurmur3Filter(static_cast<std::int64_t>(first.size()), 0.01);
                   auto f = cassandra::Murmur3Filter::Create(spec->hash_count, spec->word_count,
                                                             cassandra::Era::kV40);
                   f->AddAll(first);
                   if (extra) f->AddAll(*extra);
                   return Of(*f);
                 }});
  out.push_back({"leveldb-bloom", [](const KeyList& first, const KeyList* extra) {
                   const auto policy = leveldb::BloomPolicy::Current(10);
                   ByteVector a, b;
                   leveldb::AppendBloomFilter(policy, first, a);
                   if (extra) leveldb::AppendBloomFilter(policy, *extra, b);
                   const ByteVector bytes = Union(std::move(a), b);
                   return Of(leveldb::BloomFilterView(bytes, leveldb::HashFlavor::kUnsignedTail));
                 }});
  for (const auto& named :
       {std::pair{"rocksdb-legacy-bloom", rocksdb::FilterEncoding::kLegacyBloom},
        std::pair{"rocksdb-fastlocal-bloom", rocksdb::FilterEncoding::kFastLocalBloom}}) {
    // (No structured binding: clang 14, the sanitizer build's, refuses to capture one.)
    const rocksdb::FilterEncoding encoding = named.second;
    out.push_back({named.first, [encoding](const KeyList& first, const KeyList* extra) {
                     const ByteVector bytes = Union(
                         *rocksdb::BuildFullFilter(encoding, 10, first),
                         extra ? *rocksdb::BuildFullFilter(encoding, 10, *extra) : ByteVector());
                     auto f = rocksdb::FullFilterReader::Parse(bytes, "test");
                     return Of(*f);
                   }});
  }
  return out;
}

KeyList RandomKeys(std::size_t n, std::mt19937_64& rng) {
  KeyList keys;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t words[2] = {rng(), rng()};
    keys.Add(ByteSpan(reinterpret_cast<const std::uint8_t*>(words), sizeof words));
  }
  return keys;
}

TEST(FillEvidence, HealthyFiltersAreNeverOverfilledAndAlarmAtMostAlphaAtOnePercent) {
  constexpr double kAlpha = 0.01;
  std::mt19937_64 rng(20261128);
  for (const Family& family : Families()) {
    // Small counts too: the old floor of 16 entries is gone, the bound itself must hold there.
    for (std::uint64_t n : {1u, 2u, 3u, 5u, 8u, 15u, 40u, 200u, 1500u}) {
      const int trials = n >= 1500 ? 150 : 600;
      int alarms = 0;
      for (int t = 0; t < trials; ++t) {
        const FillStatistics s = family.build(RandomKeys(n, rng), nullptr);
        const FillVerdict verdict = JudgeFill(s, static_cast<double>(n), "given");
        EXPECT_FALSE(verdict) << family.name << " n=" << n << ": " << verdict.reason;
        const OverfillBound loose = OverfillThreshold(s.bits, s.hash_count, n, kAlpha);
        if (loose.judged && static_cast<double>(s.bits_set) > loose.threshold) ++alarms;
      }
      // At most alpha of the trials in expectation; 3x plus a few is far beyond chance for a
      // correct bound, and a bound wrong by 100x alarms on most trials.
      EXPECT_LE(alarms, static_cast<int>(3 * kAlpha * trials) + 3) << family.name << " n=" << n;
    }
  }
}

TEST(FillEvidence, AFilterHoldingTwiceTheCountedKeysIsCaught) {
  std::mt19937_64 rng(7);
  for (const Family& family : Families()) {
    for (std::uint64_t n : {300u, 2000u}) {
      for (int t = 0; t < 20; ++t) {
        const KeyList counted = RandomKeys(n, rng);
        const KeyList uncounted = RandomKeys(n, rng);
        const FillVerdict verdict =
            JudgeFill(family.build(counted, &uncounted), static_cast<double>(n), "given");
        EXPECT_EQ(verdict.kind, finding_kind::kOverfilled) << family.name << " n=" << n;
        EXPECT_EQ(verdict.severity, Severity::kError);
      }
    }
  }
}

}  // namespace
}  // namespace bloomcodec

// Properties over arbitrary keys and parameters: write-then-read is the identity, no false
// negatives, the size matches the sizing, and damaged files never crash the readers.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <span>
#include <vector>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "cassandra/fast_mod.h"
#include "generators.h"
#include "kernels.h"
#include "support/test_support.h"

namespace bloomcodec::cassandra {
namespace {

using testing::GenEdgy64;
using testing::GenKeys;
using testing::SomeTailByteIsHigh;
using testing::Uniform;

KeyList ToKeyList(const std::vector<std::vector<std::uint8_t>>& keys) {
  KeyList list;
  for (const auto& k : keys) list.Add(ByteSpan(k));
  return list;
}

void CheckAllPresent(const Filter& f, const KeyList& keys) {
  std::vector<std::uint8_t> answers(keys.size());
  f.MayContainBatch(keys, answers);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    RC_ASSERT(answers[i] == 1);
    RC_ASSERT(f.MayContain(keys[i]));
  }
}

RC_GTEST_PROP(CassandraProperties, FilterDbRoundTrip, ()) {
  const auto raw = *GenKeys();
  RC_CLASSIFY(SomeTailByteIsHigh(raw, 8), "a tail byte >= 0x80");
  const KeyList keys = ToKeyList(raw);
  const auto extra = *rc::gen::inRange<std::int64_t>(0, 2000);
  const std::int64_t n = static_cast<std::int64_t>(keys.size()) + extra;
  const bool by_fp = *rc::gen::arbitrary<bool>();
  Result<FilterSpec> spec =
      by_fp
          ? SizeForFpChance(n, *rc::gen::element(0.5, 0.393, 0.1, 0.05, 0.01, 0.001, 1e-4, 6.71e-5))
          : SizeForBucketsPerElement(n, *rc::gen::inRange(1, 26));
  RC_ASSERT(spec.ok());
  auto bytes = BuildV10Filter(keys, *spec);
  RC_ASSERT(bytes.ok());
  RC_ASSERT(static_cast<std::int64_t>(bytes->size()) == spec->file_bytes());
  auto parsed = V10Filter::Parse(*bytes, "p");
  RC_ASSERT(parsed.ok());
  RC_ASSERT(parsed->signed_hash_count() == spec->hash_count);
  RC_ASSERT(parsed->word_count() == spec->word_count);
  RC_ASSERT(parsed->trailing_bytes() == 0u);
  const ByteSpan s = parsed->serialized();
  RC_ASSERT(ByteVector(s.begin(), s.end()) == *bytes);
  CheckAllPresent(*parsed, keys);
  // Adding the same keys again changes nothing.
  auto again = V10Filter::Create(*spec);
  RC_ASSERT(again.ok());
  again->AddAll(keys);
  again->AddAll(keys);
  const ByteSpan a = again->serialized();
  RC_ASSERT(ByteVector(a.begin(), a.end()) == *bytes);
}

RC_GTEST_PROP(CassandraProperties, LegacyRoundTrip, ()) {
  const KeyList keys = ToKeyList(*GenKeys());
  const std::int64_t n =
      static_cast<std::int64_t>(keys.size()) + *rc::gen::inRange<std::int64_t>(0, 500);
  auto spec = LegacySizeForBucketsPerElement(n, *rc::gen::inRange(1, 21));
  RC_ASSERT(spec.ok());
  auto bytes = BuildLegacyFilter(keys, *spec);
  RC_ASSERT(bytes.ok());
  RC_ASSERT(bytes->size() ==
            LegacyFilter::kOverheadBytes + 8 * static_cast<std::size_t>(spec->word_count));
  auto parsed = LegacyFilter::Parse(*bytes, "p");
  RC_ASSERT(parsed.ok());
  RC_ASSERT(parsed->Serialize() == *bytes);
  RC_ASSERT(parsed->signed_hash_count() == spec->hash_count);
  CheckAllPresent(*parsed, keys);
}

RC_GTEST_PROP(CassandraProperties, RowFilterRoundTrip, ()) {
  const KeyList names = ToKeyList(*GenKeys());
  const std::int64_t est =
      static_cast<std::int64_t>(names.size()) + *rc::gen::inRange<std::int64_t>(0, 100);
  auto bytes = BuildRowFilter(names, est);
  RC_ASSERT(bytes.ok());
  auto spec = SizeForBucketsPerElement(est, kRowFilterBucketsPerElement);
  RC_ASSERT(spec.ok());
  RC_ASSERT(static_cast<std::int64_t>(bytes->size()) == 4 + spec->file_bytes());
  auto parsed = RowFilter::Parse(*bytes, "p");
  RC_ASSERT(parsed.ok());
  RC_ASSERT(parsed->consumed_bytes() == bytes->size());
  RC_ASSERT(parsed->v10()->signed_hash_count() == 3);
  CheckAllPresent(parsed->filter(), names);
}

// The division-free reduction every filter kernel uses, against the remainder operator: any
// modulus, and the filters' own (64 * W, W >= 1).
RC_GTEST_PROP(CassandraProperties, FastModIsTheRemainder, ()) {
  const std::uint64_t m =
      *rc::gen::oneOf(Uniform<std::uint64_t>(1, 1u << 12),
                      rc::gen::map(Uniform<std::uint64_t>(1, std::uint64_t{INT32_MAX} + 1),
                                   [](std::uint64_t w) { return 64 * w; }),
                      rc::gen::map(Uniform(0, 64), [](int b) { return std::uint64_t{1} << b; }),
                      rc::gen::suchThat(GenEdgy64(), [](std::uint64_t v) { return v != 0; }));
  RC_CLASSIFY(m % 64 == 0 && m / 64 <= std::uint64_t{INT32_MAX}, "a filter's modulus 64 * W");
  const FastMod64 mod(m);
  for (int round = 0; round < 20; ++round) {
    const std::uint64_t n = *GenEdgy64();
    RC_ASSERT(mod(n) == n % m);
    const std::uint64_t base = *GenEdgy64();
    const std::uint64_t step = *GenEdgy64();
    const std::uint64_t i = *Uniform<std::uint64_t>(0, 64);
    const std::uint64_t x = base + i * step;
    const std::uint64_t magnitude = static_cast<std::int64_t>(x) < 0 ? 0 - x : x;
    RC_ASSERT(mod.AbsMod(base, step, i) == magnitude % m);
  }
}

// Bucket b of a 1.0 filter: bit b & 63 of big-endian word b >> 6.
bool ReferenceBit(const ByteVector& words, std::int64_t b) {
  const std::size_t word = static_cast<std::size_t>(b >> 6);
  const int bit = static_cast<int>(b & 63);
  return ((words[8 * word + 7 - static_cast<std::size_t>(bit / 8)] >> (bit % 8)) & 1u) != 0;
}

// The batch kernels (lanes of hashes, staged and prefetched rounds in filters above the L2 size,
// unstaged below it, the key-at-a-time fallback of K > 32) against the reference arithmetic of
// buckets.cc (HashBuckets: Java's formula with the % operator): the bytes built and every answer.
// K > 32 in 1 case of 4; a filter above 1 MiB in about 2 of 5.
RC_GTEST_PROP(CassandraProperties, V10KernelsMatchTheReference, ()) {
  ReportDefaultKernel();
  const auto raw = *GenKeys();
  const KeyList keys = ToKeyList(raw);
  const std::int32_t k =
      *rc::gen::weightedOneOf<std::int32_t>({{3, Uniform(0, 33)}, {1, Uniform(33, 41)}});
  // 1 MiB of words is 131072: below it the unstaged path, above it the staged one.
  const std::int32_t w = *rc::gen::oneOf(Uniform(1, 200), Uniform(131000, 140000),
                                         rc::gen::element(1, 2, 131072, 131073, 300000));
  RC_TAG(k > 32 ? "K > 32 (key at a time)" : "K <= 32 (rounds)",
         w > 131072 ? "above 1 MiB (staged)" : "at most 1 MiB (unstaged)");
  RC_CLASSIFY(SomeTailByteIsHigh(raw, 8), "a tail byte >= 0x80");
  auto built = V10Filter::Create(k, w);
  RC_ASSERT(built.ok());
  built->AddAll(keys);
  ByteVector expected(8 + 8 * static_cast<std::size_t>(w), 0);
  expected[3] = static_cast<std::uint8_t>(k);
  for (int b = 0; b < 4; ++b) expected[4 + b] = static_cast<std::uint8_t>(w >> (24 - 8 * b));
  const std::int64_t max = std::int64_t{w} * 64;
  std::vector<std::int64_t> buckets(static_cast<std::size_t>(k));
  ByteVector words(8 * static_cast<std::size_t>(w), 0);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    HashBuckets(keys[i], k, max, buckets);
    for (std::int64_t b : buckets) {
      const int bit = static_cast<int>(b & 63);
      words[8 * static_cast<std::size_t>(b >> 6) + 7 - static_cast<std::size_t>(bit / 8)] |=
          static_cast<std::uint8_t>(1u << (bit % 8));
    }
  }
  std::copy(words.begin(), words.end(), expected.begin() + 8);
  const ByteSpan got = built->serialized();
  RC_ASSERT(ByteVector(got.begin(), got.end()) == expected);
  // The streamed build's entry point: the same bytes.
  auto streamed = V10Filter::Create(k, w);
  std::vector<ByteSpan> spans;
  for (std::size_t i = 0; i < keys.size(); ++i) spans.push_back(keys[i]);
  streamed->AddAll(std::span<const ByteSpan>(spans));
  const ByteSpan s = streamed->serialized();
  RC_ASSERT(ByteVector(s.begin(), s.end()) == expected);
  // Answers for stored keys and others (false positives included), from a parsed view of the
  // bits filled densely.
  testing::FillDensely(words, k, *rc::gen::arbitrary<std::uint64_t>());
  std::copy(words.begin(), words.end(), expected.begin() + 8);
  auto parsed = V10Filter::Parse(expected, "p");
  RC_ASSERT(parsed.ok());
  KeyList probes = ToKeyList(*GenKeys());
  for (std::size_t i = 0; i < keys.size(); ++i) probes.Add(keys[i]);
  std::vector<std::uint8_t> batch(probes.size());
  parsed->MayContainBatch(probes, batch);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    HashBuckets(probes[i], k, max, buckets);
    bool want = true;
    for (std::int64_t b : buckets) want = want && ReferenceBit(words, b);
    RC_ASSERT(parsed->MayContain(probes[i]) == want);
    RC_ASSERT(batch[i] == (want ? 1 : 0));
  }
}

// A parse of damaged bytes either fails cleanly or describes a filter inside the input.
void CheckDamaged(const ByteVector& bytes, int which) {
  if (which == 0) {
    auto r = V10Filter::Parse(bytes, "d");
    if (r.ok()) {
      RC_ASSERT(8 + 8 * static_cast<std::uint64_t>(r->word_count()) <= bytes.size());
      RC_ASSERT(r->word_count() > 0);
      (void)r->MayContain(AsBytes("probe"));
    } else {
      RC_ASSERT(r.status().code() == StatusCode::kCorrupt);
    }
  } else if (which == 1) {
    auto r = LegacyFilter::Parse(bytes, "d");
    if (r.ok()) {
      RC_ASSERT(LegacyFilter::kOverheadBytes + 8 * static_cast<std::uint64_t>(r->word_count()) <=
                bytes.size());
      (void)r->MayContain(AsBytes("probe"));
    } else {
      RC_ASSERT(r.status().code() == StatusCode::kCorrupt);
    }
  } else {
    auto r = RowFilter::Parse(bytes, "d");
    if (r.ok()) {
      RC_ASSERT(r->consumed_bytes() <= bytes.size());
      (void)r->filter().MayContain(AsBytes("probe"));
    }
  }
}

RC_GTEST_PROP(CassandraProperties, TruncationAndCorruptionNeverCrash, ()) {
  const KeyList keys = ToKeyList(*GenKeys());
  const int which = *rc::gen::element(0, 1, 2);
  RC_TAG(which == 0 ? "1.0 filter" : which == 1 ? "legacy filter" : "row filter");
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  ByteVector bytes;
  if (which == 0) {
    bytes = *BuildV10Filter(keys, *SizeForBucketsPerElement(n, 15));
  } else if (which == 1) {
    bytes = *BuildLegacyFilter(keys, *LegacySizeForBucketsPerElement(n, 15));
  } else {
    bytes = *BuildRowFilter(keys, n);
  }
  const auto cut = *Uniform<std::size_t>(0, bytes.size());
  const ByteVector cut_bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
  CheckDamaged(cut_bytes, which);
  // Every format ends with the last word the header (or the Java stream) promises, so a strict
  // prefix of a file we wrote is always short: it must be refused, never clamped to what is there.
  const Status cut_status = which == 0   ? V10Filter::Parse(cut_bytes, "d").status()
                            : which == 1 ? LegacyFilter::Parse(cut_bytes, "d").status()
                                         : RowFilter::Parse(cut_bytes, "d").status();
  RC_ASSERT(cut_status.code() == StatusCode::kCorrupt);
  ByteVector flipped = bytes;
  const auto at = *Uniform<std::size_t>(0, bytes.size());
  flipped[at] ^= *Uniform<std::uint8_t>(1, 255);
  CheckDamaged(flipped, which);
}

RC_GTEST_PROP(CassandraProperties, HugeHeaderInSmallFileRefused, ()) {
  const auto size = *rc::gen::inRange<std::size_t>(8, 200);
  ByteVector f(size, 0);
  // Just past what the file holds, or anything up to 2^31 - 1 (each in 1 case of 2).
  const auto fits = static_cast<std::int32_t>((size - 8) / 8);
  const auto w = *rc::gen::oneOf(Uniform<std::int32_t>(fits + 1, fits + 9),
                                 Uniform<std::int32_t>(fits + 1, INT32_MAX));
  RC_TAG(w <= fits + 8 ? "just past the file" : "up to 2^31 - 1");
  f[4] = static_cast<std::uint8_t>(w >> 24);
  f[5] = static_cast<std::uint8_t>(w >> 16);
  f[6] = static_cast<std::uint8_t>(w >> 8);
  f[7] = static_cast<std::uint8_t>(w);
  RC_ASSERT(!V10Filter::Parse(f, "h").ok());
  ByteVector row(4 + size, 0);
  row[3] = static_cast<std::uint8_t>(size);
  std::copy(f.begin(), f.end(), row.begin() + 4);
  RC_ASSERT(!RowFilter::Parse(row, "h").ok());
}

}  // namespace
}  // namespace bloomcodec::cassandra

// Properties over arbitrary keys and parameters: write-then-read is the identity, no false
// negatives, the size matches the sizing, and damaged files never crash the readers.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <vector>

#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"

namespace bloomcodec::cassandra {
namespace {

KeyList ToKeyList(const std::vector<std::vector<std::uint8_t>>& keys) {
  KeyList list;
  for (const auto& k : keys) list.Add(ByteSpan(k));
  return list;
}

rc::Gen<std::vector<std::vector<std::uint8_t>>> GenKeys() {
  return rc::gen::container<std::vector<std::vector<std::uint8_t>>>(
      rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>()));
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
  const int which = *rc::gen::inRange(0, 3);
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  ByteVector bytes;
  if (which == 0) {
    bytes = *BuildV10Filter(keys, *SizeForBucketsPerElement(n, 15));
  } else if (which == 1) {
    bytes = *BuildLegacyFilter(keys, *LegacySizeForBucketsPerElement(n, 15));
  } else {
    bytes = *BuildRowFilter(keys, n);
  }
  const auto cut = *rc::gen::inRange<std::size_t>(0, bytes.size());
  const ByteVector cut_bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
  CheckDamaged(cut_bytes, which);
  // Every format ends with the last word the header (or the Java stream) promises, so a strict
  // prefix of a file we wrote is always short: it must be refused, never clamped to what is there.
  const Status cut_status = which == 0   ? V10Filter::Parse(cut_bytes, "d").status()
                            : which == 1 ? LegacyFilter::Parse(cut_bytes, "d").status()
                                         : RowFilter::Parse(cut_bytes, "d").status();
  RC_ASSERT(cut_status.code() == StatusCode::kCorrupt);
  ByteVector flipped = bytes;
  const auto at = *rc::gen::inRange<std::size_t>(0, bytes.size());
  flipped[at] ^= *rc::gen::inRange<std::uint8_t>(1, 255);
  CheckDamaged(flipped, which);
}

RC_GTEST_PROP(CassandraProperties, HugeHeaderInSmallFileRefused, ()) {
  const auto size = *rc::gen::inRange<std::size_t>(8, 200);
  ByteVector f(size, 0);
  const auto w =
      *rc::gen::inRange<std::int32_t>(static_cast<std::int32_t>((size - 8) / 8) + 1, INT32_MAX);
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

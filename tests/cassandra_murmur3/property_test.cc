// Properties over arbitrary keys and fp chances (no JVM: the oracle of tests/oracle checks the
// originals' answers): write-then-read keeps every key, the three variants are one bit set in
// two index orders and two byte orders, and damaged files are refused, never misread.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <vector>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "murmur3_util.h"

namespace bloomcodec::cassandra {
namespace {

using murmur3_testing::Codec;

KeyList ToKeyList(const std::vector<std::vector<std::uint8_t>>& keys) {
  KeyList list;
  for (const auto& k : keys) list.Add(ByteSpan(k));
  return list;
}

rc::Gen<std::vector<std::vector<std::uint8_t>>> GenKeys() {
  return rc::gen::container<std::vector<std::vector<std::uint8_t>>>(
      rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>()));
}

rc::Gen<double> GenFp() {
  return rc::gen::element(0.9, 0.5, 0.393, 0.3, 0.1, 0.05, 0.01, 0.001, 1e-4, 6.71e-5);
}

RC_GTEST_PROP(CassandraMurmur3Properties, BuildParseKeepsEveryKeyInEveryVariant, ()) {
  const KeyList keys = ToKeyList(*GenKeys());
  const std::int64_t n =
      static_cast<std::int64_t>(keys.size()) + *rc::gen::inRange<std::int64_t>(0, 3000);
  FilterParams params;
  params.fp_chance = *GenFp();
  params.expected_keys = n;
  const Result<Murmur3FilterSpec> spec = SizeMurmur3Filter(n, *params.fp_chance);
  RC_ASSERT(spec.ok());
  std::vector<ByteVector> files;
  for (const auto& v : murmur3_testing::Variants()) {
    const FormatCodec& codec = Codec(v.format);
    Result<ByteVector> built = codec.Build(keys, params);
    RC_ASSERT(built.ok());
    RC_ASSERT(static_cast<std::int64_t>(built->size()) == spec->file_bytes());
    const Result<SizeInfo> size = codec.Size(params);
    RC_ASSERT(size.ok() && size->file_bytes == spec->file_bytes());
    Result<Murmur3Filter> parsed = Murmur3Filter::Parse(*built, "p", v.layout);
    RC_ASSERT(parsed.ok());
    RC_ASSERT(parsed->signed_hash_count() == spec->hash_count);
    RC_ASSERT(parsed->word_count() == spec->word_count);
    // The fill statistics' count of set bits, against a bit-by-bit count.
    std::uint64_t set = 0;
    for (std::uint8_t byte : parsed->bits_bytes()) {
      for (int bit = 0; bit < 8; ++bit) set += (byte >> bit) & 1u;
    }
    RC_ASSERT(parsed->bits_set() == set);
    std::vector<std::uint8_t> answers(keys.size());
    RC_ASSERT(codec.Probe(*built, "p", keys, {}, answers).ok());
    RC_ASSERT(std::count(answers.begin(), answers.end(), 0) == 0);
    // Other keys: the batch path answers as the key-at-a-time path (K = 1 included, fp 0.3).
    const KeyList others = ToKeyList(*GenKeys());
    std::vector<std::uint8_t> batch(others.size());
    parsed->MayContainBatch(others, batch);
    for (std::size_t i = 0; i < others.size(); ++i) {
      RC_ASSERT(batch[i] == (parsed->MayContain(others[i]) ? 1 : 0));
    }
    // Keys hashed before (as a streamed Index.db scan hashes them): the same answers.
    std::vector<Murmur3Hash> hashes;
    for (std::size_t i = 0; i < others.size(); ++i) hashes.push_back(CassandraMurmur3(others[i]));
    std::vector<std::uint8_t> hashed(others.size());
    parsed->MayContainHashedBatch(hashes, hashed);
    RC_ASSERT(hashed == batch);
    // Dump and undump give the bytes back.
    Result<Document> dump = codec.Dump(*built, "p");
    RC_ASSERT(dump.ok());
    RC_ASSERT(*codec.Undump(*dump, "p") == *built);
    files.push_back(std::move(*built));
  }
  // 3.0 and 4.0: the same bit set, each 8-byte group reversed.
  Result<ByteVector> swapped = SwapMurmur3Serialization(
      files[1], "v3", Murmur3Layout::kNewOrderLongs, Murmur3Layout::kRawBytes);
  RC_ASSERT(swapped.ok() && *swapped == files[2]);
  // The two index orders share index 1 of every key (base + step is the same sum).
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const Murmur3Hash h = CassandraMurmur3(keys[i]);
    const std::int64_t max = std::int64_t{spec->word_count} * 64;
    RC_ASSERT(Murmur3BitIndex(h, IndexOrder::kOld, 1, max) ==
              Murmur3BitIndex(h, IndexOrder::kNew, 1, max));
  }
}

RC_GTEST_PROP(CassandraMurmur3Properties, SignExtensionIsTheOnlyDifferenceFromCanonical, ()) {
  const auto key =
      *rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>());
  const Murmur3Hash ours = CassandraMurmur3(key);
  const Murmur3Hash canonical = CanonicalMurmur3(key);
  bool high_tail = false;
  const std::size_t tail = key.size() & 15;
  for (std::size_t p = 0; p < tail; ++p) {
    if (p != 7 && key[key.size() - tail + p] >= 0x80) high_tail = true;
  }
  RC_ASSERT((ours.h0 == canonical.h0 && ours.h1 == canonical.h1) == !high_tail);
  // Clearing the high bit of every tail byte makes the two agree.
  auto low = key;
  for (std::size_t p = 0; p < tail; ++p) low[low.size() - tail + p] &= 0x7f;
  RC_ASSERT(CassandraMurmur3(low).h0 == CanonicalMurmur3(low).h0);
  RC_ASSERT(CassandraMurmur3(low).h1 == CanonicalMurmur3(low).h1);
}

RC_GTEST_PROP(CassandraMurmur3Properties, StrictPrefixesAndHeaderDamageAreRefused, ()) {
  const KeyList keys = ToKeyList(*GenKeys());
  FilterParams params;
  params.fp_chance = *GenFp();
  const auto& v = *rc::gen::elementOf(murmur3_testing::Variants());
  const FormatCodec& codec = Codec(v.format);
  Result<ByteVector> built = codec.Build(keys, params);
  RC_ASSERT(built.ok());
  const std::size_t cut = *rc::gen::inRange<std::size_t>(1, built->size());
  std::vector<std::uint8_t> answers(keys.size());
  const Status s = codec.Probe(ByteSpan(*built).first(cut), "cut", keys, {}, answers);
  RC_ASSERT(s.code() == StatusCode::kCorrupt);
  RC_ASSERT(s.offset().has_value() && *s.offset() <= cut);
  // A word count larger than the file allows is refused before anything is sized from it.
  ByteVector big = *built;
  big[4] = static_cast<std::uint8_t>(*rc::gen::inRange(1, 128));
  RC_ASSERT(codec.Probe(big, "big", keys, {}, answers).code() == StatusCode::kCorrupt);
}

}  // namespace
}  // namespace bloomcodec::cassandra

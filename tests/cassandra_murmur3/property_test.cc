// Properties over arbitrary keys and fp chances (no JVM: the oracle of tests/oracle checks the
// originals' answers): write-then-read keeps every key, the three variants are one bit set in
// two index orders and two byte orders, and damaged files are refused, never misread.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <span>
#include <vector>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "cassandra/generators.h"
#include "cassandra/kernels.h"
#include "murmur3_util.h"
#include "support/test_support.h"

namespace bloomcodec::cassandra {
namespace {

using murmur3_testing::Codec;
using testing::AnyByte;
using testing::GenKeys;
using testing::OneIn;
using testing::SomeTailByteIsHigh;
using testing::Uniform;

KeyList ToKeyList(const std::vector<std::vector<std::uint8_t>>& keys) {
  KeyList list;
  for (const auto& k : keys) list.Add(ByteSpan(k));
  return list;
}

rc::Gen<double> GenFp() {
  return rc::gen::element(0.9, 0.5, 0.393, 0.3, 0.1, 0.05, 0.01, 0.001, 1e-4, 6.71e-5);
}

RC_GTEST_PROP(CassandraMurmur3Properties, BuildParseKeepsEveryKeyInEveryVariant, ()) {
  const auto raw = *GenKeys();
  RC_CLASSIFY(SomeTailByteIsHigh(raw, 16), "a tail byte >= 0x80");
  const KeyList keys = ToKeyList(raw);
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
    Result<Murmur3Filter> parsed = Murmur3Filter::Parse(*built, "p", v.era);
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
  Result<ByteVector> swapped = SwapMurmur3Serialization(files[1], "v3", Era::kV30, Era::kV40);
  RC_ASSERT(swapped.ok() && *swapped == files[2]);
  // The two index orders share index 1 of every key (base + step is the same sum).
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const Murmur3Hash h = CassandraMurmur3(keys[i]);
    const std::int64_t max = std::int64_t{spec->word_count} * 64;
    RC_ASSERT(Murmur3BitIndex(h, IndexOrder::kOld, 1, max) ==
              Murmur3BitIndex(h, IndexOrder::kNew, 1, max));
  }
}

// The file byte of bit j: byte j / 8 of the raw bytes (4.0+), or that byte of a big-endian long
// (1.2 - 3.x: its 8-byte group reversed).
std::size_t ReferenceByteOf(std::int64_t j, Era era) {
  const std::size_t byte = static_cast<std::size_t>(j >> 3);
  return era == Era::kV40 ? byte : byte ^ 7;
}

// The index order: old (base h0) before 3.0 (1.2 - 2.2), new from 3.0 on.
IndexOrder ReferenceOrderOf(Era era) {
  return era == Era::kV12 ? IndexOrder::kOld : IndexOrder::kNew;
}

// The batch kernels (hashes of a round first, staged and prefetched rounds in filters above the
// L2 size, unstaged below it, the key-at-a-time fallback of K > 21) against the reference
// arithmetic (Murmur3BitIndexes: Java's formula with the % operator), in every layout: the bytes
// built and every answer of every lookup entry point. K > 21 in 1 case of 4; a filter above
// 1 MiB in about 2 of 5.
RC_GTEST_PROP(CassandraMurmur3Properties, KernelsMatchTheReference, ()) {
  ReportDefaultKernel();
  const auto raw = *GenKeys();
  const KeyList keys = ToKeyList(raw);
  const Era era = *rc::gen::element(Era::kV12, Era::kV30, Era::kV40);
  const std::int32_t k =
      *rc::gen::weightedOneOf<std::int32_t>({{3, Uniform(0, 22)}, {1, Uniform(22, 26)}});
  // 1 MiB of bits is 131072 words: below it the unstaged path, above it the staged one.
  const std::int32_t w = *rc::gen::oneOf(Uniform(1, 200), Uniform(131000, 140000),
                                         rc::gen::element(1, 2, 131072, 131073, 300000));
  RC_TAG(k > 21 ? "K > 21 (key at a time)" : "K <= 21 (rounds)",
         w > 131072 ? "above 1 MiB (staged)" : "at most 1 MiB (unstaged)");
  RC_CLASSIFY(SomeTailByteIsHigh(raw, 16), "a tail byte >= 0x80");
  Result<Murmur3Filter> built = Murmur3Filter::Create(k, w, era);
  RC_ASSERT(built.ok());
  built->AddAll(keys);
  const std::int64_t max = std::int64_t{w} * 64;
  std::vector<std::int64_t> indexes(static_cast<std::size_t>(k));
  ByteVector expected(8 + 8 * static_cast<std::size_t>(w), 0);
  expected[3] = static_cast<std::uint8_t>(k);
  for (int b = 0; b < 4; ++b) expected[4 + b] = static_cast<std::uint8_t>(w >> (24 - 8 * b));
  for (std::size_t i = 0; i < keys.size(); ++i) {
    Murmur3BitIndexes(keys[i], ReferenceOrderOf(era), k, max, indexes);
    for (std::int64_t j : indexes) {
      expected[8 + ReferenceByteOf(j, era)] |= static_cast<std::uint8_t>(1u << (j & 7));
    }
  }
  const ByteSpan got = built->serialized();
  RC_ASSERT(ByteVector(got.begin(), got.end()) == expected);
  // The streamed build's entry point: the same bytes.
  std::vector<ByteSpan> spans;
  for (std::size_t i = 0; i < keys.size(); ++i) spans.push_back(keys[i]);
  Result<Murmur3Filter> streamed = Murmur3Filter::Create(k, w, era);
  streamed->AddAll(std::span<const ByteSpan>(spans));
  const ByteSpan s = streamed->serialized();
  RC_ASSERT(ByteVector(s.begin(), s.end()) == expected);
  // Answers for stored keys and others (false positives included), from a parsed view of the
  // bits filled densely.
  testing::FillDensely(std::span(expected).subspan(8), k, *rc::gen::arbitrary<std::uint64_t>());
  Result<Murmur3Filter> parsed = Murmur3Filter::Parse(expected, "p", era);
  RC_ASSERT(parsed.ok());
  KeyList probes = ToKeyList(*GenKeys());
  for (std::size_t i = 0; i < keys.size(); ++i) probes.Add(keys[i]);
  std::vector<ByteSpan> probe_spans;
  std::vector<Murmur3Hash> hashes;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    probe_spans.push_back(probes[i]);
    hashes.push_back(CassandraMurmur3(probes[i]));
  }
  std::vector<std::uint8_t> batch(probes.size()), in_place(probes.size()), hashed(probes.size());
  parsed->MayContainBatch(probes, batch);
  parsed->MayContainBatch(std::span<const ByteSpan>(probe_spans), in_place);
  parsed->MayContainHashedBatch(hashes, hashed);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    Murmur3BitIndexes(probes[i], ReferenceOrderOf(era), k, max, indexes);
    bool want = true;
    for (std::int64_t j : indexes) {
      want = want && ((expected[8 + ReferenceByteOf(j, era)] >> (j & 7)) & 1u) != 0;
    }
    RC_ASSERT(parsed->MayContain(probes[i]) == want);
    RC_ASSERT(batch[i] == (want ? 1 : 0));
    RC_ASSERT(in_place[i] == batch[i]);
    RC_ASSERT(hashed[i] == batch[i]);
  }
}

// A key of 0 - 4 whole blocks and a tail of 0 - 15 bytes (none in 1 case of 16), uniform bytes
// but the tail's: in 1 case of 2 every tail byte is below 0x80, in the other one of its first
// seven is 0x80 or above (the eighth would not do: the hash shifts its sign bits out).
RC_GTEST_PROP(CassandraMurmur3Properties, SignExtensionIsTheOnlyDifferenceFromCanonical, ()) {
  const std::size_t length = 16 * *Uniform<std::size_t>(0, 5) + *Uniform<std::size_t>(0, 16);
  auto key = *rc::gen::container<std::vector<std::uint8_t>>(length, AnyByte());
  const std::size_t tail_start = key.size() - key.size() % 16;
  for (std::size_t p = tail_start; p < key.size(); ++p) key[p] &= 0x7f;
  if (tail_start < key.size() && *OneIn(1, 2)) {
    std::size_t p = *Uniform<std::size_t>(0, std::min<std::size_t>(key.size() - tail_start, 7));
    key[tail_start + p] |= 0x80;
  }
  const Murmur3Hash ours = CassandraMurmur3(key);
  const Murmur3Hash canonical = CanonicalMurmur3(key);
  bool high_tail = false;
  const std::size_t tail = key.size() & 15;
  for (std::size_t p = 0; p < tail; ++p) {
    if (p != 7 && key[key.size() - tail + p] >= 0x80) high_tail = true;
  }
  RC_TAG(tail == 0   ? "no tail"
         : high_tail ? "a tail byte >= 0x80 (hashes differ)"
                     : "tail bytes < 0x80 (hashes agree)");
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
  const std::size_t cut = *Uniform<std::size_t>(1, built->size());
  std::vector<std::uint8_t> answers(keys.size());
  const Status s = codec.Probe(ByteSpan(*built).first(cut), "cut", keys, {}, answers);
  RC_ASSERT(s.code() == StatusCode::kCorrupt);
  RC_ASSERT(s.offset().has_value() && *s.offset() <= cut);
  // A word count larger than the file allows is refused before anything is sized from it.
  ByteVector big = *built;
  big[4] = static_cast<std::uint8_t>(*Uniform(1, 128));
  RC_ASSERT(codec.Probe(big, "big", keys, {}, answers).code() == StatusCode::kCorrupt);
}

}  // namespace
}  // namespace bloomcodec::cassandra

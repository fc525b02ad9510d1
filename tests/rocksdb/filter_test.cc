// Properties of the RocksDB full-filter code that need no original: the trailer dispatch on
// every short or reserved input, no false negatives for any build, sizes agreeing with builds,
// the reader staying inside the filter for crafted geometry, dump round trips.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/hash.h"
#include "leveldb/random_keys.h"
#include "leveldb/rc_check.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {
namespace {

using ::bloomcodec::testing::CheckProperty;
using ::bloomcodec::testing::HexBytes;
using ::bloomcodec::testing::RandomKeys;

// The reader is a view: the bytes must outlive it (no temporaries).
FullFilterReader Read(ByteVector&&) = delete;
FullFilterReader Read(const ByteVector& bytes) {
  auto r = FullFilterReader::Parse(bytes, "test");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

KeyList ToKeyList(const std::vector<std::string>& keys) {
  KeyList list;
  for (const auto& k : keys) list.Add(k);
  return list;
}

TEST(RocksdbFilter, FiveBytesOrFewerMatchNothing) {
  for (std::size_t n = 0; n <= 5; ++n) {
    const ByteVector bytes(n, 0xFF);
    const FullFilterReader f = Read(bytes);
    EXPECT_EQ(f.kind(), FullFilterKind::kEmpty) << n;
    EXPECT_FALSE(f.MayContain(AsBytes("x"))) << n;
    EXPECT_EQ(f.bit_count(), 0u);
  }
}

TEST(RocksdbFilter, TrailerDispatch) {
  struct Case {
    const char* hex;
    FullFilterKind kind;
  };
  const std::vector<Case> cases = {
      {"00000000000000", FullFilterKind::kAlwaysMatch},  // marker 0
      {"00fd00000000", FullFilterKind::kAlwaysMatch},    // reserved marker
      {"0080ffffffff", FullFilterKind::kAlwaysMatch},    // -128: reserved
      {"00ff00000000", FullFilterKind::kAlwaysMatch},    // new Bloom, 0 probes
      {"00ff001f0000", FullFilterKind::kAlwaysMatch},    // 31 probes: reserved
      {"00ff00060100", FullFilterKind::kAlwaysMatch},    // reserved bytes not zero
      {"00ff01060000", FullFilterKind::kAlwaysMatch},    // sub-implementation 1
      {"00ff00260000", FullFilterKind::kAlwaysMatch},    // 128-byte blocks
      {"00ff00060000", FullFilterKind::kFastLocalBloom},
      {"00fe07010000", FullFilterKind::kAlwaysMatch},  // Ribbon, 1 block
      {"00fe07020000", FullFilterKind::kRibbon},
      {"00060000000000", FullFilterKind::kAlwaysMatch},    // legacy, 0 lines
      {"0000060200000000", FullFilterKind::kAlwaysMatch},  // 3 bytes in 2 lines
  };
  ByteVector one_line(64, 0);  // legacy, 1 line of 64 bytes: the common case
  for (std::uint8_t b : HexBytes("0601000000")) one_line.push_back(b);
  EXPECT_EQ(Read(one_line).kind(), FullFilterKind::kLegacyBloom);
  EXPECT_FALSE(Read(one_line).MayContain(AsBytes("k")));
  for (const Case& c : cases) {
    const ByteVector bytes = HexBytes(c.hex);
    const FullFilterReader f = Read(bytes);
    EXPECT_EQ(f.kind(), c.kind) << c.hex << ": " << f.always_match_reason();
    if (c.kind == FullFilterKind::kAlwaysMatch) {
      EXPECT_TRUE(f.MayContain(AsBytes("anything"))) << c.hex;
      EXPECT_FALSE(f.always_match_reason().empty());
    }
  }
}

TEST(RocksdbFilter, LegacyLineSizeIsDerivedFromTheLength) {
  // 3 lines of 128 bytes (another machine's cache line): readable, with 1024-bit lines.
  ByteVector bytes(3 * 128, 0xFF);
  for (std::uint8_t b : HexBytes("0603000000")) bytes.push_back(b);
  const FullFilterReader f = Read(bytes);
  ASSERT_EQ(f.kind(), FullFilterKind::kLegacyBloom);
  EXPECT_EQ(f.log2_line_bytes(), 7u);
  EXPECT_TRUE(f.MayContain(AsBytes("k")));
  EXPECT_FALSE(f.OriginalReadsOutside());
}

TEST(RocksdbFilter, CraftedGeometryNeverReadsOutside) {
  // A FastLocalBloom payload of 1 byte: RocksDB reads 64 bytes from it. Ours stays inside.
  const ByteVector tiny = HexBytes("00ff00060000");
  const FullFilterReader small = Read(tiny);
  EXPECT_TRUE(small.OriginalReadsOutside());
  // A legacy line count whose byte size wraps 32 bits to the payload length.
  ByteVector wrap(64, 0);
  for (std::uint8_t b : HexBytes("0601000004")) wrap.push_back(b);  // 0x04000001 lines
  const FullFilterReader wrapped = Read(wrap);
  EXPECT_EQ(wrapped.kind(), FullFilterKind::kLegacyBloom);
  EXPECT_TRUE(wrapped.OriginalReadsOutside());
  const auto keys = RandomKeys(3, 2000);
  for (const auto& k : keys) {
    (void)small.MayContain(AsBytes(k));
    (void)wrapped.MayContain(AsBytes(k));
  }
}

TEST(RocksdbFilter, EveryBuiltFilterHoldsItsKeys) {
  CheckProperty(60, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto keys = RandomKeys(seed, static_cast<std::size_t>(*rc::gen::inRange(0, 3000)));
    const double bpk = *rc::gen::inRange(500, 40000) / 1000.0;
    for (FilterEncoding e :
         {FilterEncoding::kLegacyBloom, FilterEncoding::kFastLocalBloom, FilterEncoding::kRibbon}) {
      auto built = BuildFullFilter(e, bpk, ToKeyList(keys));
      RC_ASSERT(built.ok());
      auto f = FullFilterReader::Parse(built.value(), "built");
      RC_ASSERT(f.ok());
      for (const auto& k : keys) RC_ASSERT(f.value().MayContain(AsBytes(k)));
      // Size predicts the length for the same number of distinct consecutive hashes.
      const auto hashes = CollapsedHashes(e, ToKeyList(keys));
      auto size = SizeFullFilter(e, bpk, hashes.size(), hashes.empty() ? 0 : hashes.front());
      RC_ASSERT(size.ok());
      RC_ASSERT(size.value().filter_bytes == built.value().size());
      RC_ASSERT(size.value().kind == f.value().kind());
    }
  });
}

TEST(RocksdbFilter, BatchAnswersEqualSingleAnswers) {
  CheckProperty(40, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto keys = RandomKeys(seed, 500);
    const auto probes = ToKeyList(RandomKeys(seed + 1, 500));
    for (FilterEncoding e :
         {FilterEncoding::kLegacyBloom, FilterEncoding::kFastLocalBloom, FilterEncoding::kRibbon}) {
      auto built = BuildFullFilter(e, 7.5, ToKeyList(keys));
      RC_ASSERT(built.ok());
      const FullFilterReader f = FullFilterReader::Parse(built.value(), "b").value();
      std::vector<std::uint8_t> batch(probes.size());
      f.MayContainBatch(probes, batch);
      for (std::size_t i = 0; i < probes.size(); ++i) {
        RC_ASSERT(batch[i] == (f.MayContain(probes[i]) ? 1 : 0));
        const std::uint64_t h =
            e == FilterEncoding::kLegacyBloom ? LegacyBloomHash(probes[i]) : Hash64(probes[i]);
        RC_ASSERT(f.HashMayMatch(h) == f.MayContain(probes[i]));
      }
    }
  });
}

// Filters above 256 KiB take the batch path that prefetches; it answers as the single path.
TEST(RocksdbFilter, LargeFiltersBatchAsSingle) {
  const KeyList keys = ToKeyList(RandomKeys(11, 300000));
  const KeyList probes = ToKeyList(RandomKeys(12, 20000));
  for (FilterEncoding e :
       {FilterEncoding::kLegacyBloom, FilterEncoding::kFastLocalBloom, FilterEncoding::kRibbon}) {
    const ByteVector built = BuildFullFilter(e, 10, keys).value();
    ASSERT_GT(built.size(), 256u * 1024);
    const FullFilterReader f = Read(built);
    for (const KeyList* list : {&keys, &probes}) {
      std::vector<std::uint8_t> batch(list->size());
      f.MayContainBatch(*list, batch);
      std::size_t mismatches = 0;
      for (std::size_t i = 0; i < list->size(); ++i) {
        mismatches += batch[i] != (f.MayContain((*list)[i]) ? 1 : 0);
        if (list == &keys) {
          ASSERT_EQ(batch[i], 1) << "key " << i;
        }
      }
      EXPECT_EQ(mismatches, 0u);
    }
  }
}

// FirstHashDenied (the repair's check of a rebuilt filter) answers as HashMayMatch one hash at a
// time, on the small path and on the prefetching one (above 256 KiB).
TEST(RocksdbFilter, FirstHashDeniedIsTheFirstSingleDenial) {
  for (const std::size_t n : {std::size_t{2000}, std::size_t{250000}}) {
    const KeyList keys = ToKeyList(RandomKeys(21, n));
    const KeyList probes = ToKeyList(RandomKeys(22, 4000));
    for (FilterEncoding e :
         {FilterEncoding::kLegacyBloom, FilterEncoding::kFastLocalBloom, FilterEncoding::kRibbon}) {
      const ByteVector built = BuildFullFilter(e, 10, keys).value();
      const FullFilterReader f = Read(built);
      const auto hash = [e](ByteSpan k) {
        return e == FilterEncoding::kLegacyBloom ? std::uint64_t{LegacyBloomHash(k)} : Hash64(k);
      };
      std::vector<std::uint64_t> held;
      for (std::size_t i = 0; i < keys.size(); ++i) held.push_back(hash(keys[i]));
      EXPECT_EQ(f.FirstHashDenied(held), held.size()) << n;
      std::vector<std::uint64_t> mixed = held;
      std::size_t first = mixed.size();
      for (std::size_t i = 0; i < probes.size(); ++i) {
        const std::uint64_t h = hash(probes[i]);
        if (first == mixed.size() && !f.HashMayMatch(h)) first = mixed.size() + i;
        mixed.push_back(h);
      }
      ASSERT_LT(first, mixed.size()) << "some probe is denied at 10 bits per key";
      EXPECT_EQ(f.FirstHashDenied(mixed), first) << n;
    }
  }
}

TEST(RocksdbFilter, PolicyParameters) {
  EXPECT_FALSE(PolicyParamsFor(0.49).ok());
  EXPECT_EQ(PolicyParamsFor(0.5).value().millibits_per_key, 1000);
  EXPECT_EQ(PolicyParamsFor(7.5).value().millibits_per_key, 7500);
  EXPECT_EQ(PolicyParamsFor(7.5).value().whole_bits_per_key, 8);  // rounds half up
  // The nudge rounds 7.4999 up to 7500 millibits, so 8 whole bits; 7.4994 is 7499 and 7.
  EXPECT_EQ(PolicyParamsFor(7.4999).value().whole_bits_per_key, 8);
  EXPECT_EQ(PolicyParamsFor(7.4994).value().whole_bits_per_key, 7);
  EXPECT_EQ(PolicyParamsFor(250).value().millibits_per_key, 100000);  // clamped to 100
}

TEST(RocksdbFilter, DumpUndumpRoundTripsAnyBytes) {
  CheckProperty(200, 100, [] {
    const auto bytes =
        *rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>());
    for (const FormatCodec* f : AllFormats()) {
      if (!f->name().starts_with("rocksdb-") || f->name() == "rocksdb-sst") continue;
      auto dump = f->Dump(bytes, "x");
      RC_ASSERT(dump.ok());
      auto back = f->Undump(dump.value(), "x");
      RC_ASSERT(back.ok());
      RC_ASSERT(back.value() == bytes);
      RC_ASSERT(f->Inspect(bytes, "x").ok());
    }
  });
}

}  // namespace
}  // namespace bloomcodec::rocksdb

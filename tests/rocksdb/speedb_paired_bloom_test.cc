// Speedb's paired Bloom filter (formats/rocksdb/FORMAT.md, "Speedb's paired Bloom filter"), held
// to facts stated from Speedb's source: no Speedb writer is at hand, so the cases are worked by
// hand from the layout (bit positions, the pairing, a one-key filter byte for byte), then
// properties of filters our builder makes from those facts (every key present, the fp rate
// near the standard estimate, the layout invariants), then the table path: a RocksDB table whose
// metaindex names speedb_paired_bloom_filter, verified, and damaged.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bloomcodec/key_list.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/hash.h"
#include "rocksdb/speedb_paired_bloom.h"
#include "rocksdb/sst/sst_writer.h"
#include "rocksdb/sst/verify.h"

namespace bloomcodec::rocksdb {
namespace {

KeyList Keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  KeyList keys;
  for (std::size_t i = 0; i < n; ++i) {
    char k[32];
    std::snprintf(k, sizeof k, "key-%016llx", static_cast<unsigned long long>(rng()));
    keys.Add(AsBytes(std::string_view(k)));
  }
  return keys;
}

TEST(SpeedbPairedBloom, BitPositionsByHand) {
  // Rule 0: the top 9 bits; rule 1: bits 14..22. Values 0..4 fall on the pair index, so the
  // other 23 bits are scaled to 507 and moved past it.
  EXPECT_EQ(speedb::BitInBlock(0xFF800000U, 0), 511u);
  EXPECT_EQ(speedb::BitInBlock(0x02800000U, 0), 5u);    // 5: already past the index bits
  EXPECT_EQ(speedb::BitInBlock(0x01000000U, 0), 5u);    // 2 -> low 23 bits 0 -> 5 + 0
  EXPECT_EQ(speedb::BitInBlock(0x007FFFFFU, 0), 511u);  // 0 -> 5 + (507 * (2^23 - 1) >> 23)
  EXPECT_EQ(speedb::BitInBlock(0x007FC000U, 1), 511u);
  EXPECT_EQ(speedb::BitInBlock(0xFFF80000U, 1), 480u);  // 0x780000 >> 14
  EXPECT_EQ(speedb::BitInBlock(0x00010000U, 1), 5u);    // 4 -> high 23 bits 0x80 -> 5 + 0
  EXPECT_EQ(speedb::BitInBlock(0xFF800000U, 1), 511u);  // 0 -> 5 + (507 * 0x7FC000 >> 23)
  for (std::uint32_t h : {0u, 1u, 0x12345678U, 0xFFFFFFFFU}) {
    for (int set : {0, 1}) {
      EXPECT_GE(speedb::BitInBlock(h, set), speedb::kPairIndexBits);
      EXPECT_LT(speedb::BitInBlock(h, set), 512u);
    }
  }
}

TEST(SpeedbPairedBloom, TrailerRules) {
  const auto kind = [](std::vector<std::uint8_t> trailer) {
    ByteVector f(2048, 0);
    f.insert(f.end(), trailer.begin(), trailer.end());
    return speedb::ReadTrailer(f).kind;
  };
  EXPECT_EQ(kind({1, 8, 0, 0}), speedb::Kind::kPaired);
  EXPECT_EQ(kind({1, 0, 0, 0}), speedb::Kind::kAlwaysMatch);     // 0 probes: reserved
  EXPECT_EQ(kind({1, 31, 0, 0}), speedb::Kind::kAlwaysMatch);    // 31: reserved
  EXPECT_EQ(kind({1, 8, 1, 0}), speedb::Kind::kAlwaysMatch);     // the future hash seed
  EXPECT_EQ(kind({2, 8, 0, 0}), speedb::Kind::kAlwaysMatch);     // another filter type
  EXPECT_EQ(kind({1, 0x28, 0, 0}), speedb::Kind::kAlwaysMatch);  // 128-byte blocks
  EXPECT_EQ(speedb::ReadTrailer(ByteVector{1, 8, 0, 0}).kind, speedb::Kind::kEmpty);
  auto empty =
      FullFilterReader::Parse(ByteVector{1, 8, 0, 0}, "t", FilterPolicyFamily::kSpeedbPaired);
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->MayContain(AsBytes("a")));  // AlwaysFalseFilter
}

TEST(SpeedbPairedBloom, OneKeyFilterByHand) {
  // One hash, low half 0 (block 0), high half 0xFF800000, at 2.02 bits a key: 2020 * 507 / 512
  // = 2000, 2 bits a key adjusted, ln 2 * 2 = 1.39 probes, rounded up to even: 2, one a block.
  // One batch (the minimum, 2048 bytes). Pairing: block 0 holds the key, so sorted by count the
  // blocks run 1, 2, ..., 31, 0 and the i-th pairs with the (31 - i)-th: 1-0, 2-31, 3-30, ...,
  // 16-17. The key: block 0 with rule 0 (0 < 1), bit 511; block 1 with rule 1, bit 511.
  const std::uint64_t hash = std::uint64_t{0xFF800000U} << 32;
  const ByteVector f = speedb::Build(std::vector<std::uint64_t>{hash}, 2020, false);
  ByteVector expected(2048 + 4, 0);
  expected[0] = 1;
  expected[64] = 0;
  for (int b = 2; b <= 31; ++b) expected[b * 64] = static_cast<std::uint8_t>(33 - b);
  expected[63] = 0x80;
  expected[64 + 63] = 0x80;
  expected[2048] = 1;
  expected[2049] = 2;
  EXPECT_EQ(f, expected);
  const speedb::Trailer t = speedb::ReadTrailer(f);
  EXPECT_TRUE(speedb::HashMayMatch(f, t, hash));
  EXPECT_FALSE(speedb::HashMayMatch(f, t, std::uint64_t{0x7F800000U} << 32));  // bit 255
  EXPECT_TRUE(speedb::CheckLayout(f, t, "t", 0).ok());
  EXPECT_EQ(speedb::BloomBits(t), 32u * 507);
  EXPECT_EQ(speedb::BloomBitsSet(f, t), 2u);
}

TEST(SpeedbPairedBloom, SizingAndProbesFromTheFacts) {
  EXPECT_EQ(speedb::NumProbes(10000), 8u);    // 9 adjusted bits: ln 2 * 9 = 6.2 -> 8
  EXPECT_EQ(speedb::NumProbes(1000), 0u);     // 0 adjusted bits
  EXPECT_EQ(speedb::NumProbes(100000), 30u);  // capped
  EXPECT_EQ(speedb::FilterBytes(0, 10000, false), 2052u);
  EXPECT_EQ(speedb::FilterBytes(2000, 10000, false), 4096u + 4);  // 2500 bytes, up
  EXPECT_EQ(speedb::FilterBytes(2000, 10000, true), 2048u + 4);   // down
}

TEST(SpeedbPairedBloom, BuiltFiltersHoldTheirKeysAtTheExpectedRate) {
  for (std::size_t n : {1u, 300u, 3000u}) {
    const KeyList keys = Keys(n, n);
    for (bool bottommost : {false, true}) {
      const ByteVector f =
          speedb::Build(CollapsedHashes(FilterEncoding::kFastLocalBloom, keys), 10000, bottommost);
      EXPECT_EQ(f.size(), speedb::FilterBytes(n, 10000, bottommost));
      auto r = FullFilterReader::Parse(f, "t", FilterPolicyFamily::kSpeedbPaired);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->kind(), FullFilterKind::kSpeedbPairedBloom);
      EXPECT_EQ(r->hash_count(), 8u);
      EXPECT_TRUE(speedb::CheckLayout(f, speedb::ReadTrailer(f), "t", 0).ok());
      for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(r->MayContain(keys[i])) << i;
      if (n < 3000 || bottommost) continue;
      // 3000 keys in 4096 bytes (10.7 bits a key, 8 probes): the standard estimate at the
      // Bloom bits is about 1%; a wrong probe shows as a rate far from it.
      const KeyList absent = Keys(20000, 99);
      std::size_t fp = 0;
      for (std::size_t i = 0; i < absent.size(); ++i) fp += r->MayContain(absent[i]);
      EXPECT_GT(fp, 20000u / 1000);
      EXPECT_LT(fp, 20000u * 3 / 100);
    }
  }
}

TEST(SpeedbPairedBloom, DamagedFilters) {
  const KeyList keys = Keys(500, 5);
  const ByteVector good =
      speedb::Build(CollapsedHashes(FilterEncoding::kFastLocalBloom, keys), 10000, false);
  // A pair that does not name its block back: refused at that block's offset.
  ByteVector unpaired = good;
  unpaired[3 * 64] =
      static_cast<std::uint8_t>((unpaired[3 * 64] & ~31U) | ((unpaired[3 * 64] + 1) & 31U));
  Status s = speedb::CheckLayout(unpaired, speedb::ReadTrailer(unpaired), "f", 100);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("f"), std::string::npos);
  // A payload that is not whole batches (Speedb's reader would read past it).
  ByteVector cut(good.begin() + 64, good.end());
  EXPECT_FALSE(speedb::CheckLayout(cut, speedb::ReadTrailer(cut), "f", 0).ok());
  auto r = FullFilterReader::Parse(cut, "f", FilterPolicyFamily::kSpeedbPaired);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->OriginalReadsOutside());
  for (std::size_t i = 0; i < keys.size(); ++i) (void)r->MayContain(keys[i]);  // in bounds
  // Every Bloom bit cleared: every key is denied.
  ByteVector cleared = good;
  for (std::size_t b = 0; b + 4 < cleared.size(); ++b) cleared[b] &= b % 64 == 0 ? 31 : 0;
  auto c = FullFilterReader::Parse(cleared, "f", FilterPolicyFamily::kSpeedbPaired);
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_FALSE(c->MayContain(keys[i]));
}

// ----- The table path -----

FileReport VerifyBytes(const ByteVector& bytes, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  FileReport r = VerifySst(path, nullptr, "db");
  std::filesystem::remove(path);
  return r;
}

ByteVector SpeedbTable(const KeyList& keys, const ByteVector& filter) {
  SstWriteOptions options;
  options.policy_name = std::string(speedb::kPolicyName);
  options.full_filter = filter;
  Result<ByteVector> sst = WriteSst(keys, nullptr, options);
  EXPECT_TRUE(sst.ok()) << sst.status().ToString();
  return *sst;
}

bool Has(const FileReport& r, std::string_view kind) {
  return std::any_of(r.findings.begin(), r.findings.end(),
                     [&](const Finding& f) { return f.kind == kind; });
}

TEST(SpeedbPairedBloom, TableNamingThePolicyVerifies) {
  KeyList keys;
  for (int i = 0; i < 1500; ++i) {
    char k[16];
    std::snprintf(k, sizeof k, "k%06d", i);
    keys.Add(AsBytes(std::string_view(k)));
  }
  const ByteVector filter =
      speedb::Build(CollapsedHashes(FilterEncoding::kFastLocalBloom, keys), 10000, false);
  const std::string name = "speedb_" + std::to_string(::getpid());
  const FileReport ok = VerifyBytes(SpeedbTable(keys, filter), name + "_ok.sst");
  EXPECT_EQ(ok.status_name(), "ok");
  EXPECT_EQ(ok.keys_checked, keys.size());
  EXPECT_EQ(ok.false_negative_count, 0u);
  EXPECT_FALSE(Has(ok, finding_kind::kUnsupported));
  ASSERT_TRUE(ok.fill.has_value());
  EXPECT_EQ(ok.fill->hash_count, 8u);
  EXPECT_EQ(ok.fill->bits, (filter.size() - 4) / 64 * 507);

  // One Bloom bit cleared: the keys that set it alone are false negatives.
  ByteVector flipped = filter;
  auto it = std::find_if(flipped.begin() + 1, flipped.end() - 4,
                         [](std::uint8_t b) { return (b & 0x80) != 0; });
  *it &= 0x7F;
  const FileReport fn = VerifyBytes(SpeedbTable(keys, flipped), name + "_fn.sst");
  EXPECT_EQ(fn.status_name(), "error");
  EXPECT_GE(fn.false_negative_count, 1u);

  // A broken pairing: a structure error, not false negatives read from a layout Speedb never
  // writes.
  ByteVector unpaired = filter;
  unpaired[0] = static_cast<std::uint8_t>((unpaired[0] & ~31U) | ((unpaired[0] + 1) & 31U));
  const FileReport bad = VerifyBytes(SpeedbTable(keys, unpaired), name + "_pair.sst");
  EXPECT_EQ(bad.status_name(), "error");
  EXPECT_TRUE(Has(bad, finding_kind::kStructure));

  // Without the name the same bytes are another policy's filter: not read, a warning.
  SstWriteOptions other;
  other.policy_name = "some.other.Filter";
  other.full_filter = filter;
  const FileReport unknown = VerifyBytes(*WriteSst(keys, nullptr, other), name + "_other.sst");
  EXPECT_TRUE(Has(unknown, finding_kind::kUnsupported));
  EXPECT_EQ(unknown.false_negative_count, 0u);
}

}  // namespace
}  // namespace bloomcodec::rocksdb

// Pebble's Bloom filter against RocksDB's legacy full filter (our rocksdb-bloom-legacy, itself
// checked against librocksdb and RocksDB 7.8's golden filters in tests/rocksdb): where Pebble and
// RocksDB agree (rounded probes, whole bits per key 1..99, fewer than 0xffff0000 bits, at least
// one key) the bytes are identical and each reader answers the other's filters alike; where they
// differ, these tests say how.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/hash.h"
#include "leveldb/random_keys.h"
#include "leveldb/rc_check.h"
#include "pebble/bloom.h"
#include "rocksdb/legacy_bloom.h"

namespace bloomcodec::pebble {
namespace {

using ::bloomcodec::testing::CheckProperty;
using ::bloomcodec::testing::RandomKeys;

KeyList ToKeyList(const std::vector<std::string>& keys) {
  KeyList list;
  for (const auto& k : keys) list.Add(k);
  return list;
}

TEST(PebbleBloomVsRocksDb, SameBytesWhereTheyAgree) {
  CheckProperty(150, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto raw = RandomKeys(seed, static_cast<std::size_t>(*rc::gen::inRange(1, 4000)));
    const auto bpk = static_cast<std::uint32_t>(*rc::gen::inRange(1, 100));
    const KeyList keys = ToKeyList(raw);
    BloomPolicy policy;
    policy.bits_per_key = bpk;
    auto pebble = BuildBloom(policy, keys);
    RC_ASSERT(pebble.ok() && pebble->has_value());
    auto rocks = rocksdb::BuildFullFilter(rocksdb::FilterEncoding::kLegacyBloom, bpk, keys);
    RC_ASSERT(rocks.ok());
    RC_ASSERT(**pebble == *rocks);
    // The hashes are RocksDB's BloomHash, collapsed the same way.
    RC_ASSERT(CollapsedBloomHashes(keys, HashFlavor::kSignedTail) ==
              rocksdb::CollapsedHashes(rocksdb::FilterEncoding::kLegacyBloom, keys));
    // Each reader answers the other's filter alike, false positives included.
    auto p = BloomReader::Parse(**pebble, "p");
    auto r = rocksdb::FullFilterReader::Parse(*rocks, "r");
    RC_ASSERT(p.ok() && r.ok());
    RC_ASSERT(r->kind() == rocksdb::FullFilterKind::kLegacyBloom);
    for (const std::string& k : RandomKeys(seed ^ 0x5555, 300)) {
      RC_ASSERT(p->MayContain(AsBytes(k)) == r->MayContain(AsBytes(k)));
      RC_ASSERT(p->HashMayMatch(rocksdb::LegacyBloomHash(AsBytes(k))) == p->MayContain(AsBytes(k)));
    }
  });
}

TEST(PebbleBloomVsRocksDb, ProbeTableChangesOnlyTheProbes) {
  // The 2025-12 probe table: RocksDB's line count, the table's probes; so at 4, 9 and 11+ bits
  // per key the filter is RocksDB's legacy layout with another probe count.
  const KeyList keys = ToKeyList(RandomKeys(77, 5000));
  const auto hashes = rocksdb::CollapsedHashes(rocksdb::FilterEncoding::kLegacyBloom, keys);
  for (std::uint32_t bpk = 1; bpk <= 30; ++bpk) {
    BloomPolicy policy;
    policy.bits_per_key = bpk;
    policy.probes = BloomProbes::kTable;
    const ByteVector table = BuildBloom(policy, keys)->value();
    const ByteVector rocks =
        rocksdb::BuildFullFilter(rocksdb::FilterEncoding::kLegacyBloom, bpk, keys).value();
    ASSERT_EQ(table.size(), rocks.size()) << bpk;
    const std::uint32_t lines = BloomReader::Parse(table, "t")->num_lines();
    EXPECT_EQ(table,
              rocksdb::BuildLegacyBloom(lines, BloomProbeCount(bpk, BloomProbes::kTable), hashes));
    const bool same_probes =
        BloomProbeCount(bpk, BloomProbes::kTable) == BloomProbeCount(bpk, BloomProbes::kRounded);
    EXPECT_EQ(table == rocks, same_probes) << bpk;
    EXPECT_EQ(table[table.size() - 5], BloomProbeCount(bpk, BloomProbes::kTable));
  }
}

TEST(PebbleBloomVsRocksDb, WhereTheyDiffer) {
  const KeyList keys = ToKeyList(RandomKeys(5, 1000));
  // No keys: RocksDB writes a 5-byte filter (probes, zero lines); Pebble none.
  EXPECT_EQ(rocksdb::BuildFullFilter(rocksdb::FilterEncoding::kLegacyBloom, 10, KeyList())->size(),
            5u);
  EXPECT_FALSE(BuildBloom(BloomPolicy{}, KeyList())->has_value());
  // RocksDB clamps bits per key to 100; Pebble takes any.
  BloomPolicy wide;
  wide.bits_per_key = 150;
  const ByteVector p150 = BuildBloom(wide, keys)->value();
  const ByteVector r150 =
      rocksdb::BuildFullFilter(rocksdb::FilterEncoding::kLegacyBloom, 150, keys).value();
  const ByteVector r100 =
      rocksdb::BuildFullFilter(rocksdb::FilterEncoding::kLegacyBloom, 100, keys).value();
  EXPECT_EQ(r150, r100);
  EXPECT_GT(p150.size(), r150.size());
  // RocksDB caps the bits at 0xffff0000; Pebble does not (sizes only: no 1 GB test filters).
  auto capped = rocksdb::SizeFullFilter(rocksdb::FilterEncoding::kLegacyBloom, 10, 1000000000);
  auto uncapped = PlanBloom(BloomPolicy{}, 1000000000);
  EXPECT_EQ(capped->num_lines, 8388481u);  // 0xffff0000 / 512, made odd
  EXPECT_EQ(uncapped->num_lines, 19531251u);
  auto same = rocksdb::SizeFullFilter(rocksdb::FilterEncoding::kLegacyBloom, 10, 400000000);
  EXPECT_EQ(same->num_lines, PlanBloom(BloomPolicy{}, 400000000)->num_lines);
  // Crafted bytes the two readers take differently: a payload one byte per line too long is
  // "may match" for every key to RocksDB (lines do not divide it), read normally by Pebble; a
  // probe byte of 200 is "may match" to RocksDB (reserved marker), 200 probes to Pebble.
  const ByteVector f = BuildBloom(BloomPolicy{}, keys)->value();
  ByteVector longer(f.begin(), f.end() - 5);
  const std::uint32_t lines = BloomReader::Parse(f, "f")->num_lines();
  longer.insert(longer.end(), lines - 1, 0);
  longer.insert(longer.end(), f.end() - 5, f.end());
  EXPECT_EQ(rocksdb::FullFilterReader::Parse(longer, "r")->kind(),
            rocksdb::FullFilterKind::kAlwaysMatch);
  EXPECT_TRUE(BloomReader::Parse(longer, "p").ok());
  ByteVector many_probes = f;
  many_probes[f.size() - 5] = 200;
  EXPECT_EQ(rocksdb::FullFilterReader::Parse(many_probes, "r")->kind(),
            rocksdb::FullFilterKind::kAlwaysMatch);
  auto p = BloomReader::Parse(many_probes, "p");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->num_probes(), 200u);
  std::size_t absent = 0;
  for (const std::string& k : RandomKeys(6, 1000)) absent += p->MayContain(AsBytes(k)) ? 0 : 1;
  EXPECT_GT(absent, 900u);  // 200 probes in a 10-bit-per-key filter: almost every key fails
}

}  // namespace
}  // namespace bloomcodec::pebble

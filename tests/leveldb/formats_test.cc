// The leveldb-bloom, leveldb-bloom-legacy and leveldb-filter-block codecs as the CLI calls them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "formats/leveldb/family.h"

namespace bloomcodec::leveldb {
namespace {

const FormatCodec& Format(std::string_view name) {
  const FormatCodec* f = FindFormat(name);
  EXPECT_NE(f, nullptr) << name;
  return *f;
}

KeyList SomeKeys() {
  KeyList keys;
  for (const char* k : {"", "a", "user:00000001", "\x80\xff", "abc\x90"}) keys.Add(k);
  keys.Add("a");  // duplicate
  return keys;
}

FilterParams Bpk(double b) {
  FilterParams p;
  p.bits_per_key = b;
  return p;
}

TEST(LevelDBFormats, OrderOfTheContract) {
  std::vector<std::string_view> names;
  for (const FormatCodec* f : Formats()) names.push_back(f->name());
  ASSERT_GE(names.size(), 5u);
  EXPECT_EQ(names[0], "leveldb-bloom");
  EXPECT_EQ(names[1], "leveldb-bloom-legacy");
  EXPECT_EQ(names[2], "goleveldb-bloom");
  EXPECT_EQ(names[3], "leveldb-filter-block");
  EXPECT_EQ(names[4], "leveldb-table");
}

TEST(LevelDBFormats, BloomBuildEqualsTheLibraryForBothFlavours) {
  const KeyList keys = SomeKeys();
  for (const auto& [name, policy] :
       {std::pair{"leveldb-bloom", BloomPolicy::Current(7)},
        std::pair{"leveldb-bloom-legacy", BloomPolicy::Legacy117(7)}}) {
    SCOPED_TRACE(name);
    const auto built = Format(name).Build(keys, Bpk(7));
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    ByteVector expected;
    AppendBloomFilter(policy, keys, expected);
    EXPECT_EQ(*built, expected);
    std::vector<std::uint8_t> answers(keys.size());
    ASSERT_TRUE(Format(name).Probe(*built, "f", keys, {}, answers).ok());
    for (std::uint8_t a : answers) EXPECT_EQ(a, 1);
  }
  // The flavours differ on these keys (tail bytes >= 0x80).
  EXPECT_NE(*Format("leveldb-bloom").Build(keys, Bpk(7)),
            *Format("leveldb-bloom-legacy").Build(keys, Bpk(7)));
}

TEST(LevelDBFormats, BuildRefusesWhatLevelDBCannotTake) {
  const KeyList keys = SomeKeys();
  for (const char* name : {"leveldb-bloom", "leveldb-bloom-legacy", "leveldb-filter-block"}) {
    SCOPED_TRACE(name);
    const FormatCodec& f = Format(name);
    for (double bad : {7.5, -1.0, std::nan(""), 1e12}) {
      const auto r = f.Build(keys, Bpk(bad));
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    }
    EXPECT_EQ(f.Build(keys, FilterParams{}).status().code(), StatusCode::kInvalidArgument);
    FilterParams with_expected = Bpk(10);
    with_expected.expected_keys = 1000;
    const auto r = f.Build(keys, with_expected);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("expected-keys"), std::string::npos);
    FilterParams fp = Bpk(10);
    fp.fp_chance = 0.01;
    EXPECT_EQ(f.Build(keys, fp).status().code(), StatusCode::kInvalidArgument);
    // n * bits_per_key overflows the original's int.
    EXPECT_EQ(f.Build(keys, Bpk(1e9)).status().code(), StatusCode::kRefused);
    EXPECT_TRUE(f.Build(keys, Bpk(0)).ok());
    EXPECT_FALSE(f.Claims("x.bin", AsBytes("anything")));
  }
}

TEST(LevelDBFormats, SizeMatchesGeometry) {
  FilterParams p = Bpk(10);
  p.expected_keys = 1000;
  const auto info = Format("leveldb-bloom").Size(p);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->hash_count, 6);
  EXPECT_EQ(info->bits_per_key, 10.0);
  EXPECT_EQ(info->bits, 10000);
  EXPECT_EQ(info->file_bytes, 1251);
  p.expected_keys = 3;
  EXPECT_EQ(Format("leveldb-bloom-legacy").Size(p)->bits, 64);
  EXPECT_EQ(Format("leveldb-bloom-legacy").Size(p)->file_bytes, 9);
  EXPECT_EQ(Format("leveldb-filter-block").Size(p)->file_bytes, 9 + 9);
  p.expected_keys = 0;
  EXPECT_EQ(Format("leveldb-filter-block").Size(p)->file_bytes, 5);
  EXPECT_EQ(Format("leveldb-bloom").Size(Bpk(10)).status().code(), StatusCode::kInvalidArgument);
  p.expected_keys = 5;
  p.bits_per_key = 2.5;
  EXPECT_EQ(Format("leveldb-bloom").Size(p).status().code(), StatusCode::kInvalidArgument);
}

TEST(LevelDBFormats, HashLinesAreUnsignedDecimal) {
  const ByteVector key = {'a', 'b', 'c', 0x90};
  const ByteVector tail = {0x01, 0x02, 0x03, 0x04, 0xff};
  for (const ByteVector& k : {key, tail}) {
    std::string line;
    ASSERT_TRUE(Format("leveldb-bloom").Hash(k, line).ok());
    EXPECT_EQ(line, std::to_string(BloomHash(k, HashFlavor::kUnsignedTail)));
    ASSERT_TRUE(Format("leveldb-filter-block").Hash(k, line).ok());
    EXPECT_EQ(line, std::to_string(BloomHash(k, HashFlavor::kUnsignedTail)));
    ASSERT_TRUE(Format("leveldb-bloom-legacy").Hash(k, line).ok());
    EXPECT_EQ(line, std::to_string(BloomHash(k, HashFlavor::kSignedTail)));
  }
}

TEST(LevelDBFormats, FilterBlockIsOneFilterForTheBlockAtOffsetZero) {
  const KeyList keys = SomeKeys();
  const auto block = Format("leveldb-filter-block").Build(keys, Bpk(10));
  ASSERT_TRUE(block.ok());
  ByteVector expected;
  AppendBloomFilter(BloomPolicy::Current(10), keys, expected);
  const auto filter_len = static_cast<std::uint8_t>(expected.size());
  for (std::uint8_t b : {0, 0, 0, 0}) expected.push_back(b);
  for (std::uint8_t b : {filter_len, std::uint8_t{0}, std::uint8_t{0}, std::uint8_t{0}}) {
    expected.push_back(b);
  }
  expected.push_back(11);
  EXPECT_EQ(*block, expected);

  KeyList probes = SomeKeys();
  for (int i = 0; i < 200; ++i) probes.Add("probe" + std::to_string(i));
  std::vector<std::uint8_t> answers(probes.size());
  ASSERT_TRUE(Format("leveldb-filter-block").Probe(*block, "b", probes, {}, answers).ok());
  const ByteSpan filter = ByteSpan(*block).first(filter_len);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    EXPECT_EQ(answers[i] == 1, BloomKeyMayMatch(HashFlavor::kUnsignedTail, probes[i], filter));
  }
  // No keys: the bare trailer, which answers "may match" (no filter for offset 0).
  const auto empty = Format("leveldb-filter-block").Build(KeyList(), Bpk(10));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(ToHex(*empty), "000000000b");
  ASSERT_TRUE(Format("leveldb-filter-block").Probe(*empty, "b", probes, {}, answers).ok());
  for (std::uint8_t a : answers) EXPECT_EQ(a, 1);
}

TEST(LevelDBFormats, ProbeAcceptsAnyBytesAsTheOriginalReaderDoes) {
  const KeyList keys = SomeKeys();
  std::vector<std::uint8_t> answers(keys.size());
  ASSERT_TRUE(Format("leveldb-bloom").Probe(ByteVector{0x05}, "f", keys, {}, answers).ok());
  for (std::uint8_t a : answers) EXPECT_EQ(a, 0);
  ASSERT_TRUE(Format("leveldb-bloom").Probe(ByteVector{0, 0, 0x40}, "f", keys, {}, answers).ok());
  for (std::uint8_t a : answers) EXPECT_EQ(a, 1);
}

}  // namespace
}  // namespace bloomcodec::leveldb

// The filter block with hand-computed layouts, the lenient reader's corruption rules, the strict
// layout parser's errors, and a property: a table-like sequence of blocks always finds its keys.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "bloomcodec/leveldb/filter_block.h"
#include "random_keys.h"
#include "rc_check.h"

namespace bloomcodec::leveldb {
namespace {

using ::bloomcodec::testing::CheckProperty;
using ::bloomcodec::testing::RandomKeys;
using ::bloomcodec::testing::SplitMix64;

ByteVector BloomOf(std::initializer_list<const char*> keys, int bits_per_key = 10) {
  KeyList list;
  for (const char* k : keys) list.Add(k);
  ByteVector f;
  AppendBloomFilter(BloomPolicy::Current(bits_per_key), list, f);
  return f;
}

void AppendLE32(ByteVector& v, std::uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<std::uint8_t>(x >> (8 * i)));
}

TEST(FilterBlockBuilder, NoKeysIsTheFiveByteTrailer) {
  EXPECT_EQ(ToHex(FilterBlockBuilder(BloomPolicy::Current(10)).Finish()), "000000000b");
  FilterBlockBuilder started(BloomPolicy::Current(10));
  started.StartBlock(0);  // a table with no data block still calls this
  EXPECT_EQ(ToHex(started.Finish()), "000000000b");
}

TEST(FilterBlockBuilder, HandComputedLayoutWithEmptyFilters) {
  FilterBlockBuilder b(BloomPolicy::Current(10));
  b.StartBlock(0);
  b.AddKey(AsBytes("a"));
  b.AddKey(AsBytes("b"));
  b.StartBlock(1500);  // still filter 0's range: nothing emitted
  b.AddKey(AsBytes("c"));
  b.StartBlock(3000);  // filter 1's range: filter 0 = {a, b, c}
  b.AddKey(AsBytes("d"));
  b.StartBlock(9000);  // filter 4's range: filter 1 = {d}, filters 2 and 3 empty
  b.AddKey(AsBytes("e"));
  const ByteVector block = b.Finish();  // filter 4 = {e}

  ByteVector expected;
  const ByteVector f0 = BloomOf({"a", "b", "c"}), f1 = BloomOf({"d"}), f4 = BloomOf({"e"});
  expected.insert(expected.end(), f0.begin(), f0.end());
  expected.insert(expected.end(), f1.begin(), f1.end());
  expected.insert(expected.end(), f4.begin(), f4.end());
  AppendLE32(expected, 0);
  AppendLE32(expected, 9);
  AppendLE32(expected, 18);
  AppendLE32(expected, 18);
  AppendLE32(expected, 18);
  AppendLE32(expected, 27);
  expected.push_back(11);
  EXPECT_EQ(ToHex(block), ToHex(expected));

  const FilterBlockReader r(block, HashFlavor::kUnsignedTail);
  EXPECT_TRUE(r.usable());
  EXPECT_EQ(r.num_filters(), 5u);
  EXPECT_EQ(r.base_lg(), 11);
  EXPECT_EQ(r.array_offset(), 27u);
  for (const char* k : {"a", "b", "c"}) {
    EXPECT_TRUE(r.KeyMayMatch(0, AsBytes(k)));
    EXPECT_TRUE(r.KeyMayMatch(1500, AsBytes(k)));
  }
  EXPECT_TRUE(r.KeyMayMatch(3000, AsBytes("d")));
  EXPECT_TRUE(r.KeyMayMatch(9000, AsBytes("e")));
  // Filters 2 and 3 are empty: nothing may match there (a zero-byte filter answers "absent").
  EXPECT_FALSE(r.KeyMayMatch(2 * 2048, AsBytes("d")));
  EXPECT_FALSE(r.KeyMayMatch(3 * 2048 + 2047, AsBytes("e")));
  // Past the last filter: no filter, every key may match.
  EXPECT_TRUE(r.KeyMayMatch(5 * 2048, AsBytes("zzz")));

  const auto layout = ParseFilterBlockLayout(block, "block");
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  ASSERT_EQ(layout->filters.size(), 5u);
  EXPECT_EQ(layout->num_empty(), 2u);
  EXPECT_EQ(layout->filters[1].start, 9u);
  EXPECT_EQ(layout->filters[1].limit, 18u);
  EXPECT_EQ(layout->filters[4].limit, 27u);
  EXPECT_EQ(layout->IndexFor(9000), 4u);
}

TEST(FilterBlockBuilder, TrailingEmptyFiltersComeFromTheLastStartBlock) {
  // One data block at 0 of 4995 bytes: the builder is told 5000 (block + trailer), which lies in
  // filter 2's range, so filter 0 gets the key and filter 1 is empty. N = max(0 + 1, 5000 >> 11).
  FilterBlockBuilder b(BloomPolicy::Current(10));
  b.StartBlock(0);
  b.AddKey(AsBytes("x"));
  b.StartBlock(5000);
  const ByteVector block = b.Finish();
  const auto layout = ParseFilterBlockLayout(block, "block");
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  ASSERT_EQ(layout->filters.size(), 2u);
  EXPECT_FALSE(layout->filters[0].empty());
  EXPECT_TRUE(layout->filters[1].empty());
}

TEST(FilterBlockReader, IgnoresBlocksItCannotRead) {
  for (const char* hex : {"", "0b", "00000000", "aabb060000000b"}) {
    ByteVector block;
    ASSERT_TRUE(FromHex(hex, block));
    const FilterBlockReader r(block, HashFlavor::kUnsignedTail);
    SCOPED_TRACE(hex);
    EXPECT_TRUE(r.KeyMayMatch(0, AsBytes("k")));
  }
  // "aabb060000000b": array offset 6 > length - 5 = 2: ignored.
  ByteVector block;
  ASSERT_TRUE(FromHex("aabb060000000b", block));
  EXPECT_FALSE(FilterBlockReader(block, HashFlavor::kUnsignedTail).usable());
}

TEST(FilterBlockReader, CorruptOffsetsAsLevelDB123) {
  const ByteVector f = BloomOf({"k"});  // 9 bytes, array offset 9
  // The filter bytes, then the given offset entries, the array offset 9 and base_lg 11. The
  // array-offset word doubles as the limit of the last entry.
  const auto make = [&](std::initializer_list<std::uint32_t> entries) {
    ByteVector block = f;
    for (std::uint32_t e : entries) AppendLE32(block, e);
    AppendLE32(block, 9);
    block.push_back(11);
    return block;
  };
  using Kind = FilterBlockReader::Choice::Kind;
  const auto kind = [](const ByteVector& block, std::uint64_t offset) {
    return FilterBlockReader(block, HashFlavor::kUnsignedTail).FilterFor(offset).kind;
  };
  const auto ask = [](const ByteVector& block, std::uint64_t offset) {
    return FilterBlockReader(block, HashFlavor::kUnsignedTail).KeyMayMatch(offset, AsBytes("k"));
  };
  EXPECT_TRUE(ask(make({0}), 0));   // well formed
  EXPECT_FALSE(ask(make({9}), 0));  // start == limit == array: empty filter
  EXPECT_EQ(kind(make({9}), 0), Kind::kFilter);
  EXPECT_FALSE(ask(make({8}), 0));    // a 1-byte filter answers "absent"
  EXPECT_TRUE(ask(make({5, 3}), 0));  // start > limit: corruption, may match
  EXPECT_EQ(kind(make({5, 3}), 0), Kind::kAlwaysMatch);
  EXPECT_TRUE(ask(make({0, 30}), 0));       // limit past the array: may match
  EXPECT_FALSE(ask(make({30, 30, 0}), 0));  // start == limit past the array: "absent"
  EXPECT_EQ(kind(make({30, 30, 0}), 0), Kind::kNeverMatch);
  EXPECT_TRUE(ask(make({0}), 2048));  // index 1 >= N = 1: no filter
}

TEST(FilterBlockReader, BaseLgShiftsModulo64) {
  // One filter covering everything when base_lg makes every offset map to 0.
  const ByteVector f = BloomOf({"k"}, 20);
  ByteVector block = f;
  AppendLE32(block, 0);
  AppendLE32(block, static_cast<std::uint32_t>(f.size()));
  block.push_back(63);
  const FilterBlockReader r(block, HashFlavor::kUnsignedTail);
  EXPECT_EQ(r.FilterFor((1ull << 63) - 1).kind, FilterBlockReader::Choice::Kind::kFilter);
  EXPECT_TRUE(r.KeyMayMatch((1ull << 63) - 1, AsBytes("k")));
  EXPECT_EQ(r.FilterFor(1ull << 63).kind,  // index 1 >= N
            FilterBlockReader::Choice::Kind::kAlwaysMatch);
  // base_lg 64 + 11 = 75 acts as 11 on x86.
  block.back() = 75;
  const FilterBlockReader r75(block, HashFlavor::kUnsignedTail);
  EXPECT_EQ(r75.FilterFor(2047).kind, FilterBlockReader::Choice::Kind::kFilter);
  EXPECT_EQ(r75.FilterFor(2048).kind, FilterBlockReader::Choice::Kind::kAlwaysMatch);
}

TEST(FilterBlockLayout, ReportsDamageAtAbsoluteOffsets) {
  const auto error_offset = [](const ByteVector& block) -> std::optional<std::uint64_t> {
    const auto r = ParseFilterBlockLayout(block, "t.ldb", 1000);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return std::nullopt;
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
    EXPECT_EQ(r.status().file(), "t.ldb");
    return r.status().offset();
  };
  ByteVector b;
  b.clear();  // FromHex appends
  ASSERT_TRUE(FromHex("000000", b));
  EXPECT_EQ(error_offset(b), 1000u);  // too short
  b.clear();
  ASSERT_TRUE(FromHex("aabb060000000b", b));
  EXPECT_EQ(error_offset(b), 1002u);  // array offset 6 > 2, reported at the trailer
  b.clear();
  ASSERT_TRUE(FromHex("0000000000000000000b", b));
  EXPECT_EQ(error_offset(b), 1000u);  // array at 0 holds 5 bytes: not whole u32s
  b.clear();
  ASSERT_TRUE(FromHex("aabb01000000020000000b", b));
  EXPECT_EQ(error_offset(b), 1002u);  // filter 0 starts at 1, not 0
  // Offsets 0, 2, 1: the third decreases.
  b = {0xaa, 0xbb};
  AppendLE32(b, 0);
  AppendLE32(b, 2);
  AppendLE32(b, 1);
  AppendLE32(b, 2);
  b.push_back(11);
  EXPECT_EQ(error_offset(b), 1010u);
  // An offset past the array.
  b = {0xaa, 0xbb};
  AppendLE32(b, 0);
  AppendLE32(b, 3);
  AppendLE32(b, 2);
  b.push_back(11);
  EXPECT_EQ(error_offset(b), 1006u);
  // base_lg >= 64.
  b = {};
  AppendLE32(b, 0);
  b.push_back(64);
  EXPECT_EQ(error_offset(b), 1004u);
  // Bytes before an empty offset array.
  b = {0xaa};
  AppendLE32(b, 1);
  b.push_back(11);
  EXPECT_EQ(error_offset(b), 1000u);
  // The message says what was expected and what was found.
  b = {};
  AppendLE32(b, 9);
  b.push_back(11);
  const auto r = ParseFilterBlockLayout(b, "t.ldb", 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("t.ldb"), std::string::npos);
  EXPECT_NE(r.status().ToString().find("found 9"), std::string::npos) << r.status().ToString();
}

TEST(FilterBlockLayout, AcceptsTheEmptyBlockAndOtherBaseLg) {
  ByteVector b;
  ASSERT_TRUE(FromHex("000000000b", b));
  const auto empty = ParseFilterBlockLayout(b, "x");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->filters.empty());
  EXPECT_EQ(empty->base_lg, kFilterBaseLg);
  b.back() = 12;
  const auto other = ParseFilterBlockLayout(b, "x");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->base_lg, 12);
}

// A table-like sequence of data blocks (sizes, keys) fed as TableBuilder feeds it.
TEST(FilterBlockProperty, EveryBlockFindsItsKeysAndNFollowsTheFormula) {
  CheckProperty(300, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const int bits_per_key = *rc::gen::inRange(0, 25);
    SplitMix64 rng(seed);
    const std::size_t blocks = rng.Below(50);
    FilterBlockBuilder builder(BloomPolicy::Current(bits_per_key));
    std::vector<std::uint64_t> offsets;
    std::vector<std::vector<std::string>> block_keys;
    std::uint64_t offset = 0;
    builder.StartBlock(0);
    for (std::size_t i = 0; i < blocks; ++i) {
      offsets.push_back(offset);
      block_keys.push_back(RandomKeys(rng.Next(), 1 + rng.Below(30)));
      for (const auto& k : block_keys.back()) builder.AddKey(AsBytes(k));
      offset += 1 + (rng.Below(2) == 0 ? rng.Below(700) : rng.Below(12000));
      builder.StartBlock(offset);
    }
    const ByteVector block = builder.Finish();
    const auto layout = ParseFilterBlockLayout(block, "p", 77);
    RC_ASSERT(layout.ok());
    const std::uint64_t expected_n =
        blocks == 0 ? 0 : std::max((offsets.back() >> 11) + 1, offset >> 11);
    RC_ASSERT(layout->filters.size() == expected_n);
    // A filter is empty exactly when no block starts in its range.
    for (std::size_t i = 0; i < layout->filters.size(); ++i) {
      bool has_block = false;
      for (std::uint64_t o : offsets) has_block |= (o >> 11) == i;
      RC_ASSERT(layout->filters[i].empty() == !has_block);
    }
    const FilterBlockReader reader(block, HashFlavor::kUnsignedTail);
    RC_ASSERT(reader.num_filters() == expected_n);
    for (std::size_t i = 0; i < blocks; ++i) {
      KeyList keys;
      for (const auto& k : block_keys[i]) keys.Add(k);
      std::vector<std::uint8_t> answers(keys.size());
      reader.KeyMayMatchBatch(offsets[i], keys, answers);
      for (std::size_t j = 0; j < keys.size(); ++j) {
        RC_ASSERT(answers[j] == 1);
        RC_ASSERT(reader.KeyMayMatch(offsets[i], keys[j]));
      }
    }
  });
}

}  // namespace
}  // namespace bloomcodec::leveldb

// CheckedBlockWalk walks a block once and gives both its keys and VerifyBlock's verdict. Checked
// here against the two walks it replaces: a plain BlockIterator for the keys, and a strict check
// written as VerifyBlock was before the walk existed (an iterator, a copy of the previous key and
// a whole-key comparison per entry), on blocks with shared prefixes, out-of-order keys, damaged
// bytes and every value encoding.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "blocktable/block.h"
#include "blocktable/block_builder.h"
#include "support/rc_rates.h"

namespace bloomcodec::blocktable {
namespace {

// VerifyBlock as two walks did it: the reference the single walk must agree with.
Result<std::uint64_t> ReferenceVerifyBlock(const Block& block, KeyOrder order,
                                           ValueEncoding values) {
  if (block.entries().empty()) return std::uint64_t{0};
  BlockIterator it(block, order, values);
  BLOOMCODEC_RETURN_IF_ERROR(it.SeekToFirst());
  std::uint64_t entries = 0;
  std::uint32_t next_restart = 0;
  ByteVector previous;
  while (it.valid()) {
    const std::size_t at = it.entry_position();
    if (next_restart < block.num_restarts() && block.restart_point(next_restart) < at) {
      return block.ErrorAt(block.entries().size() + 4 * std::size_t{next_restart},
                           "a restart offset at an entry boundary",
                           std::to_string(block.restart_point(next_restart)));
    }
    if (next_restart < block.num_restarts() && block.restart_point(next_restart) == at) {
      if (it.shared() != 0) {
        return block.ErrorAt(at, "shared length 0 at a restart point", std::to_string(it.shared()));
      }
      ++next_restart;
    }
    if (entries > 0 && CompareKeys(order, previous, it.key()) >= 0) {
      return block.ErrorAt(at, "keys in strictly increasing order");
    }
    previous.assign(it.key().begin(), it.key().end());
    ++entries;
    BLOOMCODEC_RETURN_IF_ERROR(it.Next());
  }
  if (next_restart != block.num_restarts()) {
    return block.ErrorAt(block.entries().size() + 4 * std::size_t{next_restart},
                         "a restart offset at an entry boundary",
                         std::to_string(block.restart_point(next_restart)));
  }
  return entries;
}

std::string Verdict(const Result<std::uint64_t>& r) {
  return r.ok() ? "ok " + std::to_string(*r) : r.status().ToString();
}

ByteVector Bytes(std::string_view s) { return ByteVector(s.begin(), s.end()); }

Block ParseOrDie(const ByteVector& bytes) {
  Result<Block> block = Block::Parse(BlockContents::View(bytes, 1000), "walk.blk");
  EXPECT_TRUE(block.ok()) << block.status().ToString();
  return *block;
}

// Keys, entry positions and shared lengths of the plain iterator, and the error it stops at.
struct Walked {
  std::vector<ByteVector> keys;
  std::vector<std::size_t> positions;
  std::vector<std::uint32_t> shared;
  std::string stop;
};

template <typename Walk>
Walked WalkAll(Walk& it) {
  Walked w;
  Status s = it.SeekToFirst();
  while (s.ok() && it.valid()) {
    w.keys.emplace_back(it.key().begin(), it.key().end());
    w.positions.push_back(it.entry_position());
    w.shared.push_back(it.shared());
    s = it.Next();
  }
  w.stop = s.ToString();
  return w;
}

void ExpectAgreement(const Block& block, KeyOrder order, ValueEncoding values) {
  BlockIterator plain(block, order, values);
  const Walked expected = WalkAll(plain);
  CheckedBlockWalk walk(block, order, values);
  const Walked got = WalkAll(walk);
  RC_ASSERT(got.keys == expected.keys);
  RC_ASSERT(got.positions == expected.positions);
  RC_ASSERT(got.shared == expected.shared);
  RC_ASSERT(got.stop == expected.stop);
  const std::string reference = Verdict(ReferenceVerifyBlock(block, order, values));
  RC_ASSERT(Verdict(VerifyBlock(block, order, values)) == reference);
  // The walk went to its end (or its stop): its damage is the whole block's verdict.
  const std::string walked =
      walk.damage().ok() ? "ok " + std::to_string(walk.entries()) : walk.damage().ToString();
  RC_ASSERT(walked == reference);
}

TEST(CheckedBlockWalk, KeepsWalkingPastAnOrderErrorAndReportsIt) {
  BlockBuilder builder(2);
  // "b" after "c": the third entry (not a restart point) breaks the order.
  for (const char* k : {"a", "c", "b", "d"}) builder.Add(AsBytes(std::string_view(k)), {});
  const ByteSpan built = builder.Finish();
  const ByteVector bytes(built.begin(), built.end());
  const Block block = ParseOrDie(bytes);
  CheckedBlockWalk walk(block, KeyOrder::kBytewise);
  ASSERT_TRUE(walk.SeekToFirst().ok());
  std::vector<ByteVector> keys;
  while (walk.valid()) {
    keys.emplace_back(walk.key().begin(), walk.key().end());
    ASSERT_TRUE(walk.Next().ok());
  }
  EXPECT_EQ(keys, (std::vector<ByteVector>{Bytes("a"), Bytes("c"), Bytes("b"), Bytes("d")}));
  ASSERT_FALSE(walk.damage().ok());
  // Entries of 4 bytes (three one-byte lengths, a one-byte key): "b" is at byte 8.
  EXPECT_EQ(walk.damage().offset(), std::optional<std::uint64_t>(1008));
  EXPECT_NE(walk.damage().ToString().find("keys in strictly increasing order"), std::string::npos)
      << walk.damage().ToString();
  EXPECT_EQ(walk.damage().ToString(), VerifyBlock(block, KeyOrder::kBytewise).status().ToString());
}

TEST(CheckedBlockWalk, ComparesInternalKeysByUserKeyThenDescendingTag) {
  // Same user key "ab": the tag must decrease. Then "abc" after "ab" with a larger tag is fine.
  const auto internal = [](std::string user, std::uint8_t tag_low) {
    ByteVector k(user.begin(), user.end());
    for (int i = 0; i < 8; ++i) k.push_back(i == 0 ? tag_low : 0);
    return k;
  };
  BlockBuilder good(16);
  good.Add(internal("ab", 9), {});
  good.Add(internal("ab", 5), {});
  good.Add(internal("abc", 200), {});
  const ByteSpan good_built = good.Finish();
  const ByteVector good_bytes(good_built.begin(), good_built.end());
  EXPECT_EQ(Verdict(VerifyBlock(ParseOrDie(good_bytes), KeyOrder::kInternal)), "ok 3");

  BlockBuilder bad(16);
  bad.Add(internal("ab", 5), {});
  bad.Add(internal("ab", 9), {});  // a newer version after an older one
  const ByteSpan bad_built = bad.Finish();
  const ByteVector bad_bytes(bad_built.begin(), bad_built.end());
  const Block block = ParseOrDie(bad_bytes);
  const Result<std::uint64_t> r = VerifyBlock(block, KeyOrder::kInternal);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("keys in strictly increasing order"), std::string::npos);
  EXPECT_EQ(Verdict(r), Verdict(ReferenceVerifyBlock(block, KeyOrder::kInternal,
                                                     ValueEncoding::kLengthPrefixed)));
}

// A reverse comparator (RocksDB's ReverseBytewiseComparator, MyRocks's rev:RocksDB_SE_v3.10):
// user keys decrease, versions of one user key still go newest first; increasing keys are the
// damage. An unknown order judges nothing but still needs the internal keys' tags.
TEST(CheckedBlockWalk, ReverseOrdersDecreaseAndUnknownOrdersAreNotJudged) {
  const auto internal = [](std::string user, std::uint8_t tag_low) {
    ByteVector k(user.begin(), user.end());
    for (int i = 0; i < 8; ++i) k.push_back(i == 0 ? tag_low : 0);
    return k;
  };
  const auto build = [](const std::vector<ByteVector>& keys) {
    BlockBuilder b(2);
    for (const ByteVector& k : keys) b.Add(k, {});
    const ByteSpan built = b.Finish();
    return ByteVector(built.begin(), built.end());
  };
  const ByteVector reverse =
      build({internal("abc", 1), internal("ab", 9), internal("ab", 5), internal("a", 7)});
  EXPECT_EQ(Verdict(VerifyBlock(ParseOrDie(reverse), KeyOrder::kReverseInternal)), "ok 4");
  EXPECT_EQ(Verdict(VerifyBlock(ParseOrDie(reverse), KeyOrder::kUnknownInternal)), "ok 4");
  const Result<std::uint64_t> forward = VerifyBlock(ParseOrDie(reverse), KeyOrder::kInternal);
  ASSERT_FALSE(forward.ok());
  EXPECT_NE(forward.status().ToString().find("keys in strictly increasing order"),
            std::string::npos);

  const ByteVector older_first = build({internal("ab", 5), internal("ab", 9)});
  const Result<std::uint64_t> r = VerifyBlock(ParseOrDie(older_first), KeyOrder::kReverseInternal);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("under the reverse comparator"), std::string::npos)
      << r.status().ToString();

  const ByteVector plain = build({Bytes("b"), Bytes("a")});
  EXPECT_EQ(Verdict(VerifyBlock(ParseOrDie(plain), KeyOrder::kReverseBytewise)), "ok 2");
  EXPECT_FALSE(VerifyBlock(ParseOrDie(plain), KeyOrder::kBytewise).ok());
  EXPECT_EQ(Verdict(VerifyBlock(ParseOrDie(plain), KeyOrder::kUnknown)), "ok 2");
  EXPECT_FALSE(
      VerifyBlock(ParseOrDie(build({Bytes("a"), Bytes("b")})), KeyOrder::kReverseBytewise).ok());
  // Internal keys need their tag whatever the order.
  EXPECT_FALSE(VerifyBlock(ParseOrDie(plain), KeyOrder::kUnknownInternal).ok());
  EXPECT_LT(CompareKeys(KeyOrder::kReverseBytewise, Bytes("b"), Bytes("a")), 0);
  EXPECT_LT(CompareKeys(KeyOrder::kReverseInternal, internal("ab", 9), internal("ab", 5)), 0);
}

// Keys from a two-letter alphabet: long shared prefixes, repeats and prefixes of each other.
rc::Gen<ByteVector> ShortKey(bool internal) {
  return rc::gen::map(rc::gen::pair(rc::gen::container<std::string>(rc::gen::element('a', 'b')),
                                    rc::gen::inRange<int>(0, 4)),
                      [internal](const std::pair<std::string, int>& p) {
                        ByteVector k(p.first.begin(), p.first.end());
                        if (k.size() > 12) k.resize(12);
                        if (internal) {
                          for (int i = 0; i < 8; ++i)
                            k.push_back(i == 0 ? static_cast<std::uint8_t>(p.second) : 0);
                        }
                        return k;
                      });
}

RC_GTEST_PROP(CheckedBlockWalkProperty, AgreesWithTheIteratorAndTheTwoWalkCheck, ()) {
  const bool internal = *rc::gen::arbitrary<bool>();
  const KeyOrder order = internal ? KeyOrder::kInternal : KeyOrder::kBytewise;
  std::vector<ByteVector> keys = *rc::gen::container<std::vector<ByteVector>>(ShortKey(internal));
  if (keys.size() > 40) keys.resize(40);
  // Mostly sorted (as writers write: 3 cases of 4), sometimes as drawn.
  const bool sorted = *testing::OneIn(3, 4);
  if (sorted) {
    std::sort(keys.begin(), keys.end(), [order](const ByteVector& a, const ByteVector& b) {
      return CompareKeys(order, a, b) < 0;
    });
  }
  BlockBuilder builder(*testing::Uniform(1, 6));
  for (const ByteVector& k : keys) builder.Add(k, ByteSpan(k).first(k.size() / 2));
  const ByteSpan built = builder.Finish();
  ByteVector bytes(built.begin(), built.end());
  const int flips = *testing::Uniform(0, 3);  // 0, 1 or 2, each in 1 case of 3
  for (int i = 0; i < flips; ++i) {
    const std::size_t at = *testing::Uniform<std::size_t>(0, bytes.size());
    bytes[at] ^= static_cast<std::uint8_t>(*testing::Uniform(1, 256));
  }
  Result<Block> block = Block::Parse(BlockContents::View(bytes, 77), "walk.blk");
  if (!block.ok()) return;  // the restart array itself is refused before any walk
  RC_TAG(VerifyBlock(*block, order).ok() ? "verified" : "refused", flips > 0 ? "damaged"
                                                                   : sorted  ? "built sorted"
                                                                             : "built as drawn");
  ExpectAgreement(*block, order, ValueEncoding::kLengthPrefixed);
  ExpectAgreement(*block, order, ValueEncoding::kIndexHandleDelta);
  ExpectAgreement(*block, order, ValueEncoding::kIndexHandleDeltaWithFirstKey);
}

}  // namespace
}  // namespace bloomcodec::blocktable

// Our filter block builder and reader against LevelDB 1.23's own FilterBlockBuilder and
// FilterBlockReader (table/filter_block.cc, from Debian's libleveldb.a; see leveldb_internal.h).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bloomcodec/leveldb/filter_block.h"
#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"
#include "leveldb_internal.h"
#include "random_keys.h"
#include "rc_check.h"
#include "support/rc_rates.h"

namespace bloomcodec::leveldb {
namespace {

using ::bloomcodec::testing::CheckProperty;
using ::bloomcodec::testing::RandomKeys;
using ::bloomcodec::testing::SplitMix64;

::leveldb::Slice ToSlice(ByteSpan b) { return {AsChars(b).data(), b.size()}; }

struct BlockPlan {
  std::uint64_t size;  // bytes from this block's start to the next one's
  std::vector<std::string> keys;
};

// Data blocks as a table writes them: sizes from tiny (several blocks per 2 KiB filter range) to
// large (empty filters in between), 0..40 keys each.
std::vector<BlockPlan> RandomPlan(std::uint64_t seed, std::size_t blocks) {
  SplitMix64 rng(seed);
  std::vector<BlockPlan> plan(blocks);
  for (auto& block : plan) {
    switch (rng.Below(3)) {
      case 0: block.size = 1 + rng.Below(600); break;
      case 1: block.size = 1 + rng.Below(4000); break;
      default: block.size = 1 + rng.Below(20000); break;
    }
    block.keys = RandomKeys(rng.Next(), rng.Below(41));
  }
  return plan;
}

// Feeds both builders the calls LevelDB's TableBuilder makes: StartBlock(0) first, the keys of
// each block, StartBlock(offset of the next block) after each. Returns the data-block offsets.
std::vector<std::uint64_t> FeedBoth(const std::vector<BlockPlan>& plan, FilterBlockBuilder& ours,
                                    ::leveldb::FilterBlockBuilder& theirs) {
  std::vector<std::uint64_t> offsets;
  std::uint64_t offset = 0;
  ours.StartBlock(0);
  theirs.StartBlock(0);
  for (const auto& block : plan) {
    offsets.push_back(offset);
    for (const auto& key : block.keys) {
      ours.AddKey(AsBytes(key));
      theirs.AddKey(key);
    }
    offset += block.size;
    ours.StartBlock(offset);
    theirs.StartBlock(offset);
  }
  return offsets;
}

TEST(FilterBlockDifferential, BuilderWritesTheOriginalBytes) {
  CheckProperty(300, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const auto blocks = *rc::gen::inRange<std::size_t>(0, 60);
    const int bits_per_key = *rc::gen::inRange(0, 40);
    const auto plan = RandomPlan(seed, blocks);
    std::unique_ptr<const ::leveldb::FilterPolicy> policy(
        ::leveldb::NewBloomFilterPolicy(bits_per_key));
    ::leveldb::FilterBlockBuilder theirs(policy.get());
    FilterBlockBuilder ours(BloomPolicy::Current(bits_per_key));
    const auto offsets = FeedBoth(plan, ours, theirs);
    const ByteVector our_block = ours.Finish();
    const ::leveldb::Slice their_block = theirs.Finish();
    RC_ASSERT(AsChars(our_block) == std::string_view(their_block.data(), their_block.size()));

    // Both readers agree on every block's keys and on foreign keys.
    ::leveldb::FilterBlockReader their_reader(policy.get(), their_block);
    FilterBlockReader our_reader(our_block, HashFlavor::kUnsignedTail);
    const auto foreign = RandomKeys(~seed, 20);
    for (std::size_t b = 0; b < plan.size(); ++b) {
      for (const auto& key : plan[b].keys) {
        RC_ASSERT(our_reader.KeyMayMatch(offsets[b], AsBytes(key)));
        RC_ASSERT(their_reader.KeyMayMatch(offsets[b], key));
      }
      for (const auto& key : foreign) {
        RC_ASSERT(our_reader.KeyMayMatch(offsets[b], AsBytes(key)) ==
                  their_reader.KeyMayMatch(offsets[b], key));
      }
    }
  });
}

TEST(FilterBlockDifferential, BuilderHandlesIrregularCallSequences) {
  // Sequences a TableBuilder never makes but the builder accepts: no StartBlock(0), repeated
  // offsets, keys before any StartBlock, Finish with keys pending.
  CheckProperty(300, 100, [] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    const int bits_per_key = *rc::gen::inRange(1, 20);
    std::unique_ptr<const ::leveldb::FilterPolicy> policy(
        ::leveldb::NewBloomFilterPolicy(bits_per_key));
    ::leveldb::FilterBlockBuilder theirs(policy.get());
    FilterBlockBuilder ours(BloomPolicy::Current(bits_per_key));
    SplitMix64 rng(seed);
    std::uint64_t offset = 0;
    const std::size_t steps = rng.Below(80);
    for (std::size_t i = 0; i < steps; ++i) {
      if (rng.Below(3) == 0) {
        offset += rng.Below(3) == 0 ? 0 : rng.Below(9000);
        ours.StartBlock(offset);
        theirs.StartBlock(offset);
      } else {
        for (const auto& key : RandomKeys(rng.Next(), rng.Below(6))) {
          ours.AddKey(AsBytes(key));
          theirs.AddKey(key);
        }
      }
    }
    const ByteVector our_block = ours.Finish();
    const ::leveldb::Slice their_block = theirs.Finish();
    RC_ASSERT(AsChars(our_block) == std::string_view(their_block.data(), their_block.size()));
  });
}

TEST(FilterBlockDifferential, ReaderAnswersAsTheOriginalOnDamagedBlocks) {
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(10));
  CheckProperty(500, 100, [&] {
    const auto seed = *rc::gen::arbitrary<std::uint64_t>();
    SplitMix64 rng(seed);
    // A valid block to start from, with its keys.
    const auto plan = RandomPlan(rng.Next(), rng.Below(12));
    ::leveldb::FilterBlockBuilder unused(policy.get());
    FilterBlockBuilder builder(BloomPolicy::Current(10));
    FeedBoth(plan, builder, unused);
    ByteVector block = builder.Finish();
    // Damage: overwrite bytes (often in the offset array and trailer), truncate, extend, or
    // replace the whole block by random bytes.
    const auto damage = *testing::Uniform(0, 9);  // each kind in 1 case of 9
    static const char* const kKinds[] = {
        "none",         "trailer bytes",    "bytes anywhere", "truncated",      "extended",
        "random bytes", "misaligned array", "array offset",   "an offset entry"};
    RC_TAG(kKinds[damage]);
    if (damage == 1 || damage == 2) {
      const std::size_t writes = 1 + rng.Below(4);
      for (std::size_t i = 0; i < writes && !block.empty(); ++i) {
        const std::size_t tail = std::min<std::size_t>(block.size(), 24);
        const std::size_t at =
            damage == 1 ? block.size() - 1 - rng.Below(tail) : rng.Below(block.size());
        block[at] = static_cast<std::uint8_t>(rng.Below(3) == 0 ? rng.Below(8) : rng.Next());
      }
    } else if (damage == 3) {
      block.resize(rng.Below(block.size() + 1));
    } else if (damage == 4) {
      const std::size_t extra = rng.Below(7);
      for (std::size_t i = 0; i < extra; ++i)
        block.push_back(static_cast<std::uint8_t>(rng.Next()));
    } else if (damage == 5) {
      block.resize(rng.Below(64));
      for (auto& b : block) b = static_cast<std::uint8_t>(rng.Next());
    } else if (damage == 6) {
      // Stray bytes between the offset array and the trailer (a misaligned array).
      const std::size_t extra = 1 + rng.Below(7);
      for (std::size_t i = 0; i < extra; ++i) {
        block.insert(block.end() - 5, static_cast<std::uint8_t>(rng.Next()));
      }
    } else if (damage == 7) {
      // An array offset anywhere inside the block, so filter bytes are read as offsets.
      const auto array_offset = static_cast<std::uint32_t>(rng.Below(block.size() - 4));
      for (int i = 0; i < 4; ++i)
        block[block.size() - 5 + i] = static_cast<std::uint8_t>(array_offset >> (8 * i));
    } else if (damage == 8) {
      // One offset entry moved a little or anywhere (start > limit, limit past the array, ...).
      std::uint32_t array_offset = 0;
      for (int i = 0; i < 4; ++i)
        array_offset |= std::uint32_t{block[block.size() - 5 + i]} << (8 * i);
      const std::size_t entries = (block.size() - 5 - array_offset) / 4;
      if (entries > 0) {
        std::uint8_t* entry = block.data() + array_offset + 4 * rng.Below(entries);
        std::uint32_t v = std::uint32_t{entry[0]} | std::uint32_t{entry[1]} << 8;
        v = rng.Below(2) == 0 ? v + static_cast<std::uint32_t>(rng.Below(19)) - 9
                              : static_cast<std::uint32_t>(rng.Below(block.size() + 8));
        for (int i = 0; i < 4; ++i) entry[i] = static_cast<std::uint8_t>(v >> (8 * i));
      }
    }
    if (!block.empty() && rng.Below(4) == 0) {
      block.back() = static_cast<std::uint8_t>(rng.Next());  // any base_lg, also >= 64 and >= 0x80
    }
    ::leveldb::FilterBlockReader theirs(policy.get(), ToSlice(block));
    FilterBlockReader ours(block, HashFlavor::kUnsignedTail);
    std::vector<std::string> keys = RandomKeys(rng.Next(), 8);
    for (const auto& b : plan) keys.insert(keys.end(), b.keys.begin(), b.keys.end());
    KeyList key_list;
    for (const auto& k : keys) key_list.Add(k);
    std::vector<std::uint8_t> batch(key_list.size());
    for (int q = 0; q < 24; ++q) {
      std::uint64_t block_offset;
      switch (rng.Below(4)) {
        case 0: block_offset = rng.Below(16) << 11; break;
        case 1: block_offset = rng.Below(40000); break;
        case 2: block_offset = rng.Next(); break;
        default: block_offset = rng.Below(64); break;
      }
      ours.KeyMayMatchBatch(block_offset, key_list, batch);
      for (std::size_t i = 0; i < key_list.size(); ++i) {
        const bool expected = theirs.KeyMayMatch(block_offset, ToSlice(key_list[i]));
        RC_ASSERT(ours.KeyMayMatch(block_offset, key_list[i]) == expected);
        RC_ASSERT((batch[i] == 1) == expected);
      }
    }
  });
}

}  // namespace
}  // namespace bloomcodec::leveldb

// LevelDB's filter block (table/filter_block.cc): one bloom filter per 2 KiB range of data-block
// start offsets, then an offset array, the array's position and base_lg.
//
//   using namespace bloomcodec::leveldb;
//   FilterBlockBuilder builder(BloomPolicy::Current(10));
//   builder.StartBlock(0);                 // before the first data block
//   builder.AddKey(key);                   // each key of the block, in order
//   builder.StartBlock(next_block_offset); // after each data block is written
//   ByteVector block = builder.Finish();
//
//   FilterBlockReader reader(block, HashFlavor::kUnsignedTail);
//   bool maybe = reader.KeyMayMatch(data_block_offset, key);
//   FilterBlockReader basho(block, HashFlavor::kSignedTail, false, BloomVariant::kBasho2);
//
// Compatibility contract: given the same sequence of StartBlock/AddKey calls as LevelDB's
// TableBuilder makes, Finish returns the bytes LevelDB's FilterBlockBuilder produces (including
// empty and trailing empty filters; no keys at all -> 00 00 00 00 0b). FilterBlockReader answers
// as LevelDB 1.23's FilterBlockReader on any bytes, malformed ones included: it never fails and
// treats what it cannot read as "may match"; with BloomVariant::kBasho2 it answers as Basho's
// LevelDB (Riak's eleveldb) answers with its bloom2 policy. ParseFilterBlockLayout is the strict
// counterpart for inspect/verify.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/status.h"

namespace bloomcodec::leveldb {

// Every LevelDB writer uses base_lg 11: one filter per 2048 bytes of data-block offsets.
inline constexpr std::uint8_t kFilterBaseLg = 11;
inline constexpr std::uint64_t kFilterBase = std::uint64_t{1} << kFilterBaseLg;

class FilterBlockBuilder {  // FilterBlockBuilder of table/filter_block.cc, exact bytes
 public:
  explicit FilterBlockBuilder(BloomPolicy policy);

  // Called with the offset where the next data block starts. Offsets must not decrease (the
  // original asserts); a smaller offset than already covered emits nothing.
  void StartBlock(std::uint64_t block_offset);
  void AddKey(ByteSpan key);  // the bytes the filter hashes
  // The same for a key whose BloomHash (with the policy's flavor) is already known.
  void AddHash(std::uint32_t hash) { pending_hashes_.push_back(hash); }
  ByteVector Finish();  // the whole block: filters, offsets, array offset, base_lg

  const BloomPolicy& policy() const { return policy_; }

 private:
  void GenerateFilter();

  BloomPolicy policy_;
  std::vector<std::uint32_t> pending_hashes_;  // BloomHash of the keys since the last filter
  std::vector<std::uint32_t> filter_offsets_;
  ByteVector result_;
};

// Which bloom filter the block's filters hold: LevelDB's own (bloom.h, hashed with the reader's
// HashFlavor), or Basho's bloom2, which Basho's LevelDB writes under LevelDB 1.18+'s name
// leveldb.BuiltinBloomFilter2 (its own two hashes; the flavor is not used).
enum class BloomVariant { kLevelDb, kBasho2 };

class FilterBlockReader {  // mirrors LevelDB 1.23's lenient reader (never fails)
 public:
  // `goleveldb`: read as goleveldb's table/reader.go does. It differs in one place: a base_lg of
  // 64 or more shifts every block offset to 0 in Go (filter 0 answers for every block), where
  // LevelDB on x86 shifts by base_lg mod 64.
  FilterBlockReader(ByteSpan contents, HashFlavor flavor, bool goleveldb = false,
                    BloomVariant variant = BloomVariant::kLevelDb);

  bool KeyMayMatch(std::uint64_t block_offset, ByteSpan key) const;
  // answers.size() == keys.size(); every key asked of the filter of `block_offset`.
  void KeyMayMatchBatch(std::uint64_t block_offset, const KeyList& keys,
                        std::span<std::uint8_t> answers) const;

  // What the reader does for a data block at `block_offset`.
  struct Choice {
    enum class Kind {
      kFilter,       // ask `filter` (which may still be shorter than 2 bytes -> "absent")
      kAlwaysMatch,  // no usable filter: every key may match
      kNeverMatch,   // an empty filter slot with inconsistent offsets (start == limit)
    };
    Kind kind;
    ByteSpan filter;
  };
  Choice FilterFor(std::uint64_t block_offset) const;

  // False when the block is too short or its array offset points past the end: the original
  // then ignores the block and every key may match.
  bool usable() const { return usable_; }
  std::size_t num_filters() const { return num_; }
  std::uint8_t base_lg() const { return base_lg_; }
  std::uint32_t array_offset() const { return array_offset_; }
  HashFlavor flavor() const { return flavor_; }
  BloomVariant variant() const { return variant_; }

 private:
  ByteSpan contents_;
  HashFlavor flavor_;
  bool goleveldb_ = false;
  BloomVariant variant_ = BloomVariant::kLevelDb;
  bool usable_ = false;
  std::uint8_t base_lg_ = 0;
  std::uint32_t array_offset_ = 0;
  std::size_t num_ = 0;
};

// The strict view of a filter block, for inspect and verify.
struct FilterRange {
  std::uint32_t start = 0;  // relative to the block
  std::uint32_t limit = 0;
  bool empty() const { return start == limit; }
  std::uint32_t size() const { return limit - start; }
};

struct FilterBlockLayout {
  std::uint32_t array_offset = 0;
  std::uint8_t base_lg = 0;
  std::vector<FilterRange> filters;  // filter i serves data blocks starting in [i, i+1) << base_lg

  std::size_t num_empty() const;
  // The filter number for a data block at `block_offset` (may be >= filters.size()).
  std::uint64_t IndexFor(std::uint64_t block_offset) const;
};

// Checks what a LevelDB writer guarantees and reports the first violation at an absolute offset
// (`base_offset` = where the block starts in `source`): length >= 5; array offset <= length - 5;
// the offset array fills the space up to the trailer in whole u32s; filter 0 starts at 0; offsets
// never decrease and the last one is <= the array offset (so the filters tile [0, array offset));
// base_lg < 64 (the reader shifts a 64-bit offset by it). base_lg != 11 is legal here; callers that
// want LevelDB's own value compare with kFilterBaseLg.
Result<FilterBlockLayout> ParseFilterBlockLayout(ByteSpan contents, std::string_view source,
                                                 std::uint64_t base_offset = 0);

}  // namespace bloomcodec::leveldb

#include "blocktable/scan.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>

#include "blocktable/stream.h"
#include "codec/parallel.h"
#include "codec/short_bytes.h"

namespace bloomcodec::blocktable {

namespace {

bool SameBytes(ByteSpan a, ByteSpan b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// A stored key without its trailer: what the filter sees.
inline ByteSpan FilterKeyOf(ByteSpan key, std::size_t trailer) {
  return key.first(key.size() >= trailer ? key.size() - trailer : 0);
}

// One range's share of the totals; the shares are merged in block order.
struct RangeResult {
  std::optional<Status> damage;  // the first in the range
  std::optional<Status> stopped;
  std::optional<Status> filter_error;
  std::uint64_t entries = 0;
  std::array<std::uint64_t, kKindCounters> kind_counts{};
  std::uint64_t false_negatives = 0;
  std::vector<ByteVector> listed;  // up to kMaxListedFalseNegatives + 1, in key order
  // kDistinct: the range's first counted key was answered "absent" (the merge drops it when the
  // range before ended with the same key, which was answered so already).
  bool first_false_negative = false;
  // Distinct filter keys by runs of blocks of one filter group, the range's first counted key
  // taken as new (the merge corrects it when the range before ended with the same key).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
  std::uint64_t filter_entries = 0;
  bool any = false;  // a key was counted
  std::uint64_t first_group = 0;
  ByteVector first_key;
  std::uint64_t last_group = 0;
  ByteVector last_key;  // the last key counted (kept once per block, not per key)
  bool any_prefix = false;
  ByteVector first_prefix;
  bool first_prefix_counted = false;  // not when it was the whole key it came from
  ByteVector last_prefix;
};

// What the ranges of one table share.
struct Shared {
  const VerifyPlugin& plugin;
  const VerifySetup& setup;
  const InputFile& file;
  const DataBlocks& blocks;
  bool check_structure;
  // Filter groups never decrease from block to block (always, unless the index is damaged): a
  // group left behind is never met again, so a range needs no memory of it.
  bool monotone;
  StreamLimits limits;
};

// Checks blocks [range.begin, range.end) and asks the filter for their keys.
class RangeScan {
 public:
  RangeScan(const Shared& shared, BlockRange range, RangeResult& out);
  void Run();

 private:
  static constexpr std::size_t kNone = ~std::size_t{0};

  bool ReadPreviousLastKey(std::size_t b);
  bool ScanBlock(std::size_t b);
  // The per-key loop, one instance per StoredKeys (its tests hoisted out of the loop).
  template <StoredKeys kAsked>
  Status WalkKeys(const DataBlockView& view, CheckedBlockWalk& it, FilterGroup group,
                  Status& kind_damage, Status& value_damage);
  bool FirstOfBlockFresh(ByteSpan filter_key, std::uint64_t group);
  void AddDistinct(ByteSpan filter_key, std::uint64_t block_offset, bool range_first);
  bool Room(std::uint64_t block_offset);
  void Flush();
  // Records damage met while checking; false when it ends the range (damage_ends_report).
  bool Damage(const Status& s);

  const Shared& shared_;
  const VerifyPlugin& plugin_;
  const VerifySetup& setup_;
  const BlockRange range_;
  // Read for every key: kept here rather than behind shared_ and setup_.
  const std::size_t trailer_;
  const std::size_t chunk_limit_;
  const bool monotone_;
  const bool prefixes_asked_;
  // The last key kind seen without flags (-1: none yet): most keys are of one such kind.
  int plain_kind_ = -1;
  RangeResult& out_;
  std::unique_ptr<RangeFilter> filter_;
  bool checking_;
  bool asking_;  // the filter is asked (there is one, and it has not failed)
  ByteVector previous_last_;
  ByteSpan previous_index_key_;
  // The chunk: keys collected for one question to the filter.
  KeyList chunk_;
  KeyList prefixes_;
  std::vector<std::uint8_t> has_prefix_;
  std::vector<std::uint8_t> answers_;
  std::uint64_t chunk_block_ = 0;  // the data block of chunk_[0]
  std::size_t range_first_ = kNone;
  // Distinct keys: the group of the last key counted and that key (out_.last_key); with a
  // damaged index (groups going back) also the last key of every group left.
  bool counting_ = false;
  std::uint64_t current_group_ = 0;
  std::unordered_map<std::uint64_t, ByteVector> left_;
  PageDropper dropper_;
};

RangeScan::RangeScan(const Shared& shared, BlockRange range, RangeResult& out)
    : shared_(shared),
      plugin_(shared.plugin),
      setup_(shared.setup),
      range_(range),
      trailer_(shared.setup.keys.trailer_bytes),
      chunk_limit_(shared.limits.chunk_keys),
      monotone_(shared.monotone),
      prefixes_asked_(static_cast<bool>(shared.setup.prefix)),
      out_(out),
      filter_(shared.plugin.NewRangeFilter()),
      checking_(shared.check_structure),
      asking_(filter_ != nullptr),
      dropper_(&shared.file, shared.limits.drop_window) {
  if (!asking_) return;
  const std::size_t n = std::min<std::size_t>(shared.limits.chunk_keys, 1 << 16);
  chunk_.Reserve(n, n * 32);
  answers_.reserve(n);
  if (prefixes_asked_) {
    prefixes_.Reserve(n, n * 16);
    has_prefix_.reserve(n);
  }
}

void RangeScan::Run() {
  const std::vector<BlockHandle>& blocks = shared_.blocks.handles;
  if (range_.begin >= range_.end) return;
  dropper_.Start(blocks[range_.begin].offset);
  bool going = true;
  if (checking_ && setup_.checks_across_blocks && range_.begin > 0) {
    going = ReadPreviousLastKey(range_.begin - 1);
  }
  for (std::size_t b = range_.begin; going && b < range_.end; ++b) going = ScanBlock(b);
  if (asking_) Flush();
  const BlockHandle& last = blocks[range_.end - 1];
  dropper_.Done(last.offset + last.size + kBlockTrailerSize, true);
}

bool RangeScan::Damage(const Status& s) {
  if (!checking_) return true;
  checking_ = false;
  out_.damage = s;
  if (!setup_.damage_ends_report) return true;
  out_.stopped = s;
  return false;
}

// The state block b leaves for the checks across blocks: its last key and index key. (When it
// cannot be read, the range before met that first: this range just stops checking.)
bool RangeScan::ReadPreviousLastKey(std::size_t b) {
  previous_index_key_ = shared_.blocks.index_keys[b];
  Result<Block> block = plugin_.ReadDataBlock(shared_.blocks.handles[b]);
  Status s = block.status();
  if (s.ok()) {
    BlockIterator it(*block, setup_.key_order, setup_.values);
    s = it.SeekToFirst();
    while (s.ok() && it.valid()) {
      previous_last_.assign(it.key().begin(), it.key().end());
      s = it.Next();
    }
  }
  return s.ok() || Damage(s);
}

// One walk gives the keys and the block's own verdict (CheckedBlockWalk). The block's damage is
// reported once the walk is over, in one order for every format: the walk's (the whole block
// walked before any other check looks at a key), then the format's checks of the block's start,
// then key kinds, then values, then the format's checks of the block's end.
bool RangeScan::ScanBlock(std::size_t b) {
  const BlockHandle& handle = shared_.blocks.handles[b];
  Result<Block> read = plugin_.ReadDataBlock(handle);
  if (!read.ok()) {
    Damage(read.status());
    out_.stopped = read.status();
    return false;
  }
  const Block& block = *read;
  const DataBlockView view{b, handle, block, shared_.blocks.index_keys[b]};
  CheckedBlockWalk it(block, setup_.key_order, setup_.values);
  Status walked = it.SeekToFirst();
  Status start_damage, kind_damage, value_damage;
  if (checking_ && walked.ok()) {
    BlockStart start{view, std::nullopt, std::nullopt, {}};
    if (it.valid()) start.first_key = it.key();
    if (setup_.checks_across_blocks && b > 0) {
      start.previous_last_key = ByteSpan(previous_last_);
      start.previous_index_key = previous_index_key_;
    }
    start_damage = plugin_.CheckBlockStart(start);
  }
  const FilterGroup group = plugin_.FilterGroupOf(handle);
  if (walked.ok()) {
    if (asking_ && filter_->StartsNewFilter(handle)) Flush();
    if (chunk_.empty()) chunk_block_ = handle.offset;
    walked = setup_.asked == StoredKeys::kEveryEntry
                 ? WalkKeys<StoredKeys::kEveryEntry>(view, it, group, kind_damage, value_damage)
                 : WalkKeys<StoredKeys::kDistinct>(view, it, group, kind_damage, value_damage);
  }
  // The last key counted, kept once per block rather than per key.
  if (group.counted && asking_ && it.entries() > 0) {
    const ByteSpan key = FilterKeyOf(it.key(), setup_.keys.trailer_bytes);
    out_.last_key.assign(key.begin(), key.end());
    out_.last_group = group.group;
  }
  if (checking_) {
    const Status& first = !it.damage().ok()    ? it.damage()
                          : !start_damage.ok() ? start_damage
                          : !kind_damage.ok()  ? kind_damage
                                               : value_damage;
    if (!first.ok() && !Damage(first)) return false;
    if (checking_ && setup_.checks_across_blocks && it.entries() > 0) {
      previous_last_.assign(it.key().begin(), it.key().end());
    }
  }
  if (!walked.ok()) {
    out_.stopped = std::move(walked);
    return false;
  }
  if (checking_ && it.entries() > 0) {
    if (Status end = plugin_.CheckBlockEnd(view, it.key()); !end.ok() && !Damage(end)) {
      return false;
    }
  }
  previous_index_key_ = view.index_key;
  dropper_.Done(handle.offset + handle.size + kBlockTrailerSize);
  return true;
}

// The keys of one block, from the one `it` is at: kinds, values, and the filter's questions.
template <StoredKeys kAsked>
Status RangeScan::WalkKeys(const DataBlockView& view, CheckedBlockWalk& it, FilterGroup group,
                           Status& kind_damage, Status& value_damage) {
  constexpr bool kEvery = kAsked == StoredKeys::kEveryEntry;
  // Locals, not members: the chunk's byte stores may alias any member, which would then be read
  // again for every key.
  RangeResult& out = out_;
  const std::size_t trailer = trailer_;
  const KindFlags* const kinds = trailer > 0 ? setup_.keys.kind_flags : nullptr;
  const std::uint8_t mask = setup_.keys.kind_mask;
  const bool check_values = setup_.check_values;
  const bool counted = group.counted;
  const std::uint64_t offset = view.handle.offset;
  bool asking = asking_;  // changes only when the chunk is asked (Room, AddDistinct)
  int plain_kind = plain_kind_;
  std::uint64_t entries = 0;
  std::uint64_t fresh_in_block = 0;  // added to the block's run once, at its end
  Status walked;
  while (it.valid()) {
    const ByteSpan key = it.key();
    ++entries;
    // Most keys are of one kind without flags (values): the table is looked up for others only.
    if (kinds != nullptr && key.size() >= trailer && key[key.size() - trailer] != plain_kind) {
      const std::uint8_t kind = key[key.size() - trailer];
      if (const std::uint8_t flags = (*kinds)[kind & mask]; flags == 0) {
        plain_kind = kind;
      } else {
        for (std::size_t c = 0; c < kKindCounters; ++c) out.kind_counts[c] += (flags >> c) & 1;
        if ((flags & kKindInvalid) != 0 && checking_ && kind_damage.ok()) {
          kind_damage = plugin_.InvalidKind(view.block, it.entry_position(), kind);
        }
      }
    }
    if (check_values && checking_ && value_damage.ok()) [[unlikely]] {
      value_damage = plugin_.CheckValue(view, it.entry_position(), key, it.value());
    }
    const ByteSpan filter_key = FilterKeyOf(key, trailer);
    if constexpr (kEvery) {
      if (asking) {
        if (Room(offset)) {
          chunk_.Add(filter_key);
        } else {
          asking = false;
        }
      }
    }
    if (counted && asking) {
      // A block is one filter group: only its first key may start a run; the others are new
      // when they differ from the entry before (which shares it.shared() bytes).
      bool fresh;
      bool range_first = false;  // the range's first key counted
      if (it.entries() == 1) [[unlikely]] {
        range_first = !counting_;
        fresh = FirstOfBlockFresh(filter_key, group.group);
      } else {
        const ByteSpan previous = FilterKeyOf(it.previous_key(), trailer);
        fresh = !SameBytesAfter(previous, filter_key, it.shared());
        fresh_in_block += fresh ? 1 : 0;
      }
      if constexpr (!kEvery) {
        if (fresh) {
          AddDistinct(filter_key, offset, range_first);
          asking = asking_;
        }
      }
    }
    if (walked = it.Next(); !walked.ok()) break;
  }
  if (fresh_in_block > 0) out.runs.back().second += fresh_in_block;
  out.entries += entries;
  plain_kind_ = plain_kind;
  return walked;
}

// Whether a block's first filter key is not the key counted before it (the previous block's
// last, or with a damaged index the last of its group); counts it in its group's run, starting
// one when the group changes.
bool RangeScan::FirstOfBlockFresh(ByteSpan filter_key, std::uint64_t group) {
  bool fresh;
  if (!counting_ || group != current_group_) {
    if (counting_ && !monotone_) left_[current_group_] = out_.last_key;
    const auto earlier = monotone_ ? left_.end() : left_.find(group);
    fresh = earlier == left_.end() || !SameBytes(earlier->second, filter_key);
    if (!counting_) {
      out_.any = true;
      out_.first_group = group;
      out_.first_key.assign(filter_key.begin(), filter_key.end());
    }
    out_.runs.emplace_back(group, 0);
    counting_ = true;
    current_group_ = group;
  } else {
    fresh = !SameBytes(out_.last_key, filter_key);
  }
  if (fresh) ++out_.runs.back().second;
  return fresh;
}

// A distinct filter key (counted as a filter entry when the filter holds whole keys) and its
// prefix (each prefix counted once per run of equal ones), collected for the filter.
[[gnu::always_inline]] inline void RangeScan::AddDistinct(ByteSpan filter_key,
                                                          std::uint64_t block_offset,
                                                          bool range_first) {
  if (setup_.filter_holds_whole_keys) ++out_.filter_entries;
  ByteSpan prefix;
  const bool has_prefix =
      prefixes_asked_ && setup_.prefix.of(setup_.prefix.context, filter_key, prefix);
  if (has_prefix && (!out_.any_prefix || !SameBytes(prefix, out_.last_prefix))) {
    // A prefix equal to the whole key just added is the same entry (a builder's hash list
    // drops an adjacent repeat): a key that is its own prefix is one entry, not two.
    const bool own = setup_.filter_holds_whole_keys && SameBytes(prefix, filter_key);
    if (!own) ++out_.filter_entries;
    if (!out_.any_prefix) {
      out_.first_prefix.assign(prefix.begin(), prefix.end());
      out_.first_prefix_counted = !own;
    }
    out_.last_prefix.assign(prefix.begin(), prefix.end());
    out_.any_prefix = true;
  }
  if (!Room(block_offset)) return;
  if (range_first) range_first_ = chunk_.size();
  chunk_.Add(filter_key);
  if (prefixes_asked_) {
    has_prefix_.push_back(has_prefix ? 1 : 0);
    if (has_prefix) prefixes_.Add(prefix);
  }
}

// Room for one more key in the chunk: asks the filter for a full chunk first. False once the
// filter is asked no more.
[[gnu::always_inline]] inline bool RangeScan::Room(std::uint64_t block_offset) {
  if (chunk_.size() < chunk_limit_) [[likely]] {
    return true;
  }
  Flush();
  chunk_block_ = block_offset;
  return asking_;
}

// Asks the filter for the keys collected, and counts those answered "absent".
void RangeScan::Flush() {
  if (chunk_.empty()) return;
  answers_.resize(chunk_.size());
  Status error;
  const std::size_t asked =
      filter_->Ask(FilterChunk{chunk_, prefixes_, has_prefix_, chunk_block_}, answers_, error);
  for (std::size_t i = 0; i < asked; ++i) {
    if (answers_[i] != 0) continue;
    if (i == range_first_) out_.first_false_negative = true;
    ++out_.false_negatives;
    if (out_.listed.size() <= kMaxListedFalseNegatives) {
      out_.listed.emplace_back(chunk_[i].begin(), chunk_[i].end());
    }
  }
  const bool failed = asked < chunk_.size();
  chunk_.Clear();
  prefixes_.Clear();
  has_prefix_.clear();
  range_first_ = kNone;
  if (failed) {
    out_.filter_error = std::move(error);
    asking_ = false;
  }
}

// What the merge carries from one range to the next: the last key and prefix counted.
struct Carry {
  bool key = false;
  std::uint64_t group = 0;
  ByteVector last_key;
  bool prefix = false;
  ByteVector last_prefix;
};

void ListFalseNegative(ByteVector& key, ScanTotals& t) {
  ++t.false_negative_count;
  if (t.false_negatives.size() < kMaxListedFalseNegatives)
    t.false_negatives.push_back(std::move(key));
}

// Adds a range's counted keys and false negatives, correcting what its first key repeats.
void MergeCounted(RangeResult& r, bool whole_keys, Carry& carry, ScanTotals& t) {
  bool repeat = false;
  if (r.any) {
    repeat = carry.key && carry.group == r.first_group && carry.last_key == r.first_key;
    for (const auto& [group, n] : r.runs) {
      if (group < t.distinct.size()) t.distinct[group] += n;
    }
    t.filter_entries += r.filter_entries;
    if (repeat) {
      if (r.first_group < t.distinct.size()) --t.distinct[r.first_group];
      if (whole_keys) --t.filter_entries;
    }
    if (r.any_prefix) {
      if (carry.prefix && carry.last_prefix == r.first_prefix && r.first_prefix_counted) {
        --t.filter_entries;
      }
      carry.prefix = true;
      carry.last_prefix = std::move(r.last_prefix);
    }
    carry.key = true;
    carry.group = r.last_group;
    carry.last_key = std::move(r.last_key);
  }
  const std::size_t skip = repeat && r.first_false_negative ? 1 : 0;
  for (std::size_t i = skip; i < r.listed.size(); ++i) ListFalseNegative(r.listed[i], t);
  t.false_negative_count += r.false_negatives - r.listed.size();
}

ScanTotals Merge(std::vector<RangeResult>& results, const Shared& s) {
  ScanTotals t;
  t.distinct.assign(s.setup.filter_groups, 0);
  Carry carry;
  for (RangeResult& r : results) {
    if (!t.damage && r.damage) t.damage = std::move(r.damage);
    t.entries += r.entries;
    for (std::size_t c = 0; c < kKindCounters; ++c) t.kind_counts[c] += r.kind_counts[c];
    // Once the filter could not be asked, only the structure still counts.
    if (!t.filter_error) {
      MergeCounted(r, s.setup.asked == StoredKeys::kDistinct && s.setup.filter_holds_whole_keys,
                   carry, t);
      if (r.filter_error) t.filter_error = std::move(r.filter_error);
    }
    if (r.stopped) {
      t.stopped = std::move(r.stopped);
      return t;
    }
  }
  if (!s.blocks.index_error.ok()) {
    if (!t.damage && s.check_structure) t.damage = s.blocks.index_error;
    t.stopped = s.blocks.index_error;
  }
  return t;
}

}  // namespace

std::uint64_t ScanTotals::distinct_keys() const {
  std::uint64_t n = 0;
  for (std::uint64_t d : distinct) n += d;
  return n;
}

ScanTotals ScanDataBlocks(const VerifyPlugin& plugin, const VerifySetup& setup,
                          const InputFile& file, const DataBlocks& blocks, bool check_structure) {
  const std::vector<BlockHandle>& handles = blocks.handles;
  bool monotone = true;
  std::uint64_t previous_group = 0;
  std::vector<std::uint64_t> sizes(handles.size());
  for (std::size_t i = 0; i < handles.size(); ++i) {
    sizes[i] = handles[i].size + kBlockTrailerSize;
    const std::uint64_t group = plugin.FilterGroupOf(handles[i]).group;
    if (i > 0 && group < previous_group) monotone = false;
    previous_group = group;
  }
  const Shared shared{
      plugin, setup, file, blocks, check_structure, monotone, CurrentStreamLimits()};
  std::vector<BlockRange> ranges;
  if (monotone) {
    ranges = SplitIntoRanges(sizes, shared.limits);
  } else if (!handles.empty()) {
    ranges.push_back(BlockRange{0, handles.size()});
  }
  std::vector<RangeResult> results(ranges.size());
  ParallelFor(ranges.size(),
              [&](std::size_t r) { RangeScan(shared, ranges[r], results[r]).Run(); });
  return Merge(results, shared);
}

}  // namespace bloomcodec::blocktable

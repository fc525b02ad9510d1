// The entries RocksDB's filter builders add with a prefix extractor (prefix_filter_entries.h).
// From table/block_based/full_filter_block.cc (Add, AddPrefix, Reset) and
// partitioned_filter_block.cc (MaybeCutAFilterBlock) of v6.29.5, v7.8.3, v9.4.0 and v9.5.2;
// v9.7.4 and v10.5.1 for kFrom96 (FullFilterBlockBuilder::Add, PartitionedFilterBlockBuilder::
// CutAFilterBlock, AddImpl); the bits builders' AddKey and AddKeyAndAlt (filter_policy.cc): a
// hash equal to the last one kept is dropped.
#include "rocksdb/sst/prefix_filter_entries.h"

#include <algorithm>
#include <utility>

namespace bloomcodec::rocksdb {

namespace {

bool EqualsEntry(const ByteVector& a, ByteSpan b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace

PrefixFilterEntries::PrefixFilterEntries(const PrefixExtractor& extractor, bool whole_key,
                                         bool partitioned, PrefixEntryRule rule,
                                         FilterEncoding encoding)
    : extractor_(extractor), whole_key_(whole_key), encoding_(encoding), rule_(rule) {
  // 9.5 made both depend on need_last_prefix_ (whole-key filtering or a partitioned filter);
  // before, the re-add was unconditional and only whole-key filtering recorded prefixes.
  const bool need_last = whole_key || partitioned;
  readd_ = rule == PrefixEntryRule::kBefore95 || need_last;
  record_ = rule == PrefixEntryRule::kBefore95 ? whole_key : need_last;
}

void PrefixFilterEntries::Emit(ByteSpan entry) { EmitHash(FilterEntryHash(encoding_, entry)); }

void PrefixFilterEntries::EmitUnlessRecorded(ByteSpan entry, bool& recorded, ByteVector& last) {
  if (recorded && EqualsEntry(last, entry)) return;
  Emit(entry);
  recorded = true;
  last.assign(entry.begin(), entry.end());
}

void PrefixFilterEntries::EmitHash(std::uint64_t h) {
  if (hashes_.empty() || hashes_.back() != h) hashes_.push_back(h);
}

void PrefixFilterEntries::EmitKeyAndAlt(ByteSpan key, ByteSpan alt) {
  const std::uint64_t key_hash = FilterEntryHash(encoding_, key);
  const std::uint64_t alt_hash = FilterEntryHash(encoding_, alt);
  const std::optional<std::uint64_t> prev_key =
      hashes_.empty() ? std::nullopt : std::optional(hashes_.back());
  const std::optional<std::uint64_t> prev_alt = prev_alt_;
  // The prefix first, so that the last entry stays the last key (RocksDB's comment: a new
  // prefix implies a new key).
  if (alt_hash != prev_alt && alt_hash != key_hash && alt_hash != prev_key) {
    hashes_.push_back(alt_hash);
  }
  prev_alt_ = alt_hash;
  // A key equal to the last prefix (a key that is its own prefix, met after its longer keys in
  // a reverse order) is not added again.
  if (key_hash != prev_key && key_hash != prev_alt) hashes_.push_back(key_hash);
}

void PrefixFilterEntries::AddFrom96(ByteSpan key, bool in_domain) {
  if (in_domain) {
    const ByteSpan prefix = extractor_.Transform(key);
    if (whole_key_) {
      EmitKeyAndAlt(key, prefix);
    } else {
      Emit(prefix);
    }
    last_prefix_.assign(prefix.begin(), prefix.end());
  } else if (whole_key_) {
    Emit(key);
  }
  last_key_in_domain_ = in_domain;
}

void PrefixFilterEntries::Add(ByteSpan key) {
  const bool in_domain = extractor_.InDomain(key);
  if (rule_ == PrefixEntryRule::kFrom96) return AddFrom96(key, in_domain);
  if (readd_ && !prefix_recorded_ && last_key_in_domain_) {
    // A new partition (or, unrecorded, every key after the first): the last recorded prefix,
    // empty when none was ever recorded.
    Emit(last_prefix_);
    prefix_recorded_ = true;
  }
  if (whole_key_) {
    // With a prefix beside it the builder skips a repeat of the last whole key itself: the
    // bits builder sees only the last entry, which is the prefix then.
    if (!in_domain) {
      Emit(key);
    } else {
      EmitUnlessRecorded(key, whole_key_recorded_, last_whole_key_);
    }
  }
  last_key_in_domain_ = in_domain;
  if (!in_domain) return;
  const ByteSpan prefix = extractor_.Transform(key);
  if (!record_) {
    Emit(prefix);
  } else {
    EmitUnlessRecorded(prefix, prefix_recorded_, last_prefix_);
  }
}

std::vector<std::uint64_t> PrefixFilterEntries::Close(const ByteSpan* next) {
  // The next partition's first prefix, so that a prefix seek landing in this partition finds
  // it; compared with the last recorded prefix (empty when none is recorded, before 9.5
  // without whole-key filtering).
  if (next && extractor_.InDomain(*next)) {
    const ByteSpan prefix = extractor_.Transform(*next);
    if (rule_ != PrefixEntryRule::kFrom96) {
      if (!EqualsEntry(last_prefix_, prefix)) Emit(prefix);
    } else if (whole_key_) {
      EmitKeyAndAlt(prefix, prefix);  // RocksDB's way of adding a prefix as an "alt" entry
    } else {
      Emit(prefix);
    }
  }
  whole_key_recorded_ = false;
  prefix_recorded_ = false;
  prev_alt_.reset();
  closed_ += hashes_.size();
  std::vector<std::uint64_t> closed = std::exchange(hashes_, {});
  // 9.6 on: the previous key's prefix opens the next partition (for SeekForPrev).
  if (next && rule_ == PrefixEntryRule::kFrom96 && last_key_in_domain_) Emit(last_prefix_);
  return closed;
}

}  // namespace bloomcodec::rocksdb

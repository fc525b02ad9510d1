// Repair's tap on verify's scan of Pebble's tables (see rebuild_tap.h).
#include "pebble/table/rebuild_tap.h"

#include <algorithm>

#include "pebble/table/table_reader.h"
#include "pebble/table/table_writer.h"

namespace bloomcodec::pebble {

void TappedRange::Ask(const BloomReader& old, const KeyList& keys,
                      std::span<std::uint8_t> answers) {
  const std::size_t base = hashes.size();
  const std::size_t unsigned_base = unsigned_hashes.size();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const ByteSpan key = keys[i];
    const std::uint32_t h = BloomKeyHash(key, HashFlavor::kSignedTail);
    hashes.push_back(h);
    if (!FlavoursDiffer(key)) continue;
    const std::uint32_t u = BloomKeyHash(key, HashFlavor::kUnsignedTail);
    if (u != h) unsigned_hashes.emplace_back(base + i, u);
  }
  old.HashesMayMatch(std::span<const std::uint32_t>(hashes).subspan(base), answers);
  // The evidence as DecideHashFlavor tallies it: the unsigned hash asked only where it differs
  // (few keys: a tail byte of 0x80 or more).
  std::size_t u = unsigned_base;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::optional<bool> unsigned_hit;
    if (u < unsigned_hashes.size() && unsigned_hashes[u].first == base + i) {
      unsigned_hit = old.HashMayMatch(unsigned_hashes[u++].second);
    }
    (base + i == 0 ? first : rest).Count(answers[i] != 0, unsigned_hit);
  }
  if (keys.size() == 0) return;
  if (base == 0) first_key.assign(keys[0].begin(), keys[0].end());
  const ByteSpan last = keys[keys.size() - 1];
  last_key.assign(last.begin(), last.end());
}

void TableHashes::Add(TappedRange range) {
  const std::lock_guard<std::mutex> held(lock_);
  ranges_.push_back(std::move(range));
}

void TableHashes::Keep(const PebbleTable& table, std::uint64_t entries) {
  if (!blocktable::BlocksInFileOrder(
          [&](const blocktable::IndexEntryFn& fn) { return table.ForEachDataBlock(fn); })) {
    return;
  }
  const std::lock_guard<std::mutex> held(lock_);
  std::sort(ranges_.begin(), ranges_.end(), [](const TappedRange& a, const TappedRange& b) {
    return a.first_block < b.first_block;
  });
  // A range's first key may repeat the last key of the range before it (a user key whose
  // versions span the cut): it is the same key, counted once.
  std::vector<std::size_t> skip(ranges_.size(), 0);
  HashFlavorEvidence evidence;
  const TappedRange* before = nullptr;
  for (std::size_t r = 0; r < ranges_.size(); ++r) {
    const TappedRange& range = ranges_[r];
    if (range.hashes.empty()) continue;
    if (before != nullptr && range.first_key == before->last_key) {
      skip[r] = 1;
    } else {
      evidence.Add(range.first);
    }
    evidence.Add(range.rest);
    before = &range;
  }
  const bool old_filter = table.filter().bloom && !table.filter().bloom->empty();
  const HashFlavor flavor = old_filter ? evidence.flavor() : HashFlavor::kSignedTail;
  std::size_t total = 0;
  for (const TappedRange& range : ranges_) total += range.hashes.size();
  std::vector<std::uint64_t> collapsed;
  collapsed.reserve(total);
  for (std::size_t r = 0; r < ranges_.size(); ++r) {
    TappedRange& range = ranges_[r];
    auto u = range.unsigned_hashes.begin();
    for (std::size_t i = skip[r]; i < range.hashes.size(); ++i) {
      std::uint32_t h = range.hashes[i];
      while (u != range.unsigned_hashes.end() && u->first < i) ++u;
      if (flavor == HashFlavor::kUnsignedTail && u != range.unsigned_hashes.end() &&
          u->first == i) {
        h = u->second;
      }
      if (collapsed.empty() || collapsed.back() != h) collapsed.push_back(h);
    }
    range.hashes = {};  // given back as the merge goes
    range.unsigned_hashes = {};
  }
  ranges_.clear();
  const BloomPolicy policy =
      PolicyFromEvidence(table, evidence, collapsed.size(), tap_.bits_per_key());
  Result<std::optional<ByteVector>> built = BuildCheckedBloom(policy, collapsed, table.source());
  if (!built.ok()) return;
  RebuiltFilter f;
  f.bits_per_key = tap_.bits_per_key();
  f.file_size = table.file().size();
  f.writes_filter = built->has_value();
  if (f.writes_filter) f.filter = std::move(**built);
  f.policy = policy;
  f.filter_keys = entries;
  tap_.Keep(table.source(), std::move(f));
}

std::unique_ptr<TableHashes> TapTable(RebuildTap* tap, const PebbleTable& table) {
  if (tap == nullptr || table.filter().kind != PebbleFilterKind::kBloom || !table.filter().bloom ||
      table.comparer() != colblk::KeyComparer::kBytewise) {
    return nullptr;
  }
  // The budget's estimate only (nothing is allocated from it): 4 bytes an entry, the entries the
  // properties count, no more than the file's bytes.
  const std::uint64_t size = table.file().size();
  const std::uint64_t entries = std::min(table.Number("rocksdb.num.entries").value_or(size), size);
  const std::uint64_t bytes = entries * sizeof(std::uint32_t);
  if (!tap->Reserve(bytes)) return nullptr;
  return std::make_unique<TableHashes>(*tap, bytes);
}

Result<std::optional<ByteVector>> BuildCheckedBloom(const BloomPolicy& policy,
                                                    std::span<const std::uint64_t> hashes,
                                                    const std::string& source) {
  BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<ByteVector> block,
                              BuildBloomFromHashes(policy, hashes));
  if (!block) return block;
  BLOOMCODEC_ASSIGN_OR_RETURN(BloomReader filter, BloomReader::Parse(*block, source));
  std::vector<std::uint32_t> chunk;
  std::vector<std::uint8_t> answers;
  constexpr std::size_t kChunk = 4096;
  for (std::size_t at = 0; at < hashes.size(); at += kChunk) {
    const std::size_t n = std::min(kChunk, hashes.size() - at);
    chunk.assign(hashes.begin() + static_cast<std::ptrdiff_t>(at),
                 hashes.begin() + static_cast<std::ptrdiff_t>(at + n));
    answers.resize(n);
    filter.HashesMayMatch(chunk, answers);
    if (std::find(answers.begin(), answers.end(), 0) != answers.end()) {
      return Status::Internal(source +
                              ": the rebuilt filter answers \"not there\" for a key the table "
                              "holds (a bug: please report)");
    }
  }
  return block;
}

}  // namespace bloomcodec::pebble

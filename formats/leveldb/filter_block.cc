#include "bloomcodec/leveldb/filter_block.h"

#include <algorithm>
#include <string>

#include "codec/byte_reader.h"
#include "leveldb/basho_bloom.h"

namespace bloomcodec::leveldb {

namespace {

// The trailer after the offset array: u32 array offset + base_lg byte.
constexpr std::size_t kTrailerBytes = 5;

inline std::uint32_t FilterBlockLittle32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

inline void AppendLittle32(ByteVector& dst, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) dst.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// Trap: the original keeps base_lg in a size_t loaded from a (signed on x86) char and shifts the
// 64-bit block offset by it. A shift of 64 or more is undefined in C++; the x86-64 instruction
// the compiler emits uses only the low 6 bits of the count. Sign extension does not touch those
// bits, so the effective shift is the stored byte mod 64.
inline std::uint64_t FilterIndex(std::uint64_t block_offset, std::uint8_t base_lg) {
  return block_offset >> (base_lg & 63);
}

}  // namespace

FilterBlockBuilder::FilterBlockBuilder(BloomPolicy policy) : policy_(policy) {}

void FilterBlockBuilder::StartBlock(std::uint64_t block_offset) {
  // Emit filters until one exists for every 2 KiB range before the next block's range. The first
  // one emitted takes the pending keys; the others are empty (no block started in their range).
  const std::uint64_t filter_index = block_offset / kFilterBase;
  while (filter_index > filter_offsets_.size()) GenerateFilter();
}

void FilterBlockBuilder::AddKey(ByteSpan key) {
  // Only the hash is ever needed, so keep that instead of copying the key.
  pending_hashes_.push_back(BloomHash(key, policy_.flavor));
}

void FilterBlockBuilder::GenerateFilter() {
  // An empty filter is an offset equal to the next one: zero bytes, not a 9-byte empty bloom.
  filter_offsets_.push_back(static_cast<std::uint32_t>(result_.size()));
  if (pending_hashes_.empty()) return;
  AppendBloomFilterFromHashes(policy_, pending_hashes_, result_);
  pending_hashes_.clear();
}

ByteVector FilterBlockBuilder::Finish() {
  // Keys still pending become one last filter; no trailing empty filters are added here (those
  // came from StartBlock calls for offsets past the last block).
  if (!pending_hashes_.empty()) GenerateFilter();
  const auto array_offset = static_cast<std::uint32_t>(result_.size());
  for (std::uint32_t offset : filter_offsets_) AppendLittle32(result_, offset);
  AppendLittle32(result_, array_offset);
  result_.push_back(kFilterBaseLg);
  ByteVector out = std::move(result_);
  result_.clear();
  filter_offsets_.clear();
  return out;
}

FilterBlockReader::FilterBlockReader(ByteSpan contents, HashFlavor flavor, bool goleveldb,
                                     BloomVariant variant)
    : contents_(contents), flavor_(flavor), goleveldb_(goleveldb), variant_(variant) {
  const std::size_t n = contents.size();
  if (n < kTrailerBytes) return;  // ignored: every key may match
  base_lg_ = contents[n - 1];
  const std::uint32_t array_offset = FilterBlockLittle32(contents.data() + n - kTrailerBytes);
  if (array_offset > n - kTrailerBytes) return;
  array_offset_ = array_offset;
  // Integer division: stray bytes (fewer than 4) before the trailer are silently ignored.
  num_ = (n - kTrailerBytes - array_offset) / 4;
  usable_ = true;
}

FilterBlockReader::Choice FilterBlockReader::FilterFor(std::uint64_t block_offset) const {
  if (!usable_) return {Choice::Kind::kAlwaysMatch, {}};
  // Go defines a shift by 64 or more: the result is 0.
  const std::uint64_t index =
      goleveldb_ && base_lg_ >= 64 ? 0 : FilterIndex(block_offset, base_lg_);
  if (index >= num_) return {Choice::Kind::kAlwaysMatch, {}};
  // Trap: the limit of the last filter is read from the u32 after the array, which is the array
  // offset itself only in a well-formed block: the original reads whatever is there.
  const std::uint8_t* entry = contents_.data() + array_offset_ + index * 4;
  const std::uint32_t start = FilterBlockLittle32(entry);
  const std::uint32_t limit = FilterBlockLittle32(entry + 4);
  if (start <= limit && limit <= array_offset_) {
    return {Choice::Kind::kFilter, contents_.subspan(start, limit - start)};
  }
  // Inconsistent offsets are "may match", except equal ones past the array: an empty filter.
  if (start == limit) return {Choice::Kind::kNeverMatch, {}};
  return {Choice::Kind::kAlwaysMatch, {}};
}

bool FilterBlockReader::KeyMayMatch(std::uint64_t block_offset, ByteSpan key) const {
  const Choice c = FilterFor(block_offset);
  switch (c.kind) {
    case Choice::Kind::kFilter:
      return variant_ == BloomVariant::kBasho2 ? Bloom2MayContain(c.filter, key)
                                               : BloomKeyMayMatch(flavor_, key, c.filter);
    case Choice::Kind::kAlwaysMatch: return true;
    case Choice::Kind::kNeverMatch: return false;
  }
  return true;
}

void FilterBlockReader::KeyMayMatchBatch(std::uint64_t block_offset, const KeyList& keys,
                                         std::span<std::uint8_t> answers) const {
  const Choice c = FilterFor(block_offset);
  const std::size_t n = std::min(keys.size(), answers.size());
  if (c.kind == Choice::Kind::kFilter) {
    if (variant_ == BloomVariant::kBasho2) {
      Bloom2MayContainBatch(c.filter, keys, answers.first(n));
    } else {
      BloomKeyMayMatchBatch(flavor_, keys, c.filter, answers.first(n));
    }
  } else {
    std::fill_n(answers.begin(), n, c.kind == Choice::Kind::kAlwaysMatch ? 1 : 0);
  }
}

std::size_t FilterBlockLayout::num_empty() const {
  return static_cast<std::size_t>(std::count_if(filters.begin(), filters.end(),
                                                [](const FilterRange& r) { return r.empty(); }));
}

std::uint64_t FilterBlockLayout::IndexFor(std::uint64_t block_offset) const {
  return FilterIndex(block_offset, base_lg);
}

Result<FilterBlockLayout> ParseFilterBlockLayout(ByteSpan contents, std::string_view source,
                                                 std::uint64_t base_offset) {
  ByteReader r(contents, source, base_offset);
  const std::size_t n = contents.size();
  if (n < kTrailerBytes) {
    return r.Error("a filter block of at least 5 bytes (array offset + base_lg)",
                   std::to_string(n) + " bytes");
  }
  FilterBlockLayout layout;
  const std::size_t trailer = n - kTrailerBytes;
  BLOOMCODEC_RETURN_IF_ERROR(r.Seek(trailer, "filter block trailer"));
  BLOOMCODEC_ASSIGN_OR_RETURN(layout.array_offset, r.ReadLittleU32("offset array position"));
  BLOOMCODEC_ASSIGN_OR_RETURN(layout.base_lg, r.ReadU8("base_lg"));
  if (layout.array_offset > trailer) {
    return r.ErrorAt(base_offset + trailer,
                     "an offset array position <= " + std::to_string(trailer),
                     std::to_string(layout.array_offset));
  }
  if ((trailer - layout.array_offset) % 4 != 0) {
    return r.ErrorAt(base_offset + layout.array_offset,
                     "an offset array of whole u32 entries ending at byte " +
                         std::to_string(base_offset + trailer),
                     std::to_string(trailer - layout.array_offset) + " bytes");
  }
  if (layout.base_lg >= 64) {
    return r.ErrorAt(base_offset + n - 1, "base_lg < 64 (LevelDB writes 11)",
                     std::to_string(layout.base_lg));
  }
  const std::size_t count = (trailer - layout.array_offset) / 4;
  // Bounded by the input length checked above: at most n / 4 entries.
  layout.filters.reserve(count);
  BLOOMCODEC_RETURN_IF_ERROR(r.Seek(layout.array_offset, "offset array"));
  std::uint32_t previous = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t at = r.offset();
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint32_t start, r.ReadLittleU32("filter offset"));
    if (i == 0 && start != 0) {
      return r.ErrorAt(at, "filter 0 to start at offset 0", std::to_string(start));
    }
    if (start < previous) {
      return r.ErrorAt(at,
                       "offset of filter " + std::to_string(i) + " >= " + std::to_string(previous) +
                           " (the previous filter's start)",
                       std::to_string(start));
    }
    if (start > layout.array_offset) {
      return r.ErrorAt(at,
                       "offset of filter " + std::to_string(i) + " <= the offset array position " +
                           std::to_string(layout.array_offset),
                       std::to_string(start));
    }
    if (i > 0) layout.filters.back().limit = start;
    layout.filters.push_back({start, layout.array_offset});
    previous = start;
  }
  if (count == 0 && layout.array_offset != 0) {
    // No filters but bytes before the (empty) array: nothing can reach them.
    return r.ErrorAt(base_offset, "no filter bytes when the offset array is empty",
                     std::to_string(layout.array_offset) + " unreferenced bytes");
  }
  return layout;
}

}  // namespace bloomcodec::leveldb

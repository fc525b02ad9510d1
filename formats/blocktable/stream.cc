#include "blocktable/stream.h"

#include <algorithm>

namespace bloomcodec::blocktable {

namespace {

StreamLimits& Limits() {
  static StreamLimits limits;
  return limits;
}

}  // namespace

StreamLimits CurrentStreamLimits() { return Limits(); }

ScopedStreamLimits::ScopedStreamLimits(const StreamLimits& limits) : saved_(Limits()) {
  Limits() = limits;
}

ScopedStreamLimits::~ScopedStreamLimits() { Limits() = saved_; }

std::vector<BlockRange> SplitIntoRanges(std::span<const std::uint64_t> block_bytes,
                                        const StreamLimits& limits) {
  std::vector<BlockRange> ranges;
  if (block_bytes.empty()) return ranges;
  std::uint64_t total = 0;
  for (std::uint64_t b : block_bytes) total += b;
  const std::uint64_t min_bytes = std::max<std::uint64_t>(limits.min_range_bytes, 1);
  const std::uint64_t max_ranges = std::max<std::size_t>(limits.max_ranges, 1);
  const std::uint64_t count = std::clamp<std::uint64_t>(total / min_bytes, 1, max_ranges);
  const std::uint64_t target = std::max<std::uint64_t>(total / count, 1);
  std::uint64_t in_range = 0;
  BlockRange current;
  for (std::size_t i = 0; i < block_bytes.size(); ++i) {
    in_range += block_bytes[i];
    current.end = i + 1;
    if (in_range >= target && ranges.size() + 1 < count) {
      ranges.push_back(current);
      current.begin = current.end;
      in_range = 0;
    }
  }
  if (current.end > current.begin) ranges.push_back(current);
  return ranges;
}

void PageDropper::Done(std::uint64_t offset, bool all) {
  if (file_ == nullptr || offset <= from_ || (!all && offset - from_ < window_)) return;
  file_->DropPages(from_, offset);
  from_ = offset;
}

BlockRunPages::BlockRunPages(const InputFile* file, std::span<const BlockHandle> blocks)
    : pages_(file, CurrentStreamLimits().drop_window) {
  if (blocks.empty()) return;
  pages_.Start(blocks.front().offset);
  end_ = blocks.back().offset + blocks.back().size + kBlockTrailerSize;
}

BlockRunPages::~BlockRunPages() { pages_.Done(end_, true); }

}  // namespace bloomcodec::blocktable

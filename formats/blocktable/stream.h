// Streaming a table's data blocks for verify: bounded chunks of keys, ranges of blocks checked on
// every core, and pages of the mapped file given back behind the cursor.
//
//   const StreamLimits limits = CurrentStreamLimits();
//   std::vector<BlockRange> ranges = SplitIntoRanges(block_bytes, limits);
//   ParallelFor(ranges.size(), [&](std::size_t r) { slots[r] = Check(ranges[r]); });
//   // merge slots[0], slots[1], ... in order: the result never depends on the split
//
// The limits have production defaults; tests shrink them (ScopedStreamLimits) to force a chunk
// of a few keys and a range per block, and check the report equals the one of a single range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "blocktable/block_handle.h"
#include "bloomcodec/input_file.h"

namespace bloomcodec::blocktable {

struct StreamLimits {
  // Keys collected before one batch probe (the chunk is reused: no allocation per key).
  std::size_t chunk_keys = 4096;
  // A table is split into ranges of at least this many bytes of data blocks; a smaller table is
  // one range (nothing to share between cores).
  std::uint64_t min_range_bytes = std::uint64_t{4} << 20;
  // At most this many ranges (more only add merge work).
  std::size_t max_ranges = 256;
  // Mapped pages behind a range's cursor are given back each time it advanced this far.
  std::uint64_t drop_window = std::uint64_t{4} << 20;
};

// The limits in force (the defaults unless a test changed them).
StreamLimits CurrentStreamLimits();

// Test-only: replaces the limits for its lifetime. Not thread-safe: set it while no verify runs.
class ScopedStreamLimits {
 public:
  explicit ScopedStreamLimits(const StreamLimits& limits);
  ~ScopedStreamLimits();
  ScopedStreamLimits(const ScopedStreamLimits&) = delete;
  ScopedStreamLimits& operator=(const ScopedStreamLimits&) = delete;

 private:
  StreamLimits saved_;
};

// Blocks [begin, end) of a table's data blocks in index order.
struct BlockRange {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Consecutive ranges covering every block (`block_bytes[i]`: block i's size on disk) with
// roughly equal bytes, each at least limits.min_range_bytes (the last may be smaller than the
// others), at most limits.max_ranges. No blocks: no ranges.
std::vector<BlockRange> SplitIntoRanges(std::span<const std::uint64_t> block_bytes,
                                        const StreamLimits& limits);

// Gives back the pages of `file` a range has finished with, a window at a time. Offsets are the
// blocks' (not necessarily increasing in a damaged table: only a forward cursor drops).
class PageDropper {
 public:
  PageDropper(const InputFile* file, std::uint64_t window) : file_(file), window_(window) {}
  // Everything before `offset` is done with: given back once a window has gathered (`all`: now).
  void Done(std::uint64_t offset, bool all = false);
  void Start(std::uint64_t offset) { from_ = offset; }

 private:
  const InputFile* file_;
  std::uint64_t window_;
  std::uint64_t from_ = 0;
};

// A pass over a run of data blocks in file order (a repair's rewrite) giving the pages behind it
// back as it goes: PageDropper from the run's first block, the rest given back when it ends
// (whether the pass finished or stopped at an error).
class BlockRunPages {
 public:
  BlockRunPages(const InputFile* file, std::span<const BlockHandle> blocks);
  ~BlockRunPages();
  BlockRunPages(const BlockRunPages&) = delete;
  BlockRunPages& operator=(const BlockRunPages&) = delete;
  // The pass has read `block` (one of the run's).
  void Read(const BlockHandle& block) {
    pages_.Done(block.offset + block.size + kBlockTrailerSize);
  }

 private:
  PageDropper pages_;
  std::uint64_t end_ = 0;
};

}  // namespace bloomcodec::blocktable

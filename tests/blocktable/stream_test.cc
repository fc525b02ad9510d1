// blocktable/stream.h: how a table's data blocks are split into ranges, and the pages a range
// gives back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "blocktable/stream.h"
#include "bloomcodec/input_file.h"

namespace bloomcodec::blocktable {
namespace {

// Contiguous, covering every block once, each range but the last at least the minimum (and so at
// most max_ranges of them), and sizes within one block of the even share.
void CheckSplit(const std::vector<std::uint64_t>& sizes, const StreamLimits& limits) {
  const std::vector<BlockRange> ranges = SplitIntoRanges(sizes, limits);
  if (sizes.empty()) {
    EXPECT_TRUE(ranges.empty());
    return;
  }
  ASSERT_FALSE(ranges.empty());
  EXPECT_LE(ranges.size(), std::max<std::size_t>(limits.max_ranges, 1));
  const std::uint64_t total = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
  if (total < 2 * limits.min_range_bytes) {
    EXPECT_EQ(ranges.size(), 1u);
  }
  EXPECT_EQ(ranges.front().begin, 0u);
  EXPECT_EQ(ranges.back().end, sizes.size());
  const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  for (std::size_t r = 0; r < ranges.size(); ++r) {
    EXPECT_LT(ranges[r].begin, ranges[r].end);
    if (r > 0) {
      EXPECT_EQ(ranges[r].begin, ranges[r - 1].end);
    }
    const std::uint64_t bytes = std::accumulate(sizes.begin() + ranges[r].begin,
                                                sizes.begin() + ranges[r].end, std::uint64_t{0});
    if (r + 1 < ranges.size()) {
      EXPECT_GE(bytes, limits.min_range_bytes);
      EXPECT_LT(bytes, total / ranges.size() + largest + 1);
    }
  }
}

TEST(StreamLimitsSplit, RangesCoverEveryBlockInOrderWithRoughlyEqualBytes) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::uint64_t> sizes(rng() % 400);
    for (std::uint64_t& s : sizes) s = 1 + rng() % 9000;
    StreamLimits limits;
    limits.min_range_bytes = 1 + rng() % 50000;
    limits.max_ranges = 1 + rng() % 40;
    CheckSplit(sizes, limits);
  }
  // The defaults: a 4 MiB-block table is one range, a 64 MiB one 16 ranges.
  StreamLimits defaults;
  EXPECT_EQ(SplitIntoRanges(std::vector<std::uint64_t>(1024, 4096), defaults).size(), 1u);
  EXPECT_EQ(SplitIntoRanges(std::vector<std::uint64_t>(16384, 4096), defaults).size(), 16u);
}

TEST(StreamLimitsSplit, ScopedLimitsApplyForTheirLifetimeOnly) {
  const StreamLimits before = CurrentStreamLimits();
  {
    StreamLimits tiny;
    tiny.chunk_keys = 3;
    tiny.min_range_bytes = 1;
    ScopedStreamLimits scoped(tiny);
    EXPECT_EQ(CurrentStreamLimits().chunk_keys, 3u);
    EXPECT_EQ(CurrentStreamLimits().min_range_bytes, 1u);
  }
  EXPECT_EQ(CurrentStreamLimits().chunk_keys, before.chunk_keys);
  EXPECT_EQ(CurrentStreamLimits().min_range_bytes, before.min_range_bytes);
}

// A temporary file of `size` random bytes (seeded), removed with the object; `data` its bytes.
struct RandomFile {
  std::string path;
  std::vector<char> data;
  RandomFile(const std::string& name, std::size_t size, unsigned seed) : data(size) {
    path = (std::filesystem::temp_directory_path() / (name + std::to_string(getpid()))).string();
    std::mt19937 rng(seed);
    for (char& c : data) c = static_cast<char>(rng());
    std::ofstream(path, std::ios::binary)
        .write(data.data(), static_cast<std::streamsize>(data.size()));
  }
  ~RandomFile() { std::filesystem::remove(path); }
};

// Pages given back are mapped again when read: the bytes stay the file's.
TEST(StreamPageDropper, PagesGivenBackReadTheSameBytes) {
  const RandomFile file("bloomcodec-drop-", 3 << 20, 9);
  const std::vector<char>& data = file.data;
  auto in = InputFile::Open(file.path);
  ASSERT_TRUE(in.ok());
  ASSERT_TRUE(in->is_mapped());
  PageDropper dropper(&*in, 1 << 20);
  dropper.Start(100);
  for (std::uint64_t at = 0; at < data.size(); at += 4096) {
    dropper.Done(at);
  }
  dropper.Done(data.size(), true);
  const ByteSpan bytes = in->bytes();
  ASSERT_EQ(bytes.size(), data.size());
  EXPECT_TRUE(
      std::equal(bytes.begin(), bytes.end(), reinterpret_cast<const std::uint8_t*>(data.data())));
}

// The resident kB of the mapping holding `at` in this process (/proc/self/smaps), -1 if none.
long MappingRssKib(const void* at) {
  std::ifstream smaps("/proc/self/smaps");
  const auto address = reinterpret_cast<std::uintptr_t>(at);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= address && address < end;
    } else if (inside && line.starts_with("Rss:")) {
      return std::stol(line.substr(4));
    }
  }
  return -1;
}

// A pass over a run of blocks through BlockRunPages leaves none of the run's pages mapped once it
// ends, also when it stopped halfway (an error), and the bytes read again are the file's.
TEST(StreamBlockRunPages, ARunsPagesAreGivenBackWhenItEnds) {
  const RandomFile file("bloomcodec-run-", 2 << 20, 11);
  const std::vector<char>& data = file.data;
  auto in = InputFile::Open(file.path);
  ASSERT_TRUE(in.ok());
  ASSERT_TRUE(in->is_mapped());
  std::vector<BlockHandle> blocks;  // 64 KiB blocks with their trailers, back to back
  for (std::uint64_t at = 0; at < data.size(); at += 64 << 10) {
    blocks.push_back({at, (64 << 10) - kBlockTrailerSize});
  }
  const ByteSpan bytes = in->bytes();
  for (const std::size_t stop : {blocks.size(), blocks.size() / 2}) {
    const std::uint64_t sum = std::accumulate(bytes.begin(), bytes.end(), std::uint64_t{0});
    EXPECT_GT(sum, 0u);
    EXPECT_GE(MappingRssKib(bytes.data()), 2000) << "every page read";
    {
      BlockRunPages pages(&*in, blocks);
      for (std::size_t b = 0; b < stop; ++b) pages.Read(blocks[b]);
    }
    EXPECT_LE(MappingRssKib(bytes.data()), 64) << "stopped after " << stop << " blocks";
  }
  EXPECT_TRUE(
      std::equal(bytes.begin(), bytes.end(), reinterpret_cast<const std::uint8_t*>(data.data())));
}

}  // namespace
}  // namespace bloomcodec::blocktable

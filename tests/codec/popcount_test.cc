// PopCountBytes (the version the CPU's dispatch picks) and every version of the word loop this
// CPU supports count what a bit-by-bit count counts: every length (whole words and a tail of
// 1 - 7 bytes) and every offset (words read unaligned). The versions the CPU cannot run are
// reported (support/cpu_kernels.h).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <vector>

#include "codec/popcount.h"
#include "support/cpu_kernels.h"
#include "support/rc_rates.h"

namespace bloomcodec {
namespace {

std::uint64_t BitByBit(ByteSpan bytes) {
  std::uint64_t n = 0;
  for (std::uint8_t b : bytes) {
    for (int i = 0; i < 8; ++i) n += (b >> i) & 1u;
  }
  return n;
}

const char* KernelName(PopCountKernel k) {
  return k == PopCountKernel::kPortable ? "portable"
         : k == PopCountKernel::kPopcnt ? "popcnt"
                                        : "icelake";
}

// Every version this CPU supports, reported (once per test) with those it does not.
std::vector<PopCountKernel> KernelsToTest() {
  std::vector<PopCountKernel> out;
  std::vector<testing::KernelRun> runs;
  for (PopCountKernel k : kAllPopCountKernels) {
    const bool supported = PopCountKernelSupported(k);
    if (supported) out.push_back(k);
    runs.push_back({KernelName(k), supported,
                    k == PopCountKernel::kPopcnt ? "the CPU lacks popcnt"
                                                 : "the CPU lacks the Ice Lake server's AVX-512"});
  }
  testing::ReportKernels("popcount", "codec/popcount.h", runs, KernelName(BestPopCountKernel()));
  return out;
}

TEST(PopCountBytes, TheDefaultIsSupportedAndThePortableVersionAlwaysIs) {
  EXPECT_TRUE(PopCountKernelSupported(PopCountKernel::kPortable));
  EXPECT_TRUE(PopCountKernelSupported(BestPopCountKernel()));
  const std::vector<PopCountKernel> walked = KernelsToTest();
  EXPECT_NE(std::find(walked.begin(), walked.end(), BestPopCountKernel()), walked.end());
}

TEST(PopCountBytes, CountsKnownBytes) {
  EXPECT_EQ(PopCountBytes({}), 0u);
  const ByteVector ones(17, 0xff);
  EXPECT_EQ(PopCountBytes(ones), 17u * 8);
  const ByteVector mixed = {0x01, 0x80, 0x0f, 0x00, 0xf0, 0x55, 0xaa, 0x11, 0x03};
  EXPECT_EQ(PopCountBytes(mixed), 1u + 1 + 4 + 0 + 4 + 4 + 4 + 2 + 2);
}

// 0 - 128 bytes, uniform whatever the case size (a whole word or more in 15 cases of 16), at any
// offset of them.
RC_GTEST_PROP(PopCountBytesProperty, EqualsABitByBitCount, ()) {
  const auto v = *rc::gen::container<std::vector<std::uint8_t>>(
      *testing::Uniform<std::size_t>(0, 129), testing::AnyByte());
  const std::size_t offset = v.empty() ? 0 : *testing::Uniform<std::size_t>(0, v.size());
  const ByteSpan bytes = ByteSpan(v).subspan(offset);
  RC_TAG(bytes.size() < 8        ? "under a word"
         : bytes.size() % 8 == 0 ? "whole words"
                                 : "words and a tail");
  const std::uint64_t want = BitByBit(bytes);
  RC_ASSERT(PopCountBytes(bytes) == want);
  for (PopCountKernel k : KernelsToTest()) RC_ASSERT(PopCountBytesWith(k, bytes) == want);
}

}  // namespace
}  // namespace bloomcodec

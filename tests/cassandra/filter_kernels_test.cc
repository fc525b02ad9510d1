// The word filters' batch kernels (filter_kernels.h): every kernel this CPU supports computes
// the same hashes and bit indexes as the scalar reference (CassandraMurmur3, HashKey64,
// BucketIndex, FastMod64::AbsMod), for keys of any length, any mix of lengths and any modulus.
// Each test prints and records which kernels it ran, the production default on this CPU, and
// the kernels it could not run (kernels.h).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "cassandra/fast_mod.h"
#include "cassandra/filter_kernels.h"
#include "generators.h"
#include "kernels.h"

namespace bloomcodec::cassandra {
namespace {

using testing::GenEdgy64;
using testing::Uniform;

// The production default is the fastest kernel the CPU supports: AVX-512 wherever it runs.
TEST(FilterKernels, TheBestKernelIsSupportedAndThePortableOneAlwaysIs) {
  EXPECT_TRUE(FilterKernelSupported(FilterKernel::kPortable));
  EXPECT_TRUE(FilterKernelSupported(BestFilterKernel()));
  EXPECT_EQ(BestFilterKernel(), FilterKernelSupported(FilterKernel::kAvx512)
                                    ? FilterKernel::kAvx512
                                    : FilterKernel::kPortable);
  const std::vector<FilterKernel> walked = KernelsToTest();
  EXPECT_NE(std::find(walked.begin(), walked.end(), BestFilterKernel()), walked.end());
}

// Lengths that exercise the vector paths' cases, for a hash of `block`-byte blocks: one length
// for the whole list (with and without a tail), lengths with the same number of whole blocks but
// different tails, and lengths of any block count (groups the vector kernels hand to the
// portable one).
rc::Gen<std::vector<std::size_t>> GenLengths(std::size_t block) {
  return rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, 41), [block](std::size_t n) {
    return rc::gen::oneOf(
        rc::gen::map(rc::gen::inRange<std::size_t>(0, 5 * block + 1),
                     [n](std::size_t len) { return std::vector<std::size_t>(n, len); }),
        rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, 5),
                        [n, block](std::size_t blocks) {
                          return rc::gen::container<std::vector<std::size_t>>(
                              n, rc::gen::inRange<std::size_t>(block * blocks,
                                                               block * blocks + block));
                        }),
        rc::gen::container<std::vector<std::size_t>>(
            n, rc::gen::inRange<std::size_t>(0, 5 * block + 1)));
  });
}

// Keys of the generated lengths, arbitrary bytes (tails with bytes >= 0x80 included), and where
// each starts.
struct GeneratedKeys {
  std::vector<std::vector<std::uint8_t>> keys;
  std::vector<const std::uint8_t*> p;
  std::vector<std::size_t> len;
};
GeneratedKeys GenKeysOf(std::size_t block) {
  GeneratedKeys g;
  for (std::size_t len : *rc::gen::resize(100, GenLengths(block))) {
    // At full size from the first case: RapidCheck scales values with the case's size, so the
    // early cases would have few bytes >= 0x80 (the sign-extension trap).
    g.keys.push_back(*rc::gen::resize(100, rc::gen::container<std::vector<std::uint8_t>>(
                                               len, rc::gen::arbitrary<std::uint8_t>())));
  }
  for (const auto& k : g.keys) {
    g.p.push_back(k.data());
    g.len.push_back(k.size());
  }
  return g;
}

RC_GTEST_PROP(FilterKernels, CassandraMurmur3KeysIsCassandraMurmur3OfEveryKey, ()) {
  const GeneratedKeys g = GenKeysOf(16);
  RC_CLASSIFY(testing::SomeTailByteIsHigh(g.keys, 16), "a tail byte >= 0x80");
  for (FilterKernel kernel : KernelsToTest()) {
    std::vector<Murmur3Hash> out(g.keys.size(), Murmur3Hash{0, 0});
    CassandraMurmur3Keys(kernel, g.p.data(), g.len.data(), g.keys.size(), out.data());
    for (std::size_t j = 0; j < g.keys.size(); ++j) {
      const Murmur3Hash want = CassandraMurmur3(ByteSpan(g.keys[j]));
      RC_ASSERT(out[j].h0 == want.h0);
      RC_ASSERT(out[j].h1 == want.h1);
    }
  }
}

RC_GTEST_PROP(FilterKernels, MurmurHash64KeysIsHashKey64OfEveryKey, ()) {
  const GeneratedKeys g = GenKeysOf(8);
  RC_CLASSIFY(testing::SomeTailByteIsHigh(g.keys, 8), "a tail byte >= 0x80");
  for (FilterKernel kernel : KernelsToTest()) {
    std::vector<std::uint64_t> h1(g.keys.size(), 0), h2(g.keys.size(), 0);
    MurmurHash64Keys(kernel, g.p.data(), g.len.data(), g.keys.size(), h1.data(), h2.data());
    for (std::size_t j = 0; j < g.keys.size(); ++j) {
      const KeyHashes64 want = HashKey64(ByteSpan(g.keys[j]));
      RC_ASSERT(h1[j] == static_cast<std::uint64_t>(want.h1));
      RC_ASSERT(h2[j] == static_cast<std::uint64_t>(want.h2));
    }
  }
}

RC_GTEST_PROP(FilterKernels, AbsModIndicesAreAbsModOfEveryIndex, ()) {
  // The filters' moduli (64 * W, W an i32 >= 1) and any other.
  const std::uint64_t m =
      *rc::gen::oneOf(rc::gen::map(Uniform<std::uint64_t>(1, std::uint64_t{INT32_MAX} + 1),
                                   [](std::uint64_t w) { return 64 * w; }),
                      Uniform<std::uint64_t>(1, 1u << 12),
                      rc::gen::suchThat(GenEdgy64(), [](std::uint64_t v) { return v != 0; }));
  RC_CLASSIFY(m % 64 == 0 && m / 64 <= std::uint64_t{INT32_MAX}, "a filter's modulus 64 * W");
  const FastMod64 mod(m);
  const std::size_t n = *Uniform<std::size_t>(0, 30);
  const std::uint32_t first = *Uniform<std::uint32_t>(0, 40);
  const std::uint32_t count = *Uniform<std::uint32_t>(0, 33);
  const std::size_t stride = n + *Uniform<std::size_t>(0, 3);
  std::vector<std::uint64_t> h1, h2;
  for (std::size_t j = 0; j < n; ++j) {
    h1.push_back(*GenEdgy64());
    h2.push_back(*GenEdgy64());
  }
  constexpr std::uint64_t kUntouched = 0x5a5a5a5a5a5a5a5aULL;
  for (FilterKernel kernel : KernelsToTest()) {
    std::vector<std::uint64_t> out(count * stride + 1, kUntouched);
    AbsModIndices(kernel, h1.data(), h2.data(), n, first, count, mod, out.data(), stride);
    for (std::uint32_t i = 0; i < count; ++i) {
      for (std::size_t j = 0; j < stride; ++j) {
        const std::uint64_t got = out[i * stride + j];
        if (j >= n) {
          RC_ASSERT(got == kUntouched);  // the gaps between rows are not written
          continue;
        }
        RC_ASSERT(got == mod.AbsMod(h1[j], h2[j], first + i));
        if (m % 64 == 0 && m / 64 <= std::uint64_t{INT32_MAX}) {
          const KeyHashes64 h{static_cast<std::int64_t>(h1[j]), static_cast<std::int64_t>(h2[j])};
          RC_ASSERT(got ==
                    static_cast<std::uint64_t>(BucketIndex(h, static_cast<std::int32_t>(first + i),
                                                           static_cast<std::int64_t>(m))));
        }
      }
    }
    RC_ASSERT(out.back() == kUntouched);
  }
}

}  // namespace
}  // namespace bloomcodec::cassandra

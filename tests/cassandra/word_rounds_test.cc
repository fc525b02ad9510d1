// A round of keys against a word filter's bits (word_rounds.h), with every kernel this CPU
// supports, in filters below and above the size where every access is prefetched: SetRound sets
// exactly the bits a key-at-a-time loop sets, and ProbeRound answers exactly that loop's
// conjunction, also for keys that were never added.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cassandra/fast_mod.h"
#include "cassandra/filter_kernels.h"
#include "cassandra/word_rounds.h"
#include "kernels.h"
#include "support/rc_rates.h"

namespace bloomcodec::cassandra {
namespace {

std::uint32_t ReferenceBit(const std::vector<std::uint8_t>& bits, std::uint64_t swizzle,
                           std::uint64_t b) {
  return (bits[(b >> 3) ^ swizzle] >> (b % 8)) & 1u;
}

using testing::Uniform;

RC_GTEST_PROP(WordRounds, SetAndProbeAreTheKeyAtATimeLoops, ()) {
  // Up to 4096 words (32 KiB), or 131073 - 262144 words (above 1 MiB: every access prefetched),
  // each in 1 case of 2.
  const std::uint64_t words =
      *rc::gen::oneOf(Uniform<std::uint64_t>(1, 4097), Uniform<std::uint64_t>(131073, 262145));
  const std::uint64_t m = 64 * words;
  const std::uint64_t swizzle = *rc::gen::element<std::uint64_t>(0, 7);
  const std::uint32_t k = *Uniform<std::uint32_t>(1, kMaxRoundIndexes + 1);
  const WordShape shape{m / 8, swizzle, FastMod64(m), k};
  const auto gen_hashes = [](std::size_t n) {
    // At full size from the first case (RapidCheck scales arbitrary values with the size).
    return *rc::gen::resize(100, rc::gen::container<std::vector<std::uint64_t>>(
                                     n, rc::gen::arbitrary<std::uint64_t>()));
  };
  const std::size_t n = *Uniform<std::size_t>(0, kRoundKeys + 1);
  const std::vector<std::uint64_t> base = gen_hashes(n), step = gen_hashes(n);
  const std::size_t probes = *Uniform<std::size_t>(0, kRoundKeys + 1);
  const std::vector<std::uint64_t> probe_base = gen_hashes(probes), probe_step = gen_hashes(probes);

  // The bits start empty, or 7 in 8 set (then probes of keys never added pass or fail on their
  // last bits too, also in the large filters).
  std::vector<std::uint8_t> initial(m / 8, 0);
  const bool dense = *rc::gen::arbitrary<bool>();
  RC_TAG(m / 8 > kPrefetchAbove ? "above 1 MiB (prefetched)" : "32 KiB at most",
         dense ? "7 in 8 bits set" : "empty");
  if (dense) {
    std::mt19937_64 random(*rc::gen::arbitrary<std::uint64_t>());
    for (std::uint8_t& byte : initial) {
      byte = static_cast<std::uint8_t>(random() | random() | random());
    }
  }
  std::vector<std::uint8_t> want = initial;
  for (std::size_t j = 0; j < n; ++j) {
    for (std::uint64_t i = 0; i < k; ++i) {
      const std::uint64_t b = shape.mod.AbsMod(base[j], step[j], i);
      want[(b >> 3) ^ swizzle] |= static_cast<std::uint8_t>(1u << (b % 8));
    }
  }
  for (FilterKernel kernel : KernelsToTest()) {  // kernels the CPU lacks are reported
    std::vector<std::uint8_t> bits = initial;
    SetRound(kernel, bits.data(), shape, base.data(), step.data(), n);
    RC_ASSERT(bits == want);

    std::vector<std::uint8_t> answers(n, 2);
    ProbeRound(kernel, bits.data(), shape, base.data(), step.data(), n, answers.data());
    for (std::uint8_t a : answers) RC_ASSERT(a == 1);  // every added key is present

    std::vector<std::uint8_t> probe_answers(probes, 2);
    ProbeRound(kernel, bits.data(), shape, probe_base.data(), probe_step.data(), probes,
               probe_answers.data());
    for (std::size_t j = 0; j < probes; ++j) {
      std::uint32_t all = 1;
      for (std::uint64_t i = 0; i < k; ++i) {
        all &= ReferenceBit(bits, swizzle, shape.mod.AbsMod(probe_base[j], probe_step[j], i));
      }
      RC_ASSERT(probe_answers[j] == all);
    }
  }
}

}  // namespace
}  // namespace bloomcodec::cassandra

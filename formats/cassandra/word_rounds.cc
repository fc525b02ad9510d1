#include "word_rounds.h"

#include <algorithm>
#include <array>

namespace bloomcodec::cassandra {
namespace {

inline std::uint32_t TestBit(const std::uint8_t* bits, std::uint64_t swizzle, std::uint64_t b) {
  return (bits[(b >> 3) ^ swizzle] >> (b & 7)) & 1u;
}

}  // namespace

void ProbeRound(FilterKernel kernel, const std::uint8_t* bits, const WordShape& shape,
                const std::uint64_t* base, const std::uint64_t* step, std::size_t n,
                std::uint8_t* answers) {
  // Every key's first two bits are computed and prefetched, then tested without a branch
  // between them (most absent keys fail there, and an early exit per bit costs a misprediction
  // per key); the remaining bits only for the keys that passed (in a large filter all of them
  // prefetched before the first is tested). The answer is the same conjunction of the same k
  // bits as a key-at-a-time lookup.
  const std::uint64_t swizzle = shape.swizzle;
  const std::uint32_t lead = std::min<std::uint32_t>(shape.k, 2);
  std::array<std::uint64_t, 2 * kRoundKeys> first_two;  // index i < 2 of key j: [i][j]
  AbsModIndices(kernel, base, step, n, 0, lead, shape.mod, first_two.data(), kRoundKeys);
  const std::uint64_t* first = first_two.data();
  const std::uint64_t* second = lead == 2 ? first + kRoundKeys : first;
  for (std::size_t j = 0; j < n; ++j) {
    __builtin_prefetch(bits + ((first[j] >> 3) ^ swizzle));
    __builtin_prefetch(bits + ((second[j] >> 3) ^ swizzle));
  }
  std::array<std::uint8_t, kRoundKeys> survivors;
  std::array<std::uint64_t, kRoundKeys> survivor_base, survivor_step;
  std::size_t surviving = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint8_t answer = static_cast<std::uint8_t>(TestBit(bits, swizzle, first[j]) &
                                                          TestBit(bits, swizzle, second[j]));
    answers[j] = answer;
    survivors[surviving] = static_cast<std::uint8_t>(j);
    survivor_base[surviving] = base[j];
    survivor_step[surviving] = step[j];
    surviving += answer;
  }
  if (shape.k <= 2 || surviving == 0) return;
  const std::uint32_t rest_per_key = shape.k - 2;
  const bool prefetch = shape.bytes > kPrefetchAbove;
  if (!prefetch && kernel == FilterKernel::kPortable) {
    // In a small filter the portable kernel computes a survivor's indexes only until a clear bit.
    for (std::size_t s = 0; s < surviving; ++s) {
      std::uint32_t answer = 1;
      for (std::uint64_t i = 2; i < shape.k && answer != 0; ++i) {
        answer = TestBit(bits, swizzle, shape.mod.AbsMod(survivor_base[s], survivor_step[s], i));
      }
      answers[survivors[s]] = static_cast<std::uint8_t>(answer);
    }
    return;
  }
  // Index 2 + i of survivor s: [i][s].
  std::array<std::uint64_t, kRoundKeys * kMaxRoundIndexes> rest;
  AbsModIndices(kernel, survivor_base.data(), survivor_step.data(), surviving, 2, rest_per_key,
                shape.mod, rest.data(), kRoundKeys);
  if (prefetch) {
    for (std::size_t i = 0; i < rest_per_key; ++i) {
      for (std::size_t s = 0; s < surviving; ++s) {
        __builtin_prefetch(bits + ((rest[i * kRoundKeys + s] >> 3) ^ swizzle));
      }
    }
  }
  for (std::size_t s = 0; s < surviving; ++s) {
    std::uint32_t answer = 1;
    for (std::size_t i = 0; i < rest_per_key && answer != 0; ++i) {
      answer = TestBit(bits, swizzle, rest[i * kRoundKeys + s]);
    }
    answers[survivors[s]] = static_cast<std::uint8_t>(answer);
  }
}

void SetRound(FilterKernel kernel, std::uint8_t* bits, const WordShape& shape,
              const std::uint64_t* base, const std::uint64_t* step, std::size_t n) {
  // Every index of the round is computed first; in a large filter each byte is then prefetched
  // (for writing) before the first bit is set, so that the read-modify-writes overlap. Setting
  // bits commutes: the bytes are those of adding the keys one by one.
  const std::uint64_t swizzle = shape.swizzle;
  std::array<std::uint64_t, kRoundKeys * kMaxRoundIndexes> indexes;  // index i of key j: [i][j]
  AbsModIndices(kernel, base, step, n, 0, shape.k, shape.mod, indexes.data(), kRoundKeys);
  const auto set = [&](std::uint64_t b) {
    bits[(b >> 3) ^ swizzle] |= static_cast<std::uint8_t>(1u << (b & 7));
  };
  if (shape.bytes <= kPrefetchAbove) {
    for (std::size_t i = 0; i < shape.k; ++i) {
      for (std::size_t j = 0; j < n; ++j) set(indexes[i * kRoundKeys + j]);
    }
    return;
  }
  for (std::size_t i = 0; i < shape.k; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      __builtin_prefetch(bits + ((indexes[i * kRoundKeys + j] >> 3) ^ swizzle), 1);
    }
  }
  for (std::size_t i = 0; i < shape.k; ++i) {
    for (std::size_t j = 0; j < n; ++j) set(indexes[i * kRoundKeys + j]);
  }
}

}  // namespace bloomcodec::cassandra

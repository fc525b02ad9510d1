// Seed-driven key generation for the properties whose inputs are too large to generate element
// by element with RapidCheck (thousands of keys per case): RapidCheck picks the seed and the
// shape, this expands it. Keys cover what matters to the hash: empty keys, every length mod 4,
// bytes >= 0x80 anywhere (also in the tail), and duplicates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bloomcodec::testing {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t Below(std::uint64_t n) { return n == 0 ? 0 : Next() % n; }

 private:
  std::uint64_t state_;
};

inline std::string RandomKey(SplitMix64& rng) {
  const std::size_t length = rng.Below(4) == 0 ? rng.Below(4) : rng.Below(65);
  std::string key(length, '\0');
  const bool high_bytes = rng.Below(2) == 0;
  for (char& c : key) {
    const std::uint64_t v = rng.Next();
    c = static_cast<char>(high_bytes ? v : (v & 0x7f));
  }
  return key;
}

// `count` keys; about one in `duplicate_every` repeats an earlier key.
inline std::vector<std::string> RandomKeys(std::uint64_t seed, std::size_t count,
                                           std::uint64_t duplicate_every = 8) {
  SplitMix64 rng(seed);
  std::vector<std::string> keys;
  keys.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!keys.empty() && rng.Below(duplicate_every) == 0) {
      keys.push_back(keys[rng.Below(keys.size())]);
    } else {
      keys.push_back(RandomKey(rng));
    }
  }
  return keys;
}

}  // namespace bloomcodec::testing

#include "bloomcodec/leveldb/bloom.h"

#include <algorithm>
#include <array>

#include "bloomcodec/bit_view.h"

namespace bloomcodec::leveldb {

namespace {

// Probe positions start at h and step by h rotated right by 17 (the original's double hashing).
inline std::uint32_t Delta(std::uint32_t h) { return (h >> 17) | (h << 15); }

// Whether a reader probes the filter at all, or answers every key the same way.
enum class FilterShape { kProbe, kAlwaysFalse, kAlwaysTrue };

inline FilterShape ShapeOf(ByteSpan filter) {
  // Trap: a filter of 0 or 1 bytes answers "absent" for every key, not "may match".
  if (filter.size() < 2) return FilterShape::kAlwaysFalse;
  // Trap: the original reads k through a (signed on x86) char converted to size_t, so 0x80..0xff
  // become huge and land in the same "k > 30: reserved encoding, may match" branch as 31..127.
  if (filter.back() > kMaxProbes) return FilterShape::kAlwaysTrue;
  return FilterShape::kProbe;
}

inline bool ProbeAll(std::uint32_t h, const std::uint8_t* array, std::uint64_t bits, int k) {
  // Trap: k = 0 makes no probe and answers true. The modulus is size_t in the original; h is
  // 32-bit, so a 64-bit modulus keeps its arithmetic exactly.
  const std::uint32_t delta = Delta(h);
  for (int j = 0; j < k; ++j) {
    const std::uint64_t pos = h % bits;
    if ((array[pos >> 3] & (1u << (pos & 7))) == 0) return false;
    h += delta;
  }
  return true;
}

// Appends the zeroed bit array and k byte for `num_keys` keys; returns where the array starts.
std::size_t AppendEmptyFilter(const BloomGeometry& g, ByteVector& dst) {
  const std::size_t start = dst.size();
  dst.resize(start + static_cast<std::size_t>(g.filter_bytes - 1), 0);
  dst.push_back(static_cast<std::uint8_t>(g.probes));
  return start;
}

inline void SetProbes(std::uint32_t h, std::uint8_t* array, std::uint64_t bits, int k) {
  const std::uint32_t delta = Delta(h);
  for (int j = 0; j < k; ++j) {
    const std::uint64_t pos = h % bits;
    array[pos >> 3] |= static_cast<std::uint8_t>(1u << (pos & 7));
    h += delta;
  }
}

template <typename HashAt>
void AppendWithHashes(const BloomPolicy& policy, std::size_t n, HashAt hash_at, ByteVector& dst) {
  const BloomGeometry g = GeometryFor(policy, n);
  const std::size_t start = AppendEmptyFilter(g, dst);
  std::uint8_t* array = dst.data() + start;
  for (std::size_t i = 0; i < n; ++i) SetProbes(hash_at(i), array, g.bits, g.probes);
}

}  // namespace

BloomPolicy BloomPolicy::Current(int bits_per_key) {
  return {bits_per_key, HashFlavor::kUnsignedTail};
}

BloomPolicy BloomPolicy::Legacy117(int bits_per_key) {
  return {bits_per_key, HashFlavor::kSignedTail};
}

std::string_view BloomPolicy::name() const {
  return flavor == HashFlavor::kSignedTail ? kLegacyPolicyName : kCurrentPolicyName;
}

int BloomPolicy::probes() const {
  // The original truncates bits_per_key * 0.69 (ln 2 rounded down) computed in double. For every
  // int up to the clamp this equals floor(69 * b / 100), but the double product is what it is.
  const int b = std::max(bits_per_key, 0);
  const int k = static_cast<int>(static_cast<double>(b) * 0.69);
  return std::clamp(k, 1, kMaxProbes);
}

BloomGeometry GeometryFor(const BloomPolicy& policy, std::uint64_t num_keys) {
  BloomGeometry g;
  // The minimum of 64 bits applies to writing only; the count is then rounded UP to whole bytes.
  const std::uint64_t raw = num_keys * static_cast<std::uint64_t>(std::max(policy.bits_per_key, 0));
  const std::uint64_t bytes = (std::max<std::uint64_t>(raw, 64) + 7) / 8;
  g.bits = bytes * 8;
  g.filter_bytes = bytes + 1;
  g.probes = policy.probes();
  return g;
}

void AppendBloomFilter(const BloomPolicy& policy, const KeyList& keys, ByteVector& dst) {
  AppendWithHashes(
      policy, keys.size(), [&](std::size_t i) { return BloomHash(keys[i], policy.flavor); }, dst);
}

void AppendBloomFilter(const BloomPolicy& policy, std::span<const ByteSpan> keys, ByteVector& dst) {
  AppendWithHashes(
      policy, keys.size(), [&](std::size_t i) { return BloomHash(keys[i], policy.flavor); }, dst);
}

void AppendBloomFilterFromHashes(const BloomPolicy& policy, std::span<const std::uint32_t> hashes,
                                 ByteVector& dst) {
  AppendWithHashes(policy, hashes.size(), [&](std::size_t i) { return hashes[i]; }, dst);
}

bool BloomHashMayMatch(std::uint32_t hash, ByteSpan filter) {
  switch (ShapeOf(filter)) {
    case FilterShape::kAlwaysFalse:
      return false;
    case FilterShape::kAlwaysTrue:
      return true;
    case FilterShape::kProbe:
      break;
  }
  // Any length >= 2 is accepted on read: the modulus is whatever the stored array holds.
  const std::uint64_t bits = std::uint64_t{filter.size() - 1} * 8;
  return ProbeAll(hash, filter.data(), bits, filter.back());
}

bool BloomKeyMayMatch(HashFlavor flavor, ByteSpan key, ByteSpan filter) {
  const FilterShape shape = ShapeOf(filter);
  if (shape != FilterShape::kProbe) return shape == FilterShape::kAlwaysTrue;
  return BloomHashMayMatch(BloomHash(key, flavor), filter);
}

void BloomKeyMayMatchBatch(HashFlavor flavor, const KeyList& keys, ByteSpan filter,
                           std::span<std::uint8_t> answers) {
  const std::size_t n = std::min(keys.size(), answers.size());
  const FilterShape shape = ShapeOf(filter);
  if (shape != FilterShape::kProbe) {
    std::fill_n(answers.begin(), n, shape == FilterShape::kAlwaysTrue ? 1 : 0);
    return;
  }
  const std::uint8_t* array = filter.data();
  const std::uint64_t bits = std::uint64_t{filter.size() - 1} * 8;
  const int k = filter.back();
  // Hash a chunk first and prefetch each key's first probe, so that the cache misses of a large
  // filter overlap instead of being paid one after another.
  constexpr std::size_t kChunk = 32;
  std::array<std::uint32_t, kChunk> hashes;
  for (std::size_t base = 0; base < n; base += kChunk) {
    const std::size_t m = std::min(kChunk, n - base);
    for (std::size_t i = 0; i < m; ++i) {
      hashes[i] = BloomHash(keys[base + i], flavor);
      __builtin_prefetch(array + ((hashes[i] % bits) >> 3));
    }
    for (std::size_t i = 0; i < m; ++i) {
      answers[base + i] = ProbeAll(hashes[i], array, bits, k) ? 1 : 0;
    }
  }
}

std::uint32_t BloomFilterView::hash_count() const {
  return filter_.size() < 2 ? 0 : filter_.back();
}

std::uint64_t BloomFilterView::bit_count() const {
  return filter_.size() < 2 ? 0 : std::uint64_t{filter_.size() - 1} * 8;
}

std::uint64_t BloomFilterView::bits_set() const {
  if (filter_.size() < 2) return 0;
  return BitView<BitOrder::kLsbFirstBytes>(filter_.first(filter_.size() - 1)).PopCount();
}

}  // namespace bloomcodec::leveldb

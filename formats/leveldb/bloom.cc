// LevelDB's bloom filter policy (bloom.h): its sizing, the filter's layout, building filters and
// probing them, one key or a batch. The kernels the paths share (hashing a chunk of keys,
// probe positions, probes) are in filter_kernels.h.
#include "bloomcodec/leveldb/bloom.h"

#include <algorithm>
#include <array>

#include "bloomcodec/bit_view.h"
#include "filter_kernels.h"

namespace bloomcodec::leveldb {

namespace {

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

// FastMod32 of the filter this thread probed last. Single-key lookups usually ask one filter for
// key after key (a table's filter block, a benchmark's filter); they then pay no division at all,
// where the original divides once per probe. Another filter size costs the one division.
struct LastModulus {
  std::uint64_t bits = 0;
  std::uint64_t multiplier = 0;
};
thread_local LastModulus t_last_modulus;

inline FastMod32 ModFor(std::uint64_t bits) {
  LastModulus& last = t_last_modulus;
  if (last.bits != bits) [[unlikely]] {
    last.multiplier = FastMod32::MultiplierFor(bits);
    last.bits = bits;
  }
  return FastMod32(bits, last.multiplier);
}

// Appends the zeroed bit array and k byte for `num_keys` keys; returns where the array starts.
// A goleveldb geometry that panics in Go (bits = 0) gets its k byte only: nothing to probe.
std::size_t AppendEmptyFilter(const BloomGeometry& g, ByteVector& dst) {
  const std::size_t start = dst.size();
  // Reserved whole first: a resize to the bit array and then a push_back of k would reallocate
  // and copy the array at twice its size. The growth stays geometric: a filter block appends
  // one filter per 2 KiB of data, and an exact reserve each time copied the block once per
  // filter (quadratic in the table's size).
  const std::size_t need = start + static_cast<std::size_t>(g.filter_bytes);
  if (need > dst.capacity()) dst.reserve(std::max(need, 2 * dst.capacity()));
  dst.resize(start + static_cast<std::size_t>(g.filter_bytes - 1), 0);
  dst.push_back(static_cast<std::uint8_t>(g.probes));
  return start;
}

// Above this filter size (about the L2 cache) a batch prefetches every probe of a key that
// passed its first two, not only those two.
constexpr std::size_t kPrefetchAllAbove = 1024 * 1024;
// Up to this filter size (well inside L2) a batch prefetches nothing: the probes hit the cache
// and the staging of positions would cost more than it hides.
constexpr std::size_t kNoPrefetchUpTo = 256 * 1024;
// How many keys ahead the batch query prefetches the keys' bytes (beyond the in-cache size).
constexpr std::size_t kKeysAhead = 4 * kChunk;

// Sets the bits of keys [0, n) in `array`, a filter of geometry g (g.bits > 0).
template <typename KeyAt>
void SetKeyBits(HashFlavor flavor, const BloomGeometry& g, std::uint8_t* array, std::size_t n,
                KeyAt key_at) {
  std::array<std::uint32_t, kChunk> hashes;
  // Every bit position of a chunk is computed and prefetched before the first one is set, so the
  // read-modify-writes of a filter larger than the caches overlap. OR-ing bits commutes: the
  // bytes are those of setting them key after key, as the original does.
  std::array<std::uint64_t, kChunk * kMaxProbes> positions;
  const int k = g.probes;
  const LaneKernel kernel = BestLaneKernel();
  const auto build = [&](const auto& mod) {
    for (std::size_t base = 0; base < n; base += kChunk) {
      const std::size_t m = std::min(kChunk, n - base);
      HashChunk(
          kernel, flavor, [&](std::size_t i) { return key_at(base + i); }, m, hashes.data());
      std::size_t count = 0;
      for (std::size_t i = 0; i < m; ++i) {
        std::uint32_t h = hashes[i];
        const std::uint32_t delta = Delta(h);
        for (int j = 0; j < k; ++j) {
          const std::uint64_t pos = mod(h);
          __builtin_prefetch(array + (pos >> 3), 1);
          positions[count++] = pos;
          h += delta;
        }
      }
      for (std::size_t i = 0; i < count; ++i) {
        array[positions[i] >> 3] |= static_cast<std::uint8_t>(1u << (positions[i] & 7));
      }
    }
  };
  if (FitsFastMod(g.bits)) {
    build(FastMod32(g.bits));
  } else {
    build(PlainMod(g.bits));
  }
}

template <typename KeyAt>
void AppendWithKeys(const BloomPolicy& policy, std::size_t n, KeyAt key_at, ByteVector& dst) {
  const BloomGeometry g = GeometryFor(policy, n);
  const std::size_t start = AppendEmptyFilter(g, dst);
  if (g.bits > 0) SetKeyBits(policy.flavor, g, dst.data() + start, n, key_at);
}

template <typename HashAt>
void AppendWithHashes(const BloomPolicy& policy, std::size_t n, HashAt hash_at, ByteVector& dst) {
  const BloomGeometry g = GeometryFor(policy, n);
  const std::size_t start = AppendEmptyFilter(g, dst);
  if (g.bits == 0) return;
  std::uint8_t* array = dst.data() + start;
  const auto build = [&](const auto& mod) {
    for (std::size_t i = 0; i < n; ++i) SetProbes(hash_at(i), array, mod, g.probes);
  };
  if (FitsFastMod(g.bits)) {
    build(FastMod32(g.bits));
  } else {
    build(PlainMod(g.bits));
  }
}

}  // namespace

BloomPolicy BloomPolicy::Current(int bits_per_key) {
  return {bits_per_key, HashFlavor::kUnsignedTail};
}

BloomPolicy BloomPolicy::Legacy117(int bits_per_key) {
  return {bits_per_key, HashFlavor::kSignedTail};
}

BloomPolicy BloomPolicy::GoLevelDb(int bits_per_key) {
  return {bits_per_key, HashFlavor::kUnsignedTail, true};
}

std::string_view BloomPolicy::name() const {
  if (goleveldb_name) return kLegacyPolicyName;
  return flavor == HashFlavor::kSignedTail ? kLegacyPolicyName : kCurrentPolicyName;
}

int BloomPolicy::probes() const {
  // The original truncates bits_per_key * 0.69 (ln 2 rounded down) computed in double. For every
  // int up to the clamp this equals floor(69 * b / 100), but the double product is what it is.
  const int b = std::max(bits_per_key, 0);
  if (goleveldb_name) {
    // Trap: goleveldb computes k in integers and converts it to uint8, so it wraps at 256:
    // b = 372 gives 256 -> 0 -> k = 1, b = 380 gives k = 6.
    const auto wrapped = static_cast<std::uint8_t>(std::int64_t{b} * 69 / 100);
    return std::clamp(static_cast<int>(wrapped), 1, kMaxProbes);
  }
  const int k = static_cast<int>(static_cast<double>(b) * 0.69);
  return std::clamp(k, 1, kMaxProbes);
}

BloomGeometry GeometryFor(const BloomPolicy& policy, std::uint64_t num_keys) {
  BloomGeometry g;
  g.probes = policy.probes();
  if (policy.goleveldb_name) {
    // goleveldb: nBits := uint32(len(keys) * n), raised to 64, nBytes := (nBits + 7) / 8 in uint32.
    const auto raw = static_cast<std::uint32_t>(
        num_keys * static_cast<std::uint64_t>(std::max(policy.bits_per_key, 0)));
    const std::uint32_t bits = std::max<std::uint32_t>(raw, 64);
    const std::uint32_t bytes = (bits + 7) / 8;  // wraps to 0 for bits >= 2^32 - 7
    g.bits = std::uint64_t{bytes} * 8;
    g.filter_bytes = std::uint64_t{bytes} + 1;
    g.go_panics = bytes == 0;
    return g;
  }
  // The minimum of 64 bits applies to writing only; the count is then rounded UP to whole bytes.
  const std::uint64_t raw = num_keys * static_cast<std::uint64_t>(std::max(policy.bits_per_key, 0));
  const std::uint64_t bytes = (std::max<std::uint64_t>(raw, 64) + 7) / 8;
  g.bits = bytes * 8;
  g.filter_bytes = bytes + 1;
  return g;
}

void AppendBloomFilter(const BloomPolicy& policy, const KeyList& keys, ByteVector& dst) {
  AppendWithKeys(
      policy, keys.size(), [&](std::size_t i) { return keys[i]; }, dst);
}

void AppendBloomFilter(const BloomPolicy& policy, std::span<const ByteSpan> keys, ByteVector& dst) {
  AppendWithKeys(
      policy, keys.size(), [&](std::size_t i) { return keys[i]; }, dst);
}

void AppendBloomFilterFromHashes(const BloomPolicy& policy, std::span<const std::uint32_t> hashes,
                                 ByteVector& dst) {
  AppendWithHashes(
      policy, hashes.size(), [&](std::size_t i) { return hashes[i]; }, dst);
}

BloomFilterWriter::BloomFilterWriter(const BloomPolicy& policy, std::uint64_t num_keys)
    : flavor_(policy.flavor), geometry_(GeometryFor(policy, num_keys)) {
  AppendEmptyFilter(geometry_, bytes_);
}

void BloomFilterWriter::Add(std::span<const ByteSpan> keys) {
  if (geometry_.bits == 0) return;
  SetKeyBits(flavor_, geometry_, bytes_.data(), keys.size(),
             [&](std::size_t i) { return keys[i]; });
}

bool BloomHashMayMatch(std::uint32_t hash, ByteSpan filter) {
  switch (ShapeOf(filter)) {
    case FilterShape::kAlwaysFalse: return false;
    case FilterShape::kAlwaysTrue: return true;
    case FilterShape::kProbe: break;
  }
  // Any length >= 2 is accepted on read: the modulus is whatever the stored array holds.
  const std::uint64_t bits = std::uint64_t{filter.size() - 1} * 8;
  const std::uint32_t delta = Delta(hash);
  if (FitsFastMod(bits)) return ProbeAll(hash, delta, filter.data(), ModFor(bits), filter.back());
  return ProbeAll(hash, delta, filter.data(), PlainMod(bits), filter.back());
}

bool BloomKeyMayMatch(HashFlavor flavor, ByteSpan key, ByteSpan filter) {
  const FilterShape shape = ShapeOf(filter);
  if (shape != FilterShape::kProbe) return shape == FilterShape::kAlwaysTrue;
  const std::uint64_t bits = std::uint64_t{filter.size() - 1} * 8;
  const std::uint32_t hash = InlineBloomHash(key, flavor);
  const std::uint32_t delta = Delta(hash);
  if (FitsFastMod(bits)) return ProbeAll(hash, delta, filter.data(), ModFor(bits), filter.back());
  return ProbeAll(hash, delta, filter.data(), PlainMod(bits), filter.back());
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
  // Rounds over a chunk of keys, each round's memory accesses prefetched before they are made:
  // 1. hash the chunk (kLanes keys interleaved); compute and prefetch every key's first two
  //    probe positions;
  // 2. test those two without a branch between them: most absent keys fail here, and an early
  //    exit after every probe would cost a misprediction per key;
  // 3. for the survivors (stored keys, false positives) of a filter larger than the L2 cache,
  //    compute and prefetch all remaining positions, then test them with the early exit.
  // The answer is the same conjunction of the same k bits the original tests.
  std::array<std::uint32_t, kChunk> hashes;
  std::array<std::uint64_t, kChunk> first, second;
  std::array<std::uint8_t, kChunk> survivors;
  std::array<std::uint32_t, kChunk * kMaxProbes> rest;  // h % bits < 2^32 for a 32-bit h
  const bool prefetch_rest = filter.size() > kPrefetchAllAbove;
  const bool in_cache = filter.size() <= kNoPrefetchUpTo;
  const bool prefetch_keys = !in_cache;
  const LaneKernel kernel = BestLaneKernel();
  const auto bit = [array](std::uint64_t pos) { return (array[pos >> 3] >> (pos & 7)) & 1u; };
  const auto probe = [&](const auto& mod) {
    for (std::size_t base = 0; base < n; base += kChunk) {
      const std::size_t m = std::min(kChunk, n - base);
      // The key bytes of a later chunk are fetched now: with the filter's lines prefetched in
      // bursts, the hardware's stream prefetcher alone no longer keeps the keys in cache.
      if (prefetch_keys) {
        // A KeyList holds its keys back to back: one prefetch per cache line of the chunk's
        // bytes, not one per key.
        const std::size_t ahead_begin = base + kKeysAhead;
        const std::size_t ahead_end = std::min(n, ahead_begin + kChunk);
        if (ahead_begin < ahead_end) {
          const std::uint8_t* const from = keys[ahead_begin].data();
          const ByteSpan last = keys[ahead_end - 1];
          const std::size_t bytes = static_cast<std::size_t>(last.data() + last.size() - from);
          for (std::size_t off = 0; off < bytes; off += 64) __builtin_prefetch(from + off);
        }
      }
      HashChunk(
          kernel, flavor, [&](std::size_t i) { return keys[base + i]; }, m, hashes.data());
      if (in_cache && k >= 2) {
        // A filter in L1/L2: no prefetch stage and no staging arrays; each key's first two
        // probes are tested without a branch between them, the rest only for the survivors.
        for (std::size_t i = 0; i < m; ++i) {
          const std::uint32_t h = hashes[i];
          const std::uint32_t delta = Delta(h);
          std::uint32_t answer = bit(mod(h)) & bit(mod(h + delta));
          if (answer != 0 && k > 2) answer = ProbeAll(h + 2 * delta, delta, array, mod, k - 2);
          answers[base + i] = static_cast<std::uint8_t>(answer);
        }
        continue;
      }
      for (std::size_t i = 0; i < m; ++i) {
        first[i] = mod(hashes[i]);
        second[i] = mod(hashes[i] + Delta(hashes[i]));
        __builtin_prefetch(array + (first[i] >> 3));
        __builtin_prefetch(array + (second[i] >> 3));
      }
      if (k < 2) {
        // Trap: k = 0 probes nothing and answers "may match".
        for (std::size_t i = 0; i < m; ++i) {
          answers[base + i] = k == 0 ? 1 : static_cast<std::uint8_t>(bit(first[i]));
        }
        continue;
      }
      std::size_t surviving = 0;
      for (std::size_t i = 0; i < m; ++i) {
        const std::uint8_t answer = static_cast<std::uint8_t>(bit(first[i]) & bit(second[i]));
        answers[base + i] = answer;
        survivors[surviving] = static_cast<std::uint8_t>(i);
        surviving += answer;
      }
      if (k == 2) continue;
      if (!prefetch_rest) {
        for (std::size_t s = 0; s < surviving; ++s) {
          const std::size_t i = survivors[s];
          const std::uint32_t delta = Delta(hashes[i]);
          answers[base + i] = ProbeAll(hashes[i] + 2 * delta, delta, array, mod, k - 2) ? 1 : 0;
        }
        continue;
      }
      const std::size_t per_key = static_cast<std::size_t>(k - 2);
      for (std::size_t s = 0; s < surviving; ++s) {
        const std::uint32_t delta = Delta(hashes[survivors[s]]);
        std::uint32_t h = hashes[survivors[s]] + 2 * delta;
        for (std::size_t j = 0; j < per_key; ++j) {
          const auto pos = static_cast<std::uint32_t>(mod(h));
          __builtin_prefetch(array + (pos >> 3));
          rest[s * per_key + j] = pos;
          h += delta;
        }
      }
      // Every position is computed and prefetched already: the bits are ANDed without an early
      // exit, whose branch would only save loads.
      for (std::size_t s = 0; s < surviving; ++s) {
        std::uint32_t answer = 1;
        for (std::size_t j = 0; j < per_key; ++j) answer &= bit(rest[s * per_key + j]);
        answers[base + survivors[s]] = static_cast<std::uint8_t>(answer);
      }
    }
  };
  if (FitsFastMod(bits)) {
    probe(FastMod32(bits));
  } else {
    probe(PlainMod(bits));
  }
}

std::optional<bool> GoLevelDbKeyMayMatch(ByteSpan key, ByteSpan filter) {
  if (GoLevelDbModulusIsLevelDbs(filter)) {
    return BloomKeyMayMatch(HashFlavor::kUnsignedTail, key, filter);
  }
  // Over 512 MiB: nBits := uint32(nBytes * 8) keeps the low 32 bits of the bit count.
  const auto bits = static_cast<std::uint32_t>(std::uint64_t{filter.size() - 1} * 8);
  const int k = filter.back();
  // k is read before the first modulus: k > 30 or k = 0 answers without dividing.
  if (k > kMaxProbes || k == 0) return true;
  if (bits == 0) return std::nullopt;
  std::uint32_t h = BloomHash(key, HashFlavor::kUnsignedTail);
  return ProbeAll(h, Delta(h), filter.data(), PlainMod(bits), k);
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

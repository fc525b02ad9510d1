// Pebble's Bloom filter (sstable/tablefilters/bloom/: bloom.go, bits.go, adaptive_policy.go,
// hash_collector.go): its sizing and probe counts, over the cache-local Bloom lines it shares
// with RocksDB's legacy full filter (formats/rocksdb/legacy_bloom.h).
#include "pebble/bloom.h"

#include <algorithm>
#include <string>

#include "codec/popcount.h"
#include "rocksdb/legacy_bloom.h"

namespace bloomcodec::pebble {

namespace {

constexpr std::uint64_t kLineBits = 512;
constexpr std::uint64_t kLineBytes = 64;
// Filters up to this size are batch-probed without the prefetch stage (they stay in L2).
constexpr std::size_t kBloomNoPrefetchBytes = 256 * 1024;

// Pebble's `probes` table (352fbf1f5): the best probe count its simulations found for 1..10 bits
// per key; 10's is used above. Index 0 is never read (bits per key >= 1).
constexpr std::uint32_t kTableProbes[11] = {0, 1, 1, 2, 3, 3, 4, 4, 5, 5, 6};

std::uint32_t Load32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

}  // namespace

std::uint32_t BloomKeyHash(ByteSpan key, HashFlavor flavor) {
  return leveldb::BloomHash(key, flavor);
}

std::uint32_t BloomProbeCount(std::uint32_t bits_per_key, BloomProbes probes) {
  if (probes == BloomProbes::kTable) return kTableProbes[std::min<std::uint32_t>(bits_per_key, 10)];
  // uint32(float64(bitsPerKey) * 0.69), then clamped: RocksDB's legacy rule too.
  const auto n = static_cast<std::uint64_t>(static_cast<double>(bits_per_key) * 0.69);
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(n, 1, 30));
}

std::uint64_t BloomLines(std::uint64_t num_hashes, std::uint32_t bits_per_key) {
  // Pebble's products are uint64 and wrap the same way (only for absurd counts).
  return ((num_hashes * bits_per_key + kLineBits - 1) / kLineBits) | 1;
}

std::uint64_t BloomFilterBytes(std::uint64_t num_hashes, std::uint32_t bits_per_key) {
  if (num_hashes == 0 || bits_per_key == 0) return 0;
  // calculateNumLines returns a uint32: the line count is truncated before it is multiplied.
  const auto lines = static_cast<std::uint32_t>(BloomLines(num_hashes, bits_per_key));
  return std::uint64_t{lines} * kLineBytes + kBloomTrailerBytes;
}

std::uint32_t BloomMaxBitsPerKey(std::uint64_t num_hashes, std::uint64_t max_filter_bytes) {
  if (num_hashes == 0 || max_filter_bytes <= kBloomTrailerBytes) return 0;
  std::uint64_t max_lines = (max_filter_bytes - kBloomTrailerBytes) / kLineBytes;
  if (max_lines == 0) return 0;
  if (max_lines % 2 == 0) --max_lines;  // line counts are odd
  return static_cast<std::uint32_t>(std::min(kLineBits, max_lines * kLineBits / num_hashes));
}

Result<BloomPlan> PlanBloom(const BloomPolicy& policy, std::uint64_t num_hashes) {
  if (policy.bits_per_key == 0) {
    return Status::InvalidArgument(
        "Pebble's Bloom policy needs at least 1 bit per key (bloom.FilterPolicy panics below)");
  }
  BloomPlan plan;
  if (num_hashes == 0) {
    plan.no_filter_reason = "no keys: Pebble writes no filter";
    return plan;
  }
  std::uint32_t bits = policy.bits_per_key;
  if (policy.max_filter_bytes != 0 &&
      BloomFilterBytes(num_hashes, bits) > policy.max_filter_bytes) {
    bits = BloomMaxBitsPerKey(num_hashes, policy.max_filter_bytes);
    if (bits < 2) {
      plan.no_filter_reason =
          "the adaptive policy's size limit leaves fewer than 2 bits per key: Pebble writes no "
          "filter";
      return plan;
    }
  }
  const std::uint64_t lines = BloomLines(num_hashes, bits);
  if (lines >= (std::uint64_t{1} << 32) / kLineBytes) {
    return Status::Refused("a Pebble Bloom filter of " + std::to_string(lines) +
                           " lines is 4 GiB or more: Pebble's reader takes its length as a "
                           "32-bit number (and its writer's byte count wraps)");
  }
  plan.writes_filter = true;
  plan.bits_per_key = bits;
  plan.num_lines = static_cast<std::uint32_t>(lines);
  plan.num_probes = BloomProbeCount(bits, policy.probes);
  plan.filter_bytes = lines * kLineBytes + kBloomTrailerBytes;
  return plan;
}

void AppendBloomHashes(std::span<const ByteSpan> keys, HashFlavor flavor,
                       std::vector<std::uint64_t>& hashes) {
  for (const ByteSpan& key : keys) {
    const std::uint64_t h = BloomKeyHash(key, flavor);
    if (hashes.empty() || hashes.back() != h) hashes.push_back(h);
  }
}

std::vector<std::uint64_t> CollapsedBloomHashes(const KeyList& keys, HashFlavor flavor) {
  std::vector<std::uint64_t> hashes;
  hashes.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::uint64_t h = BloomKeyHash(keys[i], flavor);
    if (hashes.empty() || hashes.back() != h) hashes.push_back(h);
  }
  return hashes;
}

Result<std::optional<ByteVector>> BuildBloomFromHashes(const BloomPolicy& policy,
                                                       std::span<const std::uint64_t> hashes) {
  BLOOMCODEC_ASSIGN_OR_RETURN(BloomPlan plan, PlanBloom(policy, hashes.size()));
  if (!plan.writes_filter) return std::optional<ByteVector>();
  return std::optional<ByteVector>(
      rocksdb::BuildLegacyBloom(plan.num_lines, plan.num_probes, hashes));
}

Result<std::optional<ByteVector>> BuildBloom(const BloomPolicy& policy, const KeyList& keys) {
  return BuildBloomFromHashes(policy, CollapsedBloomHashes(keys, policy.flavor));
}

// ----- Reading -----

Result<BloomReader> BloomReader::Parse(ByteSpan bytes, std::string_view source, HashFlavor flavor) {
  BloomReader r;
  r.bytes_ = bytes;
  r.flavor_ = flavor;
  if (bytes.size() <= kBloomTrailerBytes) return r;  // absent for every key
  const std::size_t n = bytes.size() - kBloomTrailerBytes;
  const std::uint32_t lines = Load32(bytes.data() + n + 1);
  if (lines == 0) {
    return Status::Corrupt(std::string(source), n + 1,
                           "a line count of at least 1 (Pebble's reader divides the " +
                               std::to_string(n) + "-byte payload by it)",
                           "0");
  }
  // Trap: Pebble computes the line size in uint32 (the payload length truncated, the product
  // wrapping) and asserts 512 bits; it reads lines * 64 bytes, whatever follows them.
  const auto payload32 = static_cast<std::uint32_t>(n);
  if (static_cast<std::uint32_t>(8U * (payload32 / lines)) != kLineBits) {
    return Status::Corrupt(std::string(source), n + 1,
                           "a line count giving 64-byte lines for the " + std::to_string(n) +
                               "-byte payload (Pebble's reader panics on any other line size)",
                           std::to_string(lines) + " lines of " +
                               std::to_string(payload32 / lines) + " bytes");
  }
  r.num_probes_ = bytes[n];
  r.num_lines_ = lines;
  return r;
}

std::uint64_t BloomReader::unused_tail_bytes() const {
  if (empty()) return 0;
  return bytes_.size() - kBloomTrailerBytes - std::uint64_t{num_lines_} * kLineBytes;
}

bool BloomReader::HashMayMatch(std::uint32_t hash) const {
  if (num_lines_ == 0) return false;
  const std::uint8_t* line = bytes_.data() + std::size_t{hash % num_lines_} * kLineBytes;
  return rocksdb::LegacyLineMayMatch(line, hash, num_probes_);
}

bool BloomReader::MayContain(ByteSpan key) const {
  return num_lines_ != 0 && HashMayMatch(BloomKeyHash(key, flavor_));
}

template <typename KeyAt>
void BloomReader::Batch(std::size_t n, KeyAt key_at, std::span<std::uint8_t> answers) const {
  if (num_lines_ == 0) {
    std::fill_n(answers.begin(), n, std::uint8_t{0});
    return;
  }
  if (bytes_.size() <= kBloomNoPrefetchBytes) {
    for (std::size_t i = 0; i < n; ++i) answers[i] = HashMayMatch(BloomKeyHash(key_at(i), flavor_));
    return;
  }
  // Hash a chunk and prefetch each key's line, then probe: the cache misses of a large filter
  // overlap instead of queueing one after another.
  constexpr std::size_t kChunk = 32;
  std::uint32_t hashes[kChunk];
  for (std::size_t base = 0; base < n; base += kChunk) {
    const std::size_t m = std::min(kChunk, n - base);
    for (std::size_t i = 0; i < m; ++i) {
      hashes[i] = BloomKeyHash(key_at(base + i), flavor_);
      __builtin_prefetch(bytes_.data() + std::size_t{hashes[i] % num_lines_} * kLineBytes);
    }
    for (std::size_t i = 0; i < m; ++i) answers[base + i] = HashMayMatch(hashes[i]) ? 1 : 0;
  }
}

void BloomReader::MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const {
  Batch(
      keys.size(), [&keys](std::size_t i) { return keys[i]; }, answers);
}

void BloomReader::MayContainBatch(std::span<const ByteSpan> keys,
                                  std::span<std::uint8_t> answers) const {
  Batch(
      keys.size(), [keys](std::size_t i) { return keys[i]; }, answers);
}

void BloomReader::HashesMayMatch(std::span<const std::uint32_t> hashes,
                                 std::span<std::uint8_t> answers) const {
  if (num_lines_ == 0) {
    std::fill_n(answers.begin(), hashes.size(), std::uint8_t{0});
    return;
  }
  constexpr std::size_t kChunk = 32;
  for (std::size_t base = 0; base < hashes.size(); base += kChunk) {
    const std::size_t m = std::min(kChunk, hashes.size() - base);
    for (std::size_t i = 0; i < m; ++i) Prefetch(hashes[base + i]);
    for (std::size_t i = 0; i < m; ++i) answers[base + i] = HashMayMatch(hashes[base + i]) ? 1 : 0;
  }
}

std::uint64_t BloomReader::bits_set() const { return PopCountBytes(lines()); }

// ----- The hash flavour -----

bool FlavoursDiffer(ByteSpan key) {
  for (std::size_t i = key.size() - key.size() % 4; i < key.size(); ++i) {
    if (key[i] & 0x80) return true;
  }
  return false;
}

void HashFlavorEvidence::Add(const BloomReader& filter, std::span<const ByteSpan> batch) {
  // In chunks, as MayContainBatch: each key's hashes and their lines prefetched, then probed.
  constexpr std::size_t kChunk = 32;
  std::uint32_t s[kChunk], u[kChunk];
  for (std::size_t base = 0; base < batch.size(); base += kChunk) {
    const std::size_t m = std::min(kChunk, batch.size() - base);
    for (std::size_t i = 0; i < m; ++i) {
      const ByteSpan key = batch[base + i];
      s[i] = BloomKeyHash(key, HashFlavor::kSignedTail);
      u[i] = FlavoursDiffer(key) ? BloomKeyHash(key, HashFlavor::kUnsignedTail) : s[i];
      filter.Prefetch(s[i]);
      if (u[i] != s[i]) filter.Prefetch(u[i]);
    }
    for (std::size_t i = 0; i < m; ++i) {
      const bool signed_hit = filter.HashMayMatch(s[i]);
      Count(signed_hit,
            s[i] == u[i] ? std::nullopt : std::optional<bool>(filter.HashMayMatch(u[i])));
    }
  }
}

HashFlavorEvidence DecideHashFlavor(const BloomReader& filter, const KeyList& keys) {
  HashFlavorEvidence e;
  std::vector<ByteSpan> views;
  views.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i > 0 && std::ranges::equal(keys[i], keys[i - 1])) continue;
    views.push_back(keys[i]);
  }
  e.Add(filter, views);
  return e;
}

}  // namespace bloomcodec::pebble

// Reading Pebble's binary fuse filter (sstable/tablefilters/binaryfuse/filter.go: mayContain;
// bitpacking/bitpacking.go) with every check Pebble leaves to a panic, its sizing (xorfilter's
// initializeParameters) and what a geometry says about the keys it was built for.
#include "pebble/binary_fuse.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "codec/popcount.h"
#include "pebble/binary_fuse_slots.h"

namespace bloomcodec::pebble {

namespace {

// Filters up to this size are batch-probed without the prefetch stage (they stay in L2).
constexpr std::size_t kFuseNoPrefetchBytes = 256 * 1024;

std::uint64_t Load64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The bytes Pebble's Decode3 bounds check asks for when the highest slot is `entries - 1`: it
// loads 1, 2 or 4 bytes at the entry's first byte (B = 12 loads a u32), so this is at most
// FingerprintArrayBytes (and 3 bytes less for B = 10, whose padding Pebble never reads).
std::uint64_t PebbleReadBytes(std::uint64_t entries, std::uint32_t bits) {
  const std::uint64_t last = entries - 1;
  switch (bits) {
    case 4: return (last >> 1) + 1;
    case 8: return entries;
    case 10: return last * 5 / 4 + 2;
    case 12: return (last >> 1) * 3 + 4;
    default: return 2 * entries;
  }
}

// Entry `i` of a packed array: the B-bit little-endian field at bit i * B.
template <unsigned B>
inline std::uint32_t Get(const std::uint8_t* d, std::uint64_t i) {
  if constexpr (B == 8) {
    return d[i];
  } else if constexpr (B == 4) {
    return (d[i >> 1] >> ((i & 1) * 4)) & 0xFU;
  } else if constexpr (B == 16) {
    return std::uint32_t{d[2 * i]} | (std::uint32_t{d[2 * i + 1]} << 8);
  } else {
    // 10 and 12 bits start at bit 0, 2, 4 or 6 of a byte: two bytes hold them.
    const std::uint64_t bit = i * B;
    const std::uint8_t* p = d + (bit >> 3);
    const std::uint32_t w = std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8);
    return (w >> (bit & 7)) & ((1U << B) - 1);
  }
}

// (L, C) ordered by segment length, then count: how the sizing grows with the key count.
bool GeometryBefore(const BinaryFuseGeometry& a, const BinaryFuseGeometry& b) {
  return a.segment_length != b.segment_length ? a.segment_length < b.segment_length
                                              : a.segment_count < b.segment_count;
}

// The key counts in [lo, hi] sized as `g`, by binary search (the sizing never decreases).
std::optional<BinaryFuseKeyRange> RangeSizedAs(BinaryFuseGeometry g, std::uint64_t lo,
                                               std::uint64_t hi) {
  auto first_not_before = [&](std::uint64_t a, std::uint64_t b, bool or_equal) {
    while (a < b) {  // first n in [a, b) with geometry >= g (or > g), else b
      const std::uint64_t mid = a + (b - a) / 2;
      const BinaryFuseGeometry m = BinaryFuseInitialGeometry(static_cast<std::uint32_t>(mid));
      const bool past = or_equal ? !GeometryBefore(m, g) : GeometryBefore(g, m);
      if (past) {
        b = mid;
      } else {
        a = mid + 1;
      }
    }
    return a;
  };
  const std::uint64_t first = first_not_before(lo, hi + 1, true);
  if (first > hi || !(BinaryFuseInitialGeometry(static_cast<std::uint32_t>(first)) == g)) {
    return std::nullopt;
  }
  const std::uint64_t end = first_not_before(first, hi + 1, false);
  return BinaryFuseKeyRange{first, end - 1, false};
}

}  // namespace

bool IsFingerprintBits(std::uint32_t bits) {
  return bits == 4 || bits == 8 || bits == 10 || bits == 12 || bits == 16;
}

std::uint64_t BinaryFuseHash(ByteSpan key) { return XXH3_64bits(key.data(), key.size()); }

std::uint64_t FingerprintArrayBytes(std::uint64_t entries, std::uint32_t bits) {
  switch (bits) {
    case 4: return (entries + 1) / 2;
    case 8: return entries;
    case 10: return (entries * 10 + 7) / 8 + 3;
    case 12: return (entries + 1) / 2 * 3 + 1;
    default: return entries * 2;
  }
}

BinaryFuseGeometry BinaryFuseInitialGeometry(std::uint32_t num_hashes) {
  // Trap: the floating-point steps are xorfilter's, rounding for rounding (Go's math.Log and
  // glibc's log give the same sizing for every count up to 2 * 10^7; 100 keys land exactly on
  // 162.5 and round up).
  std::uint32_t length = 4;
  if (num_hashes != 0) {
    const double e = std::floor(std::log(static_cast<double>(num_hashes)) / std::log(3.33) + 2.25);
    length = std::uint32_t{1} << static_cast<int>(e);
  }
  length = std::min<std::uint32_t>(length, 262144);
  std::uint32_t capacity = 0;
  if (num_hashes > 1) {
    const double factor = std::max(1.125, 0.875 + 0.25 * std::log(1000000.0) /
                                                      std::log(static_cast<double>(num_hashes)));
    capacity = static_cast<std::uint32_t>(std::round(static_cast<double>(num_hashes) * factor));
  }
  const std::uint32_t total = std::max<std::uint32_t>((capacity + length - 1) / length, 3);
  return {length, total - 2};
}

std::vector<BinaryFuseKeyRange> BinaryFuseKeyCapacity(BinaryFuseGeometry g) {
  std::vector<BinaryFuseKeyRange> ranges;
  if (auto r = RangeSizedAs(g, 1, kBinaryFuseMaxHashes)) ranges.push_back(*r);
  // An attempt 2, 6, 10, ... of 5 to 999,999 keys halves L and sets C to 2C + 2.
  if (g.segment_count >= 4 && g.segment_count % 2 == 0 && g.segment_length <= (1U << 30)) {
    const BinaryFuseGeometry sized{g.segment_length * 2, g.segment_count / 2 - 1};
    if (auto r = RangeSizedAs(sized, 5, 999999)) {
      r->halved = true;
      ranges.push_back(*r);
    }
  }
  return ranges;
}

void AppendBinaryFuseHashes(std::span<const ByteSpan> keys, std::vector<std::uint64_t>& hashes) {
  for (const ByteSpan& key : keys) {
    const std::uint64_t h = BinaryFuseHash(key);
    if (hashes.empty() || hashes.back() != h) hashes.push_back(h);
  }
}

std::vector<std::uint64_t> CollapsedBinaryFuseHashes(const KeyList& keys) {
  std::vector<std::uint64_t> hashes;
  hashes.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::uint64_t h = BinaryFuseHash(keys[i]);
    if (hashes.empty() || hashes.back() != h) hashes.push_back(h);
  }
  return hashes;
}

// ----- Reading -----

Result<BinaryFuseReader> BinaryFuseReader::Parse(ByteSpan bytes, std::string_view source) {
  BinaryFuseReader r;
  r.bytes_ = bytes;
  if (bytes.size() <= kBinaryFuseTrailerBytes) return r;  // absent for every key
  const std::size_t n = bytes.size() - kBinaryFuseTrailerBytes;
  const std::uint8_t* t = bytes.data() + n;
  const std::uint32_t count = std::uint32_t{t[8]} | (std::uint32_t{t[9]} << 8) |
                              (std::uint32_t{t[10]} << 16) | (std::uint32_t{t[11]} << 24);
  const std::uint32_t shift = t[12];
  const std::uint32_t bits = t[13];
  const std::string file(source);
  if (!IsFingerprintBits(bits)) {
    return Status::Corrupt(file, n + 13,
                           "fingerprint bits 4, 8, 10, 12 or 16 (Pebble's reader panics on any "
                           "other)",
                           std::to_string(bits));
  }
  if (shift >= 32) {
    return Status::Corrupt(file, n + 12,
                           "a segment length shift below 32 (Pebble's segment length is 32-bit)",
                           std::to_string(shift));
  }
  if (count == 0) {
    return Status::Corrupt(file, n + 8,
                           "a segment count of at least 1 (with 0, every key's third slot lies "
                           "past the fingerprints)",
                           "0");
  }
  const BinaryFuseGeometry g{std::uint32_t{1} << shift, count};
  if (g.entries() > (std::uint64_t{1} << 32)) {
    return Status::Corrupt(file, n + 8,
                           "(segment count + 2) << shift fingerprints within Pebble's 32-bit slot "
                           "numbers",
                           std::to_string(g.entries()) + " fingerprints");
  }
  const std::uint64_t needed = PebbleReadBytes(g.entries(), bits);
  if (n < needed) {
    return Status::Corrupt(file, n,
                           std::to_string(g.entries()) + " fingerprints of " +
                               std::to_string(bits) + " bits before the 14-byte trailer, " +
                               std::to_string(needed) + " bytes as Pebble reads them",
                           "only " + std::to_string(n) + " bytes");
  }
  r.fingerprints_ = bytes.first(n);
  r.seed_ = Load64(t);
  r.geometry_ = g;
  r.shift_ = shift;
  r.fingerprint_bits_ = bits;
  return r;
}

std::uint32_t BinaryFuseReader::FingerprintAt(std::uint64_t entry) const {
  const std::uint8_t* d = fingerprints_.data();
  switch (fingerprint_bits_) {
    case 4: return Get<4>(d, entry);
    case 8: return Get<8>(d, entry);
    case 10: return Get<10>(d, entry);
    case 12: return Get<12>(d, entry);
    default: return Get<16>(d, entry);
  }
}

std::uint64_t BinaryFuseReader::expected_fingerprint_bytes() const {
  return empty() ? 0 : FingerprintArrayBytes(entries(), fingerprint_bits_);
}

double BinaryFuseReader::expected_fp_rate() const {
  return empty() ? 0.0 : std::ldexp(1.0, -static_cast<int>(fingerprint_bits_));
}

std::uint64_t BinaryFuseReader::bits_set() const {
  const std::uint64_t bits = bit_count();
  std::uint64_t set = PopCountBytes(fingerprints_.first(bits / 8));
  if (bits % 8 != 0) {
    const auto low = static_cast<std::uint8_t>(fingerprints_[bits / 8] & ((1U << (bits % 8)) - 1));
    set += static_cast<std::uint64_t>(__builtin_popcount(low));
  }
  return set;
}

namespace {

// Pebble's mayContain from the key's XXH3 hash, for fingerprints of B bits.
template <unsigned B>
struct Query {
  const std::uint8_t* data;
  std::uint64_t seed;
  std::uint64_t count_length;
  std::uint32_t length;

  fuse::Slots SlotsFor(std::uint64_t mixed) const {
    return fuse::SlotsOf(mixed, count_length, length);
  }
  bool Answer(std::uint64_t mixed, const fuse::Slots& s) const {
    const std::uint32_t f = static_cast<std::uint32_t>(fuse::Fingerprint(mixed)) & ((1U << B) - 1);
    return f == (Get<B>(data, s.s[0]) ^ Get<B>(data, s.s[1]) ^ Get<B>(data, s.s[2]));
  }
  bool operator()(std::uint64_t hash) const {
    const std::uint64_t mixed = fuse::Mix(hash, seed);
    return Answer(mixed, SlotsFor(mixed));
  }
};

}  // namespace

bool BinaryFuseReader::HashMayMatch(std::uint64_t hash) const {
  const std::uint64_t count_length = std::uint64_t{geometry_.segment_count} << shift_;
  const std::uint8_t* d = fingerprints_.data();
  const std::uint32_t length = geometry_.segment_length;
  switch (fingerprint_bits_) {
    case 0: return false;
    case 4: return Query<4>{d, seed_, count_length, length}(hash);
    case 8: return Query<8>{d, seed_, count_length, length}(hash);
    case 10: return Query<10>{d, seed_, count_length, length}(hash);
    case 12: return Query<12>{d, seed_, count_length, length}(hash);
    default: return Query<16>{d, seed_, count_length, length}(hash);
  }
}

bool BinaryFuseReader::MayContain(ByteSpan key) const {
  return !empty() && HashMayMatch(BinaryFuseHash(key));
}

template <typename KeyAt>
void BinaryFuseReader::Batch(std::size_t n, KeyAt key_at, std::span<std::uint8_t> answers) const {
  auto run = [&](const auto& q) {
    if (bytes_.size() <= kFuseNoPrefetchBytes) {
      for (std::size_t i = 0; i < n; ++i) answers[i] = q(BinaryFuseHash(key_at(i))) ? 1 : 0;
      return;
    }
    // Mix a chunk and prefetch the three slots of each key, then answer: the cache misses of a
    // large filter overlap instead of queueing one after another.
    constexpr std::size_t kChunk = 16;
    std::uint64_t mixed[kChunk];
    fuse::Slots slots[kChunk];
    const unsigned bits = fingerprint_bits_;
    for (std::size_t base = 0; base < n; base += kChunk) {
      const std::size_t m = std::min(kChunk, n - base);
      for (std::size_t i = 0; i < m; ++i) {
        mixed[i] = fuse::Mix(BinaryFuseHash(key_at(base + i)), seed_);
        slots[i] = q.SlotsFor(mixed[i]);
        for (std::uint32_t s : slots[i].s) __builtin_prefetch(q.data + std::uint64_t{s} * bits / 8);
      }
      for (std::size_t i = 0; i < m; ++i) answers[base + i] = q.Answer(mixed[i], slots[i]) ? 1 : 0;
    }
  };
  const std::uint64_t count_length = std::uint64_t{geometry_.segment_count} << shift_;
  const std::uint8_t* d = fingerprints_.data();
  const std::uint32_t length = geometry_.segment_length;
  switch (fingerprint_bits_) {
    case 0: std::fill_n(answers.begin(), n, std::uint8_t{0}); return;
    case 4: return run(Query<4>{d, seed_, count_length, length});
    case 8: return run(Query<8>{d, seed_, count_length, length});
    case 10: return run(Query<10>{d, seed_, count_length, length});
    case 12: return run(Query<12>{d, seed_, count_length, length});
    default: return run(Query<16>{d, seed_, count_length, length});
  }
}

void BinaryFuseReader::MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const {
  Batch(
      keys.size(), [&keys](std::size_t i) { return keys[i]; }, answers);
}

void BinaryFuseReader::MayContainBatch(std::span<const ByteSpan> keys,
                                       std::span<std::uint8_t> answers) const {
  Batch(
      keys.size(), [keys](std::size_t i) { return keys[i]; }, answers);
}

}  // namespace bloomcodec::pebble

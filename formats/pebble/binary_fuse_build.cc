// Building Pebble's binary fuse filter byte for byte: FastFilter/xorfilter's buildBinaryFuse at
// 4e5a4d9 (the version Pebble's go.mod pins) for the construction, then Pebble's bit packing and
// trailer (sstable/tablefilters/binaryfuse/filter.go: build; bitpacking/bitpacking.go).
#include <algorithm>
#include <bit>
#include <optional>
#include <string>

#include "codec/byte_writer.h"
#include "pebble/binary_fuse.h"
#include "pebble/binary_fuse_slots.h"

namespace bloomcodec::pebble {

namespace {

// A slot's key count (times 4) with the XOR of its keys' slot numbers (0, 1, 2) in the low two
// bits, and the XOR of their mixed hashes: one key left in a slot is (count 4, that key).
using Count = std::uint8_t;

std::uint8_t Mod3(std::uint8_t x) { return x > 2 ? x - 3 : x; }

// One construction with its working arrays; Run tries seeds until the keys peel.
class Construction {
 public:
  explicit Construction(std::span<const std::uint64_t> hashes)
      : keys_(hashes),
        size_(static_cast<std::uint32_t>(hashes.size())),
        geometry_(BinaryFuseInitialGeometry(size_)),
        entries_(geometry_.entries()),
        counts_(entries_, 0),
        sums_(entries_, 0),
        alone_(entries_, 0),
        order_(std::size_t{size_} + 1, 0),
        found_(std::size_t{size_} + 1, 0) {
    order_[size_] = 1;  // never free: the last bucket's overflow moves on
  }

  // False when every attempt failed (Pebble then writes no filter).
  bool Run(BinaryFuseBuildInfo& info);
  // The solved fingerprints (16 bits wide; the filter keeps the low B of each).
  std::vector<std::uint16_t> Fingerprints() const;
  std::uint64_t seed() const { return seed_; }
  const BinaryFuseGeometry& geometry() const { return geometry_; }

 private:
  std::span<const std::uint64_t> keys() const { return pruned_ ? *pruned_ : keys_; }
  fuse::Slots SlotsOf(std::uint64_t mixed) const {
    return fuse::SlotsOf(mixed, std::uint64_t{geometry_.segment_count} * geometry_.segment_length,
                         geometry_.segment_length);
  }
  void Resize(std::uint32_t attempt);
  bool Place();
  bool Add(std::uint32_t& duplicates);
  std::uint32_t Peel();
  void Reset();

  std::span<const std::uint64_t> keys_;
  // After an attempt failed with duplicate hashes: the keys sorted, duplicates removed. `size_`
  // stays the original count, as in xorfilter: the positions no key fills then stay 0 and are
  // added as keys whose mixed hash is 0 (all but one of them cancel out as duplicates).
  std::optional<std::vector<std::uint64_t>> pruned_;
  std::uint32_t size_;
  BinaryFuseGeometry geometry_;
  std::uint64_t entries_;  // the array never changes size, whatever the segment length
  std::uint64_t rng_ = 1;
  std::uint64_t seed_ = 0;
  std::uint32_t stacked_ = 0;
  std::vector<Count> counts_;
  std::vector<std::uint64_t> sums_;
  std::vector<std::uint32_t> alone_;   // the queue of slots holding one key
  std::vector<std::uint64_t> order_;   // keys by bucket, then the peeling order
  std::vector<std::uint8_t> found_;    // each peeled key's slot number
  std::vector<std::uint32_t> starts_;  // each bucket's next position in order_
};

// Below a million keys, attempts 2, 6, 10, ... try half the segment length over the same array
// (twice the segments, plus two), and the attempt after each goes back.
void Construction::Resize(std::uint32_t attempt) {
  if (size_ <= 4 || size_ >= 1000000) return;
  if (attempt % 4 == 2) {
    geometry_.segment_length /= 2;
    geometry_.segment_count = geometry_.segment_count * 2 + 2;
  } else if (attempt % 4 == 3) {
    geometry_.segment_length *= 2;
    geometry_.segment_count = geometry_.segment_count / 2 - 1;
  }
}

// Orders the mixed hashes by their top bits (2^k buckets for C segments, 2^k >= C), each bucket
// from its share of the positions on, spilling into the next bucket's when its next is taken.
bool Construction::Place() {
  std::uint32_t block_bits = 1;
  while ((std::uint64_t{1} << block_bits) < geometry_.segment_count) ++block_bits;
  const std::uint64_t buckets = std::uint64_t{1} << block_bits;
  starts_.assign(buckets, 0);
  for (std::uint64_t i = 0; i < buckets; ++i) {
    starts_[i] = static_cast<std::uint32_t>((i * size_) >> block_bits);
  }
  for (std::uint64_t key : keys()) {
    const std::uint64_t mixed = fuse::Mix(key, seed_);
    std::uint64_t b = mixed >> (64 - block_bits);
    // A position holding 0 counts as free (xorfilter's rule); there are never more keys than
    // positions, so a free one comes up within one round of the buckets.
    for (std::uint64_t tried = 0; order_[starts_[b]] != 0; ++tried) {
      if (tried == buckets) return false;
      b = (b + 1) & (buckets - 1);
    }
    order_[starts_[b]++] = mixed;
  }
  return true;
}

// Adds every key to its three slots; false when a slot's count wraps (64 keys in one slot).
// A key equal to one already added cancels in some slot (sum 0, two keys): it is backed out
// and counted as a duplicate.
bool Construction::Add(std::uint32_t& duplicates) {
  for (std::uint32_t i = 0; i < size_; ++i) {
    const std::uint64_t m = order_[i];
    const fuse::Slots s = SlotsOf(m);
    for (std::uint8_t j = 0; j < 3; ++j) {
      counts_[s.s[j]] = static_cast<Count>(counts_[s.s[j]] + 4) ^ j;
      sums_[s.s[j]] ^= m;
    }
    if ((sums_[s.s[0]] & sums_[s.s[1]] & sums_[s.s[2]]) == 0) {
      bool pair = false;
      for (std::uint32_t slot : s.s) pair = pair || (sums_[slot] == 0 && counts_[slot] == 8);
      if (pair) {
        ++duplicates;
        for (std::uint8_t j = 0; j < 3; ++j) {
          counts_[s.s[j]] = static_cast<Count>(counts_[s.s[j]] - 4) ^ j;
          sums_[s.s[j]] ^= m;
        }
      }
    }
    // xorfilter notes the failure and goes on adding; nothing of this attempt survives it.
    for (std::uint32_t slot : s.s) {
      if (counts_[slot] < 4) return false;
    }
  }
  return true;
}

// Peels slots holding one key, last queued first; returns how many keys were peeled (their
// mixed hashes and slot numbers go to order_ and found_, in peeling order).
std::uint32_t Construction::Peel() {
  std::uint64_t queued = 0;
  for (std::uint64_t i = 0; i < entries_; ++i) {
    if ((counts_[i] >> 2) == 1) alone_[queued++] = static_cast<std::uint32_t>(i);
  }
  std::uint32_t stacked = 0;
  while (queued > 0) {
    const std::uint32_t slot = alone_[--queued];
    if ((counts_[slot] >> 2) != 1) continue;
    if (stacked == size_) return size_ + 1;  // cannot happen: more keys than were added
    const std::uint64_t m = sums_[slot];
    const auto found = static_cast<std::uint8_t>(counts_[slot] & 3);
    found_[stacked] = found;
    order_[stacked] = m;
    ++stacked;
    const fuse::Slots s = SlotsOf(m);
    const std::uint32_t h[5] = {s.s[0], s.s[1], s.s[2], s.s[0], s.s[1]};
    for (std::uint8_t j = 1; j <= 2; ++j) {
      const std::uint32_t other = h[found + j];
      if ((counts_[other] >> 2) == 2) alone_[queued++] = other;
      counts_[other] = static_cast<Count>(counts_[other] - 4) ^ Mod3(found + j);
      sums_[other] ^= m;
    }
  }
  return stacked;
}

void Construction::Reset() {
  std::fill_n(order_.begin(), size_, 0);
  std::fill(counts_.begin(), counts_.end(), 0);
  std::fill(sums_.begin(), sums_.end(), 0);
}

bool Construction::Run(BinaryFuseBuildInfo& info) {
  seed_ = fuse::NextSeed(rng_);
  for (std::uint32_t attempt = 1; attempt <= kBinaryFuseMaxAttempts; ++attempt) {
    info.attempts = attempt;
    Resize(attempt);
    if (!Place()) return false;
    std::uint32_t duplicates = 0;
    if (Add(duplicates)) {
      const std::uint32_t stacked = Peel();
      if (stacked + duplicates == size_) {
        stacked_ = stacked;
        info.geometry = geometry_;
        return true;
      }
      if (duplicates > 0) {
        // xorfilter sorts the keys and drops duplicates, in place (the caller's hashes: ours is
        // a copy), and keeps the original count.
        std::vector<std::uint64_t> sorted(keys().begin(), keys().end());
        std::sort(sorted.begin(), sorted.end());
        sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
        pruned_ = std::move(sorted);
        info.duplicates_pruned = true;
      }
    }
    Reset();
    seed_ = fuse::NextSeed(rng_);
  }
  return false;
}

std::vector<std::uint16_t> Construction::Fingerprints() const {
  std::vector<std::uint16_t> f(entries_, 0);
  for (std::uint32_t i = stacked_; i-- > 0;) {
    const std::uint64_t m = order_[i];
    const fuse::Slots s = SlotsOf(m);
    const std::uint32_t h[5] = {s.s[0], s.s[1], s.s[2], s.s[0], s.s[1]};
    const std::uint8_t found = found_[i];
    f[h[found]] =
        static_cast<std::uint16_t>(fuse::Fingerprint(m)) ^ f[h[found + 1]] ^ f[h[found + 2]];
  }
  return f;
}

// Pebble's packing: entry i's low B bits at bit i * B, little-endian, zero padding after.
ByteVector Pack(const std::vector<std::uint16_t>& f, std::uint32_t bits) {
  ByteVector out(FingerprintArrayBytes(f.size(), bits), 0);
  const std::uint32_t mask = (1U << bits) - 1;
  std::uint64_t at = 0;
  for (std::uint16_t v : f) {
    const std::uint32_t w = (v & mask) << (at & 7);
    std::uint8_t* p = out.data() + (at >> 3);
    p[0] |= static_cast<std::uint8_t>(w);
    if (w > 0xFF) p[1] |= static_cast<std::uint8_t>(w >> 8);
    if (w > 0xFFFF) p[2] |= static_cast<std::uint8_t>(w >> 16);
    at += bits;
  }
  return out;
}

}  // namespace

Result<std::optional<ByteVector>> BuildBinaryFuseFromHashes(std::uint32_t fingerprint_bits,
                                                            std::span<const std::uint64_t> hashes,
                                                            BinaryFuseBuildInfo* info) {
  if (!IsFingerprintBits(fingerprint_bits)) {
    return Status::InvalidArgument(
        "Pebble's binary fuse filters take 4, 8, 10, 12 or 16 bits "
        "per fingerprint, not " +
        std::to_string(fingerprint_bits));
  }
  BinaryFuseBuildInfo local;
  BinaryFuseBuildInfo& report = info != nullptr ? *info : local;
  report = {};
  if (hashes.empty() || hashes.size() > kBinaryFuseMaxHashes) return std::optional<ByteVector>();
  Construction c(hashes);
  if (!c.Run(report)) return std::optional<ByteVector>();
  ByteVector out = Pack(c.Fingerprints(), fingerprint_bits);
  ByteWriter(out).PutLittleU64(c.seed());
  ByteWriter(out).PutLittleU32(static_cast<std::uint32_t>(c.geometry().segment_count));
  out.push_back(static_cast<std::uint8_t>(std::countr_zero(c.geometry().segment_length)));
  out.push_back(static_cast<std::uint8_t>(fingerprint_bits));
  return std::optional<ByteVector>(std::move(out));
}

Result<std::optional<ByteVector>> BuildBinaryFuse(std::uint32_t fingerprint_bits,
                                                  const KeyList& keys) {
  return BuildBinaryFuseFromHashes(fingerprint_bits, CollapsedBinaryFuseHashes(keys));
}

}  // namespace bloomcodec::pebble

// Pebble's binary fuse filter, `fullfilter.binaryfuse` (CockroachDB 26.2; formats/pebble/FORMAT.md
// §7.4): the reader, the probes (single and batch), what a verifier can judge of it, and the
// builder. Internal to the library until the Pebble family registers its formats (then it moves
// to include/bloomcodec/pebble/).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(pebble::BinaryFuseReader filter,
//                               pebble::BinaryFuseReader::Parse(block, "000012.sst@4096"));
//   filter.MayContainBatch(keys, answers);            // keys: std::span<const ByteSpan>
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<ByteVector> bytes, pebble::BuildBinaryFuse(8, keys));
//   // nullopt: Pebble writes no filter block for these keys
//
// Compatibility contract.
// * Keys are hashed with released XXH3-64, seed 0 (libxxhash's XXH3_64bits, which is what
//   Pebble's zeebo/xxh3 computes), and consecutive equal hashes are dropped.
// * BuildBinaryFuse returns exactly the bytes Pebble's binaryfuse table filter writer returns
//   for the same keys in the same order and the same fingerprint bits: the construction of
//   FastFilter/xorfilter at 4e5a4d9 (the version Pebble pins), every attempt, seed and
//   re-sizing included, then Pebble's bit packing and 14-byte trailer. nullopt where Pebble
//   writes no filter: no keys, more than 10,000,000 hashes, or 1024 failed attempts.
// * MayContain answers what Pebble's mayContain answers for any filter Parse accepts: 14 bytes or
//   fewer are absent for every key. Pebble checks nothing else and panics on what it cannot read;
//   Parse refuses those filters instead (Corrupt, naming the byte of the trailer field, or the
//   end of the fingerprints): fingerprint bits other than 4, 8, 10, 12, 16; a segment count of
//   0; a geometry beyond Pebble's 32-bit slot numbers; fewer fingerprint bytes than Pebble reads
//   for the highest slot. Longer fingerprint arrays are read as Pebble reads them
//   (expected_fingerprint_bytes() is what Pebble writes).
// The reader is a view: the bytes must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/filter.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::pebble {

inline constexpr std::string_view kBinaryFuseFamily = "binaryfuse";
// Seed (LE u64), segment count (LE u32), segment length shift (u8), fingerprint bits (u8).
inline constexpr std::size_t kBinaryFuseTrailerBytes = 14;
// Pebble builds no filter for more hashes than this (filter.go: maxSize).
inline constexpr std::uint64_t kBinaryFuseMaxHashes = 10'000'000;
// xorfilter gives up after this many seeds (MaxIterations).
inline constexpr std::uint32_t kBinaryFuseMaxAttempts = 1024;

// The fingerprint sizes Pebble supports: 4, 8, 10, 12 and 16 bits.
bool IsFingerprintBits(std::uint32_t bits);
// XXH3-64 of the key, seed 0.
std::uint64_t BinaryFuseHash(ByteSpan key);
// Pebble's packed size of `entries` fingerprints (bitpacking.EncodedSize): B = 10 and 12 carry
// 3 and 1 bytes of zero padding for its wide loads.
std::uint64_t FingerprintArrayBytes(std::uint64_t entries, std::uint32_t bits);

// A filter's segments: a key's three slots lie in three consecutive segments, the first of them
// among the first segment_count.
struct BinaryFuseGeometry {
  std::uint32_t segment_length = 0;  // a power of two
  std::uint32_t segment_count = 0;
  std::uint64_t entries() const {
    return (std::uint64_t{segment_count} + 2) * std::uint64_t{segment_length};
  }
  bool operator==(const BinaryFuseGeometry&) const = default;
};
// xorfilter's initializeParameters for `num_hashes` keys (before any re-sizing of an attempt).
BinaryFuseGeometry BinaryFuseInitialGeometry(std::uint32_t num_hashes);

// Key counts (hashes after Pebble's collapse) whose construction ends in a geometry.
struct BinaryFuseKeyRange {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  bool halved = false;  // reached by an attempt that halves the segment length (2, 6, 10, ...)
};
// At most two ranges (as sized, and halved), within 1 .. kBinaryFuseMaxHashes; none for a
// geometry no construction produces.
std::vector<BinaryFuseKeyRange> BinaryFuseKeyCapacity(BinaryFuseGeometry geometry);

// The hashes Pebble's writer keeps (appended; a key collapsed with the last hash already there).
void AppendBinaryFuseHashes(std::span<const ByteSpan> keys, std::vector<std::uint64_t>& hashes);
std::vector<std::uint64_t> CollapsedBinaryFuseHashes(const KeyList& keys);

// How a construction went (tests, inspect of a rebuilt filter).
struct BinaryFuseBuildInfo {
  std::uint32_t attempts = 0;
  bool duplicates_pruned = false;  // a failed attempt with duplicate hashes sorted them
  BinaryFuseGeometry geometry;
};
// InvalidArgument for unsupported fingerprint bits.
Result<std::optional<ByteVector>> BuildBinaryFuseFromHashes(std::uint32_t fingerprint_bits,
                                                            std::span<const std::uint64_t> hashes,
                                                            BinaryFuseBuildInfo* info = nullptr);
Result<std::optional<ByteVector>> BuildBinaryFuse(std::uint32_t fingerprint_bits,
                                                  const KeyList& keys);

class BinaryFuseReader final : public Filter {
 public:
  static Result<BinaryFuseReader> Parse(ByteSpan bytes, std::string_view source);

  // 14 bytes or fewer: every key is absent.
  bool empty() const { return fingerprint_bits_ == 0; }
  bool MayContain(ByteSpan key) const override;
  bool HashMayMatch(std::uint64_t hash) const;
  void MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override;
  void MayContainBatch(std::span<const ByteSpan> keys,
                       std::span<std::uint8_t> answers) const override;

  // Slots per key (3); 0 when empty.
  std::uint32_t hash_count() const override { return empty() ? 0 : 3; }
  // Fingerprint bits of every entry (padding excluded).
  std::uint64_t bit_count() const override { return entries() * fingerprint_bits_; }
  std::uint64_t bits_set() const override;

  std::uint64_t seed() const { return seed_; }
  BinaryFuseGeometry geometry() const { return geometry_; }
  std::uint32_t segment_length_shift() const { return shift_; }
  std::uint32_t fingerprint_bits() const { return fingerprint_bits_; }
  std::uint64_t entries() const { return empty() ? 0 : geometry_.entries(); }
  std::uint32_t FingerprintAt(std::uint64_t entry) const;
  // The fingerprint array as stored, and as Pebble writes it for this geometry.
  ByteSpan fingerprints() const { return fingerprints_; }
  std::uint64_t expected_fingerprint_bytes() const;
  // A key not in the set passes with probability 2^-B.
  double expected_fp_rate() const;

  ByteSpan bytes() const { return bytes_; }

 private:
  BinaryFuseReader() = default;
  template <typename KeyAt>
  void Batch(std::size_t n, KeyAt key_at, std::span<std::uint8_t> answers) const;

  ByteSpan bytes_;
  ByteSpan fingerprints_;
  std::uint64_t seed_ = 0;
  BinaryFuseGeometry geometry_;
  std::uint32_t shift_ = 0;
  std::uint32_t fingerprint_bits_ = 0;  // 0: empty
};

}  // namespace bloomcodec::pebble

// Internal to formats/rocksdb: Speedb's paired Bloom filter (speedb-io/speedb,
// plugin/speedb/paired_filter; FORMAT.md, "Speedb's paired Bloom filter"), the full filter of the
// policy named speedb_paired_bloom_filter. A pure kernel: the layout, the probe and the writer's
// sizing and pairing; FullFilterReader carries it as FullFilterKind::kSpeedbPairedBloom when
// the table's metaindex names the policy (its bytes alone cannot say so).
//
//   speedb::Trailer t = speedb::ReadTrailer(filter);
//   bool maybe = t.kind == speedb::Kind::kPaired && speedb::HashMayMatch(filter, t, Hash64(key));
//
// Layout: a payload of 64-byte blocks, in batches of 32, then 4 bytes: the filter type (1), a
// byte with num_probes in its low 5 bits and log2(block bytes) - 6 in its top 3, and two zero
// bytes. The low 5 bits of each block's first byte hold the in-batch index of the block it is
// paired with; its other 507 bits are Bloom bits. A key's hash picks its primary block
// (FastRange32 of the low 32 bits over the blocks); the pair is in the same batch; each block gets
// num_probes / 2 probes from the high 32 bits, with one of two bit-position rules each (the block
// with the smaller in-batch index takes rule 0).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::rocksdb::speedb {

inline constexpr std::string_view kPolicyName = "speedb_paired_bloom_filter";
inline constexpr std::size_t kTrailerBytes = 4;
inline constexpr std::uint32_t kBlockBytes = 64;
inline constexpr std::uint32_t kBatchBlocks = 32;
inline constexpr std::uint32_t kBatchBytes = kBlockBytes * kBatchBlocks;
inline constexpr std::uint32_t kPairIndexBits = 5;  // log2(kBatchBlocks), low bits of byte 0
inline constexpr std::uint32_t kBloomBitsPerBlock = kBlockBytes * 8 - kPairIndexBits;  // 507

enum class Kind {
  kEmpty,        // 4 bytes or fewer: Speedb reads it as built from no key (nothing matches)
  kPaired,       // filter type 1, 64-byte blocks, 1 to 30 probes, reserved bytes zero
  kAlwaysMatch,  // anything else in the trailer: Speedb answers "may match" (future types)
};

struct Trailer {
  Kind kind = Kind::kEmpty;
  std::uint32_t payload_bytes = 0;
  std::uint32_t num_probes = 0;  // the trailer's; each block of a pair is probed num_probes/2
  std::string_view always_match_reason;
};
// The filter's trailer as SpdbPairedBloomFilterPolicy::GetFilterBitsReader reads it. `filter` is
// at most 4 GiB (the caller checks).
Trailer ReadTrailer(ByteSpan filter);

// Where Speedb's reader would read outside the filter (never for what its writer makes: a payload
// of whole batches): a payload shorter than one block, or not whole batches (a pair index can
// point past the end). Such probes count here as set bits.
bool ReadsOutside(const Trailer& t);

// What Speedb's writer always makes, checked for verify: a payload of whole batches, and pairs
// that are mutual (block a names b exactly when b names a; never itself). Corrupt at the file
// offset of the first block that breaks it (`filter_offset`: where the filter starts).
Status CheckLayout(ByteSpan filter, const Trailer& t, const std::string& source,
                   std::uint64_t filter_offset);

// Bit position (0 .. 511) in a block of the hash's probe under rule `set` (0 or 1): 9 bits of the
// hash, or, where they fall on the pair index bits, 5 + the hash's other 23 bits scaled to 507.
std::uint32_t BitInBlock(std::uint32_t hash, int set);

// The reader's answer for a 64-bit key hash (Hash64, as the built-in FastLocalBloom).
bool HashMayMatch(ByteSpan filter, const Trailer& t, std::uint64_t hash);

// Bloom bits: 507 per block, and how many of them are set (the pair index bits excluded).
std::uint64_t BloomBits(const Trailer& t);
std::uint64_t BloomBitsSet(ByteSpan filter, const Trailer& t);

// ----- What SpdbPairedBloomBitsBuilder::Finish writes (tests; no Speedb writer here) -----

// CalcNumProbes: ln 2 times the bits per key adjusted to 507 of 512 bits (integer thousandths,
// truncated), rounded up to even, at most 30 (0 when the adjusted bits a key truncate to 0:
// below 1.01 bits a key, a trailer Speedb reads as "may match").
std::uint32_t NumProbes(int millibits_per_key);
// CalculateSpace: n * millibits / 8000 bytes, at least one batch, rounded to whole batches (down
// for the bottommost level, up elsewhere), plus the trailer.
std::uint64_t FilterBytes(std::uint64_t num_hashes, int millibits_per_key, bool bottommost);
// The filter of the collapsed key hashes (rocksdb::CollapsedHashes; Speedb's AddKey is
// XXPH3FilterBitsBuilder's): per batch, blocks sorted by key count (stable) and paired first
// with last; then each key's bits in its block and the pair.
ByteVector Build(std::span<const std::uint64_t> hashes, int millibits_per_key, bool bottommost);

}  // namespace bloomcodec::rocksdb::speedb

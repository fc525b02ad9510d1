// One RocksDB full filter, read as RocksDB 7.8's BuiltinFilterPolicy::GetBuiltinFilterBitsReader
// reads it: the kind is decided from the filter's own bytes (its 5-byte metadata trailer), never
// from a policy or a file name. And the builders of the three encodings.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(rocksdb::FullFilterReader filter,
//                               rocksdb::FullFilterReader::Parse(block, "x.sst@4096"));
//   bool maybe = filter.MayContain(user_key);
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector bytes,
//       rocksdb::BuildFullFilter(rocksdb::FilterEncoding::kRibbon, 10.0, keys));
//
// Compatibility contract: for ANY byte string, MayContain answers exactly what RocksDB 7.8's
// FilterBitsReader::MayMatch answers for it, including the edge cases (5 bytes or fewer: no key
// matches; marker 0 or reserved markers, invalid legacy geometry, Ribbon with fewer than 2
// blocks: every key may match). Parse never refuses bytes RocksDB would read; it fails only for
// a filter longer than RocksDB's 32-bit length. Where RocksDB itself would read outside the
// filter (crafted geometry only: a legacy line count whose byte size wraps 32 bits, a
// FastLocalBloom payload shorter than one 64-byte line), the bytes it would read are unknown;
// such probes count as set bits (the key "may match") instead of reading out of bounds.
// The view does not own the bytes: they must outlive the reader.
//
// BuildFullFilter returns exactly the bytes of FilterBitsBuilder::Finish for the same keys in
// the same order (AddKey for each), with BlockBasedTableOptions defaults except format_version
// (optimize_filters_for_memory = false): kLegacyBloom = NewBloomFilterPolicy(b) with
// format_version < 5, kFastLocalBloom = NewBloomFilterPolicy(b) with format_version 5,
// kRibbon = NewRibbonFilterPolicy(b) (any format_version).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/filter.h"
#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::rocksdb {

enum class FullFilterKind {
  kEmpty,           // 5 bytes or fewer: built from zero keys, nothing matches
  kLegacyBloom,     // marker 1..127 = num_probes (format_version < 5)
  kFastLocalBloom,  // marker 0xFF, sub-implementation 0
  kRibbon,          // marker 0xFE: Standard128 Ribbon
  kAlwaysMatch,     // marker 0, reserved markers, unusable geometry: RocksDB answers "may match"
  // Speedb's paired Bloom filter (policy speedb_paired_bloom_filter; its own 4-byte trailer).
  // Only when the caller says the policy is Speedb's (FilterPolicyFamily): no marker tells it.
  kSpeedbPairedBloom,
};

// Whose filter bits a full filter holds: RocksDB's built-in policies (the trailer decides among
// them) or Speedb's paired Bloom policy, which the table names in its metaindex.
enum class FilterPolicyFamily { kBuiltin, kSpeedbPaired };

std::string_view FullFilterKindName(FullFilterKind kind);

// The length of RocksDB's filter metadata trailer.
inline constexpr std::size_t kMetadataBytes = 5;

class FullFilterReader final : public bloomcodec::Filter {
 public:
  // A view of `bytes`; never fails on bytes RocksDB reads. `source` names them in errors.
  // kSpeedbPaired reads them as Speedb's reader does (4 bytes or fewer: nothing matches; a
  // trailer it does not know: everything may match).
  static Result<FullFilterReader> Parse(ByteSpan bytes, std::string_view source,
                                        FilterPolicyFamily family = FilterPolicyFamily::kBuiltin);

  FullFilterKind kind() const { return kind_; }
  // key = what RocksDB hashes (the user key with whole-key filtering).
  bool MayContain(ByteSpan key) const override;
  using Filter::MayContainBatch;
  void MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override;
  // The same from the key's hash (Hash64 for FastLocalBloom / Ribbon, LegacyBloomHash for legacy).
  bool HashMayMatch(std::uint64_t hash) const;
  // The same for many hashes, the cache misses of a large filter overlapped (prefetched): the
  // index of the first hash the filter denies, hashes.size() when it may hold every one.
  std::size_t FirstHashDenied(std::span<const std::uint64_t> hashes) const;

  // Bloom kinds: probes per key. Ribbon: the larger number of result columns. Otherwise 0.
  std::uint32_t hash_count() const override;
  // Payload bits (the filter minus its 5-byte trailer); 0 when there is no payload. Speedb: the
  // Bloom bits of its blocks (507 of each 512, the rest name the block's pair).
  std::uint64_t bit_count() const override;
  std::uint64_t bits_set() const override;

  // The trailer's fields and the geometry derived from them (for inspect).
  Document Describe() const;

  ByteSpan bytes() const { return bytes_; }
  ByteSpan payload() const;
  // Why RocksDB answers "may match" for every key (kAlwaysMatch), else empty.
  std::string_view always_match_reason() const { return always_match_reason_; }

  // True for the crafted geometries where RocksDB itself would read outside the filter (see the
  // contract above): its answers there are undefined; ours count such bits as set.
  bool OriginalReadsOutside() const;

  // Decoded fields (meaningful for the kind that has them).
  std::uint8_t marker() const { return marker_; }
  std::uint32_t num_probes() const { return num_probes_; }
  std::uint32_t num_lines() const { return num_lines_; }              // legacy
  std::uint32_t log2_line_bytes() const { return log2_line_bytes_; }  // legacy, FastLocalBloom
  std::uint32_t ribbon_seed() const { return ribbon_seed_; }
  std::uint32_t ribbon_num_blocks() const { return num_blocks_; }
  std::uint32_t ribbon_upper_num_columns() const { return upper_num_columns_; }
  std::uint32_t ribbon_upper_start_block() const { return upper_start_block_; }

 private:
  FullFilterReader() = default;

  bool LegacyMayMatch(std::uint32_t hash) const;
  bool FastLocalMayMatch(std::uint64_t hash) const;
  bool RibbonMayMatch(std::uint64_t hash) const;
  bool SpeedbMayMatch(std::uint64_t hash) const;
  static Result<FullFilterReader> ParseSpeedb(ByteSpan bytes);
  Document DescribeSpeedb(Document d) const;
  // Where a key with this hash starts reading (for prefetching in the batch path).
  std::uint64_t FirstByteProbed(std::uint64_t hash) const;
  // A probed byte: RocksDB reads past the filter only for crafted geometry (see the contract).
  bool BitIsSet(std::uint64_t byte_index, unsigned bit) const {
    return byte_index >= bytes_.size() || ((bytes_[byte_index] >> bit) & 1U) != 0;
  }

  ByteSpan bytes_;
  FilterPolicyFamily family_ = FilterPolicyFamily::kBuiltin;
  FullFilterKind kind_ = FullFilterKind::kEmpty;
  std::string_view always_match_reason_;
  std::uint8_t marker_ = 0;
  std::uint32_t payload_len_ = 0;
  std::uint32_t num_probes_ = 0;
  std::uint32_t num_lines_ = 0;
  std::uint32_t log2_line_bytes_ = 0;
  std::uint32_t ribbon_seed_ = 0;
  std::uint32_t raw_seed_ = 0;
  std::uint32_t num_blocks_ = 0;
  std::uint32_t num_starts_ = 0;
  std::uint32_t upper_num_columns_ = 0;
  std::uint32_t upper_start_block_ = 0;
};

// ----- Building -----

enum class FilterEncoding { kLegacyBloom, kFastLocalBloom, kRibbon };

// BloomLikeFilterPolicy's reading of bits_per_key (a double): below 0.5 there is no filter at all
// (RocksDB's builder is null); below 1 it counts as 1; 100 and above (and NaN) as 100.
struct FilterPolicyParams {
  double bits_per_key = 0;            // after sanitising
  int millibits_per_key = 0;          // (int)(bits_per_key * 1000 + 0.500001)
  int whole_bits_per_key = 0;         // (millibits + 500) / 1000: the legacy Bloom's bits per key
  double desired_one_in_fp_rate = 0;  // Ribbon's target: 1 / the FastLocalBloom FP estimate
};
// InvalidArgument when bits_per_key < 0.5 (RocksDB would write no filter).
Result<FilterPolicyParams> PolicyParamsFor(double bits_per_key);

// Byte-identical to RocksDB's FilterBitsBuilder::Finish for the same keys in the same order.
// `optimize_filters_for_memory`: as RocksDB built with a glibc-like allocator writes with that
// option on when the allocator grants exactly what the 64-byte rounding asks: the same sizes,
// but FastLocalBloom takes its probe count from the bits per key of the rounded size rather than
// the configured ones. A grant 16 bytes larger (glibc, now and then, depending on the writing
// process's heap history) gives a Ribbon filter another segment and can shrink later ones:
// those sizes cannot be reproduced from the table (formats/rocksdb/FORMAT.md,
// "optimize_filters_for_memory").
Result<ByteVector> BuildFullFilter(FilterEncoding encoding, double bits_per_key,
                                   const KeyList& keys, bool optimize_filters_for_memory = false);

// What Finish allocates (filter bytes, trailer included) for `num_keys` distinct consecutive
// hashes, and the probes / layout that implies. Ribbon's size depends on the first key's hash
// (rounding), so `first_hash` is needed for it; SizeFullFilter with no hash assumes 0.
struct FullFilterSize {
  FullFilterKind kind = FullFilterKind::kEmpty;  // how a reader sees what Finish writes
  std::uint64_t filter_bytes = 0;
  std::uint32_t num_probes = 0;  // Bloom kinds
  std::uint32_t num_lines = 0;   // legacy Bloom
  std::uint32_t num_slots = 0;   // Ribbon
  std::uint32_t num_blocks = 0;  // Ribbon
};
Result<FullFilterSize> SizeFullFilter(FilterEncoding encoding, double bits_per_key,
                                      std::uint64_t num_keys, std::uint64_t first_hash = 0);

// The hash AddKey keeps for one entry (a key or a prefix): legacy Bloom the 32-bit
// LegacyBloomHash, FastLocalBloom and Ribbon the 64-bit Hash64.
std::uint64_t FilterEntryHash(FilterEncoding encoding, ByteSpan entry);
// The consecutive-duplicate collapse of RocksDB's AddKey: one hash per key, equal neighbours
// dropped (legacy: 32-bit LegacyBloomHash; FastLocalBloom and Ribbon: 64-bit Hash64).
std::vector<std::uint64_t> CollapsedHashes(FilterEncoding encoding, const KeyList& keys);
// The same for keys that come in chunks: appended to `hashes`, a chunk's first key collapsed
// with the previous chunk's last (what a streamed build keeps, 8 bytes a key, as RocksDB does).
void AppendCollapsedHashes(FilterEncoding encoding, std::span<const ByteSpan> keys,
                           std::vector<std::uint64_t>& hashes);
void AppendCollapsedHashes(FilterEncoding encoding, const KeyList& keys,
                           std::vector<std::uint64_t>& hashes);
// Finish from the collapsed hashes.
Result<ByteVector> BuildFullFilterFromHashes(FilterEncoding encoding, double bits_per_key,
                                             std::span<const std::uint64_t> hashes,
                                             bool optimize_filters_for_memory = false);

}  // namespace bloomcodec::rocksdb

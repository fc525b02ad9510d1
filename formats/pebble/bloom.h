// Pebble's Bloom filter, `fullfilter.rocksdb.BuiltinBloomFilter` (formats/pebble/FORMAT.md §7.2):
// the reader, the writer in both of its probe-count eras (and the adaptive policy), the hash in
// both of its flavours, and the decision which flavour wrote a filter. Internal to the library
// until the Pebble family registers its formats (then it moves to include/bloomcodec/pebble/).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(pebble::BloomReader filter,
//                               pebble::BloomReader::Parse(block, "000012.sst@4096"));
//   bool maybe = filter.MayContain(prefix);   // prefix = key[:Split(key)]
//
//   pebble::BloomPolicy policy;                 // 10 bits per key, rounded probes, signed hash
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::optional<ByteVector> bytes, pebble::BuildBloom(policy, keys));
//   // nullopt: Pebble writes no filter block for these keys
//
// Compatibility contract. The bytes are RocksDB's legacy full filter (64-byte lines, the probe
// count byte, the line count as a LE u32: formats/rocksdb/legacy_bloom.h builds and probes them).
// * BuildBloom returns exactly what Pebble's table filter writer's Finish returns for the same
//   keys in the same order: consecutive equal hashes dropped, ceil(n * bpk / 512) | 1 lines with
//   no cap, probes as the policy's era chooses, nullopt where Pebble writes no filter (no keys;
//   the adaptive policy below 2 bits per key). Pebble of 2018-08 .. 2020-04-17 hashed with
//   unsigned tail bytes (HashFlavor::kUnsignedTail), every Pebble since with sign-extended ones.
// * MayContain answers what Pebble's reader answers for any filter Parse accepts: 5 bytes or
//   fewer are absent for every key. Parse refuses (Corrupt, with the offset of the line count)
//   exactly the filters on which Pebble's reader panics for every key: zero lines, and a line
//   size 8 * (payload / lines) (u32 arithmetic, as Pebble computes it) other than 512 bits.
//   A payload longer than lines * 64 bytes by less than one byte per line passes Pebble's check
//   and is read as lines * 64 bytes: so do we (unused_tail_bytes() says how many were ignored).
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
#include "bloomcodec/leveldb/hash.h"
#include "bloomcodec/status.h"

namespace bloomcodec::pebble {

using leveldb::HashFlavor;

// Pebble's filter family name (the metaindex key is "fullfilter." + it).
inline constexpr std::string_view kBloomFamily = "rocksdb.BuiltinBloomFilter";
inline constexpr std::size_t kBloomTrailerBytes = 5;

// How a writer chooses the probe count from the bits per key.
enum class BloomProbes {
  // floor(0.69 * bpk) clamped to [1, 30], as RocksDB: Pebble before 352fbf1f5 (2025-12-08), so
  // Pebble v1 and v2, every go-ethereum and CockroachDB up to 25.4.
  kRounded,
  // Pebble's table of simulated optima, 1,1,2,3,3,4,4,5,5,6 for bpk 1..10 and 6 above: Pebble
  // since 352fbf1f5 (CockroachDB 26.1).
  kTable,
};

struct BloomPolicy {
  std::uint32_t bits_per_key = 10;  // at least 1 (Pebble's FilterPolicy panics below)
  BloomProbes probes = BloomProbes::kRounded;
  HashFlavor flavor = HashFlavor::kSignedTail;
  // AdaptivePolicy(bits_per_key, max_filter_bytes) (Pebble since d46cd4adf, CockroachDB 26.2,
  // always with the kTable probes): fewer bits per key when the filter would exceed this many
  // bytes. 0: a plain FilterPolicy.
  std::uint64_t max_filter_bytes = 0;
};

// Pebble's hash of a key (LevelDB's 32-bit hash, seed 0xbc9f1d34) in either flavour.
std::uint32_t BloomKeyHash(ByteSpan key, HashFlavor flavor = HashFlavor::kSignedTail);
std::uint32_t BloomProbeCount(std::uint32_t bits_per_key, BloomProbes probes);
// calculateNumLines: ceil(n * bpk / 512) | 1, before Pebble truncates it to 32 bits.
std::uint64_t BloomLines(std::uint64_t num_hashes, std::uint32_t bits_per_key);
// FilterSize: the filter's bytes, trailer included (0 for no hashes or 0 bits per key).
std::uint64_t BloomFilterBytes(std::uint64_t num_hashes, std::uint32_t bits_per_key);
// MaxBitsPerKey: the most bits per key (at most 512) whose filter fits in max_filter_bytes.
std::uint32_t BloomMaxBitsPerKey(std::uint64_t num_hashes, std::uint64_t max_filter_bytes);

// What a writer with this policy does for `num_hashes` collapsed hashes.
struct BloomPlan {
  bool writes_filter = false;
  std::string_view no_filter_reason;  // when !writes_filter
  std::uint32_t bits_per_key = 0;     // the adaptive policy's choice
  std::uint32_t num_lines = 0;
  std::uint32_t num_probes = 0;
  std::uint64_t filter_bytes = 0;
};
// InvalidArgument for bits_per_key 0; Refused for filters of 4 GiB or more, whose length
// Pebble's reader truncates to 32 bits (and whose writer of 2025-12 on wraps its byte count).
Result<BloomPlan> PlanBloom(const BloomPolicy& policy, std::uint64_t num_hashes);

// The hashes Pebble's writer keeps: one per key, equal neighbours dropped (appended to `hashes`,
// a key collapsed with the last hash already there, so that chunks of a stream collapse as one).
void AppendBloomHashes(std::span<const ByteSpan> keys, HashFlavor flavor,
                       std::vector<std::uint64_t>& hashes);
std::vector<std::uint64_t> CollapsedBloomHashes(const KeyList& keys, HashFlavor flavor);

Result<std::optional<ByteVector>> BuildBloomFromHashes(const BloomPolicy& policy,
                                                       std::span<const std::uint64_t> hashes);
Result<std::optional<ByteVector>> BuildBloom(const BloomPolicy& policy, const KeyList& keys);

class BloomReader final : public Filter {
 public:
  static Result<BloomReader> Parse(ByteSpan bytes, std::string_view source,
                                   HashFlavor flavor = HashFlavor::kSignedTail);

  // 5 bytes or fewer: every key is absent.
  bool empty() const { return num_lines_ == 0; }
  bool MayContain(ByteSpan key) const override;
  bool HashMayMatch(std::uint32_t hash) const;
  // Brings the line a probe of `hash` reads toward the cache: a caller probing many hashes
  // prefetches a chunk of them first, so that their cache misses overlap.
  void Prefetch(std::uint32_t hash) const {
    if (num_lines_ != 0) __builtin_prefetch(bytes_.data() + std::size_t{hash % num_lines_} * 64);
  }
  void MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override;
  void MayContainBatch(std::span<const ByteSpan> keys,
                       std::span<std::uint8_t> answers) const override;
  // HashMayMatch of each hash (BloomKeyHash's, in any flavour), their lines prefetched in chunks.
  void HashesMayMatch(std::span<const std::uint32_t> hashes, std::span<std::uint8_t> answers) const;

  std::uint32_t hash_count() const override { return num_probes_; }
  std::uint64_t bit_count() const override { return std::uint64_t{num_lines_} * 512; }
  std::uint64_t bits_set() const override;

  HashFlavor flavor() const { return flavor_; }
  std::uint32_t num_probes() const { return num_probes_; }
  std::uint32_t num_lines() const { return num_lines_; }
  ByteSpan bytes() const { return bytes_; }
  // The lines * 64 bytes the probes read.
  ByteSpan lines() const { return bytes_.first(std::size_t{num_lines_} * 64); }
  // Payload bytes after the last line that Pebble's check lets pass and no probe reads.
  std::uint64_t unused_tail_bytes() const;

 private:
  BloomReader() = default;
  template <typename KeyAt>
  void Batch(std::size_t n, KeyAt key_at, std::span<std::uint8_t> answers) const;

  ByteSpan bytes_;
  HashFlavor flavor_ = HashFlavor::kSignedTail;
  std::uint32_t num_probes_ = 0;
  std::uint32_t num_lines_ = 0;
};

// The two flavours hash `key` alike unless a tail byte (after the last whole 4-byte word) has its
// top bit set: only there does sign extension change a byte's value.
bool FlavoursDiffer(ByteSpan key);

// Which hash flavour wrote a filter, from keys it must contain (a table's prefixes), as the
// LevelDB family tells LevelDB 1.17 from 1.18+ and goleveldb: every key must pass under its
// writer's hash; the flavours differ only for keys with a tail byte >= 0x80 (length % 4 != 0).
// Each key counts once per run of equal keys (a table's versions of one key are one key).
struct HashFlavorEvidence {
  std::uint64_t keys = 0;
  std::uint64_t keys_that_differ = 0;  // hashed differently by the two flavours
  std::uint64_t signed_misses = 0;     // keys the filter answers absent under each flavour
  std::uint64_t unsigned_misses = 0;

  // Tallies more keys (a stream of them, chunk by chunk; the caller drops repeated keys).
  void Add(const BloomReader& filter, std::span<const ByteSpan> batch);
  // Tallies one key: the filter's answer under the signed hash, and under the unsigned one when
  // the two differ (nullopt: they do not).
  void Count(bool signed_hit, std::optional<bool> unsigned_hit) {
    ++keys;
    if (!signed_hit) ++signed_misses;
    if (!unsigned_hit) {
      if (!signed_hit) ++unsigned_misses;
      return;
    }
    ++keys_that_differ;
    if (!*unsigned_hit) ++unsigned_misses;
  }
  // Tallies another stretch of keys' evidence.
  void Add(const HashFlavorEvidence& more) {
    keys += more.keys;
    keys_that_differ += more.keys_that_differ;
    signed_misses += more.signed_misses;
    unsigned_misses += more.unsigned_misses;
  }
  // The flavour that misses fewer keys; the signed one (every Pebble since 2020) on a tie.
  HashFlavor flavor() const {
    return unsigned_misses < signed_misses ? HashFlavor::kUnsignedTail : HashFlavor::kSignedTail;
  }
  // No key tells the flavours apart: both answer every key alike.
  bool ambiguous() const { return keys_that_differ == 0; }
};
// The evidence of `keys` in their order, each run of equal keys counted once.
HashFlavorEvidence DecideHashFlavor(const BloomReader& filter, const KeyList& keys);

}  // namespace bloomcodec::pebble

// LevelDB's built-in bloom filter (util/bloom.cc): one filter = bit array + one byte holding k.
//
//   using namespace bloomcodec::leveldb;
//   BloomPolicy policy = BloomPolicy::Current(10);
//   ByteVector filter;
//   AppendBloomFilter(policy, keys, filter);            // CreateFilter: appends to `filter`
//   bool maybe = BloomKeyMayMatch(policy.flavor, key, filter);
//
// Compatibility contract: for the same keys in the same order (duplicates included) and the same
// integer bits_per_key, AppendBloomFilter appends exactly the bytes that
// NewBloomFilterPolicy(bits_per_key)->CreateFilter appends (LevelDB 1.18+ with Current, LevelDB
// <= 1.17 on x86 with Legacy117), and BloomKeyMayMatch answers exactly as that policy's
// KeyMayMatch for ANY filter bytes, including the reader's edge cases (length < 2 -> false,
// k byte 0 -> true, k byte > 30 -> true, any length >= 2 accepted). The answer uses the k stored
// in the filter, never the policy's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "bloomcodec/bytes.h"
#include "bloomcodec/filter.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/leveldb/hash.h"

namespace bloomcodec::leveldb {

struct BloomPolicy {
  int bits_per_key;  // >= 0; a negative value is not meaningful in LevelDB and is treated as 0
  HashFlavor flavor;
  // goleveldb's filter (its filter/bloom.go): 1.18+'s hash (unsigned tails) under 1.17's name,
  // and goleveldb's integer sizing: k = uint8(b * 69 / 100) (wrapping at 256) clamped to [1, 30],
  // bits = uint32(n * b) (wrapping at 2^32) raised to 64 and rounded up to bytes in 32 bits.
  bool goleveldb_name = false;

  static BloomPolicy Current(int bits_per_key);    // "leveldb.BuiltinBloomFilter2"
  static BloomPolicy Legacy117(int bits_per_key);  // "leveldb.BuiltinBloomFilter", signed tail
  static BloomPolicy GoLevelDb(int bits_per_key);  // "leveldb.BuiltinBloomFilter", unsigned tail
  std::string_view name() const;
  int probes() const;  // k = floor(bpk * 0.69) clamped to [1, 30] (goleveldb: see above)
};

// Policy names as they appear after "filter." in a table's metaindex.
inline constexpr std::string_view kCurrentPolicyName = "leveldb.BuiltinBloomFilter2";
inline constexpr std::string_view kLegacyPolicyName = "leveldb.BuiltinBloomFilter";

// The largest k a reader honours; a larger stored k means "reserved encoding: may match".
inline constexpr int kMaxProbes = 30;

// What CreateFilter allocates for `num_keys` keys: bits = 8 * ceil(max(64, n * bpk) / 8).
// goleveldb computes the same in uint32: n * bpk modulo 2^32, and when that lies in
// [2^32 - 7, 2^32 - 1] its rounding wraps to 0 bytes and its generator divides by zero (a Go
// panic): then bits = 0 and filter_bytes = 1 (`go_panics`), which Build refuses.
struct BloomGeometry {
  std::uint64_t bits = 0;          // the modulus of the bit positions
  std::uint64_t filter_bytes = 0;  // bits / 8 + 1 (the trailing k byte)
  int probes = 0;
  bool go_panics = false;
};
BloomGeometry GeometryFor(const BloomPolicy& policy, std::uint64_t num_keys);

// CreateFilter: appends the filter for `keys` (in order, duplicates counted) to dst.
void AppendBloomFilter(const BloomPolicy& policy, const KeyList& keys, ByteVector& dst);
void AppendBloomFilter(const BloomPolicy& policy, std::span<const ByteSpan> keys, ByteVector& dst);
// The same from precomputed BloomHash values (one per key, duplicates counted).
void AppendBloomFilterFromHashes(const BloomPolicy& policy, std::span<const std::uint32_t> hashes,
                                 ByteVector& dst);

// CreateFilter for keys that come in chunks (convert of a key file of any size): the filter for
// `num_keys` keys is allocated at once and each chunk's bits are set as it comes. Take gives
// AppendBloomFilter's bytes for the same keys in the same order, when num_keys were added.
class BloomFilterWriter {
 public:
  BloomFilterWriter(const BloomPolicy& policy, std::uint64_t num_keys);
  void Add(std::span<const ByteSpan> keys);
  ByteVector Take() && { return std::move(bytes_); }

 private:
  HashFlavor flavor_;
  BloomGeometry geometry_;
  ByteVector bytes_;
};

// KeyMayMatch with every reader edge case of the original (len < 2, k = 0, k > 30).
bool BloomKeyMayMatch(HashFlavor flavor, ByteSpan key, ByteSpan filter);
// The same for a key whose BloomHash is already known.
bool BloomHashMayMatch(std::uint32_t hash, ByteSpan filter);
// Batch form: hashes keys in chunks, then probes (with prefetching). answers.size() == keys.size();
// 1 = may match, 0 = definitely absent. No allocation.
void BloomKeyMayMatchBatch(HashFlavor flavor, const KeyList& keys, ByteSpan filter,
                           std::span<std::uint8_t> answers);

// goleveldb's Contains (filter/bloom.go): as BloomKeyMayMatch with the unsigned-tail hash, except
// that its modulus is uint32((len - 1) * 8): the two differ only for filters over 512 MiB. Unset
// when that modulus is 0 (len - 1 a multiple of 2^29), where goleveldb divides by zero (panics).
std::optional<bool> GoLevelDbKeyMayMatch(ByteSpan key, ByteSpan filter);
// Whether GoLevelDbKeyMayMatch answers as BloomKeyMayMatch(kUnsignedTail) for every key.
inline bool GoLevelDbModulusIsLevelDbs(ByteSpan filter) {
  return filter.size() < (std::size_t{1} << 29) + 1;
}

// A read-only view of one filter's bytes (zero-copy) as a bloomcodec::Filter.
class BloomFilterView final : public Filter {
 public:
  BloomFilterView(ByteSpan filter, HashFlavor flavor) : filter_(filter), flavor_(flavor) {}

  bool MayContain(ByteSpan key) const override { return BloomKeyMayMatch(flavor_, key, filter_); }
  using Filter::MayContainBatch;
  void MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override {
    BloomKeyMayMatchBatch(flavor_, keys, filter_, answers);
  }
  // The stored k byte (0 when the filter is shorter than 2 bytes).
  std::uint32_t hash_count() const override;
  // (length - 1) * 8, the modulus the reader uses (0 when shorter than 2 bytes).
  std::uint64_t bit_count() const override;
  std::uint64_t bits_set() const override;

  ByteSpan bytes() const { return filter_; }
  HashFlavor flavor() const { return flavor_; }

 private:
  ByteSpan filter_;
  HashFlavor flavor_;
};

}  // namespace bloomcodec::leveldb

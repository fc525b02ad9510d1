// Filter.db of Cassandra SSTable versions ia .. oa and BTI da (1.2 - 5.0): the Murmur3 bloom
// filter of the eras cassandra-1.2, cassandra-3.0 and cassandra-4.0 (era.h), one bit set in three
// on-disk variants.
//
//   using namespace bloomcodec::cassandra;
//   BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open("nb-1-big-Filter.db"));
//   BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f,
//                               Murmur3Filter::Parse(in.bytes(), in.path(), Era::kV40));
//   BLOOMCODEC_RETURN_IF_ERROR(f.CheckLookups(in.path()));   // K > 21: Cassandra cannot look up
//   f.MayContainBatch(keys, answers);                       // reads the mapped bytes in place
//
// Layout: i32 BE hash count K, i32 BE word count W, then 8W bytes of bits. Bit j of the bit set
// is in-memory byte j >> 3, mask 1 << (j & 7). The "long" serialization (1.2 - 3.x) writes each
// 8-byte group as a big-endian long, i.e. reversed; the 4.0+ one writes the bytes as they are
// (every word little-endian). The index order is OLD (base h0, step h1) before version ma and NEW
// (base h1, step h0) from ma on; index i = |base + i * step (wrapping) rem 64W|.
//
// Compatibility contract: a filter built here from the same keys, K and W is byte-identical to
// what the original BloomFilterSerializer writes for the era, and MayContain answers as
// BloomFilter.isPresent, false positives included. A 0-byte file of Era::kV40 is 5.0's
// always-present filter (every answer 1). The reader is stricter than the original: it refuses
// K < 0, W <= 0 and a file shorter than 8 + 8W (Corrupt, with the offset); bytes after the bits
// are ignored as the original ignores them and reported by trailing_bytes(). A file with K > 21
// parses, but CheckLookups refuses it: Cassandra's lookup writes the K indexes into a reusable
// long[21] and throws ArrayIndexOutOfBoundsException, so there is no original answer to give.
// An era that is not a Murmur3 one (cassandra-1.0, ...) is refused (InvalidArgument).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/era.h"
#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/filter.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

class FastMod64;  // fast_mod.h (internal)

// The size of the reusable index array of Cassandra's lookup path (BloomFilter.indexes).
inline constexpr std::int32_t kIndexArrayLength = 21;

// Index i of a key (0 <= i), for capacity `max` > 0 bits.
std::int64_t Murmur3BitIndex(Murmur3Hash h, IndexOrder order, std::int32_t i, std::int64_t max);
// out[0 .. hash_count) = the key's indexes; out.size() >= hash_count.
void Murmur3BitIndexes(ByteSpan key, IndexOrder order, std::int32_t hash_count, std::int64_t max,
                       std::span<std::int64_t> out);

class Murmur3Filter final : public Filter {
 public:
  static constexpr std::size_t kHeaderBytes = 8;

  // A view of `file` (which must outlive the result); nothing is copied.
  static Result<Murmur3Filter> Parse(ByteSpan file, std::string_view source, Era era);
  // An owning filter with every bit clear; refuses word_count <= 0 and hash_count < 0.
  static Result<Murmur3Filter> Create(std::int32_t hash_count, std::int32_t word_count, Era era);
  // 5.0's always-present filter (fp chance 1.0, Era::kV40); serializes to 0 bytes.
  static Murmur3Filter AlwaysPresent();

  Era era() const { return era_; }
  bool always_present() const { return always_present_; }
  bool owning() const { return owning_; }

  // Owning filters only; a parsed view is read-only.
  void Add(ByteSpan key);
  void AddAll(const KeyList& keys);
  void AddAll(std::span<const ByteSpan> keys);  // a chunk of a streamed build
  // Keys already hashed with CassandraMurmur3: the bits their keys would set.
  void AddHashes(std::span<const Murmur3Hash> hashes);

  // InvalidArgument naming `source` when K > kIndexArrayLength (see the contract).
  Status CheckLookups(std::string_view source) const;
  // Meaningful only when CheckLookups passed.
  bool MayContain(ByteSpan key) const override;
  void MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override;
  // Keys read where they are (a streamed Index.db's, in its mapping).
  void MayContainBatch(std::span<const ByteSpan> keys,
                       std::span<std::uint8_t> answers) const override;
  // Keys already hashed with CassandraMurmur3 (hashes[i] is key i's): the same answers as for
  // the keys. A reader that meets each key anyway hashes it there, while the bytes are at hand.
  void MayContainHashedBatch(std::span<const Murmur3Hash> hashes,
                             std::span<std::uint8_t> answers) const;

  std::uint32_t hash_count() const override { return static_cast<std::uint32_t>(hash_count_); }
  std::uint64_t bit_count() const override { return std::uint64_t{bits_bytes().size()} * 8; }
  std::uint64_t bits_set() const override;
  std::int32_t signed_hash_count() const { return hash_count_; }
  std::int32_t word_count() const { return word_count_; }
  std::int64_t modulus() const { return std::int64_t{word_count_} * 64; }

  // The 8W bytes of bits as stored in this era.
  ByteSpan bits_bytes() const {
    return bytes().subspan(always_present_ ? 0 : kHeaderBytes,
                           static_cast<std::size_t>(word_count_) * 8);
  }
  // The exact file bytes (without trailing bytes of a parsed input).
  ByteSpan serialized() const {
    return bytes().first(always_present_ ? 0 : kHeaderBytes + bits_bytes().size());
  }
  ByteVector TakeSerialized() &&;
  std::uint64_t trailing_bytes() const { return trailing_bytes_; }

 private:
  template <typename Keys>
  void AddAllOf(const Keys& keys, std::size_t count);
  // hash_round(start, n, buffer): the CassandraMurmur3 of keys start .. start + n - 1, for
  // consecutive rounds of at most 128 keys; returns where they are (computed into buffer[0 .. n),
  // or the caller's own hashes, not copied).
  template <typename HashRound>
  void BatchOf(HashRound&& hash_round, std::size_t count, std::span<std::uint8_t> answers) const;
  Murmur3Filter() = default;
  ByteSpan bytes() const { return owning_ ? ByteSpan(owned_) : view_; }
  // The file byte (within the bits) that holds bit j, given the era's byte order.
  std::uint64_t ByteOf(std::uint64_t j) const { return (j >> 3) ^ byte_swizzle_; }
  bool TestIndexes(Murmur3Hash h) const;

  Era era_ = Era::kV40;
  IndexOrder order_ = IndexOrder::kNew;  // the era's
  std::uint64_t byte_swizzle_ = 0;       // 7 for the big-endian longs, 0 for raw bytes
  std::int32_t hash_count_ = 0;
  std::int32_t word_count_ = 0;
  bool always_present_ = false;
  bool owning_ = false;
  ByteVector owned_;
  ByteSpan view_;
  std::uint64_t trailing_bytes_ = 0;
  // The division-free reduction by modulus() (fast_mod.h); its reciprocal is computed once,
  // with word_count_, by SetModulusReciprocal.
  FastMod64 Mod() const;
  void SetModulusReciprocal();
  std::uint64_t modulus_reciprocal_ = 0;
};

// Creates the filter of (K, W, era) and adds every key.
Result<ByteVector> BuildMurmur3Filter(const KeyList& keys, std::int32_t hash_count,
                                      std::int32_t word_count, Era era);

// The bits of `from`'s file in `to`'s serialization (the same bit set): every 8-byte group
// reversed between the long serialization and the raw bytes. The eras' index orders must agree.
// `file` must be a whole filter (8 + 8W bytes, W from its header); trailing bytes are dropped.
Result<ByteVector> SwapMurmur3Serialization(ByteSpan file, std::string_view source, Era from,
                                            Era to);

}  // namespace bloomcodec::cassandra

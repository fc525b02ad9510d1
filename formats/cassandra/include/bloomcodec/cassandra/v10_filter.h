// Filter.db of Cassandra SSTable versions f .. hf (0.7 - 1.1): the 1.0 bloom filter.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(InputFile in, InputFile::Open(path));
//   BLOOMCODEC_ASSIGN_OR_RETURN(cassandra::V10Filter filter, cassandra::V10Filter::Parse(in.bytes(), path));
//   bool maybe = filter.MayContain(key);      // reads the mapped bytes, nothing copied
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(auto spec, cassandra::SizeForBucketsPerElement(keys.size(), 15));
//   BLOOMCODEC_ASSIGN_OR_RETURN(ByteVector file, cassandra::BuildV10Filter(keys, spec));
//
// Layout: i32 BE hash count K, i32 BE word count W, then W big-endian 64-bit words. Bucket b is
// bit b & 63 of word b >> 6; the modulus is 64 * W from the header.
//
// Compatibility contract: a filter built here from the same keys and spec is byte-identical to
// what BloomFilterSerializer writes, and MayContain answers exactly as BloomFilter.isPresent,
// false positives included. The reader is stricter than the original: it refuses W <= 0 and
// K < 0 (files the original cannot use) and a file shorter than 8 + 8W; bytes after the words
// are ignored as the original ignores them, and reported by trailing_bytes().
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "bloomcodec/bit_view.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/filter.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::cassandra {

class FastMod64;  // fast_mod.h (internal)

class V10Filter final : public Filter {
 public:
  static constexpr std::size_t kHeaderBytes = 8;

  // A view of `file` (which must outlive the result); nothing is copied.
  static Result<V10Filter> Parse(ByteSpan file, std::string_view source);
  // Like Parse, with error offsets shifted by `base_offset` (a filter inside a larger file).
  static Result<V10Filter> ParseAt(ByteSpan bytes, std::string_view source,
                                   std::uint64_t base_offset);
  // An owning filter with every bit clear; refuses word_count <= 0 and hash_count < 0.
  static Result<V10Filter> Create(const FilterSpec& spec);
  static Result<V10Filter> Create(std::int32_t hash_count, std::int32_t word_count);
  // BloomFilter.emptyFilter(): K = 0, W = 1; what 1.0 uses for an sstable without Filter.db.
  static V10Filter Empty();

  V10Filter(const V10Filter& other);
  V10Filter& operator=(const V10Filter& other);
  V10Filter(V10Filter&& other) noexcept;
  V10Filter& operator=(V10Filter&& other) noexcept;
  ~V10Filter() override = default;

  bool owning() const { return owning_; }
  // Owning filters only (Create / Empty); a parsed view is read-only.
  void Add(ByteSpan key);
  void AddAll(const KeyList& keys);
  void AddAll(std::span<const ByteSpan> keys);  // a chunk of a streamed build

  bool MayContain(ByteSpan key) const override;
  // Hashes every key first, then probes (no allocation per key).
  using Filter::MayContainBatch;
  void MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override;
  std::uint32_t hash_count() const override { return static_cast<std::uint32_t>(hash_count_); }
  std::uint64_t bit_count() const override { return std::uint64_t{words_bytes().size()} * 8; }
  std::uint64_t bits_set() const override;

  std::int32_t signed_hash_count() const { return hash_count_; }
  std::int32_t word_count() const { return word_count_; }
  // The bucket modulus, 64 * W.
  std::int64_t modulus() const { return std::int64_t{word_count_} * 64; }
  // The exact Filter.db bytes (8 + 8W), without any trailing bytes of a parsed input.
  ByteSpan serialized() const { return bytes().first(kHeaderBytes + words_bytes().size()); }
  // The words as stored (big-endian), for zero-copy conversions.
  ByteSpan words_bytes() const {
    return bytes().subspan(kHeaderBytes, static_cast<std::size_t>(word_count_) * 8);
  }
  // The serialized bytes of an owning filter, moved out (a parsed view is copied).
  ByteVector TakeSerialized() &&;
  // Bytes after the words in the parsed input; the original ignores them.
  std::uint64_t trailing_bytes() const { return trailing_bytes_; }

 private:
  template <typename Keys>
  void AddAllOf(const Keys& keys, std::size_t count);
  V10Filter() = default;
  ByteSpan bytes() const { return owning_ ? ByteSpan(owned_) : view_; }
  BitView<BitOrder::kBigEndianWords64> bits() const {
    return BitView<BitOrder::kBigEndianWords64>(words_bytes());
  }

  std::int32_t hash_count_ = 0;
  std::int32_t word_count_ = 0;
  bool owning_ = false;
  ByteVector owned_;  // the whole serialized filter when owning
  ByteSpan view_;     // the whole input when parsed
  std::uint64_t trailing_bytes_ = 0;
  // True only when every bit is known to be set; checked (one popcount) when K > 64, which no
  // original sizing produces, so that a damaged K of up to 2^31 - 1 answers without looping.
  // Adding keys only sets bits, so a true value stays true.
  bool all_bits_set_ = false;
  // The division-free reduction by modulus() (fast_mod.h); its reciprocal is computed once,
  // with word_count_, by SetModulusReciprocal.
  FastMod64 Mod() const;
  void SetModulusReciprocal();
  std::uint64_t modulus_reciprocal_ = 0;
};

// Sizes nothing: builds the filter of `spec` and adds every key, in order.
Result<ByteVector> BuildV10Filter(const KeyList& keys, const FilterSpec& spec);

}  // namespace bloomcodec::cassandra

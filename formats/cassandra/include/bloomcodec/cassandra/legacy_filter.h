// Filter.db of Cassandra SSTable versions c .. e (0.7 development era): the legacy filter.
// Cassandra 1.0 only reads it; we also write it, byte-identical to what the old writer produced.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(cassandra::LegacyFilter f, cassandra::LegacyFilter::Parse(bytes, path));
//   bool maybe = f.MayContain(key);
//
// Layout: i32 BE hash count, then the Java Object Serialization stream of one java.util.BitSet
// exactly as the JDK (6 and later) writes it: a fixed 68-byte preamble (stream header, the class
// descriptors of BitSet and long[]), the i32 BE array length W, W big-endian words, and 0x78.
// Bucket b is bit b & 63 of word b >> 6; the modulus is 64 * W in 32-bit arithmetic.
//
// Compatibility contract: Serialize() is byte-identical to the old writer's output for the same
// filter; MayContain answers as LegacyBloomFilter.isPresent (32-bit MurmurHash2, Java int
// arithmetic). Parse accepts exactly the stream the JDK writes for a BitSet (no handles, no
// block data) and refuses anything else with the offset of the first unexpected byte. Like the
// original, bytes after the stream are ignored (reported by trailing_bytes()).
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

class LegacyFilter final : public Filter {
 public:
  // Offset of the first word in the file, and bytes around the words (77 + 8W in total).
  static constexpr std::size_t kWordsOffset = 76;
  static constexpr std::size_t kOverheadBytes = 77;
  // 64 * W must fit a Java int (BitSet.size()); larger bit sets have a negative modulus.
  static constexpr std::int32_t kMaxWordCount = (std::int32_t{1} << 25) - 1;

  // A view of `file` (which must outlive the result); nothing is copied.
  static Result<LegacyFilter> Parse(ByteSpan file, std::string_view source);
  static Result<LegacyFilter> ParseAt(ByteSpan bytes, std::string_view source,
                                      std::uint64_t base_offset);
  // An owning filter with every bit clear; refuses word_count <= 0 or > kMaxWordCount.
  static Result<LegacyFilter> Create(const LegacyFilterSpec& spec);
  static Result<LegacyFilter> Create(std::int32_t hash_count, std::int32_t word_count);

  LegacyFilter(const LegacyFilter& other);
  LegacyFilter& operator=(const LegacyFilter& other);
  LegacyFilter(LegacyFilter&& other) noexcept;
  LegacyFilter& operator=(LegacyFilter&& other) noexcept;
  ~LegacyFilter() override = default;

  bool owning() const { return owning_; }
  void Add(ByteSpan key);  // owning filters only
  void AddAll(const KeyList& keys);

  bool MayContain(ByteSpan key) const override;
  using Filter::MayContainBatch;
  void MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override;
  std::uint32_t hash_count() const override { return static_cast<std::uint32_t>(hash_count_); }
  std::uint64_t bit_count() const override { return std::uint64_t{words_bytes().size()} * 8; }
  std::uint64_t bits_set() const override;

  std::int32_t signed_hash_count() const { return hash_count_; }
  std::int32_t word_count() const { return word_count_; }
  std::int32_t modulus() const { return word_count_ * 64; }
  ByteSpan words_bytes() const {
    return bytes().subspan(kWordsOffset, static_cast<std::size_t>(word_count_) * 8);
  }
  // i32 hash count + the JDK's ObjectOutputStream bytes of the BitSet.
  ByteVector Serialize() const;
  // The same bytes without copying.
  ByteSpan serialized() const { return bytes().first(kOverheadBytes + words_bytes().size()); }
  std::uint64_t trailing_bytes() const { return trailing_bytes_; }

 private:
  LegacyFilter() = default;
  ByteSpan bytes() const { return owning_ ? ByteSpan(owned_) : view_; }
  BitView<BitOrder::kBigEndianWords64> bits() const {
    return BitView<BitOrder::kBigEndianWords64>(words_bytes());
  }

  std::int32_t hash_count_ = 0;
  std::int32_t word_count_ = 0;
  bool owning_ = false;
  ByteVector owned_;
  ByteSpan view_;
  std::uint64_t trailing_bytes_ = 0;
  // True only when every bit is known to be set; checked (one popcount) when K > 64, which no
  // original sizing produces, so that a damaged K of up to 2^31 - 1 answers without looping.
  // Adding keys only sets bits, so a true value stays true.
  bool all_bits_set_ = false;
};

Result<ByteVector> BuildLegacyFilter(const KeyList& keys, const LegacyFilterSpec& spec);

}  // namespace bloomcodec::cassandra

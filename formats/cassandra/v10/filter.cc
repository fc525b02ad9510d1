#include "bloomcodec/cassandra/v10_filter.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include <boost/endian/conversion.hpp>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/murmur_hash.h"
#include "cassandra/fast_mod.h"
#include "cassandra/filter_kernels.h"
#include "cassandra/word_filter_bytes.h"
#include "cassandra/word_rounds.h"
#include "codec/byte_reader.h"
#include "codec/byte_writer.h"
#include "codec/popcount.h"

namespace bloomcodec::cassandra {
namespace {

// Buckets the key-at-a-time lookup stages in an array (1.0 writers use K <= 20).
constexpr std::int32_t kMaxStagedBuckets = static_cast<std::int32_t>(kMaxRoundIndexes);

// Bucket i of a key is |h1 + i*h2| mod m in Java's wrapping long arithmetic (BucketIndex in
// v10/hash.cc is the reference), reduced without a division (fast_mod.h): the buckets of one key
// are then independent of each other (no dependency chain).
inline std::uint64_t Bucket(const FastMod64& mod, KeyHashes64 h, std::uint64_t i) {
  return mod.AbsMod(static_cast<std::uint64_t>(h.h1), static_cast<std::uint64_t>(h.h2), i);
}

// Bucket b is bit b & 63 of big-endian word b >> 6: byte (b >> 3) ^ kSwizzle of the words.
constexpr std::uint64_t kSwizzle = 7;
inline std::uint32_t TestBit(const std::uint8_t* words, std::uint64_t b) {
  return (words[(b >> 3) ^ kSwizzle] >> (b & 7)) & 1u;
}
inline void SetBit(std::uint8_t* words, std::uint64_t b) {
  words[(b >> 3) ^ kSwizzle] |= static_cast<std::uint8_t>(1u << (b & 7));
}
inline void Prefetch(const std::uint8_t* words, std::uint64_t b) {
  __builtin_prefetch(words + ((b >> 3) ^ kSwizzle));
}

// One key at a time. In a filter larger than the L2 cache all K buckets are computed and their
// lines prefetched before the first test, so that the cache misses overlap (absent keys then pay
// for buckets they would not have tested; in a small filter that costs more than it saves).
bool ProbeBits(const std::uint8_t* words, std::size_t word_bytes, KeyHashes64 h, std::int32_t k,
               const FastMod64& mod) {
  // Trap (section 10.10): K = 0 tests nothing and answers "present" (emptyFilter).
  if (k > kMaxStagedBuckets || word_bytes <= kPrefetchAbove) {
    for (std::int32_t i = 0; i < k; ++i) {
      if (TestBit(words, Bucket(mod, h, static_cast<std::uint64_t>(i))) == 0) return false;
    }
    return true;
  }
  std::array<std::uint64_t, kMaxStagedBuckets> buckets;
  for (std::int32_t i = 0; i < k; ++i) {
    buckets[static_cast<std::size_t>(i)] = Bucket(mod, h, static_cast<std::uint64_t>(i));
    Prefetch(words, buckets[static_cast<std::size_t>(i)]);
  }
  for (std::int32_t i = 0; i < k; ++i) {
    if (TestBit(words, buckets[static_cast<std::size_t>(i)]) == 0) return false;
  }
  return true;
}

// Calls round(start, n, h1, h2) for the consecutive rounds of keys[0 .. total): h1[j], h2[j]
// are the hashes (HashKey64) of keys[start + j], j < n.
template <typename Keys, typename Round>
void ForEachHashedRound(const Keys& keys, std::size_t total, FilterKernel kernel, Round&& round) {
  RoundKeys round_keys;
  std::array<std::uint64_t, kRoundKeys> h1, h2;
  for (std::size_t start = 0; start < total; start += kRoundKeys) {
    const std::size_t n = std::min(kRoundKeys, total - start);
    round_keys.Set(keys, start, n, total);
    MurmurHash64Keys(kernel, round_keys.p.data(), round_keys.len.data(), n, h1.data(), h2.data());
    round(start, n, h1.data(), h2.data());
  }
}

// HashKey64 of one key, inline: the whole 8-byte blocks and the final mix in this loop, only a
// tail through MurmurHash64Resume (the key-at-a-time lookups).
inline KeyHashes64 HashOne(ByteSpan key) {
  const std::size_t whole = key.size() & ~std::size_t{7};
  const auto pass = [&](std::int64_t seed) {
    std::uint64_t h = MurmurHash64Start(key.size(), seed);
    for (std::size_t off = 0; off < whole; off += 8) {
      std::uint64_t block;
      std::memcpy(&block, key.data() + off, 8);
      h = MurmurHash64Block(h, boost::endian::little_to_native(block));
    }
    return whole == key.size() ? MurmurHash64Final(h) : MurmurHash64Resume(h, key.subspan(whole));
  };
  const std::int64_t h1 = pass(0);
  return {h1, pass(h1)};
}

}  // namespace

Result<V10Filter> V10Filter::Parse(ByteSpan file, std::string_view source) {
  return ParseAt(file, source, 0);
}

Result<V10Filter> V10Filter::ParseAt(ByteSpan bytes, std::string_view source,
                                     std::uint64_t base_offset) {
  ByteReader r(bytes, source, base_offset);
  // Trap (section 10.8): big-endian i32 header fields (DataOutputStream.writeInt).
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t k, r.ReadBigI32("hash count (i32 BE)"));
  if (k < 0) {
    return r.ErrorAt(base_offset, "a hash count >= 0", std::to_string(k));
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t w, r.ReadBigI32("word count (i32 BE)"));
  if (w <= 0) {
    // The original fails on W < 0 (NegativeArraySizeException) and divides by zero on the first
    // lookup with W = 0; no 1.0 writer produces either.
    return r.ErrorAt(base_offset + 4, "a word count >= 1", std::to_string(w));
  }
  // Checked against the input before anything is sized from W: 8 * W may be far beyond the file.
  const std::uint64_t word_bytes = static_cast<std::uint64_t>(w) * 8;
  if (r.remaining() < word_bytes) {
    return r.Error(std::to_string(w) + " words (" + std::to_string(word_bytes) +
                       " bytes) as the header says",
                   "only " + std::to_string(r.remaining()) + " bytes left");
  }
  V10Filter f;
  f.hash_count_ = k;
  f.word_count_ = w;
  f.owning_ = false;
  f.view_ = bytes;
  // The original reads exactly W longs and never looks further: extra bytes are ignored.
  f.trailing_bytes_ = r.remaining() - word_bytes;
  f.SetModulusReciprocal();
  if (k > kAllBitsCheckAboveK) {
    f.all_bits_set_ = PopCountBytes(f.words_bytes()) == word_bytes * 8;
  }
  return f;
}

Result<V10Filter> V10Filter::Create(const FilterSpec& spec) {
  return Create(spec.hash_count, spec.word_count);
}

Result<V10Filter> V10Filter::Create(std::int32_t hash_count, std::int32_t word_count) {
  if (word_count <= 0) {
    return Status::Refused("word count " + std::to_string(word_count) +
                           (word_count < 0
                                ? ": the original constructor throws NegativeArraySizeException"
                                : ": the original divides by zero on every lookup"));
  }
  if (hash_count < 0) {
    return Status::InvalidArgument("hash count " + std::to_string(hash_count) + " < 0");
  }
  V10Filter f;
  f.hash_count_ = hash_count;
  f.word_count_ = word_count;
  f.owning_ = true;
  f.owned_ = NewWordFilterBytes(hash_count, word_count);
  f.SetModulusReciprocal();
  return f;
}

void V10Filter::SetModulusReciprocal() {
  modulus_reciprocal_ = FastMod64::ReciprocalOf(static_cast<std::uint64_t>(modulus()));
}

FastMod64 V10Filter::Mod() const {
  return FastMod64(static_cast<std::uint64_t>(modulus()), modulus_reciprocal_);
}

V10Filter V10Filter::Empty() {
  // BloomFilter.emptyFilter(): new BloomFilter(0, bucketsFor(0, 0)) = K 0, 20 bits -> one word.
  return std::move(Create(0, 1)).value();
}

V10Filter::V10Filter(const V10Filter& other) = default;
V10Filter& V10Filter::operator=(const V10Filter& other) = default;
V10Filter::V10Filter(V10Filter&& other) noexcept = default;
V10Filter& V10Filter::operator=(V10Filter&& other) noexcept = default;

void V10Filter::Add(ByteSpan key) {
  if (!owning_) return;
  std::uint8_t* words = owned_.data() + kHeaderBytes;
  const KeyHashes64 h = HashKey64(key);
  const FastMod64 mod = Mod();
  for (std::int32_t i = 0; i < hash_count_; ++i) {
    SetBit(words, Bucket(mod, h, static_cast<std::uint64_t>(i)));
  }
}

void V10Filter::AddAll(const KeyList& keys) { AddAllOf(keys, keys.size()); }
void V10Filter::AddAll(std::span<const ByteSpan> keys) { AddAllOf(keys, keys.size()); }

template <typename Keys>
void V10Filter::AddAllOf(const Keys& keys, std::size_t total) {
  if (!owning_) return;
  const std::int32_t k = hash_count_;
  if (k > kMaxStagedBuckets) {
    for (std::size_t i = 0; i < total; ++i) Add(keys[i]);
    if (k > kAllBitsCheckAboveK) {
      all_bits_set_ = PopCountBytes(words_bytes()) == static_cast<std::uint64_t>(word_count_) * 64;
    }
    return;
  }
  // Rounds of keys: hashed (filter_kernels.h), then their bits set (word_rounds.h).
  std::uint8_t* words = owned_.data() + kHeaderBytes;
  const FilterKernel kernel = BestFilterKernel();
  const WordShape shape{words_bytes().size(), kSwizzle, Mod(), static_cast<std::uint32_t>(k)};
  ForEachHashedRound(keys, total, kernel,
                     [&](std::size_t, std::size_t n, const std::uint64_t* h1,
                         const std::uint64_t* h2) { SetRound(kernel, words, shape, h1, h2, n); });
}

bool V10Filter::MayContain(ByteSpan key) const {
  // Every bucket of every key is set (only ever true for K > kAllBitsCheckAboveK): the
  // original's K tests all pass, so its answer is 1.
  if (all_bits_set_) [[unlikely]]
    return true;
  return ProbeBits(words_bytes().data(), words_bytes().size(), HashOne(key), hash_count_, Mod());
}

void V10Filter::MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const {
  const std::uint8_t* words = words_bytes().data();
  const std::int32_t k = hash_count_;
  const std::size_t total = std::min(keys.size(), answers.size());
  if (k < 2 || k > kMaxStagedBuckets) {
    if (all_bits_set_) {  // K > kAllBitsCheckAboveK and every bit set: every answer is 1
      std::fill(answers.begin(), answers.begin() + static_cast<std::ptrdiff_t>(total), 1);
      return;
    }
    for (std::size_t i = 0; i < total; ++i) {
      answers[i] = ProbeBits(words, words_bytes().size(), HashKey64(keys[i]), k, Mod()) ? 1 : 0;
    }
    return;
  }
  // Rounds of keys: hashed (filter_kernels.h), then their bits tested (word_rounds.h).
  const FilterKernel kernel = BestFilterKernel();
  const WordShape shape{words_bytes().size(), kSwizzle, Mod(), static_cast<std::uint32_t>(k)};
  ForEachHashedRound(
      keys, total, kernel,
      [&](std::size_t start, std::size_t n, const std::uint64_t* h1, const std::uint64_t* h2) {
        ProbeRound(kernel, words, shape, h1, h2, n, answers.data() + start);
      });
}

ByteVector V10Filter::TakeSerialized() && {
  if (owning_) return std::move(owned_);
  const ByteSpan s = serialized();
  return ByteVector(s.begin(), s.end());
}

std::uint64_t V10Filter::bits_set() const { return PopCountBytes(words_bytes()); }

Result<ByteVector> BuildV10Filter(const KeyList& keys, const FilterSpec& spec) {
  BLOOMCODEC_ASSIGN_OR_RETURN(V10Filter f, V10Filter::Create(spec));
  f.AddAll(keys);
  return std::move(f).TakeSerialized();
}

}  // namespace bloomcodec::cassandra

#include "bloomcodec/cassandra/filter_db.h"

#include <array>
#include <string>

#include "bloomcodec/byte_reader.h"
#include "bloomcodec/byte_writer.h"
#include "bloomcodec/cassandra/buckets.h"

namespace bloomcodec::cassandra {
namespace {

// Keys hashed per round of the batch path: hashes first (independent, pipelined), then probes.
constexpr std::size_t kBatch = 64;

bool ProbeBits(BitView<BitOrder::kBigEndianWords64> bits, KeyHashes64 h, std::int32_t k,
               std::int64_t modulus) {
  // Trap (section 10.10): K = 0 tests nothing and answers "present" (emptyFilter).
  for (std::int32_t i = 0; i < k; ++i) {
    if (!bits.Test(static_cast<std::uint64_t>(BucketIndex(h, i, modulus)))) return false;
  }
  return true;
}

}  // namespace

Result<FilterDb> FilterDb::Parse(ByteSpan file, std::string_view source) {
  return ParseAt(file, source, 0);
}

Result<FilterDb> FilterDb::ParseAt(ByteSpan bytes, std::string_view source,
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
  FilterDb f;
  f.hash_count_ = k;
  f.word_count_ = w;
  f.owning_ = false;
  f.view_ = bytes;
  // The original reads exactly W longs and never looks further: extra bytes are ignored.
  f.trailing_bytes_ = r.remaining() - word_bytes;
  return f;
}

Result<FilterDb> FilterDb::Create(const FilterSpec& spec) {
  return Create(spec.hash_count, spec.word_count);
}

Result<FilterDb> FilterDb::Create(std::int32_t hash_count, std::int32_t word_count) {
  if (word_count <= 0) {
    return Status::Refused(
        "word count " + std::to_string(word_count) +
        (word_count < 0 ? ": the original constructor throws NegativeArraySizeException"
                        : ": the original divides by zero on every lookup"));
  }
  if (hash_count < 0) {
    return Status::InvalidArgument("hash count " + std::to_string(hash_count) + " < 0");
  }
  FilterDb f;
  f.hash_count_ = hash_count;
  f.word_count_ = word_count;
  f.owning_ = true;
  f.owned_.reserve(kHeaderBytes + static_cast<std::size_t>(word_count) * 8);
  ByteWriter out(f.owned_);
  out.PutBigI32(hash_count);
  out.PutBigI32(word_count);
  out.PutZeros(static_cast<std::size_t>(word_count) * 8);
  return f;
}

FilterDb FilterDb::Empty() {
  // BloomFilter.emptyFilter(): new BloomFilter(0, bucketsFor(0, 0)) = K 0, 20 bits -> one word.
  return std::move(Create(0, 1)).value();
}

FilterDb::FilterDb(const FilterDb& other) = default;
FilterDb& FilterDb::operator=(const FilterDb& other) = default;
FilterDb::FilterDb(FilterDb&& other) noexcept = default;
FilterDb& FilterDb::operator=(FilterDb&& other) noexcept = default;

void FilterDb::Add(ByteSpan key) {
  if (!owning_) return;
  MutableBitView<BitOrder::kBigEndianWords64> bits(
      MutableByteSpan(owned_).subspan(kHeaderBytes));
  const KeyHashes64 h = HashKey64(key);
  const std::int64_t m = modulus();
  for (std::int32_t i = 0; i < hash_count_; ++i) {
    bits.Set(static_cast<std::uint64_t>(BucketIndex(h, i, m)));
  }
}

void FilterDb::AddAll(const KeyList& keys) {
  for (std::size_t i = 0; i < keys.size(); ++i) Add(keys[i]);
}

bool FilterDb::MayContain(ByteSpan key) const {
  return ProbeBits(bits(), HashKey64(key), hash_count_, modulus());
}

void FilterDb::MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const {
  std::array<KeyHashes64, kBatch> hashes;
  const auto view = bits();
  const std::int64_t m = modulus();
  for (std::size_t start = 0; start < keys.size(); start += kBatch) {
    const std::size_t n = std::min(kBatch, keys.size() - start);
    for (std::size_t j = 0; j < n; ++j) hashes[j] = HashKey64(keys[start + j]);
    for (std::size_t j = 0; j < n; ++j) {
      answers[start + j] = ProbeBits(view, hashes[j], hash_count_, m) ? 1 : 0;
    }
  }
}

ByteVector FilterDb::TakeSerialized() && {
  if (owning_) return std::move(owned_);
  const ByteSpan s = serialized();
  return ByteVector(s.begin(), s.end());
}

std::uint64_t FilterDb::bits_set() const { return bits().PopCount(); }

Result<ByteVector> BuildFilterDb(const KeyList& keys, const FilterSpec& spec) {
  BLOOMCODEC_ASSIGN_OR_RETURN(FilterDb f, FilterDb::Create(spec));
  f.AddAll(keys);
  return std::move(f).TakeSerialized();
}

}  // namespace bloomcodec::cassandra

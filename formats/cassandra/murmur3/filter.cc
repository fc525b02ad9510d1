#include "bloomcodec/cassandra/murmur3_filter.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "cassandra/era_table.h"
#include "cassandra/fast_mod.h"
#include "cassandra/murmur3/hash_inline.h"
#include "cassandra/word_filter_bytes.h"
#include "cassandra/word_rounds.h"
#include "codec/byte_reader.h"
#include "codec/byte_writer.h"
#include "codec/popcount.h"

namespace bloomcodec::cassandra {
namespace {

std::uint64_t SwizzleOf(Era era) {
  // A big-endian long puts in-memory byte b of a word at file byte 7 - b of its group.
  return Facts(era).word_order == WordOrder::kLittleEndian ? 0 : 7;
}

// Murmur3Filter reads and writes the Murmur3 eras only.
Status CheckMurmur3Era(Era era) {
  if (Facts(era).hash == KeyHash::kMurmur3) return {};
  return Status::InvalidArgument(std::string(Facts(era).name) +
                                 " is not a Murmur3 era (cassandra-1.2, -3.0 or -4.0)");
}

// `abs(base % max)` with Java's truncating remainder is |base| mod max; |x| on u64 (0 - x) is
// exact even for Long.MIN_VALUE. `base + i * step` wraps as Java's running long sum does.
inline std::uint64_t IndexOf(std::uint64_t base, std::uint64_t step, std::uint64_t i,
                             std::uint64_t max) {
  const std::uint64_t x = base + i * step;
  const std::uint64_t sign = 0 - (x >> 63);
  return ((x ^ sign) - sign) % max;
}

inline void BaseAndStep(Murmur3Hash h, IndexOrder order, std::uint64_t& base, std::uint64_t& step) {
  // CASSANDRA-8413: 3.0 swapped the halves because h0 is also the partitioner token.
  const std::uint64_t h0 = static_cast<std::uint64_t>(h.h0);
  const std::uint64_t h1 = static_cast<std::uint64_t>(h.h1);
  base = order == IndexOrder::kOld ? h0 : h1;
  step = order == IndexOrder::kOld ? h1 : h0;
}

// The round's base and step of each key, from its hashes.
inline void BasesAndSteps(const Murmur3Hash* hashes, std::size_t n, IndexOrder order,
                          std::uint64_t* base, std::uint64_t* step) {
  for (std::size_t j = 0; j < n; ++j) BaseAndStep(hashes[j], order, base[j], step[j]);
}

}  // namespace

std::int64_t Murmur3BitIndex(Murmur3Hash h, IndexOrder order, std::int32_t i, std::int64_t max) {
  std::uint64_t base, step;
  BaseAndStep(h, order, base, step);
  return static_cast<std::int64_t>(
      IndexOf(base, step, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(max)));
}

void Murmur3BitIndexes(ByteSpan key, IndexOrder order, std::int32_t hash_count, std::int64_t max,
                       std::span<std::int64_t> out) {
  const Murmur3Hash h = CassandraMurmur3(key);
  for (std::int32_t i = 0; i < hash_count; ++i) {
    out[static_cast<std::size_t>(i)] = Murmur3BitIndex(h, order, i, max);
  }
}

Result<Murmur3Filter> Murmur3Filter::Parse(ByteSpan file, std::string_view source, Era era) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckMurmur3Era(era));
  if (file.empty() && Facts(era).layout == Layout::kRawBytes) {
    // 5.0's loader: a 0-byte Filter.db is the always-present filter (isInformative() false).
    Murmur3Filter f = AlwaysPresent();
    f.owning_ = false;
    f.view_ = file;
    return f;
  }
  ByteReader r(file, source);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t k, r.ReadBigI32("hash count (i32 BE)"));
  if (k < 0) return r.ErrorAt(0, "a hash count >= 0", std::to_string(k));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t w, r.ReadBigI32("word count (i32 BE)"));
  if (w <= 0) {
    // W < 0: the original's allocation fails; W = 0: every lookup divides by zero. No writer
    // produces either (the smallest filter has one word).
    return r.ErrorAt(4, "a word count >= 1", std::to_string(w));
  }
  // Checked against the input before anything depends on W.
  const std::uint64_t bits_bytes = static_cast<std::uint64_t>(w) * 8;
  if (r.remaining() < bits_bytes) {
    return r.Error(std::to_string(w) + " words (" + std::to_string(bits_bytes) +
                       " bytes) as the header says",
                   "only " + std::to_string(r.remaining()) + " bytes left");
  }
  Murmur3Filter f;
  f.era_ = era;
  f.order_ = Facts(era).order;
  f.byte_swizzle_ = SwizzleOf(era);
  f.hash_count_ = k;
  f.word_count_ = w;
  f.view_ = file;
  f.trailing_bytes_ = r.remaining() - bits_bytes;
  f.SetModulusReciprocal();
  return f;
}

Result<Murmur3Filter> Murmur3Filter::Create(std::int32_t hash_count, std::int32_t word_count,
                                            Era era) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckMurmur3Era(era));
  if (word_count <= 0) {
    return Status::InvalidArgument("word count " + std::to_string(word_count) +
                                   ": a filter has at least one word");
  }
  if (hash_count < 0) {
    return Status::InvalidArgument("hash count " + std::to_string(hash_count) + " < 0");
  }
  Murmur3Filter f;
  f.era_ = era;
  f.order_ = Facts(era).order;
  f.byte_swizzle_ = SwizzleOf(era);
  f.hash_count_ = hash_count;
  f.word_count_ = word_count;
  f.owning_ = true;
  f.owned_ = NewWordFilterBytes(hash_count, word_count);
  f.SetModulusReciprocal();
  return f;
}

void Murmur3Filter::SetModulusReciprocal() {
  modulus_reciprocal_ = FastMod64::ReciprocalOf(static_cast<std::uint64_t>(modulus()));
}

FastMod64 Murmur3Filter::Mod() const {
  return FastMod64(static_cast<std::uint64_t>(modulus()), modulus_reciprocal_);
}

Murmur3Filter Murmur3Filter::AlwaysPresent() {
  Murmur3Filter f;
  f.era_ = Era::kV40;
  f.order_ = Facts(Era::kV40).order;
  f.byte_swizzle_ = SwizzleOf(Era::kV40);
  f.always_present_ = true;
  f.owning_ = true;
  return f;
}

void Murmur3Filter::Add(ByteSpan key) {
  if (!owning_ || always_present_) return;  // AlwaysPresentFilter.add does nothing
  std::uint8_t* bits = owned_.data() + kHeaderBytes;
  std::uint64_t base, step;
  BaseAndStep(CassandraMurmur3(key), order_, base, step);
  const FastMod64 mod = Mod();
  for (std::int32_t i = 0; i < hash_count_; ++i) {
    const std::uint64_t j = mod.AbsMod(base, step, static_cast<std::uint64_t>(i));
    bits[ByteOf(j)] |= static_cast<std::uint8_t>(1u << (j & 7));
  }
}

void Murmur3Filter::AddAll(const KeyList& keys) { AddAllOf(keys, keys.size()); }
void Murmur3Filter::AddAll(std::span<const ByteSpan> keys) { AddAllOf(keys, keys.size()); }

void Murmur3Filter::AddHashes(std::span<const Murmur3Hash> hashes) {
  if (!owning_ || always_present_) return;
  std::uint8_t* bits = owned_.data() + kHeaderBytes;
  const FastMod64 mod = Mod();
  if (hash_count_ > kIndexArrayLength) {
    for (const Murmur3Hash& h : hashes) {  // Add's loop, the hash given
      std::uint64_t base, step;
      BaseAndStep(h, order_, base, step);
      for (std::int32_t i = 0; i < hash_count_; ++i) {
        const std::uint64_t j = mod.AbsMod(base, step, static_cast<std::uint64_t>(i));
        bits[ByteOf(j)] |= static_cast<std::uint8_t>(1u << (j & 7));
      }
    }
    return;
  }
  const FilterKernel kernel = BestFilterKernel();
  const WordShape shape{bits_bytes().size(), byte_swizzle_, mod,
                        static_cast<std::uint32_t>(hash_count_)};
  std::array<std::uint64_t, kRoundKeys> base, step;
  for (std::size_t start = 0; start < hashes.size(); start += kRoundKeys) {
    const std::size_t n = std::min(kRoundKeys, hashes.size() - start);
    BasesAndSteps(hashes.data() + start, n, order_, base.data(), step.data());
    SetRound(kernel, bits, shape, base.data(), step.data(), n);
  }
}

template <typename Keys>
void Murmur3Filter::AddAllOf(const Keys& keys, std::size_t total) {
  if (!owning_ || always_present_) return;
  if (hash_count_ > kIndexArrayLength) {
    for (std::size_t i = 0; i < total; ++i) Add(keys[i]);
    return;
  }
  // Rounds of keys: hashed (filter_kernels.h), then their bits set (word_rounds.h).
  const FilterKernel kernel = BestFilterKernel();
  const WordShape shape{bits_bytes().size(), byte_swizzle_, Mod(),
                        static_cast<std::uint32_t>(hash_count_)};
  std::uint8_t* bits = owned_.data() + kHeaderBytes;
  RoundKeys round;
  std::array<Murmur3Hash, kRoundKeys> hashes;
  std::array<std::uint64_t, kRoundKeys> base, step;
  for (std::size_t start = 0; start < total; start += kRoundKeys) {
    const std::size_t n = std::min(kRoundKeys, total - start);
    round.Set(keys, start, n, total);
    CassandraMurmur3Keys(kernel, round.p.data(), round.len.data(), n, hashes.data());
    BasesAndSteps(hashes.data(), n, order_, base.data(), step.data());
    SetRound(kernel, bits, shape, base.data(), step.data(), n);
  }
}

Status Murmur3Filter::CheckLookups(std::string_view source) const {
  if (hash_count_ > kIndexArrayLength) {
    return Status::Corrupt(
        std::string(source), 0, "a hash count of at most " + std::to_string(kIndexArrayLength),
        std::to_string(hash_count_) +
            ": Cassandra writes the indexes of a lookup into a reusable long[21] and throws "
            "ArrayIndexOutOfBoundsException for this filter; it has no answer to reproduce "
            "(its writers never choose K > 14)");
  }
  return {};
}

bool Murmur3Filter::TestIndexes(Murmur3Hash h) const {
  const std::uint8_t* bits = bits_bytes().data();
  std::uint64_t base, step;
  BaseAndStep(h, order_, base, step);
  const FastMod64 mod = Mod();
  // isPresent: false at the first clear bit; K = 0 tests nothing and answers true.
  for (std::int32_t i = 0; i < hash_count_; ++i) {
    const std::uint64_t j = mod.AbsMod(base, step, static_cast<std::uint64_t>(i));
    if (((bits[ByteOf(j)] >> (j & 7)) & 1u) == 0) return false;
  }
  return true;
}

bool Murmur3Filter::MayContain(ByteSpan key) const {
  if (always_present_) return true;
  return TestIndexes(InlineCassandraMurmur3(key));
}

namespace {

// BatchOf's hash_round for keys in a KeyList or in place: each round through the hash kernel.
template <typename Keys>
auto KeyRounds(const Keys& keys) {
  return [&keys, kernel = BestFilterKernel(), round = RoundKeys()](std::size_t start, std::size_t n,
                                                                   Murmur3Hash* buffer) mutable {
    round.Set(keys, start, n, keys.size());
    CassandraMurmur3Keys(kernel, round.p.data(), round.len.data(), n, buffer);
    return static_cast<const Murmur3Hash*>(buffer);
  };
}

}  // namespace

void Murmur3Filter::MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const {
  BatchOf(KeyRounds(keys), keys.size(), answers);
}

void Murmur3Filter::MayContainBatch(std::span<const ByteSpan> keys,
                                    std::span<std::uint8_t> answers) const {
  BatchOf(KeyRounds(keys), keys.size(), answers);
}

void Murmur3Filter::MayContainHashedBatch(std::span<const Murmur3Hash> hashes,
                                          std::span<std::uint8_t> answers) const {
  BatchOf([&](std::size_t start, std::size_t, Murmur3Hash*) { return hashes.data() + start; },
          hashes.size(), answers);
}

// One kernel for keys in a KeyList, in place, or hashed already.
template <typename HashRound>
void Murmur3Filter::BatchOf(HashRound&& hash_round, std::size_t count,
                            std::span<std::uint8_t> answers) const {
  const std::size_t total = std::min(count, answers.size());
  if (always_present_ || hash_count_ == 0) {
    std::fill(answers.begin(), answers.begin() + static_cast<std::ptrdiff_t>(total), 1);
    return;
  }
  // Rounds of keys: hashed (by hash_round), then their bits tested (word_rounds.h). The answer
  // is the same conjunction of the same K bits as the key-at-a-time path.
  const FilterKernel kernel = BestFilterKernel();
  const WordShape shape{bits_bytes().size(), byte_swizzle_, Mod(),
                        static_cast<std::uint32_t>(hash_count_)};
  std::array<Murmur3Hash, kRoundKeys> buffer;
  std::array<std::uint64_t, kRoundKeys> base, step;
  for (std::size_t start = 0; start < total; start += kRoundKeys) {
    const std::size_t n = std::min(kRoundKeys, total - start);
    const Murmur3Hash* hashes = hash_round(start, n, buffer.data());
    BasesAndSteps(hashes, n, order_, base.data(), step.data());
    if (hash_count_ <= static_cast<std::int32_t>(kMaxRoundIndexes)) {
      ProbeRound(kernel, bits_bytes().data(), shape, base.data(), step.data(), n,
                 answers.data() + start);
      continue;
    }
    // A K the original's long[21] cannot hold (no lookup of it survives there): one key after
    // another.
    for (std::size_t j = 0; j < n; ++j) answers[start + j] = TestIndexes(hashes[j]) ? 1 : 0;
  }
}

std::uint64_t Murmur3Filter::bits_set() const { return PopCountBytes(bits_bytes()); }

ByteVector Murmur3Filter::TakeSerialized() && {
  if (owning_) return std::move(owned_);
  const ByteSpan s = serialized();
  return ByteVector(s.begin(), s.end());
}

Result<ByteVector> BuildMurmur3Filter(const KeyList& keys, std::int32_t hash_count,
                                      std::int32_t word_count, Era era) {
  BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f, Murmur3Filter::Create(hash_count, word_count, era));
  f.AddAll(keys);
  return std::move(f).TakeSerialized();
}

Result<ByteVector> SwapMurmur3Serialization(ByteSpan file, std::string_view source, Era from,
                                            Era to) {
  BLOOMCODEC_RETURN_IF_ERROR(CheckMurmur3Era(to));
  if (Facts(from).order != Facts(to).order) {
    return Status::InvalidArgument("the index orders of " + std::string(Facts(from).name) +
                                   " and " + std::string(Facts(to).name) +
                                   " differ: the bits do not carry over, rebuild from keys");
  }
  BLOOMCODEC_ASSIGN_OR_RETURN(Murmur3Filter f, Murmur3Filter::Parse(file, source, from));
  if (f.always_present()) {
    return Status::Refused(std::string(source) +
                           ": the always-present filter (0 bytes, 5.0) has "
                           "no form in " +
                           std::string(Facts(to).name) +
                           ", whose writers write no Filter.db for fp chance 1.0");
  }
  const ByteSpan s = f.serialized();
  ByteVector out(s.begin(), s.end());
  if (SwizzleOf(from) != SwizzleOf(to)) {
    for (std::size_t i = Murmur3Filter::kHeaderBytes; i < out.size(); i += 8) {
      std::reverse(out.begin() + static_cast<std::ptrdiff_t>(i),
                   out.begin() + static_cast<std::ptrdiff_t>(i + 8));
    }
  }
  return out;
}

}  // namespace bloomcodec::cassandra

// The legacy filter (SSTable versions c .. e): i32 hash count + a java.util.BitSet as the JDK's
// ObjectOutputStream writes it. Only the exact stream a JDK writes for one BitSet is accepted;
// this is not a general Java-serialization reader.
#include "bloomcodec/cassandra/legacy_filter.h"

#include <algorithm>
#include <array>
#include <string>

#include "bloomcodec/cassandra/buckets.h"
#include "codec/byte_reader.h"
#include "codec/byte_writer.h"

namespace bloomcodec::cassandra {
namespace {

// Bytes 4 .. 71 of every legacy Filter.db: stream header, BitSet's class descriptor (name,
// serialVersionUID 7997698588986878753, flags SC_SERIALIZABLE|SC_WRITE_METHOD, field `long[]
// bits`), no superclass, then the array's class descriptor `[J`. Java 6+ writes them verbatim.
constexpr std::array<std::uint8_t, 68> kPreamble = {
    0xac, 0xed, 0x00, 0x05,  // magic, version 5
    0x73, 0x72, 0x00, 0x10,  // TC_OBJECT, TC_CLASSDESC, name length
    'j',  'a',  'v',  'a',  '.',  'u',  't',  'i',  'l',  '.',  'B',  'i', 't',
    'S',  'e',  't',  0x6e, 0xfd, 0x88, 0x7e, 0x39, 0x34, 0xab, 0x21,  // serialVersionUID of BitSet
    0x03,                                            // SC_SERIALIZABLE | SC_WRITE_METHOD
    0x00, 0x01,                                      // one field
    0x5b, 0x00, 0x04, 'b',  'i',  't',  's',         // '[' "bits"
    0x74, 0x00, 0x02, 0x5b, 0x4a,                    // TC_STRING "[J"
    0x78, 0x70,                                      // TC_ENDBLOCKDATA, TC_NULL superclass
    0x75, 0x72, 0x00, 0x02, 0x5b, 0x4a,              // TC_ARRAY, TC_CLASSDESC "[J"
    0x78, 0x20, 0x04, 0xb5, 0x12, 0xb1, 0x75, 0x93,  // serialVersionUID of long[]
    0x02, 0x00, 0x00,                                // SC_SERIALIZABLE, no fields
    0x78, 0x70};                                     // TC_ENDBLOCKDATA, TC_NULL
constexpr std::uint8_t kEndBlockData = 0x78;         // closes BitSet's custom writeObject data
constexpr std::size_t kPreambleOffset = 4;
constexpr std::size_t kArrayLengthOffset = 72;

// What the byte at `offset` (file offset) of the preamble is, for error messages.
const char* PreambleField(std::size_t offset) {
  struct Field {
    std::size_t end;  // exclusive
    const char* what;
  };
  static constexpr Field kFields[] = {
      {6, "Java serialization stream magic ac ed"},
      {8, "Java serialization stream version 00 05"},
      {9, "TC_OBJECT (73)"},
      {10, "TC_CLASSDESC (72)"},
      {28, "class name java.util.BitSet"},
      {36, "serialVersionUID of java.util.BitSet (6e fd 88 7e 39 34 ab 21)"},
      {37, "class flags 03 (SC_SERIALIZABLE | SC_WRITE_METHOD, as JDK 6+ writes BitSet)"},
      {39, "field count 00 01"},
      {40, "field type code '[' (array)"},
      {46, "field name \"bits\""},
      {51, "field type signature TC_STRING \"[J\" (no back-references)"},
      {52, "TC_ENDBLOCKDATA (78) after the class annotations"},
      {53, "TC_NULL (70): no serializable superclass"},
      {54, "TC_ARRAY (75) holding the field bits"},
      {59, "TC_CLASSDESC (72) of array class \"[J\" (long[])"},
      {67, "serialVersionUID of long[] (78 20 04 b5 12 b1 75 93)"},
      {68, "array class flags 02 (SC_SERIALIZABLE)"},
      {70, "array field count 00 00"},
      {71, "TC_ENDBLOCKDATA (78) of the array class"},
      {72, "TC_NULL (70): no superclass of the array class"},
  };
  for (const Field& f : kFields) {
    if (offset < f.end) return f.what;
  }
  return "BitSet stream";
}

std::string HexByte(std::uint8_t b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return std::string{kDigits[b >> 4], kDigits[b & 15]};
}

bool ProbeBits(BitView<BitOrder::kBigEndianWords64> bits, KeyHashes32 h, std::int32_t k,
               std::int32_t modulus) {
  for (std::int32_t i = 0; i < k; ++i) {
    if (!bits.Test(static_cast<std::uint64_t>(LegacyBucketIndex(h, i, modulus)))) return false;
  }
  return true;
}

constexpr std::size_t kBatch = 64;

}  // namespace

Result<LegacyFilter> LegacyFilter::Parse(ByteSpan file, std::string_view source) {
  return ParseAt(file, source, 0);
}

Result<LegacyFilter> LegacyFilter::ParseAt(ByteSpan bytes, std::string_view source,
                                           std::uint64_t base_offset) {
  ByteReader r(bytes, source, base_offset);
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t k, r.ReadBigI32("hash count (i32 BE)"));
  if (k < 0) return r.ErrorAt(base_offset, "a hash count >= 0", std::to_string(k));
  for (std::size_t i = 0; i < kPreamble.size(); ++i) {
    const std::size_t at = kPreambleOffset + i;
    if (at >= bytes.size()) {
      return r.ErrorAt(base_offset + at, PreambleField(at), "end of file");
    }
    if (bytes[at] != kPreamble[i]) {
      return r.ErrorAt(base_offset + at, PreambleField(at), "byte " + HexByte(bytes[at]));
    }
  }
  BLOOMCODEC_RETURN_IF_ERROR(r.Seek(kArrayLengthOffset, "BitSet stream"));
  BLOOMCODEC_ASSIGN_OR_RETURN(std::int32_t w, r.ReadBigI32("long[] length (i32 BE)"));
  if (w <= 0 || w > kMaxWordCount) {
    // A BitSet built with nbits >= 0 always has >= 1 word; 2^25 words and more would make the
    // int modulus 64 * W overflow (BitSet.size() wraps negative in Java).
    return r.ErrorAt(base_offset + kArrayLengthOffset,
                     "a long[] length in 1 .. " + std::to_string(kMaxWordCount), std::to_string(w));
  }
  // Checked against the input before the words are touched.
  const std::uint64_t word_bytes = static_cast<std::uint64_t>(w) * 8;
  if (r.remaining() < word_bytes + 1) {
    return r.Error(std::to_string(w) + " words (" + std::to_string(word_bytes) +
                       " bytes) and TC_ENDBLOCKDATA as the stream says",
                   "only " + std::to_string(r.remaining()) + " bytes left");
  }
  const std::size_t end_marker = kWordsOffset + static_cast<std::size_t>(word_bytes);
  if (bytes[end_marker] != kEndBlockData) {
    return r.ErrorAt(base_offset + end_marker,
                     "TC_ENDBLOCKDATA (78) closing BitSet.writeObject's data",
                     "byte " + HexByte(bytes[end_marker]));
  }
  LegacyFilter f;
  f.hash_count_ = k;
  f.word_count_ = w;
  f.owning_ = false;
  f.view_ = bytes;
  f.trailing_bytes_ = bytes.size() - end_marker - 1;
  if (k > kAllBitsCheckAboveK) f.all_bits_set_ = f.bits().PopCount() == word_bytes * 8;
  return f;
}

Result<LegacyFilter> LegacyFilter::Create(const LegacyFilterSpec& spec) {
  return Create(spec.hash_count, spec.word_count);
}

Result<LegacyFilter> LegacyFilter::Create(std::int32_t hash_count, std::int32_t word_count) {
  if (word_count <= 0) {
    return Status::Refused("word count " + std::to_string(word_count) +
                           ": the original BitSet constructor throws for nbits < 0");
  }
  if (word_count > kMaxWordCount) {
    return Status::Unsupported("word count " + std::to_string(word_count) +
                               ": 64 * words overflows Java's int BitSet.size()");
  }
  if (hash_count < 0) {
    return Status::InvalidArgument("hash count " + std::to_string(hash_count) + " < 0");
  }
  LegacyFilter f;
  f.hash_count_ = hash_count;
  f.word_count_ = word_count;
  f.owning_ = true;
  f.owned_.reserve(kOverheadBytes + static_cast<std::size_t>(word_count) * 8);
  ByteWriter out(f.owned_);
  out.PutBigI32(hash_count);
  out.PutBytes(kPreamble);
  out.PutBigI32(word_count);
  // Trap (section 10.11): the BitSet keeps its trailing zero words (it was built with a fixed
  // size), so all W words are written even when the high ones are zero.
  out.PutZeros(static_cast<std::size_t>(word_count) * 8);
  out.PutU8(kEndBlockData);
  return f;
}

LegacyFilter::LegacyFilter(const LegacyFilter& other) = default;
LegacyFilter& LegacyFilter::operator=(const LegacyFilter& other) = default;
LegacyFilter::LegacyFilter(LegacyFilter&& other) noexcept = default;
LegacyFilter& LegacyFilter::operator=(LegacyFilter&& other) noexcept = default;

void LegacyFilter::Add(ByteSpan key) {
  if (!owning_) return;
  MutableBitView<BitOrder::kBigEndianWords64> bits(
      MutableByteSpan(owned_).subspan(kWordsOffset, static_cast<std::size_t>(word_count_) * 8));
  const KeyHashes32 h = HashKey32(key);
  for (std::int32_t i = 0; i < hash_count_; ++i) {
    bits.Set(static_cast<std::uint64_t>(LegacyBucketIndex(h, i, modulus())));
  }
}

void LegacyFilter::AddAll(const KeyList& keys) {
  for (std::size_t i = 0; i < keys.size(); ++i) Add(keys[i]);
  if (owning_ && hash_count_ > kAllBitsCheckAboveK) {
    all_bits_set_ = bits().PopCount() == static_cast<std::uint64_t>(word_count_) * 64;
  }
}

bool LegacyFilter::MayContain(ByteSpan key) const {
  // Every bucket of every key is set (only ever true for K > kAllBitsCheckAboveK): the
  // original's K tests all pass, so its answer is 1.
  if (all_bits_set_) [[unlikely]]
    return true;
  return ProbeBits(bits(), HashKey32(key), hash_count_, modulus());
}

void LegacyFilter::MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const {
  if (all_bits_set_) {
    std::fill(answers.begin(), answers.begin() + static_cast<std::ptrdiff_t>(keys.size()), 1);
    return;
  }
  std::array<KeyHashes32, kBatch> hashes;
  const auto view = bits();
  for (std::size_t start = 0; start < keys.size(); start += kBatch) {
    const std::size_t n = std::min(kBatch, keys.size() - start);
    for (std::size_t j = 0; j < n; ++j) hashes[j] = HashKey32(keys[start + j]);
    for (std::size_t j = 0; j < n; ++j) {
      answers[start + j] = ProbeBits(view, hashes[j], hash_count_, modulus()) ? 1 : 0;
    }
  }
}

std::uint64_t LegacyFilter::bits_set() const { return bits().PopCount(); }

ByteVector LegacyFilter::Serialize() const {
  const ByteSpan s = serialized();
  return ByteVector(s.begin(), s.end());
}

Result<ByteVector> BuildLegacyFilter(const KeyList& keys, const LegacyFilterSpec& spec) {
  BLOOMCODEC_ASSIGN_OR_RETURN(LegacyFilter f, LegacyFilter::Create(spec));
  f.AddAll(keys);
  return f.Serialize();
}

}  // namespace bloomcodec::cassandra

// Requests to and answers from the Java oracle (tests/oracle/java/bloomcodec/oracle/Main.java).
//
// Case encodings (request -> answer), `bytes` = i32 length + bytes, `keys` = i32 count + bytes...,
// `utf` = u16 length + modified UTF-8, `outcome` = utf "OK" or "ExceptionClass: message":
//   kHash64         bytes key, i64 seed                 -> i64 hash64(key, seed)
//   kHash32         bytes key, i32 seed                 -> i32 hash32(key, seed)
//   kBuckets64      bytes key, i32 K, i64 max           -> K x i64 (BloomFilter.getHashBuckets)
//   kBuckets32      bytes key, i32 K, i32 max           -> K x i32 (LegacyBloomFilter's)
//   kSize           u8 kind (SizeKind), u8 assertions, i64 n, f64 fp, i32 target
//                   -> outcome; if OK: i32 K, i32 bpe, i64 bits, i32 words, utf warning
//                      (legacy: bits = the int nbits; words = -1 when nbits < 0)
//   kBuildV10       u8 kind (0 fp, 1 buckets, 2 emptyFilter), i64 n, f64 fp, i32 target, keys
//                   -> outcome; if OK: bytes Filter.db (DataOutputStream)
//   kBuildLegacy    u8 kind (0 fp, 1 buckets), i64 n, f64 fp, i32 target, keys
//                   -> outcome; if OK: bytes (i32 K + ObjectOutputStream of a fixed-size BitSet)
//   kBuildRow       i64 estimated columns, keys (names)  -> outcome; if OK: bytes (i32 L + filter)
//   kProbeV10       bytes Filter.db, keys               -> outcome; if OK: i32 K, i32 W, u8 per key
//   kProbeLegacy    bytes legacy file, keys (ObjectInputStream) -> as kProbeV10, W = size()/64
//   kWriteBitSet    i32 K, u8 fixed size, i32 nbits, i32 count, count x i32 bit index
//                   -> outcome; if OK: bytes legacy file written by the JDK
//   kProbeRow       u8 legacy, bytes row filter (i32 L + filter), keys -> as kProbeV10
//   kDoubleToString f64                                  -> utf Double.toString(d)
//   kProbabilities  i32 buckets per element              -> i32 optimal K, i32 count, count x utf
//                   Double.toString of the oracle's probs[bpe][k] (its BloomCalculations table)
// Cassandra 1.2 - 5.0 (variant: Murmur3Variant, 0 = 1.2 old order + BE longs, 1 = 3.0 new order +
// BE longs, 2 = 4.0 new order + raw bytes):
//   kMurmur3        bytes key                           -> i64 h[0], i64 h[1] (hash3_x64_128, seed 0)
//   kIndexesMurmur3 bytes key, u8 old order, i32 K, i64 max -> K x i64 (fresh array: any K)
//   kSizeMurmur3    u8 assertions, i64 n, f64 fp
//                   -> outcome; if OK: u8 always present, i32 K, i32 bpe, i64 bits, i32 words
//   kBuildMurmur3   u8 variant, i64 n, f64 fp, keys
//                   -> outcome ("NoFilterComponent" where fp 1.0 writes no Filter.db);
//                      if OK: bytes Filter.db (empty: 5.0's always-present filter)
//   kProbeMurmur3   u8 variant, bytes Filter.db, keys   -> as kProbeV10 (lookups use the
//                   reusable long[21] index array, so K > 21 throws as in Cassandra)
// Cassandra 0.4 - 0.7 beta (cassandra-0.6; a String is sent as its UTF-16 code units, big-endian,
// in `bytes`, so unpaired surrogates travel too):
//   kStringBytes    bytes String                          -> bytes getBytes("UTF-16"),
//                                                            bytes writeUTF's bytes after the length
//   kBuildString    i32 K, i32 nbits, i32 count + count x bytes String, i32 count + probes
//                   -> bytes Filter.db (i32 K + ObjectOutputStream of new BitSet(nbits) with each
//                      String's getBytes("UTF-16") added), u8 isPresent(String) per probe
//   kBuildStringSized u8 kind (0 fp, 1 buckets), i64 n, f64 fp, i32 target, i32 count + count x
//                   bytes String -> outcome; if OK: bytes Filter.db as 0.6's SSTableWriter writes
//                   it: BloomFilter.getFilter(n, fp | target) on 0.6's table, every String added
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"
#include "codec/byte_writer.h"

namespace bloomcodec::testing {

enum class OracleOp : std::uint8_t {
  kHash64 = 1,
  kHash32 = 2,
  kBuckets64 = 3,
  kBuckets32 = 4,
  kSize = 5,
  kBuildV10 = 6,
  kBuildLegacy = 7,
  kBuildRow = 8,
  kProbeV10 = 9,
  kProbeLegacy = 10,
  kWriteBitSet = 11,
  kProbeRow = 12,
  kDoubleToString = 13,
  kProbabilities = 14,
  kMurmur3 = 15,
  kIndexesMurmur3 = 16,
  kSizeMurmur3 = 17,
  kBuildMurmur3 = 18,
  kProbeMurmur3 = 19,
  kStringBytes = 20,
  kBuildString = 21,
  kBuildStringSized = 22,
};

enum class Murmur3Variant : std::uint8_t { k1_2 = 0, k3_0 = 1, k4_0 = 2 };

enum class SizeKind : std::uint8_t {
  kV10Fp = 0,
  kV10Buckets = 1,
  kLegacyFp = 2,
  kLegacyBuckets = 3
};
enum class BuildKind : std::uint8_t { kFp = 0, kBuckets = 1, kEmptyFilter = 2 };

class OracleRequest {
 public:
  explicit OracleRequest(OracleOp op) : writer_(payload_) {
    writer_.PutU8(static_cast<std::uint8_t>(op));
    writer_.PutBigI32(0);  // case count, patched by EndCase
  }
  void U8(std::uint8_t v) { writer_.PutU8(v); }
  void I32(std::int32_t v) { writer_.PutBigI32(v); }
  void I64(std::int64_t v) { writer_.PutBigI64(v); }
  void F64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    writer_.PutBigU64(bits);
  }
  void Bytes(ByteSpan b) {
    writer_.PutBigI32(static_cast<std::int32_t>(b.size()));
    writer_.PutBytes(b);
  }
  void Keys(const KeyList& keys) {
    writer_.PutBigI32(static_cast<std::int32_t>(keys.size()));
    for (std::size_t i = 0; i < keys.size(); ++i) Bytes(keys[i]);
  }
  void EndCase() { writer_.PatchBigU32(1, ++cases_); }

  std::uint32_t cases() const { return cases_; }
  const ByteVector& payload() const { return payload_; }

 private:
  ByteVector payload_;
  ByteWriter writer_;
  std::uint32_t cases_ = 0;
};

// Reads answers in order. A read past the end sets a sticky error and returns zero values;
// check ok() (or error()) before trusting what was read.
class OracleAnswers {
 public:
  explicit OracleAnswers(ByteVector bytes) : bytes_(std::move(bytes)) {}

  std::uint8_t U8() { return static_cast<std::uint8_t>(Big(1)); }
  std::int32_t I32() { return static_cast<std::int32_t>(static_cast<std::uint32_t>(Big(4))); }
  std::int64_t I64() { return static_cast<std::int64_t>(Big(8)); }
  std::string Utf() {
    std::size_t n = static_cast<std::size_t>(Big(2));
    if (!Have(n)) return {};
    std::string s(bytes_.begin() + pos_, bytes_.begin() + pos_ + n);
    pos_ += n;
    return s;
  }
  ByteVector Bytes() {
    std::int32_t n = I32();
    if (n < 0 || !Have(static_cast<std::size_t>(n))) {
      error_ = "bad byte string length " + std::to_string(n);
      return {};
    }
    ByteVector b(bytes_.begin() + pos_, bytes_.begin() + pos_ + n);
    pos_ += static_cast<std::size_t>(n);
    return b;
  }

  bool ok() const { return error_.empty(); }
  bool at_end() const { return pos_ == bytes_.size(); }
  const std::string& error() const { return error_; }

 private:
  bool Have(std::size_t n) {
    if (!error_.empty()) return false;
    if (bytes_.size() - pos_ < n) {
      error_ = "answer truncated at byte " + std::to_string(pos_);
      return false;
    }
    return true;
  }
  std::uint64_t Big(std::size_t n) {
    if (!Have(n)) return 0;
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v = (v << 8) | bytes_[pos_ + i];
    pos_ += n;
    return v;
  }

  ByteVector bytes_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace bloomcodec::testing

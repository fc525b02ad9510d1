// RocksDB's 64-bit filter hash: the XXH3 preview of xxHash 0.7.2 (RocksDB's util/xxph3.h),
// 64-bit variant, default secret, seed 0. Written from the algorithm's description; the preview
// differs from released XXH3 in its short-input mixing, its 129-240 byte path and RocksDB's
// answer for the empty input, so libxxhash cannot be used.
#include <bit>
#include <cstring>

#include "bloomcodec/leveldb/hash.h"
#include "bloomcodec/rocksdb/hash.h"

namespace bloomcodec::rocksdb {

namespace {

constexpr std::uint32_t kPrime32_1 = 0x9E3779B1U;
constexpr std::uint32_t kPrime32_2 = 0x85EBCA77U;
constexpr std::uint32_t kPrime32_3 = 0xC2B2AE3DU;
constexpr std::uint64_t kPrime64_1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kPrime64_2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime64_3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t kPrime64_4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t kPrime64_5 = 0x27D4EB2F165667C5ULL;

// The preview's 192-byte default secret (a constant of the algorithm).
alignas(64) constexpr std::uint8_t kSecret[192] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};
constexpr std::size_t kSecretSize = sizeof(kSecret);
constexpr std::size_t kStripeBytes = 64;
constexpr std::size_t kSecretAdvancePerStripe = 8;

inline std::uint32_t Load32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}
inline std::uint64_t Load64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

__extension__ using U128 = unsigned __int128;  // GCC/Clang; -Wpedantic knows it is an extension

inline std::uint64_t MulFold64(std::uint64_t a, std::uint64_t b) {
  const U128 product = static_cast<U128>(a) * b;
  return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

inline std::uint64_t Avalanche(std::uint64_t h) {
  h ^= h >> 37;
  h *= kPrime64_3;
  return h ^ (h >> 32);
}

std::uint64_t Short0To16(const std::uint8_t* in, std::size_t len) {
  if (len > 8) {
    const std::uint64_t lo = Load64(in) ^ Load64(kSecret);
    const std::uint64_t hi = Load64(in + len - 8) ^ Load64(kSecret + 8);
    return Avalanche(len + (lo + hi) + MulFold64(lo, hi));
  }
  if (len >= 4) {
    const std::uint64_t both = Load32(in) | (std::uint64_t{Load32(in + len - 4)} << 32);
    const std::uint64_t keyed = both ^ Load64(kSecret);
    const std::uint64_t mixed = len + ((keyed ^ (keyed >> 51)) * kPrime32_1);
    return Avalanche((mixed ^ (mixed >> 47)) * kPrime64_2);
  }
  if (len > 0) {
    const std::uint32_t combined = std::uint32_t{in[0]} | (std::uint32_t{in[len >> 1]} << 8) |
                                   (std::uint32_t{in[len - 1]} << 16) |
                                   (static_cast<std::uint32_t>(len) << 24);
    const std::uint64_t keyed = std::uint64_t{combined} ^ Load32(kSecret);
    return Avalanche(keyed * kPrime64_1);
  }
  // RocksDB's change to the preview: the empty input hashes the seed instead of giving 0.
  return MulFold64(Load64(kSecret), kPrime64_2);
}

inline std::uint64_t Mix16(const std::uint8_t* in, const std::uint8_t* secret) {
  return MulFold64(Load64(in) ^ Load64(secret), Load64(in + 8) ^ Load64(secret + 8));
}

std::uint64_t Medium17To128(const std::uint8_t* in, std::size_t len) {
  std::uint64_t acc = len * kPrime64_1;
  if (len > 32) {
    if (len > 64) {
      if (len > 96) {
        acc += Mix16(in + 48, kSecret + 96);
        acc += Mix16(in + len - 64, kSecret + 112);
      }
      acc += Mix16(in + 32, kSecret + 64);
      acc += Mix16(in + len - 48, kSecret + 80);
    }
    acc += Mix16(in + 16, kSecret + 32);
    acc += Mix16(in + len - 32, kSecret + 48);
  }
  acc += Mix16(in, kSecret);
  acc += Mix16(in + len - 16, kSecret + 16);
  return Avalanche(acc);
}

// The long paths stay out of line so that short keys pay no register saves for them.
[[gnu::noinline]] std::uint64_t Medium129To240(const std::uint8_t* in, std::size_t len) {
  constexpr std::size_t kStartOffset = 3;
  constexpr std::size_t kLastOffset = 17;
  constexpr std::size_t kSecretSizeMin = 136;
  std::uint64_t acc = len * kPrime64_1;
  for (std::size_t i = 0; i < 8; ++i) acc += Mix16(in + 16 * i, kSecret + 16 * i);
  acc = Avalanche(acc);
  const std::size_t rounds = len / 16;
  for (std::size_t i = 8; i < rounds; ++i) {
    acc += Mix16(in + 16 * i, kSecret + 16 * (i - 8) + kStartOffset);
  }
  acc += Mix16(in + len - 16, kSecret + kSecretSizeMin - kLastOffset);
  return Avalanche(acc);
}

inline void AccumulateStripe(std::uint64_t* acc, const std::uint8_t* in,
                             const std::uint8_t* secret) {
  for (std::size_t i = 0; i < 8; ++i) {
    const std::uint64_t value = Load64(in + 8 * i);
    const std::uint64_t keyed = value ^ Load64(secret + 8 * i);
    acc[i] += value;
    acc[i] += (keyed & 0xFFFFFFFFU) * (keyed >> 32);
  }
}

inline void Scramble(std::uint64_t* acc, const std::uint8_t* secret) {
  for (std::size_t i = 0; i < 8; ++i) {
    std::uint64_t a = acc[i];
    a ^= a >> 47;
    a ^= Load64(secret + 8 * i);
    acc[i] = a * kPrime32_1;
  }
}

[[gnu::noinline]] std::uint64_t Long(const std::uint8_t* in, std::size_t len) {
  std::uint64_t acc[8] = {kPrime32_3, kPrime64_1, kPrime64_2, kPrime64_3,
                          kPrime64_4, kPrime32_2, kPrime64_5, kPrime32_1};
  const std::size_t stripes_per_block = (kSecretSize - kStripeBytes) / kSecretAdvancePerStripe;
  const std::size_t block_bytes = kStripeBytes * stripes_per_block;
  const std::size_t blocks = len / block_bytes;
  for (std::size_t b = 0; b < blocks; ++b) {
    for (std::size_t s = 0; s < stripes_per_block; ++s) {
      AccumulateStripe(acc, in + b * block_bytes + s * kStripeBytes,
                       kSecret + s * kSecretAdvancePerStripe);
    }
    Scramble(acc, kSecret + kSecretSize - kStripeBytes);
  }
  const std::size_t tail_stripes = (len - blocks * block_bytes) / kStripeBytes;
  for (std::size_t s = 0; s < tail_stripes; ++s) {
    AccumulateStripe(acc, in + blocks * block_bytes + s * kStripeBytes,
                     kSecret + s * kSecretAdvancePerStripe);
  }
  if (len % kStripeBytes != 0) {
    // The last 64 bytes again, with a secret offset by 7 so it differs from the scrambler's.
    AccumulateStripe(acc, in + len - kStripeBytes, kSecret + kSecretSize - kStripeBytes - 7);
  }
  // Merge with a secret offset by 11 (not a multiple of 8, unlike the accumulation's).
  const std::uint8_t* merge_secret = kSecret + 11;
  std::uint64_t result = len * kPrime64_1;
  for (std::size_t i = 0; i < 4; ++i) {
    result += MulFold64(acc[2 * i] ^ Load64(merge_secret + 16 * i),
                        acc[2 * i + 1] ^ Load64(merge_secret + 16 * i + 8));
  }
  return Avalanche(result);
}

}  // namespace

std::uint64_t Hash64(ByteSpan data) {
  const std::uint8_t* in = data.data();
  const std::size_t len = data.size();
  if (len <= 16) return Short0To16(in, len);
  if (len <= 128) return Medium17To128(in, len);
  if (len <= 240) return Medium129To240(in, len);
  return Long(in, len);
}

std::uint32_t LegacyBloomHash(ByteSpan key) {
  return leveldb::BloomHash(key, leveldb::HashFlavor::kSignedTail);
}

}  // namespace bloomcodec::rocksdb

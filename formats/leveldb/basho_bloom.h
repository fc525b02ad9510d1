// Internal to formats/leveldb: Basho's bloom2 filter (basho/leveldb util/bloom2.cc, the filter of
// Riak's eleveldb), which Basho writes under the name Google's LevelDB 1.18+ uses for its own
// filter, leveldb.BuiltinBloomFilter2 (FORMAT.md, "Basho's LevelDB").
//
//   ByteVector filter;
//   AppendBloom2Filter(Bloom2K(16), keys, filter);   // as Basho's CreateFilter with 16 bits/key
//   bool maybe = Bloom2MayContain(filter, key);
//
// A filter is `bytes` of bit array, then one byte k. Key i sets bits (h + (j + 1) * h2) mod P for
// j = 0 .. k-1 (h stepping by h rotated right by 17), where h is LevelDB's signed-tail hash and h2
// the low 32 bits of MurmurHash64A, and P depends only on the byte count (Bloom2Modulus).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/key_list.h"

namespace bloomcodec::leveldb {

// MurmurHash64A (Austin Appleby's 64-bit MurmurHash2 for 64-bit platforms), little-endian blocks:
// the MurmurHash Basho's x86-64 builds use.
std::uint64_t MurmurHash64A(ByteSpan data, std::uint64_t seed);
inline constexpr std::uint32_t kBloom2MurmurSeed = 0x5bd1e995;
// MurmurHash2 (32-bit) with its 4-byte blocks read little-endian: the MurmurHash every build of
// Basho's LevelDB but x86-64's uses (i386's MurmurHash2 loads native words, which are
// little-endian there; every other build has MurmurHashNeutral2, which reads them so).
std::uint32_t MurmurHash2(ByteSpan data, std::uint32_t seed);

// What bloom2's bits depend on in the build of Basho's LevelDB that wrote them (util/murmurhash.h
// picks the Murmur by platform, util/hash.cc's tail bytes are plain `char`, bloom2.cc's probe
// index is a size_t). FORMAT.md, "Basho's LevelDB", names the platforms of each.
struct Bloom2Build {
  std::string_view name;
  bool murmur64a = true;    // x86-64: MurmurHash64A's low 32 bits; else MurmurHash2
  bool signed_tail = true;  // char signed (x86, Apple arm64): tail bytes sign-extended
  bool wide_probe = true;   // 64-bit size_t: (j + 1) * h2 in 64 bits; 32-bit builds wrap
  std::string_view id;      // as --basho-build names it
};
inline constexpr Bloom2Build kBloom2X86_64{"x86-64", true, true, true, "x86-64"};
// The other builds, in the order verify tries them when x86-64's semantics deny stored keys.
std::span<const Bloom2Build> Bloom2OtherBuilds();
// The build --basho-build names ("x86-64", "arm64-linux", "arm64-macos", "i386", "armv7"); null
// for another name. kBloom2BuildIds lists them for messages.
const Bloom2Build* FindBloom2Build(std::string_view id);
inline constexpr std::string_view kBloom2BuildIds = "x86-64, arm64-linux, arm64-macos, i386, armv7";

// Byte counts below this take the largest prime <= 8 * bytes as their modulus; from here on the
// modulus is 8 * bytes (Basho's table ends here).
inline constexpr std::uint64_t kBloom2PrimeBytesLimit = 12498;
// P for a bit array of `bytes` bytes (>= 1), as a 32-bit unsigned as Basho computes it: for
// 2^29 bytes and more 8 * bytes wraps (0 for exactly 2^29: no probe is possible).
std::uint32_t Bloom2Modulus(std::uint64_t bytes);

// Basho's k for bits_per_key: floor(b * 0.69) clamped to 1 .. 30.
int Bloom2K(int bits_per_key);
// The byte count Basho's writer picks for `bits` wanted bits (bits >= 1): the smallest whose
// modulus is at least `bits`, starting at ceil(bits / 8).
std::uint64_t Bloom2BytesFor(std::uint64_t bits);

// Basho's KeyMayMatch on any bytes: fewer than 2 bytes -> false; k read as a signed char, so a
// last byte above 30 (or 0x80 and up, negative) -> true; k = 0 -> true.
// `build`: the writer's (x86-64 unless told).
bool Bloom2MayContain(ByteSpan filter, ByteSpan key, const Bloom2Build& build = kBloom2X86_64);
void Bloom2MayContainBatch(ByteSpan filter, const KeyList& keys, std::span<std::uint8_t> answers,
                           const Bloom2Build& build = kBloom2X86_64);

// Sets the bits of `key` in a bit array of `bytes` bytes (array[0 .. bytes)) with k probes.
void Bloom2AddKey(std::uint8_t* array, std::uint64_t bytes, int k, ByteSpan key,
                  const Bloom2Build& build = kBloom2X86_64);

// Appends Basho's CreateFilter output for `keys` with `bits_per_key`: bits = max(61, n * b),
// bytes = Bloom2BytesFor(bits), the array, then k.
void AppendBloom2Filter(int bits_per_key, const KeyList& keys, ByteVector& dst,
                        const Bloom2Build& build = kBloom2X86_64);

// Fill of a bloom2 filter: the bits set among the P bits probes can reach, and k (0 when the
// filter answers without probing: too short, k of 0 or above 30).
struct Bloom2Fill {
  std::uint64_t bits = 0;  // P
  std::uint64_t bits_set = 0;
  std::uint32_t hash_count = 0;
};
Bloom2Fill Bloom2FillOf(ByteSpan filter);

}  // namespace bloomcodec::leveldb

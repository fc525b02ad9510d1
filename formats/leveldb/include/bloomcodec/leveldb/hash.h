// The 32-bit hash LevelDB uses for its bloom filters (util/hash.cc), in both of its historical
// flavours.
//
//   using namespace bloomcodec::leveldb;
//   std::uint32_t h = BloomHash(AsBytes("user:42"), HashFlavor::kUnsignedTail);
//
// Compatibility contract: Hash(data, seed, kUnsignedTail) equals leveldb::Hash of LevelDB 1.18
// and later on every platform; Hash(data, seed, kSignedTail) equals leveldb::Hash of LevelDB
// 1.4 - 1.17 built where `char` is signed (x86, x86-64), and RocksDB's Hash(). The two differ only
// for inputs whose length is not a multiple of 4 and whose last (length % 4) bytes contain a byte
// >= 0x80.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bloomcodec/bytes.h"

namespace bloomcodec::leveldb {

enum class HashFlavor {
  kUnsignedTail,  // LevelDB 1.18+ (tail bytes zero-extended)
  kSignedTail,    // LevelDB <= 1.17 built for x86 (tail bytes sign-extended); RocksDB too
};

// The seed of the bloom policy's hash ("BloomHash" in util/bloom.cc).
inline constexpr std::uint32_t kBloomHashSeed = 0xbc9f1d34;

std::uint32_t Hash(ByteSpan data, std::uint32_t seed, HashFlavor flavor);
std::uint32_t BloomHash(ByteSpan key, HashFlavor flavor);  // seed 0xbc9f1d34

// The hash in two steps, for callers that interleave several keys' block loops (the bloom batch
// paths): Hash(data, seed, f) == HashResume(h, data.subspan(4 * b), f) where h is HashStart
// (data.size(), seed) advanced over the first b whole 4-byte blocks with HashBlock.
inline constexpr std::uint32_t kHashMultiplier = 0xc6a4a793;
inline std::uint32_t HashStart(std::size_t length, std::uint32_t seed) {
  // Trap: the original multiplies the size_t length by m in 32 bits (the length is truncated).
  return seed ^ (static_cast<std::uint32_t>(length) * kHashMultiplier);
}
inline std::uint32_t HashBlock(std::uint32_t state, std::uint32_t little_endian_block) {
  state += little_endian_block;
  state *= kHashMultiplier;
  return state ^ (state >> 16);
}
std::uint32_t HashResume(std::uint32_t state, ByteSpan rest, HashFlavor flavor);

}  // namespace bloomcodec::leveldb

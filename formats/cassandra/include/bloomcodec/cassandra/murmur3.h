// Cassandra's MurmurHash3 (org.apache.cassandra.utils.MurmurHash.hash3_x64_128, seed 0), the hash
// of every bloom filter from SSTable version ia (1.2) on, and the canonical C function it derives
// from.
//
//   const bloomcodec::cassandra::Murmur3Hash h = bloomcodec::cassandra::CassandraMurmur3(key);
//   // h.h0, h.h1: Java's result[0], result[1]
//
// Compatibility contract: for every byte string, CassandraMurmur3 equals what the Java method
// returns, bit for bit (checked against 1363 vectors made by the original class). It differs from
// CanonicalMurmur3 exactly when a tail byte (the last len % 16 bytes) at tail position 0..6 or
// 8..14 is >= 0x80: Java widens each tail byte with sign extension, the C code does not.
#pragma once

#include <cstdint>

#include "bloomcodec/bytes.h"

namespace bloomcodec::cassandra {

struct Murmur3Hash {
  std::int64_t h0;  // result[0]; also the Murmur3Partitioner token
  std::int64_t h1;  // result[1]
};

Murmur3Hash CassandraMurmur3(ByteSpan key);
// MurmurHash3_x64_128 of the reference C code, seed 0, its two 64-bit output words.
Murmur3Hash CanonicalMurmur3(ByteSpan key);

}  // namespace bloomcodec::cassandra

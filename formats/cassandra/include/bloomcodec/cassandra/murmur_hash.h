// The two MurmurHash2 variants of Cassandra 0.7 - 1.1 (org.apache.cassandra.utils.MurmurHash),
// with the Java semantics that make them differ from the reference C code.
//
//   std::int64_t h1 = bloomcodec::cassandra::MurmurHash64(key, 0);
//   std::int64_t h2 = bloomcodec::cassandra::MurmurHash64(key, h1);  // seed: low 32 bits of h1
//
// Compatibility contract: for every byte string and seed, the result equals what Cassandra 1.0's
// Java `MurmurHash.hash64(ByteBuffer, position, length, seed)` resp. `hash32(...)` returns,
// bit for bit (checked against 3981 vectors each produced by the original class).
#pragma once

#include <cstdint>

#include "bloomcodec/bytes.h"

namespace bloomcodec::cassandra {

// MurmurHash64A as Java computes it: only the low 32 bits of `seed` are used, and tail bytes
// (len % 8) are sign-extended before they are mixed in. Used by Filter.db versions f .. hf.
std::int64_t MurmurHash64(ByteSpan key, std::int64_t seed);

// MurmurHash2 (32-bit) as Java computes it: tail bytes sign-extended and in reversed order
// compared with the C code. Used by the legacy filter (versions c .. e).
std::int32_t MurmurHash32(ByteSpan key, std::int32_t seed);

}  // namespace bloomcodec::cassandra

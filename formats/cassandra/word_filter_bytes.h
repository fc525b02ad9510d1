// Cassandra 1.0's Filter.db and the 1.2 - 5.0 Murmur3 filters share their first bytes: a
// big-endian int32 hash count and int32 word count, then the 64-bit words (private to the
// library).
#pragma once

#include <cstddef>
#include <cstdint>

#include "bloomcodec/bytes.h"
#include "codec/byte_writer.h"

namespace bloomcodec::cassandra {

// A new filter's serialized bytes, every word zero. The counts must already be checked (>= 0).
inline ByteVector NewWordFilterBytes(std::int32_t hash_count, std::int32_t word_count) {
  ByteVector bytes;
  const auto words = static_cast<std::size_t>(word_count);
  bytes.reserve(8 + words * 8);
  ByteWriter out(bytes);
  out.PutBigI32(hash_count);
  out.PutBigI32(word_count);
  out.PutZeros(words * 8);
  return bytes;
}

// A filter's serialized bytes around `words` as stored (undump): the header, then the words.
inline ByteVector WordFilterBytes(std::int32_t hash_count, std::int32_t word_count,
                                  ByteSpan words) {
  ByteVector bytes;
  bytes.reserve(8 + words.size());
  ByteWriter out(bytes);
  out.PutBigI32(hash_count);
  out.PutBigI32(word_count);
  out.PutBytes(words);
  return bytes;
}

}  // namespace bloomcodec::cassandra

// ByteWriter: appends fixed-width integers, varints and byte runs to a growing buffer.
//
//   bloomcodec::ByteVector out;
//   bloomcodec::ByteWriter w(out);
//   w.PutBigI32(hash_count);
//   w.PutBigI32(word_count);
//
// Writes never fail (the buffer grows); callers size-check their inputs before encoding.
#pragma once

#include <cstdint>

#include "bloomcodec/bytes.h"

namespace bloomcodec {

class ByteWriter {
 public:
  explicit ByteWriter(ByteVector& out) : out_(out) {}

  std::size_t size() const { return out_.size(); }
  void Reserve(std::size_t extra) { out_.reserve(out_.size() + extra); }

  void PutU8(std::uint8_t v) { out_.push_back(v); }
  void PutBigU16(std::uint16_t v);
  void PutBigU32(std::uint32_t v);
  void PutBigI32(std::int32_t v) { PutBigU32(static_cast<std::uint32_t>(v)); }
  void PutBigU64(std::uint64_t v);
  void PutBigI64(std::int64_t v) { PutBigU64(static_cast<std::uint64_t>(v)); }
  void PutLittleU32(std::uint32_t v);
  void PutLittleU64(std::uint64_t v);
  void PutVarint32(std::uint32_t v) { PutVarint64(v); }
  void PutVarint64(std::uint64_t v);
  void PutBytes(ByteSpan b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void PutZeros(std::size_t n) { out_.resize(out_.size() + n, 0); }
  // Overwrites 4 bytes already written at `position` (a length or offset filled in later).
  void PatchLittleU32(std::size_t position, std::uint32_t v);
  void PatchBigU32(std::size_t position, std::uint32_t v);

 private:
  ByteVector& out_;
};

// The low `bytes` bytes of v (1..8), most significant first: the variable-width integers of
// Cassandra's trie files.
inline void AppendBigEndian(ByteVector& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// One value alone in LevelDB's varint encoding (a field stored as its own bytes, e.g. a property).
inline ByteVector VarintBytes(std::uint64_t v) {
  ByteVector b;
  ByteWriter(b).PutVarint64(v);
  return b;
}

}  // namespace bloomcodec

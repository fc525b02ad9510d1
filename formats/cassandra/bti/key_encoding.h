// Internal to formats/cassandra: the byte-comparable form of a partition key (Cassandra's
// DecoratedKey) that a trie-indexed sstable's Partitions.db is built from, in the encoding each
// version's writer uses, and the check that the trie's path to a payload is a prefix of the key
// the payload leads to (which is how the writer's own reader finds that key).
//
//   std::optional<KeyEncoding> e = TrieKeyEncoding("ca", "bti");   // kOss41
//   const KeyForm form{*e, TokenKind::kMurmur3};
//   const std::int64_t token = Murmur3Token(CassandraMurmur3(key), key.size());
//   if (!IsKeyFormPrefix(form, token, key, path)) ...               // the lookup cannot find it
//
// Facts (datastax/cassandra, read at 031e185: BtiFormat.java's BtiVersion, DecoratedKey,
// ByteSource, Murmur3Partitioner; FORMAT.md "DataStax's trie-indexed versions"): the writer adds
// each key cut to the shortest prefix of its byte-comparable form that tells it from both
// neighbours (PartitionIndexBuilder). The form is NEXT_COMPONENT (0x40), the token's bytes,
// NEXT_COMPONENT, the key's bytes escaped, then the terminator 0x38 (none in LEGACY). The
// Murmur3 token is the first hash word (Long.MIN_VALUE made MAX_VALUE; an empty key is
// MIN_VALUE) as 8 big-endian bytes with the sign bit flipped; the ByteOrderedPartitioner's
// token is the key itself, escaped as the key is. The escape: a 0 byte is written
// 0x00 and starts an escape, in which a further 0 is 0xFE and anything else first ends it with
// 0xFF; the end of the key is 0x00, or 0xFE inside an escape (LEGACY adds 0x00 after that FE).
// Versions below `ca` use LEGACY, `ca` .. `cz` OSS41, `da` on OSS50; for a partition key of the
// Murmur3Partitioner or the ByteOrderedPartitioner OSS41 and OSS50 are the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/murmur3.h"

namespace bloomcodec::cassandra::bti {

enum class KeyEncoding { kLegacy, kOss41, kOss50 };

// "LEGACY", "OSS41", "OSS50" (ByteComparable.Version's names).
std::string_view KeyEncodingName(KeyEncoding e);

// The encoding of the trie's keys for a trie-indexed version; nullopt where it is not known to
// us (ScyllaDB's `ms` / `mt`, which encode the key their own way).
std::optional<KeyEncoding> TrieKeyEncoding(std::string_view version,
                                           std::string_view sstable_format);

// The Murmur3Partitioner's token of a key with Cassandra's hash `h` (its first word).
std::int64_t Murmur3Token(const Murmur3Hash& h, std::size_t key_size);

// The partitioners whose tokens are made here.
enum class TokenKind { kMurmur3, kByteOrdered };
struct KeyForm {
  KeyEncoding encoding = KeyEncoding::kOss50;
  TokenKind token = TokenKind::kMurmur3;
};

// Appends the whole byte-comparable form of the partition key to `out` (for writers of test
// data); `token` is the Murmur3 token (not used for kByteOrdered).
void AppendKeyForm(const KeyForm& form, std::int64_t token, ByteSpan key, ByteVector& out);

// Whether `path` is a prefix of that form (no allocation: the form is made byte by byte only as
// far as `path` goes).
bool IsKeyFormPrefix(const KeyForm& form, std::int64_t token, ByteSpan key, ByteSpan path);

}  // namespace bloomcodec::cassandra::bti

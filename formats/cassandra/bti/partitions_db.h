// Partitions.db of Cassandra 5.0 BTI sstables (version da) and of ScyllaDB's ms / mt: the
// partition index, an on-disk trie of the shortest byte-comparable prefixes that tell the
// partition keys apart, whose payloads lead to each partition.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(bti::PartitionsDb index, bti::ReadPartitionsDb(bytes, path));
//   for (const bti::PartitionPayload& p : index.payloads) {
//     if (p.position >= 0) ...   // Rows.db entry at p.position (starts with the key)
//     else ...                   // the partition at ~p.position of the uncompressed Data.db
//   }
//
// Layout (BtiFormat.md "Partition index", TrieNode.java): trie nodes written bottom-up (a child
// always before its parent), then the footer: the first and the last key (u16 BE length + key),
// then three i64 BE: the offset of that first key (= where the trie ends), the key count, the
// offset of the root node. A node starts with 4 type bits and 4 payload bits (pb):
//   0 PAYLOAD_ONLY                         type|pb
//   1 SINGLE_NOPAYLOAD_4  (pb is 0)        type|delta(4), byte
//   2 SINGLE_8, 4 SINGLE_16                type|pb, byte, delta (1 / 2 bytes)
//   3 SINGLE_NOPAYLOAD_12 (pb is 0)        type|delta(bits 8-11), delta(bits 0-7), byte
//   5 SPARSE_8, 7 _16, 8 _24, 9 _40        type|pb, count, count bytes, count deltas (1/2/3/5)
//   6 SPARSE_12                            the same with 12-bit deltas packed in pairs
//   10 DENSE_12, 11 _16, 12 _24, 13 _32, 14 _40, 15 LONG (8 bytes)
//                                          type|pb, first byte, count-1, count deltas (0: none)
// Deltas are big-endian and subtracted from the node's offset; 12-bit deltas are read as a BE
// u16 at 3*i/2, shifted right 4 for even i. The payload follows the node: pb 1..7, a pb-byte
// signed BE position; pb 8..15, one hash byte then a (pb-7)-byte signed BE position. A position
// >= 0 is an offset in Rows.db, a negative one ~offset in Data.db (uncompressed); there the
// partition key (u16 BE length + key) starts.
//
// Compatibility contract: the payloads come back in key order (a depth-first walk, transitions
// ascending), as Cassandra's partition iterator lists them. Stricter than the original, which
// reads only the nodes a lookup touches: any node or payload outside the trie, a child not
// before its parent, transitions not ascending, a leaf without payload, a node reached twice,
// more payloads than the footer's key count or a footer that does not add up is Corrupt at its
// offset. The hash byte is returned, not checked here (it needs the key: verify_keys.h checks it).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "cassandra/bti/page_window.h"

namespace bloomcodec::cassandra::bti {

struct PartitionPayload {
  std::uint64_t node_offset = 0;     // the node that carries it
  std::optional<std::uint8_t> hash;  // pb >= 8
  std::int64_t position = 0;         // >= 0 Rows.db, < 0 ~Data.db
  ByteVector prefix;  // the transitions from the root (the key's unique prefix), if asked for
};

struct PartitionsDb {
  ByteVector first_key;
  ByteVector last_key;
  std::uint64_t trie_end = 0;  // the footer's first-key offset
  std::uint64_t key_count = 0;
  std::uint64_t root = 0;
  std::vector<PartitionPayload> payloads;  // in key order
};

// The footer and every payload of the trie; errors name `source` and the offset.
// With `keep_prefixes` each payload also gets its path from the root (tests; the paths of a
// crafted trie can add up to the square of its size, so verify does without).
// ReadPartitionsDb is ReadPartitionsFooter and a PartitionsWalker (checking the tree) to the end.
Result<PartitionsDb> ReadPartitionsDb(ByteSpan file, std::string_view source,
                                      bool keep_prefixes = false);

// The footer alone (PartitionsDb without payloads): the keys, trie end, key count and root, with
// the same checks and errors as ReadPartitionsDb.
struct PartitionsFooter {
  ByteVector first_key;
  ByteVector last_key;
  std::uint64_t trie_end = 0;
  std::uint64_t key_count = 0;
  std::uint64_t root = 0;
};
Result<PartitionsFooter> ReadPartitionsFooter(ByteSpan file, std::string_view source);

// The payloads one at a time, in key order, for a reader whose memory must not grow with the
// trie: what it holds is the walk's stack (the pending siblings of the current path) and one
// node. Every check of ReadPartitionsDb is made, in the same order, with the same errors, but
// "a node reached twice" needs a bit per byte of the trie (1/8 of the file): `check_tree` asks
// for it; a second walk of a trie already walked with it can do without.
//
//   PartitionsWalker walk(file, path, footer, /*check_tree=*/true);
//   PartitionPayload p;
//   for (;;) {
//     BLOOMCODEC_ASSIGN_OR_RETURN(bool more, walk.Next(p));
//     if (!more) break;        // every payload seen and the footer's count checked
//     ...
//   }
//
// After an error the walk is over (Next must not be called again). `touched`, when given, is
// called with the byte range [begin, end) of each node (with its payload) as it is read, for a
// reader that gives back the pages behind it.
// A node still to be visited: where it is, how deep (its path's length) and the byte that leads
// to it from its parent.
struct TrieFrame {
  std::uint64_t offset;
  std::uint64_t depth;
  std::uint8_t transition;
};
class PartitionsWalker {
 public:
  PartitionsWalker(ByteSpan file, std::string_view source, const PartitionsFooter& footer,
                   bool check_tree, bool keep_prefixes = false);
  Result<bool> Next(PartitionPayload& out);
  void set_touched(std::function<void(std::uint64_t, std::uint64_t)> touched) {
    touched_ = std::move(touched);
  }
  // The same for the usual reader, a PageWindow over the file (instead of set_touched): its
  // Touch, called for every node, is inlined rather than reached through a std::function.
  void set_window(PageWindow* window) { window_ = window; }
  std::uint64_t payloads() const { return payloads_; }

 private:
  void Touched(std::uint64_t begin, std::uint64_t end) {
    if (window_ != nullptr) {
      window_->Touch(begin, end);
    } else if (touched_) {
      touched_(begin, end);
    }
  }

  ByteSpan file_;
  ByteSpan trie_;
  std::string source_;
  std::uint64_t key_count_ = 0;
  std::uint64_t payloads_ = 0;
  bool check_tree_ = false;
  bool keep_prefixes_ = false;
  bool finished_ = false;
  // The nodes still to be visited, the next on top; a node's children are decoded straight onto
  // it (in ascending order, then reversed in place).
  std::vector<TrieFrame> stack_;
  std::vector<bool> seen_;
  ByteVector path_;
  std::function<void(std::uint64_t, std::uint64_t)> touched_;
  PageWindow* window_ = nullptr;
};

// The node types' 4-bit codes (TrieNode.Types).
enum class TrieNodeType : std::uint8_t {
  kPayloadOnly = 0,
  kSingleNoPayload4 = 1,
  kSingle8 = 2,
  kSingleNoPayload12 = 3,
  kSingle16 = 4,
  kSparse8 = 5,
  kSparse12 = 6,
  kSparse16 = 7,
  kSparse24 = 8,
  kSparse40 = 9,
  kDense12 = 10,
  kDense16 = 11,
  kDense24 = 12,
  kDense32 = 13,
  kDense40 = 14,
  kDenseLong = 15,
};

// A writer from the specification, for tests and fuzz seeds: one entry per partition, sorted by
// `prefix`, no prefix a prefix of another (the unique prefixes Cassandra writes).
struct PartitionEntry {
  ByteVector prefix;
  std::optional<std::uint8_t> hash;
  std::int64_t position = 0;
};
struct TrieWriteOptions {
  // How a node with children is written: the smallest type that fits (Cassandra's choice),
  // or always sparse / always dense of the narrowest width that fits.
  enum class Shape { kSmallest, kSparse, kDense } shape = Shape::kSmallest;
  // Pointers at least this many bits wide (4, 8, 12, 16, 24, 32, 40, 64), to reach every type.
  int min_pointer_bits = 0;
  // Filler bytes before each node with children (distances beyond 12 and 16 bits).
  std::uint32_t gap_bytes = 0;
};
Result<ByteVector> WritePartitionsDb(const std::vector<PartitionEntry>& entries, ByteSpan first_key,
                                     ByteSpan last_key, const TrieWriteOptions& options = {});

}  // namespace bloomcodec::cassandra::bti

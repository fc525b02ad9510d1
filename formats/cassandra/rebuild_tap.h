// Repair's tap on verify's check of a Cassandra sstable (1.2 and later: Murmur3 filters).
// Internal to the library.
//
// A repair verifies the sstable, then builds its new Filter.db from the same keys and asks the
// result for every key: without the tap, two more passes over Index.db or the trie, each
// parsing and hashing every key. A Murmur3 filter's bits depend on a key only through its
// CassandraMurmur3 hash, and not on the order of the keys, so the hashes verify computes as it
// asks the old filter are all the new filter needs, whatever its size:
//
//   cassandra::RebuildTap tap(32 << 20);
//   SstableFiles files = sstable;
//   files.tap = &tap;                       // verify asks the old filter through TappedFilter
//   FileReport report = VerifySstable(files);
//   if (tap.complete()) for (std::span<const Murmur3Hash> c : tap.chunks()) filter.AddHashes(c);
//
// Verify hashes each key once either way: the tapped filter asks the old one with the hashes
// (Murmur3Filter::MayContainHashedBatch). The tap is complete only when verify's keys were every
// key of the filter (FilterKeys::complete) and every hash fit within its budget; otherwise the
// repair reads the keys again. Threads: verify's ranges add from its workers, in any order.
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/filter.h"

namespace bloomcodec::cassandra {

class RebuildTap {
 public:
  // `budget_bytes`: what the hashes may take (16 bytes a key); past it the tap keeps none.
  explicit RebuildTap(std::uint64_t budget_bytes) : budget_(budget_bytes) {}

  void Add(std::span<const Murmur3Hash> hashes);
  // Verify read every key of the filter, `count` of them (after the check).
  void MarkComplete(std::uint64_t count);

  // Every key's hash is here: verify read them all and they fit the budget.
  bool complete() const;
  std::uint64_t count() const;
  // The hashes, in batches of the order verify's ranges asked them (any order: a filter's bits
  // do not depend on it). After the verify returned.
  const std::vector<std::vector<Murmur3Hash>>& chunks() const { return chunks_; }

 private:
  const std::uint64_t budget_;
  mutable std::mutex lock_;
  std::vector<std::vector<Murmur3Hash>> chunks_;
  std::uint64_t count_ = 0;
  std::uint64_t complete_count_ = 0;
  bool marked_ = false;
  bool over_ = false;
};

// The old filter as verify asks it with a tap: each batch of keys hashed once, the hashes handed
// to the tap and the old filter asked with them.
class TappedFilter final : public Filter {
 public:
  TappedFilter(const Murmur3Filter& inner, RebuildTap& tap) : inner_(inner), tap_(tap) {}

  bool MayContain(ByteSpan key) const override;
  void MayContainBatch(const KeyList& keys, std::span<std::uint8_t> answers) const override;
  void MayContainBatch(std::span<const ByteSpan> keys,
                       std::span<std::uint8_t> answers) const override;
  std::uint32_t hash_count() const override { return inner_.hash_count(); }
  std::uint64_t bit_count() const override { return inner_.bit_count(); }
  std::uint64_t bits_set() const override { return inner_.bits_set(); }

 private:
  void Answer(std::span<const Murmur3Hash> hashes, std::span<std::uint8_t> answers) const;

  const Murmur3Filter& inner_;
  RebuildTap& tap_;
};

}  // namespace bloomcodec::cassandra

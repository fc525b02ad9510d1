// Internal to formats/rocksdb: the entries RocksDB's full and partitioned filter builders add for
// a table with a prefix extractor, key by key, as the hashes the bits builder keeps (its
// consecutive-duplicate collapse applied). Used by the filter rebuild (sst_rewrite*.cc); the
// facts and their sources are in formats/rocksdb/FORMAT.md, "Which entries the filter holds".
//
//   PrefixFilterEntries e(extractor, whole_key, partitioned, PrefixEntryRule::kBefore95, encoding);
//   for (each data entry's user key k, in file order) e.Add(k);   // repeats of a key too
//   std::vector<std::uint64_t> hashes = e.Close(nullptr);         // the (last) filter's entries
//
// Three rules, because RocksDB changed what the builder adds in 9.5 (PR #12872) and the order
// of the same entries in 9.6 (#12931, AddKeyAndAlt; the order matters to Ribbon's bytes):
// * kBefore95 (6.x to 9.4): each key, then its prefix when in the domain and not the last prefix
//   recorded; at a key after an in-domain key with no prefix recorded since the last reset, the
//   last recorded prefix again. Without whole-key filtering no prefix is ever recorded, so that
//   "last prefix" is the empty key, added once per filter (partition).
// * kFrom95 (9.5 on): as kBefore95 with whole-key filtering; without it each in-domain key's
//   prefix (a full filter), or the recording path with the real last prefix (a partitioned one).
// * kFrom96 (9.6 on): per key the prefix first, then the key (AddKeyAndAlt: the prefix unless
//   equal to the last prefix, the key or the last entry; the key unless equal to the last entry
//   or the last prefix); without whole-key filtering the prefix alone, as kFrom95.
// At a partition cut the next key's prefix goes to the closing partition (before 9.6 when it
// differs from the last recorded prefix), and the builder's state is reset; 9.6 on then adds the
// previous key's prefix to the new partition (before: the re-add above, at its first key).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "rocksdb/sst/prefix_extractor.h"

namespace bloomcodec::rocksdb {

enum class PrefixEntryRule { kBefore95, kFrom95, kFrom96 };

class PrefixFilterEntries {
 public:
  PrefixFilterEntries(const PrefixExtractor& extractor, bool whole_key, bool partitioned,
                      PrefixEntryRule rule, FilterEncoding encoding);

  // One data entry's user key, in file order (every entry: a repeated key matters to kBefore95).
  void Add(ByteSpan user_key);
  // Closes the filter (partition) being built before `next` (nullptr: the table ends) and
  // returns its entries; the next Add starts the next partition.
  std::vector<std::uint64_t> Close(const ByteSpan* next);
  // Entries of every filter closed so far and of the one being built.
  std::uint64_t total() const { return closed_ + hashes_.size(); }

 private:
  void Emit(ByteSpan entry);
  void EmitHash(std::uint64_t h);
  // The builder's own check beside the bits builder's: `entry` unless it equals the `last` one
  // `recorded`, which it then becomes.
  void EmitUnlessRecorded(ByteSpan entry, bool& recorded, ByteVector& last);
  // AddKeyAndAlt of 9.6 on: `key` and its prefix `alt`.
  void EmitKeyAndAlt(ByteSpan key, ByteSpan alt);
  void AddFrom96(ByteSpan key, bool in_domain);

  PrefixExtractor extractor_;
  bool whole_key_;
  bool readd_;   // after a reset, the last recorded prefix is added again at the next key
  bool record_;  // the prefix path records the prefix it adds (else: added, never recorded)
  FilterEncoding encoding_;
  PrefixEntryRule rule_;
  std::optional<std::uint64_t> prev_alt_;  // kFrom96: the last prefix hash AddKeyAndAlt saw
  ByteVector last_whole_key_, last_prefix_;
  bool whole_key_recorded_ = false;
  bool prefix_recorded_ = false;
  bool last_key_in_domain_ = false;
  std::vector<std::uint64_t> hashes_;
  std::uint64_t closed_ = 0;
};

}  // namespace bloomcodec::rocksdb

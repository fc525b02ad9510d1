// Verifying Cassandra 0.6 - 5.0 bloom filters: one Filter.db, or every SSTable of a data
// directory against its Index.db.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(auto sstables, cassandra::FindSstables("/var/lib/cassandra/data"));
//   for (const cassandra::SstableFiles& s : sstables) {
//     bloomcodec::FileReport r = cassandra::VerifySstable(s);   // thread-safe, one per task
//   }
//
// Compatibility contract: the filter is read as the release that wrote the sstable reads it for
// its version (descriptor.h): versions < c the 0.6 filter (each Index.db entry's String hashed
// as getBytes("UTF-16"), java_string.h), c .. e the legacy filter, f .. hf the 1.0 one, ia and
// later the Murmur3 filters of 1.2 - 5.0 (murmur3_filter.h), their Index.db entries in the
// version's layout (index_db.h). A BTI sstable and ScyllaDB's ms / mt have no Index.db: their
// keys come through Partitions.db (bti/verify_keys.h; info finding "key-source"). A missing Filter.db is what 1.0
// turns into BloomFilter.emptyFilter(), and what 1.2+ means by fp chance 1.0 (the
// always-present filter; 5.0 also writes it as a 0-byte file): every key is reported present
// and every read of the sstable goes to disk. We report it as a WARNING (kind "missing-filter"): no answer is wrong (an empty
// filter has no false negatives) and Cassandra opens the sstable as designed; the cost is
// speed, and it shows as fp rate 1 for the sstable in its column family's combined rate.
// Findings:
//   structure (error)       the Filter.db bytes violate the layout (offset of the first one);
//                           a 1.2+ filter with K > 21, which Cassandra cannot look up
//   index (error)           Index.db is damaged (offset); the keys before it are still checked.
//                           Also a whole Index.db / Partitions.db with fewer keys than the
//                           partitions Statistics.db records (statistics_db.h): the fill is then
//                           judged by the filter's size and K alone
//   false-negative (error)  Index.db keys the filter answers "definitely absent"; when another
//                           known layout of the family answers every key (not by chance), the
//                           finding names it (message, field "answers_every_key_as")
//   overfilled (error)      more bits set than the Index.db key count (or the keys given, or
//                           without either the filter's own size and K) can set but with a
//                           chance of 1e-6 (JudgeFill); every bit set when the count cannot
//   undersized (warning)    every bit set, with a count that can set them all: the sizing
//   missing-index (error: Cassandra cannot open the sstable, nothing to check keys against)
//   missing-filter (warning, see above)
//   trailing-bytes (warning) bytes after the filter, which the original ignores
//   hash-count (warning)    K = 0 (every key present) or K > 20
//   key-text (error)        --keys for a 0.6 filter holds a key that is not UTF-8 text
//   statistics (info/error) Statistics.db's partitioner and fp chance (ka and later), or its
//                           damage at an offset (statistics_db.h)
//   fp-chance (warning)     the fill's fp rate is outside what a filter sized for the Index.db
//                           key count at the table's fp chance shows (false alarm <= 1e-6) and
//                           more than 25% off its promise (statistics_db.h, JudgeFpChance)
//   temporary, key-source (info: where a trie-indexed sstable's keys came from)
//   not-sstable (info)      a directory's file named like an sstable component whose version or
//                           component no writer uses (descriptor.h, ClassifyName): not read
//   no-database (info)      a directory whose only sstable-like names are such look-alikes
//   partitioner (info)      before e: the partitioner Index.db's keys show (index_db.h)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/cassandra/era.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"
#include "cassandra/descriptor.h"
#include "cassandra/filter_keys.h"
#include "cassandra/index_db.h"

namespace bloomcodec::cassandra {

class RebuildTap;  // rebuild_tap.h

// Checks one filter's bytes (read as `era`'s Filter.db; for the 0.6 era the keys are then the
// Strings' UTF-16 bytes) and, when `keys` is given, every key
// against it (keys->Check: streamed, on the run's idle workers). The fill is judged against the
// keys' count when they are complete and `sized_from` names them ("index" or "keys"), else
// against the most keys the filter's size and K allow; every bit set is always a finding.
// Appends to `report`; returns the count the fill was judged against, if any. `tap`: a repair's
// (rebuild_tap.h), given the hashes of the keys a Murmur3 filter is asked for.
std::optional<double> VerifyFilterBytes(ByteSpan file, Era era, FilterKeys* keys,
                                        const std::string& sized_from, FileReport& report,
                                        RebuildTap* tap = nullptr);

// One SSTable of a data directory, by its components.
struct SstableFiles {
  Descriptor descriptor;
  // "<keyspace>/<column family>" (what one read consults together); for a copy in snapshots/<tag>/
  // or backups/, that name with " (snapshot <tag>)" / " (backups)" appended, and `role` says so.
  std::string group;
  GroupRole role = GroupRole::kLive;
  std::string filter_path;      // where Filter.db is or would be
  std::string index_path;       // where Index.db is or would be
  std::string statistics_path;  // where Statistics.db is or would be
  bool has_filter = false;
  bool has_index = false;
  bool has_statistics = false;
  // --partitioner: how Index.db keys before e are read; nullopt: told from the data.
  std::optional<IndexKeyForm> forced_key_form;
  StreamLimits limits;  // how much of Index.db is held at once (filter_keys.h)
  // A repair's (rebuild_tap.h): the keys' hashes kept as verify asks a Murmur3 filter. Null for
  // verify itself.
  RebuildTap* tap = nullptr;
};

// A file whose name resembles an sstable component but is not one (descriptor.h, ClassifyName:
// its version or its component is none a writer uses).
struct SkippedName {
  std::string path;
  std::string reason;  // LookalikeReason
};

// Every SSTable under `root` (keyspace subfolders included), sorted by path. Files whose names
// are not SSTable component names are ignored; those that resemble one go to `skipped` (in
// the order found) when it is given. IoError when `root` cannot be listed.
Result<std::vector<SstableFiles>> FindSstables(const std::string& root,
                                               std::vector<SkippedName>* skipped = nullptr);

// The report of a skipped name: an info finding "not-sstable" saying why (nothing is read).
FileReport SkippedReport(const SkippedName& skipped);

// Verifies one SSTable's filter against its Index.db (reads both files; never fails: problems
// are findings).
FileReport VerifySstable(const SstableFiles& sstable);

// Verifies a single filter file. `era` says how to read it (from the file name's version or
// --format); `keys` or `index_path` (an Index.db, decoded for `version`) supply the keys.
FileReport VerifyFilterFile(const std::string& path, Era era, const std::string& version,
                            const KeyStream* keys, const std::string& index_path,
                            std::optional<IndexKeyForm> forced_key_form = std::nullopt,
                            const StreamLimits& limits = {});

}  // namespace bloomcodec::cassandra

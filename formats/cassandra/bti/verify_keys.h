// The partition keys of a trie-indexed sstable (Cassandra 5.0 BTI, ScyllaDB ms / mt), for verify
// and inspect: Partitions.db's payloads followed to Rows.db or (through CompressionInfo.db)
// Data.db, where each partition's key is written in full.
//
//   bti::StreamTrieIndexKeys(prefix, "da", "bti", {}, report,
//                            [&](const KeyList& chunk) { /* check the chunk */ });
//   std::optional<IndexDb> keys = bti::LoadTrieIndexKeys(prefix, "da", "bti", report);  // whole
//
// Compatibility contract: the keys in Partitions.db order, each as Data.db (or Rows.db) holds it,
// which is what the writer gave the filter. Damage in any of the files, and a payload's hash
// byte that is not the low byte of its key's Murmur3 h1, is a finding (kind "index") naming the
// file and offset. Damage in the trie (Partitions.db) means no key at all; a partition that cannot
// be read in Data.db or Rows.db costs its own key only: the keys of the other payloads still come
// (the finding counts the keys that cannot be read).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bloomcodec/cassandra/murmur3.h"
#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/verify.h"
#include "cassandra/index_db.h"

namespace bloomcodec::cassandra::bti {

// Info finding: where the keys of a trie-indexed sstable came from.
inline constexpr std::string_view kKeySource = finding_kind::kKeySource;

// BTI (any version) and ScyllaDB's BIG versions ms and mt (which Apache Cassandra never wrote).
bool UsesTrieIndex(std::string_view version, std::string_view sstable_format);

// How a stream of keys is cut and how much of the mapped files it keeps.
struct TrieStreamLimits {
  std::size_t chunk_keys = 1 << 16;       // keys per delivered chunk at most (0 counts as 1)
  std::uint64_t window_bytes = 4u << 20;  // mapped pages given back after this much is read
};

// What a stream read, for the caller's judgement (the findings are in the report).
struct TrieStreamResult {
  // Partitions.db could be opened. False: a missing-index finding says why and no key came
  // (LoadTrieIndexKeys' nullopt).
  bool opened = false;
  // Its trie is sound (footer and every node): the key-source info line was added. False with
  // `opened`: an "index" finding names the damage and no key came ("(no keys are read)").
  bool trie_read = false;
  std::uint64_t keys = 0;          // keys delivered, in all chunks
  std::uint64_t key_count = 0;     // the footer's (every payload's, when trie_read)
  std::uint64_t through_rows = 0;  // keys read from Rows.db
  // Every payload's key was read and the stream added no "index" or "unsupported" finding:
  // `keys` is the sstable's key count, fit to judge the filter's fill by.
  bool complete = false;
};

// The keys of a trie-indexed sstable as a stream: the same keys, in the same order, with the same
// findings as LoadTrieIndexKeys (which is this stream collected), in memory that does not grow
// with the sstable.
//
//   bti::TrieStreamResult r = bti::StreamTrieIndexKeys(prefix, "da", "bti", {}, report,
//       [&](const KeyList& chunk) { filter.MayContainBatch(chunk, answers); ... });
//   if (r.complete) sized = r.keys;
//
// Contract:
// - on_chunk gets the keys in Partitions.db (key) order, in chunks of 1..limits.chunk_keys keys
//   (never an empty one), in one KeyList the stream reuses: the chunk is valid only during the
//   call. Concatenated, the chunks are LoadTrieIndexKeys' keys exactly.
// - Damage in the trie means no keys (as ReadPartitionsDb says), but it may be found only at
//   the end of the walk (a node reached twice, the footer's key count): when the result's
//   trie_read is false, the chunks given before must be dropped (their findings already are).
// - Partitions.db is walked once, every node checked as it is met, following the payloads
//   (checking the whole trie first cost a second walk: a fifth of verify's CPU on BTI). Data.db
//   (one decompressed chunk at a time) and Rows.db are read front to back, as the partitions
//   are, each opened when a payload first leads there.
//   The mapped pages of Partitions.db, Data.db and Rows.db are given back behind the reading in
//   windows of limits.window_bytes, so the resident set is a few windows and chunks. What does
//   grow with the sstable: the walk's bit per byte of the trie (1/8 of Partitions.db, to find a
//   node reached twice) and CompressionInfo.db's chunk offsets (8 bytes per chunk).
// - Called inside a WorkPool task (codec/parallel.h), the keys of each chunk are read by up to
//   pool->threads() ParallelFor items, each a contiguous slice of the chunk's payloads with its
//   own Data.db / Rows.db reader; the slices are merged in order, so keys, chunk boundaries and
//   findings never depend on scheduling. Outside a pool it is one loop. The trie walk itself is
//   sequential: it is cheap next to decompressing Data.db, and a trie split at the root's
//   children would need every subtree's keys held until the ones before it are delivered.
// - Findings are appended to `report` when the stream returns, after the last chunk, in the
//   order LoadTrieIndexKeys gives them (damage, then the key-source info line): a caller that
//   adds its own findings about the keys should add them after the call to keep today's order.
// - Runs on the calling thread; on_chunk is always called on it, never concurrently.
TrieStreamResult StreamTrieIndexKeys(const std::string& prefix, std::string_view version,
                                     std::string_view sstable_format,
                                     const TrieStreamLimits& limits, FileReport& report,
                                     const std::function<void(const KeyList& chunk)>& on_chunk);

// The same, with each key's payload position (>= 0 Rows.db, < 0 ~Data.db) beside it.
TrieStreamResult StreamTrieIndexKeysWithPositions(
    const std::string& prefix, std::string_view version, std::string_view sstable_format,
    const TrieStreamLimits& limits, FileReport& report,
    const std::function<void(const KeyList& chunk, std::span<const std::int64_t> positions)>&
        on_chunk);

// The same, with each key's CassandraMurmur3 beside it: the stream hashes every key anyway to
// check its payload's hash byte, so a Murmur3 filter probes with these
// (Murmur3Filter::MayContainHashedBatch) instead of hashing each key again.
TrieStreamResult StreamTrieIndexKeysWithHashes(
    const std::string& prefix, std::string_view version, std::string_view sstable_format,
    const TrieStreamLimits& limits, FileReport& report,
    const std::function<void(const KeyList& chunk, std::span<const Murmur3Hash> hashes)>& on_chunk);

// `prefix` is the component path without the component ("<dir>/da-1-bti-"). Nullopt when
// Partitions.db cannot be opened (a finding says so); otherwise the keys read, with the
// Data.db / Rows.db positions the payloads gave (>= 0 Rows.db, < 0 ~Data.db). The stream above,
// collected whole (memory grows with the sstable: for tests and small tables).
std::optional<IndexDb> LoadTrieIndexKeys(const std::string& prefix, std::string_view version,
                                         std::string_view sstable_format, FileReport& report);

// For inspect: index "Partitions.db", keys (the footer's count), keys_read, through_rows_db,
// data_compression ({compressor, chunk_length, chunks, data_length} or "none"), summary (the
// key-source line of verify) and, when something is damaged or missing, problem.
Document DescribeTrieIndex(const std::string& prefix, std::string_view version,
                           std::string_view sstable_format);

}  // namespace bloomcodec::cassandra::bti

// The partition keys of a trie-indexed sstable (Cassandra 5.0 BTI, ScyllaDB ms / mt), for verify
// and inspect: Partitions.db's payloads followed to Rows.db or (through CompressionInfo.db)
// Data.db, where each partition's key is written in full.
//
//   std::optional<IndexDb> keys = bti::LoadTrieIndexKeys(prefix, "da", "bti", report);
//
// Compatibility contract: the keys in Partitions.db order, each as Data.db (or Rows.db) holds it,
// which is what the writer gave the filter. Damage in any of the files, and a payload's hash
// byte that is not the low byte of its key's Murmur3 h1, is a finding (kind "index") naming the
// file and offset; the keys read before it, and the keys of other payloads
// when one partition cannot be read, are still returned.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "bloomcodec/format.h"
#include "bloomcodec/verify.h"
#include "cassandra/index_db.h"

namespace bloomcodec::cassandra::bti {

// Info finding: where the keys of a trie-indexed sstable came from.
inline constexpr std::string_view kKeySource = "key-source";

// BTI (any version) and ScyllaDB's BIG versions ms and mt (which Apache Cassandra never wrote).
bool UsesTrieIndex(std::string_view version, std::string_view sstable_format);

// `prefix` is the component path without the component ("<dir>/da-1-bti-"). Nullopt when
// Partitions.db cannot be opened (a finding says so); otherwise the keys read, with the
// Data.db / Rows.db positions the payloads gave (>= 0 Rows.db, < 0 ~Data.db).
std::optional<IndexDb> LoadTrieIndexKeys(const std::string& prefix, std::string_view version,
                                         std::string_view sstable_format, FileReport& report);

// For inspect: index "Partitions.db", keys (the footer's count), keys_read, through_rows_db,
// data_compression ({compressor, chunk_length, chunks, data_length} or "none"), summary (the
// key-source line of verify) and, when something is damaged or missing, problem.
Document DescribeTrieIndex(const std::string& prefix, std::string_view version,
                           std::string_view sstable_format);

}  // namespace bloomcodec::cassandra::bti

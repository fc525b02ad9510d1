// Verifying RocksDB SST files: one file, or every table of a RocksDB database directory.
//
//   if (bloomcodec::rocksdb::LooksLikeRocksDb(dir)) {
//     BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<std::string> ssts, FindSstFiles(dir));
//     for (const std::string& t : ssts) bloomcodec::FileReport r = VerifySst(t, nullptr, dir);
//   }
//
// What an SST is checked for: the footer, every block's trailer checksum (data blocks, index
// and its partitions, metaindex, every meta block the metaindex names, filter partitions),
// every block's structure (entries, restarts, strictly increasing keys; internal keys in data
// blocks), each index key bracketing its data block's last key, the entry count against the
// property rocksdb.num.entries, and every user key of the data blocks answered "may contain" by
// the filter (whole-key filtering; each false negative counted). `probes` (optional) must be
// answered "may contain" too. Data blocks are read once, keys asked in batches, the pages behind
// the cursor given back, a large SST checked in ranges on every core and merged in order (the
// report does not depend on the split; blocktable/stream.h). Statistics: the filter's bits, bits set and probes; the fp rate of
// a Bloom filter from its fill (fill^k), of a Ribbon filter measured with synthetic absent keys.
// Findings: structure (error, offset), false-negative (error), overfilled (error), no-filter
// (warning), unsupported (warning: a filter RocksDB 7.8 does not use, or no whole-key
// filtering), unreadable (error).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"
#include "rocksdb/sst/prefix_extractor.h"

namespace bloomcodec::rocksdb {

// A RocksDB database directory: an OPTIONS-* file next to CURRENT, or an NNNNNN.sst whose
// footer carries the block-based magic of format_version >= 1 (LevelDB never writes it). A
// folder without CURRENT is also a set of SSTs when any file in it, whatever its name, ends in
// that magic.
bool LooksLikeRocksDb(const std::string& dir);
// The table files of the directory (NNNNNN.sst, also .gz; without CURRENT also every other file
// ending in the block-based magic), sorted by name.
Result<std::vector<std::string>> FindSstFiles(const std::string& dir);

// A table ending in LevelDB's magic that RocksDB wrote (format_version 0): its metaindex names
// RocksDB's properties block, which LevelDB never writes.
bool IsRocksDbFormatVersion0Table(ByteSpan bytes, const std::string& path);

// `prefix` replaces the extractor the table records (--prefix-extractor); without it the
// built-in extractors the properties name (rocksdb.FixedPrefix.N, rocksdb.CappedPrefix.N,
// rocksdb.Noop) are applied: the prefix of every key in the extractor's domain must pass the
// full or partitioned filter, as must every whole key with whole-key filtering.
FileReport VerifySst(const std::string& path, const KeyStream* probes, const std::string& group,
                     const std::optional<PrefixExtractor>& prefix = std::nullopt);

}  // namespace bloomcodec::rocksdb

// Verifying RocksDB SST files: one file, or every table of a RocksDB database directory
// (rocksdb/sst/table_files.h finds them).
//
//   bloomcodec::FileReport r = bloomcodec::rocksdb::VerifySst(path, nullptr, db_dir);
//
// What an SST is checked for: the footer, every block's trailer checksum (data blocks, index
// and its partitions, metaindex, every meta block the metaindex names, filter partitions),
// every block's structure (entries, restarts, strictly increasing keys; internal keys in data
// blocks), each index key bracketing its data block's last key, the entry count against the
// property rocksdb.num.entries, and every user key of the data blocks answered "may contain" by
// the filter (whole-key filtering; each false negative counted). `probes` (optional) must be
// answered "may contain" too. The scan and the report are the block-table verify pipeline's
// (blocktable/verify.h): data blocks are read once, keys asked in batches, the pages behind the
// cursor given back, a large SST checked in ranges on every core and merged in order (the
// report does not depend on the split; blocktable/stream.h). Statistics: the filter's bits,
// bits set and probes; the fp rate of a Bloom filter from its fill (fill^k), of a Ribbon filter
// measured with synthetic absent keys. Findings: structure (error, offset), false-negative
// (error), overfilled (error), undersized (warning), no-filter (warning), unsupported (warning: a
// filter RocksDB 7.8 does not use, no whole-key filtering, a table type or format_version not
// read), unknown (warning: no table magic), unreadable (error).
#pragma once

#include <optional>
#include <string>

#include "bloomcodec/key_stream.h"
#include "bloomcodec/verify.h"
#include "rocksdb/sst/prefix_extractor.h"

namespace bloomcodec::rocksdb {

class RebuildTap;  // rocksdb/sst/rebuild_tap.h

// `prefix` replaces the extractor the table records (--prefix-extractor); without it the
// built-in extractors the properties name (rocksdb.FixedPrefix.N, rocksdb.CappedPrefix.N,
// rocksdb.Noop) are applied: the prefix of every key in the extractor's domain must pass the
// full or partitioned filter, as must every whole key with whole-key filtering.
// `tap` (a repair's, rebuild_tap.h): the table's new filter is built from the keys the scan
// asks, when the table is one the tap takes; the report is the same with or without it.
FileReport VerifySst(const std::string& path, const KeyStream* probes, const std::string& group,
                     const std::optional<PrefixExtractor>& prefix = std::nullopt,
                     RebuildTap* tap = nullptr);

}  // namespace bloomcodec::rocksdb

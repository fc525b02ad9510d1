// Internal to formats/rocksdb: the filter entries of a table with a prefix extractor, for the
// filter rebuild (sst_rewrite.cc, sst_rewrite_partitioned.cc). Which entries and why: FORMAT.md,
// "Which entries the filter holds" and "Rebuilding the filters of prefix tables".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "blocktable/block_handle.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/status.h"
#include "rocksdb/sst/prefix_extractor.h"
#include "rocksdb/sst/prefix_filter_entries.h"

namespace bloomcodec::rocksdb {

class SstReader;

// The extractor the table's properties name, when it is one whose prefixes we compute (the
// built-ins and TiKV's, prefix_extractor.h); nullopt for none ("nullptr" or no property).
// Unsupported for any other name: the filter holds prefixes we cannot compute.
Result<std::optional<PrefixExtractor>> RebuildableExtractor(const SstReader& sst);

// The entries each filter takes: one list of collapsed hashes per group of data blocks (one
// group: a full filter; one per partition, in order: a partitioned filter, cut before each
// group's first key), and the rule of the RocksDB release they follow.
struct PrefixedEntries {
  std::uint64_t entries = 0;  // data entries read
  std::vector<std::vector<std::uint64_t>> filters;
  PrefixEntryRule rule = PrefixEntryRule::kBefore95;
  std::uint64_t total() const;
};
// `mapped` (may be null): the mapped file the table lies in; each group's pages are given back
// behind the pass (blocktable::BlockRunPages).
Result<PrefixedEntries> PassOverPrefixedKeys(
    const SstReader& sst, const PrefixExtractor& extractor, FilterEncoding encoding,
    std::span<const std::vector<blocktable::BlockHandle>> groups, bool partitioned,
    const InputFile* mapped);

}  // namespace bloomcodec::rocksdb

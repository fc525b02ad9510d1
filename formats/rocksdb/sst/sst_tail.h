// The pieces of an SST's rewritten tail shared by the full-filter rewrite (sst_rewrite.cc) and
// the partitioned one (sst_rewrite_partitioned.cc): blocks copied or written at their new
// offsets, and the properties block with some entries replaced. Internal to the library.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "blocktable/block_handle.h"
#include "blocktable/trailer.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/status.h"
#include "rocksdb/sst/prefix_extractor.h"

namespace bloomcodec::rocksdb {

class SstReader;
struct SstFilterTail;

// A new file's tail being built: its bytes start at `base` in the file.
struct SstTailBytes {
  std::uint64_t base = 0;
  ByteVector bytes;
  std::uint64_t at() const { return base + bytes.size(); }
};

// A block (with its 5-byte trailer) copied from `file`; returns its new handle. A context
// checksum (format_version >= 6) depends on the block's offset: it is moved along (the stored
// value keeps whatever it was, right or wrong, relative to the block's place).
blocktable::BlockHandle CopySstBlock(ByteSpan file, const blocktable::BlockHandle& h,
                                     const blocktable::TrailerFormat& trailer, SstTailBytes& out);
// `contents` written uncompressed with its trailer; returns its handle.
blocktable::BlockHandle WriteSstBlock(ByteSpan contents, const blocktable::TrailerFormat& trailer,
                                      SstTailBytes& out);

// The properties block's contents: every entry of `sst` kept except those `changes` names
// (nullopt: dropped, a value: replaced or added), in bytewise order of the names.
using PropertyChanges = std::map<std::string, std::optional<ByteVector>>;
ByteVector SstPropertiesWith(const SstReader& sst, const PropertyChanges& changes);
// The end of every rewritten tail, after the index (`index`: its handle, or its top level's):
// the properties block with `changes`, the metaindex of `meta` (plus the properties, and the
// index under format_version >= 6's context checksums) and the footer.
void WritePropertiesMetaindexAndFooter(const SstReader& sst, const blocktable::BlockHandle& index,
                                       std::map<std::string, blocktable::BlockHandle>& meta,
                                       const PropertyChanges& changes, SstTailBytes& out);
// The changes a rebuilt filter makes to `sst`'s properties: rocksdb.filter.policy (under the name
// the table's writer gives it: RebuiltFilterPolicyName), .filter.size and .num.filter_entries (no
// filter: the policy dropped, the counts 0).
PropertyChanges FilterPropertyChanges(const SstReader& sst, bool has_filter,
                                      FilterEncoding encoding, std::uint64_t filter_size,
                                      std::uint64_t filter_entries);

// Everything after the data blocks of a table with a two-level index and a full filter (or none):
// `filter` (nullopt: no filter), the index partitions moved and the index's top level re-encoded,
// the other meta blocks copied, the properties, metaindex and footer.
Result<ByteVector> WriteTwoLevelIndexTail(const SstReader& sst,
                                          const std::optional<ByteVector>& filter,
                                          FilterEncoding encoding, std::uint64_t filter_entries,
                                          std::uint64_t data_end);

// RewriteSstFilterTail for a partitioned filter (partition_filters with a two-level index).
// `prefix`: the table's extractor (RebuildableExtractor), whose prefixes the partitions take.
Result<SstFilterTail> RewritePartitionedFilterTail(const SstReader& sst,
                                                   std::optional<double> bits_per_key,
                                                   FilterEncoding encoding,
                                                   const std::optional<PrefixExtractor>& prefix,
                                                   const InputFile* mapped);

}  // namespace bloomcodec::rocksdb

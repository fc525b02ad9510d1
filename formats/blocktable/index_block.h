// Walking the index of a block-based table: each entry's key and the block handle its value holds,
// one level (the index block) or two (a top-level index whose entries name index partitions).
// How a value decodes is the table format's own (LevelDB: a handle; RocksDB: a handle or, with
// rocksdb.index.value.is.delta.encoded, a size delta; Pebble: a handle followed by encoded block
// properties), so the walk takes the format's decoder. Internal to the library.
//
//   using namespace bloomcodec::blocktable;
//   const IndexDecoder decode = [&](const IndexEntry& e) { return sst.DecodeIndexValue(e); };
//   BLOOMCODEC_RETURN_IF_ERROR(ForEachIndexEntry(
//       index, KeyOrder::kBytewise, ValueEncoding::kLengthPrefixed, decode,
//       [&](ByteSpan key, const BlockHandle& h) { return Visit(key, h); }));
//
// Contract: entries are visited in stored order; a decoder's error or the callback's ends the
// walk with that error, as does an entry the block iterator cannot decode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "blocktable/block.h"
#include "blocktable/block_handle.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::blocktable {

// One entry of an index block, as a decoder of its value sees it.
struct IndexEntry {
  const Block& block;
  std::size_t position = 0;  // the entry's, inside the block's bytes
  std::uint32_t shared = 0;  // its key's shared-prefix length (0 at a restart point)
  ByteSpan key;
  ByteSpan value;  // inside the block's bytes
  // The handle of the entry before it in the same block (delta-encoded values need it); null
  // for the block's first entry.
  const BlockHandle* previous = nullptr;
};

using IndexDecoder = std::function<Result<BlockHandle>(const IndexEntry& entry)>;
using IndexEntryFn = std::function<Status(ByteSpan key, const BlockHandle& handle)>;

// Every entry of `index` with its decoded handle. `order`: how the iterator reads the keys (an
// internal-key order refuses keys shorter than a tag; bytewise parses none).
Status ForEachIndexEntry(const Block& index, KeyOrder order, ValueEncoding values,
                         const IndexDecoder& decode, const IndexEntryFn& fn);

// How a table's index is laid out, for walking every data block it lists.
struct IndexLayout {
  const Block* index = nullptr;  // the index block (a two-level index: its top level)
  KeyOrder order = KeyOrder::kBytewise;
  ValueEncoding values = ValueEncoding::kLengthPrefixed;
  bool two_level = false;  // the index's entries name index partitions, which name data blocks
};

using ReadPartitionFn = std::function<Result<Block>(const BlockHandle& partition)>;

// Every data block the index lists, in order, with its index key (the partitions of a two-level
// index read with `read_partition`, each walked as the top level is).
Status ForEachIndexedBlock(const IndexLayout& layout, const IndexDecoder& decode,
                           const ReadPartitionFn& read_partition, const IndexEntryFn& fn);

}  // namespace bloomcodec::blocktable

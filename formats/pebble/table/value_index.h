// The value index of Pebblev3+ tables (FORMAT.md §5.3), read and re-encoded by the filter rewrites
// of row tables (table_rewrite.cc) and columnar tables (columnar_rewrite.cc): both move the value
// blocks when the filter's length changes, and the index holds their absolute offsets.
// Internal to the library (included as "pebble/table/value_index.h").
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(ValueIndex old, ReadValueIndex(table, metaindex_entry));
//   // ... the blocks of old.blocks copied to `out`, at new_handles ...
//   AppendedValueIndex appended = AppendValueIndex(new_handles, footer.checksum, out);
//   metaindex["pebble.value_index"] = appended.metaindex_value;
//
// Contract: ReadValueIndex checks the three width bytes (1..8), whole rows, block numbers 0, 1,
// 2... and every handle inside the file (Corrupt at an absolute offset otherwise).
// AppendValueIndex appends the index of `blocks` (their handles in the new table) to `out` as
// Pebble writes it (uncompressed, with `checksum`'s trailer), the widths chosen as Pebble's
// valblk.Writer.Finish chooses them: the bytes the last block number, the last (largest) offset
// and the longest length need, each at least 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "blocktable/footer.h"
#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"
#include "pebble/table/table_reader.h"

namespace bloomcodec::pebble {

struct ValueIndex {
  std::uint8_t widths[3] = {1, 1, 1};  // block number, offset, length
  std::vector<blocktable::BlockHandle> blocks;
};

Result<ValueIndex> ReadValueIndex(const PebbleTable& table,
                                  const rocksdb::SstMetaindexEntry& entry);
struct AppendedValueIndex {
  ByteVector metaindex_value;  // the block's handle, then the three widths
  std::uint64_t size = 0;      // of the block, without its trailer
};
// One block a filter rewrite lays out again after the new filter, in its input order: the
// index (copied, or a two-level index's partitions and top level), the value blocks, the value
// index, and any other block the metaindex names (copied).
enum class Moved { kCopied, kPartition, kTopIndex, kValueBlock, kValueIndex };
struct MovedBlock {
  Moved what = Moved::kCopied;
  blocktable::BlockHandle old;
  std::string meta_name;  // the metaindex entry naming it (kCopied, kValueIndex)
};
// Appends the blocks the metaindex names, but the properties and the filter, to `moved`: the
// value index's blocks and the index itself (ReadValueIndex's checks), every other one as
// kCopied. Unsupported for an entry that is not a block handle.
Status CollectMetaindexBlocks(const PebbleTable& table, std::vector<MovedBlock>& moved);

// `base`: the offset of out[0] in the table (AppendPebbleBlock's).
AppendedValueIndex AppendValueIndex(const std::vector<blocktable::BlockHandle>& blocks,
                                    blocktable::ChecksumType checksum, ByteVector& out,
                                    std::uint64_t base = 0);

}  // namespace bloomcodec::pebble

// The value index of Pebblev3+ tables (FORMAT.md §5.3), read and re-encoded by the filter rewrites
// of row tables (table_rewrite.cc) and columnar tables (columnar_rewrite.cc): both move the value
// blocks when the filter's length changes, and the index holds their absolute offsets.
// Internal to the library (included as "pebble/table/value_index.h").
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(ValueIndex vi, ReadValueIndex(table, metaindex_entry));
//   std::uint8_t widths[3];
//   ByteVector bytes = EncodeValueIndex(moved_blocks, widths);
//
// Contract: ReadValueIndex checks the three width bytes (1..8), whole rows, block numbers 0, 1,
// 2... and every handle inside the file (Corrupt at an absolute offset otherwise).
// EncodeValueIndex chooses the widths as Pebble's valblk.Writer.Finish does: the bytes the last
// block number, the last (largest) offset and the longest length need, each at least 1.
#pragma once

#include <cstdint>
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
ByteVector EncodeValueIndex(const std::vector<blocktable::BlockHandle>& blocks,
                            std::uint8_t widths[3]);

}  // namespace bloomcodec::pebble

// The scan of a block-based table's data blocks for the verify pipeline (blocktable/verify.h):
// one scanner for every table format, which plugs in through VerifyPlugin's scan hooks.
// Internal to blocktable.
//
//   DataBlocks blocks = ...;  // the index's data blocks, listed once
//   ScanTotals totals = ScanDataBlocks(plugin, setup, file, blocks, /*check_structure=*/true);
//
// The table's blocks are split into ranges (blocktable/stream.h: SplitIntoRanges with the limits
// in force), each range checked and its keys asked of the filter on the run's workers
// (ParallelFor), the ranges' results merged in block order. A range knows nothing of the one
// before it, except what it reads back itself (the previous block's last key, when the format
// checks keys across blocks); the merge corrects what a range's first key could not know (a
// key or prefix that repeats the previous range's last). The totals are therefore exactly those
// of one range over the whole table. When filter groups do not increase from block to block (a
// damaged index), the table is one range.
#pragma once

#include <vector>

#include "blocktable/block_handle.h"
#include "blocktable/verify.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"

namespace bloomcodec::blocktable {

// The data blocks of a table, as its index lists them.
struct DataBlocks {
  std::vector<BlockHandle> handles;
  KeyList index_keys;  // each block's key in the index
  Status index_error;  // the index could not be walked past the last block listed
};

// `check_structure`: make the structure checks (false once damage was found before the data
// blocks: the keys are still walked and asked).
ScanTotals ScanDataBlocks(const VerifyPlugin& plugin, const VerifySetup& setup,
                          const InputFile& file, const DataBlocks& blocks, bool check_structure);

}  // namespace bloomcodec::blocktable

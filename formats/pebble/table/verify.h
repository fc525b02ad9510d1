// Verifying Pebble's tables, row-based (Pebblev1..v4) and columnar (Pebblev5..v8, their blocks
// re-laid as row blocks by PebbleTable) through the block-table verify pipeline
// (blocktable/verify.h). Internal to the library.
//
//   bloomcodec::FileReport r = bloomcodec::pebble::VerifyPebbleTable(path, nullptr, dir);
//
// What a table is checked for: the footer; every block's trailer checksum (CRC-32C or XXHash64)
// and structure (entries, restarts with Pebblev3's flag bit masked, keys strictly increasing as
// internal keys); index values (a handle and well-formed block properties), two-level indexes;
// Pebble's key kinds (Pebblev4's obsolete bit stripped; kinds that have no place in a data block
// are damage); Pebblev3+ value prefixes of SETs (in place or a value-block handle); each index
// key at or after its data block's last key; the counts the properties claim (entries, range
// deletions, deletions, merges, sized deletions); and key[:Split(key)] of every point key
// answered "may contain" by the table filter (each false negative counted). Columnar tables add
// their footer checksum and attributes and the columnar checks of formats/pebble/colblk (column
// layout, key order under the comparer, prefix-changed and obsolete bitmaps, keyspan blocks);
// crdb1's filter holds Split prefixes. Findings: structure (error, offset), false-negative
// (error), overfilled (error), no-filter (warning), unsupported (warning: a format version we do
// not know, a key schema we do not know, a comparer whose Split and order we do not implement, a
// filter of another family, a block compressed with MinLZ proper).
#pragma once

#include <string>

#include "bloomcodec/key_stream.h"
#include "bloomcodec/verify.h"

namespace bloomcodec::pebble {

class RebuildTap;  // rebuild_tap.h

// `tap`: a repair's (rebuild_tap.h), which builds the table's new filter from the keys the scan
// reads; may be null.
FileReport VerifyPebbleTable(const std::string& path, const KeyStream* probes,
                             const std::string& group, RebuildTap* tap = nullptr);

}  // namespace bloomcodec::pebble

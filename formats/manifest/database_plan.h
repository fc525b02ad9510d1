// verify's plan for a database directory read through CURRENT and its MANIFEST, shared by the
// LevelDB and RocksDB families (each gives how to verify one of its tables and read its keys) and
// made for Pebble's (formats/pebble/database.h: the same view, with virtual tables).
//
// Reports: one per live table (its level, column family and MANIFEST set; a table whose first or
// last key is not the MANIFEST's smallest or largest is a "key-range" error; a live table not on
// disk is a "missing-table" error, counted as p = 1 in its group), one per table file no version
// references (group role "obsolete", an info finding, out of the live rate), and one for CURRENT
// or the MANIFEST only when they have findings (no group: not in any rate). A Pebble virtual table
// is verified at its backing file, once however many virtual tables share it (the report names
// them and takes the first one's level), without the key-range check (it covers part of the
// backing's keys; comparing bounds would need the comparer); a Pebble table with range keys is
// checked against its point-key bounds, and one with range keys only is not checked. When
// CURRENT names no readable MANIFEST, or
// the MANIFEST is damaged, that report also says that verify fell back to the directory listing
// (every table file taken as live, levels unknown).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "blocktable/block.h"
#include "blocktable/block_handle.h"
#include "bloomcodec/verify.h"
#include "manifest/manifest.h"

namespace bloomcodec::manifest {

// The user keys a table's entries span, and the bounds range deletions add (RocksDB: a table's
// MANIFEST range covers its range tombstones too).
struct TableKeyRange {
  bool empty = true;  // no entries
  ByteVector first, last;
  std::vector<ByteVector> tombstone_bounds;  // user keys of range deletion starts and ends
};

// Fills range.first / range.last (user keys) from a table's data blocks in index order, reading
// only the first and the last block that hold an entry (not the whole table).
Status FirstAndLastKeys(
    const std::vector<blocktable::BlockHandle>& blocks,
    const std::function<Result<blocktable::Block>(const blocktable::BlockHandle&)>& read,
    blocktable::KeyOrder order, TableKeyRange& range);

struct TableCheck {
  std::string_view format;  // the CLI format name of the family's tables
  // A std::function: a family may carry what it learned of the whole database (LevelDB: the
  // writer its LOG or sibling tables show) into each table's check.
  std::function<FileReport(const std::string& path, const std::string& group)> verify;
  Result<TableKeyRange> (*key_range)(const std::string& path) = nullptr;
  // Optional: what the family adds to a live table's report once its level is known (Pebble:
  // the filter policy OPTIONS gives the level, and the levels whose filters reads skip).
  std::function<void(const LiveTable& live, FileReport& report)> adjust;
};

// The tasks of a database directory. `fallback` lists the table files to verify when the
// MANIFEST cannot be used (the directory listing, as without CURRENT).
void PlanDatabase(const std::string& dir, DatabaseView view, const TableCheck& check,
                  const std::vector<std::string>& fallback, std::vector<VerifyTask>& tasks);

// The group name of a column family's tables: the directory for "default", "dir:name" for
// the others (a read consults one column family).
std::string GroupOf(const std::string& dir, const std::string& column_family);

}  // namespace bloomcodec::manifest

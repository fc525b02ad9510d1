// Verifying LevelDB tables: one .ldb / .sst file, or every table of a database directory
// (leveldb/table/table_files.h finds them).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<std::string> tables, leveldb::FindTables(db_dir));
//   for (const std::string& t : tables) {
//     bloomcodec::FileReport r = leveldb::VerifyTable(t, KeyKind::kUser, nullptr, db_dir);
//   }
//
// What a table is checked for: everything TableReader::Verify checks (block CRCs, block
// structure, key order, index separators, filter block layout, a filter for every data block),
// and then, block by block, every stored key against the filter of its block (user keys in a
// database's tables, as LevelDB's InternalFilterPolicy hashes them). Unlike Verify, which stops
// at the first false negative, every false negative is counted (and a false negative does not
// hide damage further on). The scan and the report are the block-table verify pipeline's
// (blocktable/verify.h): each data block is read once; keys are asked in batches per filter;
// the mapped pages behind the cursor are given back; a large table is split into ranges of data
// blocks checked on every core and merged in order, so the report does not depend on the split
// (blocktable/stream.h holds the limits; tests shrink them). Statistics: each filter of the
// filter block is a bloom filter of its own, sized by LevelDB for exactly the keys hashed into
// it, so its fill is judged against that count (JudgeFill: false alarm <= 1e-6); the table's
// fp rate is the mean of its filters' rates weighted by their key counts (a probe consults the
// one filter of the block it falls in), its estimated keys the sum of the filters' estimates.
// Findings: structure (error, with the offset), false-negative (error), overfilled (error),
// undersized (warning: saturated by the keys counted), unknown (warning: no table magic),
// no-filter (warning: every lookup reads a data block), a filter of LevelDB <= 1.17
// (warning "unsupported": LevelDB 1.18+ ignores it; the report's filter_ignored_by_reader makes
// the group summary count it as p = 1, a 1.18+ reader being assumed), unreadable (error).
#pragma once

#include <string>

#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"
#include "leveldb/table/table_reader.h"

namespace bloomcodec::leveldb {

class RebuildTap;

// For a single table given without --key-kind: fails (InvalidArgument, bad usage) when the
// table's key kind cannot be told and the check needs it (a filter to rebuild, or `probes`).
// A table without a filter and without probes needs none. Damage is left to VerifyTable.
Status CheckKeyKindKnown(const std::string& path, KeyKind key_kind, bool probes);
// Fails (InvalidArgument) when a forced writer's policy name is not the table's filter's.
Status CheckWriterFits(const std::string& path, FilterWriter writer);

// Verifies the table at `path`. `key_kind`: kUser for a database's tables; kAuto decides from
// the table (when it cannot and the check needs the kind: a "no-keys" error, not damage;
// CheckKeyKindKnown lets a caller refuse that case up front, as PlanVerify does). `probes`
// (optional) are keys that must also be answered "may contain" through the read path. `group` names what a read consults together (the database directory).
// `writer`: who wrote the filter (--writer); kAuto decides from the table's keys.
// `bloom2_build` (--basho-build): the build of Basho's LevelDB whose hashes a bloom2 filter is
// read with, stored keys and probes alike; null: x86-64's, or, when those deny stored keys, the
// build whose hashes deny the fewest (an `unsupported` warning names it; the probes are asked
// under it too).
// `tap`: a repair's (rebuild_tap.h), which builds the table's new filter block from the keys
// the scan asks; null for verify itself.
FileReport VerifyTable(const std::string& path, KeyKind key_kind, const KeyStream* probes,
                       const std::string& group, FilterWriter writer = FilterWriter::kAuto,
                       const Bloom2Build* bloom2_build = nullptr, RebuildTap* tap = nullptr);

}  // namespace bloomcodec::leveldb

// Internal to the library (formats/repair): the repair command's part for LSM database
// directories (LevelDB, goleveldb, Mojang's fork, RocksDB). RepairPaths (bloomcodec/repair.h)
// hands it every PATH that holds a CURRENT file; it plans from verify's findings and runs the
// database's transaction (lsmrepair/repair_transaction.h).
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<TableRepair> tables,
//                               RepairLsmDatabase("/data/db", options));
//
// The plan, per live table of the database's MANIFEST:
// * verify's findings decide: a table whose data, index or place in the MANIFEST is damaged
//   (unreadable, key-range, missing-table) is "damaged" and left alone; without parameters a
//   filter problem (false-negative, overfilled, undersized, hash-count, a damaged filter block,
//   no filter where the other tables of its column family have one) is rebuilt, every other
//   table is "sound"; with --bits-per-key or --to every table is rebuilt.
// * The parameters a table records (lsm_sizing.h): its filter's policy and the bits per key its
//   size and probe count imply.
// * A dry run computes every rewrite in memory and writes nothing (the LOCK is not taken).
#pragma once

#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "bloomcodec/repair.h"
#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"

namespace bloomcodec::rocksdb {
class RebuildTap;  // rocksdb/sst/rebuild_tap.h
}  // namespace bloomcodec::rocksdb
namespace bloomcodec::leveldb {
class RebuildTap;  // leveldb/table/rebuild_tap.h
}  // namespace bloomcodec::leveldb
namespace bloomcodec::pebble {
class RebuildTap;  // pebble/table/rebuild_tap.h
}  // namespace bloomcodec::pebble

namespace bloomcodec::repair_internal {

// A folder with a CURRENT file, or a Pebble database (handed to pebble_repair.h).
bool IsLsmDatabase(const std::string& dir);

// verify's reports of the database's live tables (those its MANIFEST's live version lists),
// which every LSM plan starts from. Refused when CURRENT or the MANIFEST is damaged (a repair
// writes its new MANIFEST from the old one's records); InvalidArgument when no table is live.
// `taps` (any may be null): the tables' new filters are built by verify's scan into them
// (rocksdb/sst/rebuild_tap.h, leveldb/table/rebuild_tap.h, pebble/table/rebuild_tap.h); the
// reports are the same.
struct RebuildTaps {
  std::shared_ptr<rocksdb::RebuildTap> rocksdb;
  std::shared_ptr<leveldb::RebuildTap> leveldb;
  std::shared_ptr<pebble::RebuildTap> pebble;
};
Result<std::vector<FileReport>> VerifyLiveTables(const std::string& dir,
                                                 const RebuildTaps& taps = {});

// A live table's row of the repair report as verify read it (path, format, level, keys, old fp
// rate), before the plan decides its action.
TableRepair DescribeLiveTable(const FileReport& r, const std::string& family);

// `table_progress` (may be empty) after each table rebuilt, in the transaction or the dry run.
Result<std::vector<TableRepair>> RepairLsmDatabase(
    const std::string& dir, const RepairOptions& options,
    const RepairTableProgressFn& table_progress = {});

}  // namespace bloomcodec::repair_internal

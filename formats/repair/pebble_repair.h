// Internal to formats/repair: the repair command's part for Pebble database directories, the
// counterpart of lsm_repair.h (verify's findings make the plan; lsmrepair/pebble_transaction.h
// carries it out). Pebble's row tables (Pebblev1..v4, and the RocksDBv2 and LevelDB tables Pebble
// writes below format major version 5, go-ethereum's) and columnar tables (Pebblev5+) are
// rewritten; a table chosen for a rebuild in a format it is not in is a refusal naming it, before
// anything is written.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<TableRepair> rows, RepairPebbleDatabase(dir, options));
#pragma once

#include <string>
#include <vector>

#include "bloomcodec/repair.h"
#include "bloomcodec/status.h"

namespace bloomcodec::repair_internal {

// `table_progress` (may be empty) after each table rebuilt, in the transaction or the dry run,
// as lsm_repair.h's.
Result<std::vector<TableRepair>> RepairPebbleDatabase(
    const std::string& dir, const RepairOptions& options,
    const RepairTableProgressFn& table_progress = {});

}  // namespace bloomcodec::repair_internal

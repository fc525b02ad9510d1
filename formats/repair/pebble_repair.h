// Internal to formats/repair: the repair command's part for Pebble database directories, the
// counterpart of lsm_repair.h (verify's findings make the plan; lsmrepair/pebble_transaction.h
// carries it out). Pebble's row (Pebblev1..v4) and columnar (Pebblev5+) tables are rewritten; a
// table chosen for a rebuild in another format (RocksDBv2 as Pebble v1 writes it) is a refusal
// naming it, before anything is written.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<TableRepair> rows, RepairPebbleDatabase(dir, options));
#pragma once

#include <string>
#include <vector>

#include "bloomcodec/repair.h"
#include "bloomcodec/status.h"

namespace bloomcodec::repair_internal {

Result<std::vector<TableRepair>> RepairPebbleDatabase(const std::string& dir,
                                                      const RepairOptions& options);

}  // namespace bloomcodec::repair_internal

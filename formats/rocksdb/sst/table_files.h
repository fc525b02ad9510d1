// The tables of a RocksDB database directory, or of a folder of SSTs. Internal to the library.
//
//   if (bloomcodec::rocksdb::LooksLikeRocksDb(dir)) {
//     BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<std::string> ssts, FindSstFiles(dir));
//     for (const std::string& t : ssts) bloomcodec::FileReport r = VerifySst(t, nullptr, dir);
//   }
#pragma once

#include <string>
#include <vector>

#include "bloomcodec/bytes.h"
#include "bloomcodec/status.h"

namespace bloomcodec::manifest {
struct TableKeyRange;
}

namespace bloomcodec::rocksdb {

// A RocksDB database directory: an OPTIONS-* file next to CURRENT, or an NNNNNN.sst whose
// footer carries the block-based magic of format_version >= 1 (LevelDB never writes it). A
// folder without CURRENT is also a set of SSTs when any file in it, whatever its name, ends in
// that magic.
bool LooksLikeRocksDb(const std::string& dir);
// The table files of the directory (NNNNNN.sst, also .gz; without CURRENT also every other file
// ending in the block-based magic), sorted by name.
Result<std::vector<std::string>> FindSstFiles(const std::string& dir);

// A table ending in LevelDB's magic that RocksDB wrote (format_version 0): its metaindex names
// RocksDB's properties block, which LevelDB never writes.
bool IsRocksDbFormatVersion0Table(ByteSpan bytes, const std::string& path);

// The first and last user keys of a database SST (any magic SstReader opens) and the bounds of
// its range deletions, which a MANIFEST's key range covers too (formats/rocksdb/verify_plan.cc;
// Pebble's planner uses it for the RocksDBv2 tables of its databases).
Result<manifest::TableKeyRange> SstKeyRange(const std::string& path);

}  // namespace bloomcodec::rocksdb

// The tables of a LevelDB database directory. Internal to the library.
//
//   if (bloomcodec::leveldb::LooksLikeDatabase(dir)) {
//     BLOOMCODEC_ASSIGN_OR_RETURN(std::vector<std::string> tables, FindTables(dir));
//   }
#pragma once

#include <string>
#include <vector>

#include "bloomcodec/status.h"

namespace bloomcodec::leveldb {

// True when `dir` looks like a database: a CURRENT file or at least one table file
// (blocktable::IsTableFileName: NNNNNN.ldb, NNNNNN.sst).
bool LooksLikeDatabase(const std::string& dir);
// The tables directly inside `dir` (LevelDB keeps no subfolders), sorted by name.
Result<std::vector<std::string>> FindTables(const std::string& dir);

}  // namespace bloomcodec::leveldb

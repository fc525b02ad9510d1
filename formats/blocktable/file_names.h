// The names a database directory gives its table files, for LevelDB (and its forks) and RocksDB
// alike. Internal to the library.
//
//   if (blocktable::IsSstFileName(entry.path().filename().string())) tables.push_back(...);
//
// Contract: LevelDB's TableFileName and RocksDB's MakeTableFileName write the file number in
// decimal (at least six digits) followed by ".ldb" (LevelDB 1.14+) or ".sst" (older LevelDB,
// every RocksDB). A ".gz" appended is accepted too: a gzipped copy (how fixtures are stored) is
// read transparently by InputFile.
#pragma once

#include <string_view>

namespace bloomcodec::blocktable {

// NNNNNN.ldb or NNNNNN.sst (also with .gz appended): a LevelDB database's tables.
bool IsTableFileName(std::string_view name);
// NNNNNN.sst (also with .gz appended): a RocksDB database's tables.
bool IsSstFileName(std::string_view name);

}  // namespace bloomcodec::blocktable

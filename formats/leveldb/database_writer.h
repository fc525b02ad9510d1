// Internal: who wrote a LevelDB-family database, decided for the whole directory, for the tables
// whose own keys cannot tell (verify_plan.cc).
//
//   auto writer = std::make_shared<leveldb::DatabaseWriter>(dir, tables);
//   FileReport r = writer->Verify(path, group);  // VerifyTable, the database's writer applied
//
// goleveldb names its filter leveldb.BuiltinBloomFilter, as LevelDB <= 1.17 did, and hashes a
// key's tail bytes unsigned where 1.17 sign-extends them; a table tells the two apart only by a
// key with a tail byte >= 0x80 (table_reader.h). A table without one is its database's: goleveldb
// reads its filters, LevelDB 1.18+ ignores them. The evidence, in this order:
//   1. the LOG (or LOG.old): goleveldb's starts with a "=============== <date> ==============="
//      line and names its events as "db@open", "version@stat", "table@build"; LevelDB's lines
//      start "YYYY/MM/DD-HH:MM:SS.uuuuuu <thread>". Only the first 4 KiB are read.
//   2. the sibling tables (every table file of the directory, the undecided one aside): the
//      first whose keys decide (goleveldb or LevelDB 1.17) decides for the database. Read at
//      most once per directory, and only when an undecided table asks.
// Nothing decided: the table stays "leveldb-1.17-or-goleveldb" (its warning says why).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/leveldb/options.h"
#include "bloomcodec/verify.h"

namespace bloomcodec::leveldb {

class RebuildTap;

enum class LogWriter { kUnknown, kGoLevelDb, kLevelDb };

// What a LOG file's first bytes show (`text`: its start).
LogWriter LogWriterOf(std::string_view text);

class DatabaseWriter {
 public:
  // `tables`: the directory's table files (the siblings asked when the LOG does not tell).
  // `tap`: a repair's (table/rebuild_tap.h), handed to every table's verify; may be null.
  DatabaseWriter(std::string dir, std::vector<std::string> tables,
                 std::shared_ptr<RebuildTap> tap = nullptr);

  // VerifyTable of a database table (user keys); a table whose keys cannot tell its writer is
  // verified again as the database's writer's when the database shows goleveldb, with an info
  // finding "manifest" naming the evidence.
  FileReport Verify(const std::string& path, const std::string& group) const;

 private:
  struct Decision {
    bool goleveldb = false;
    std::string evidence;  // what showed it
  };
  const Decision& Decide(const std::string& asking) const;

  std::string dir_;
  std::vector<std::string> tables_;
  std::shared_ptr<RebuildTap> tap_;
  mutable std::once_flag once_;
  mutable Decision decision_;
};

}  // namespace bloomcodec::leveldb

// What myrocks_repair_test.cc's cases share (internal to the test): the database MariaDB's
// MyRocks writes once for the suite, copies of its data directory, the facts of a table's filter
// as our reader sees them, and MariaDB started again on a repaired copy to read every row back.
//
//   MyRocksDatabase db;
//   db.Write();                                    // a private mariadbd writes, then stops
//   const std::string data = db.CopyTo(dir);       // DIR/data: a data directory of its own
//   ... bloomcodec repair DIR/data/#rocksdb ...
//   ReadBackWithMariaDb(dir, repair_document);     // a private mariadbd on DIR/data
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "bloomcodec/rocksdb/full_filter.h"
#include "cli/cli_runner.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::repair_test {

class MyRocksDatabase {
 public:
  // Starts a private mariadbd (kConfig), creates and fills the tables, flushes the memtables,
  // stops the server, and finds each column family's table; error() says what failed.
  void Write();
  const std::string& error() const { return error_; }

  std::string rocksdb_dir() const { return dir_->path() + "/data/#rocksdb"; }
  // The file name of the one table of column family `cf` (default, __system__, cf_bb, cf_bb13,
  // cf_pfx, cf_rib, cf_rib0).
  std::string table_of(const std::string& cf) const;
  // Copies the data directory to DIR/data (MariaDbServer's layout under DIR); returns its path.
  std::string CopyTo(const std::string& dir) const;

 private:
  std::unique_ptr<testing::CliDir> dir_;
  std::map<std::string, std::string> tables_;  // column family -> file name
  std::string error_;
};

// Every regular file of a directory: name -> bytes.
using FileBytes = std::map<std::string, std::string>;
FileBytes ReadFiles(const std::string& dir);
std::string ReadFileBytes(const std::string& path);

// A table's filter as our reader sees it.
struct TableFacts {
  rocksdb::FilterPlacement placement = rocksdb::FilterPlacement::kFull;
  std::string comparator;
  std::string prefix_extractor;  // "" without one
  std::string policy;            // rocksdb.filter.policy as recorded
  std::uint64_t filter_bytes = 0;
  std::string filter_block;  // its bytes (a partitioned filter: the top-level index)
  rocksdb::FullFilterKind kind = rocksdb::FullFilterKind::kEmpty;  // a full filter's
  std::uint32_t probes = 0;        // a full filter's, or the first block-based filter's
  std::uint32_t legacy_lines = 0;  // a legacy full filter's cache lines
};
TableFacts ReadTableFacts(const std::string& path);

// Flips one byte in the middle of a table's filter block (its block checksum then fails).
void FlipFilterByte(const std::string& path);

// `bloomcodec verify DIR --json` finds no error, and every file it lists is live in `manifest`
// and named in `live`, which it lists whole.
void ExpectVerifyLists(const std::string& rocksdb_dir, const std::string& manifest,
                       const std::set<std::string>& live);

// Starts MariaDB on DIR/data (repaired as `repair_doc`, a `repair --json` document says), reads
// every row by primary key (and absent keys between them) and by full scans of every index,
// compares them with what was inserted, checks that the whole-key filters answered (MyRocks's
// bloom counters), that MariaDB's live tables are the repair's with its filter sizes, that a
// repair of the running server's database is refused (exit 2, its LOCK), and that the error log
// has no corruption; then stops it.
void ReadBackWithMariaDb(const std::string& dir, const nlohmann::json& repair_doc);

// How MariaDB's own filters answer absent keys next to stored ones: starts MariaDB on DIR/data,
// looks up t1's absent ids 3 s + 1 (s = 1 .. 3000, between its stored ids 3 s; its primary key is
// in the default family) one statement each, and returns the share its filters let through
// (false positives over false positives and denials, from its bloom counters); then stops it.
double NearKeyPassRateOfMariaDb(const std::string& dir);

}  // namespace bloomcodec::repair_test

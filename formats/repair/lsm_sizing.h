// Internal to formats/repair: what an LSM database is (family, how its writer switches CURRENT,
// which filter layouts its readers read) and what each table's new filter is (layout and bits
// per key: given, or the ones the table records). See lsm_repair.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bloomcodec/leveldb/bloom.h"
#include "bloomcodec/repair.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"

namespace bloomcodec::repair_internal {

enum class LsmFamily { kLevelDb, kGoLevelDb, kRocksDb };

struct LsmDatabase {
  std::string dir;
  LsmFamily family = LsmFamily::kLevelDb;
  std::string family_name;  // "leveldb" (Mojang's fork included), "goleveldb", "rocksdb"
  // RocksDB: the release that last opened the database (its newest OPTIONS file), when known.
  std::optional<std::string> rocksdb_version;
};

// The family from the directory and verify's reports of its live tables. A goleveldb database:
// a table whose keys show goleveldb's hash, or goleveldb's CURRENT.bak.
LsmDatabase DescribeDatabase(const std::string& dir, const std::vector<FileReport>& live);

// The parameters checked against the database before anything is read twice: --fp-chance is
// refused (these databases size filters by bits per key), --bits-per-key must be one the family's
// policy takes, --to must name a layout the database's readers read.
Status CheckLsmOptions(const LsmDatabase& db, const RepairOptions& options);

// The RocksDB kind a --to name asks for (rocksdb-bloom-legacy, rocksdb-bloom, rocksdb-ribbon);
// nullopt for any other name (the table's own kind stays).
std::optional<rocksdb::FilterEncoding> EncodingNamed(const std::string& to);

// One table's new filter.
struct FilterSizing {
  std::string format;  // a --format name: leveldb-bloom, goleveldb-bloom, rocksdb-ribbon, ...
  double bits_per_key = 0;
  std::string basis;                                // where the parameters come from, in words
  std::optional<leveldb::BloomPolicy> policy;       // LevelDB family
  std::optional<rocksdb::FilterEncoding> encoding;  // RocksDB: nullopt keeps the table's kind
  // RocksDB tables with a prefix extractor: the entries its filter holds (prefixes beside or
  // instead of keys), which size it and its fp rate; nullopt: its keys.
  std::optional<std::uint64_t> filter_entries;
};

// The table's new filter: the options' parameters, else what the table records (its filter's
// policy; the bits per key its size and probe count imply), else `sibling` (a table of the same
// column family with a filter), else the family's customary 10 bits per key.
Result<FilterSizing> SizingFor(const LsmDatabase& db, const FileReport& report,
                               const RepairOptions& options,
                               const std::optional<FilterSizing>& sibling);

// The new filter of a rewritten table (its bytes): size and estimated fp rate for `keys` keys.
struct FilterFacts {
  std::uint64_t bytes = 0;
  std::optional<double> fp_rate;
  std::string format;
};
Result<FilterFacts> NewFilterFacts(const LsmDatabase& db, ByteSpan table, const std::string& path,
                                   std::uint64_t keys);
// The same from the filter block's contents alone (a full filter for RocksDB, LevelDB's filter
// block), for a rewrite whose table is never assembled (the dry run).
Result<FilterFacts> FilterBlockFacts(const LsmDatabase& db, ByteSpan filter_block,
                                     const std::string& path, std::uint64_t keys);

// The same of a partitioned filter from its bytes alone (`filter`: its partitions and their
// index, each block with its trailer, written at `filter_offset` of the new table; the index's
// contents the last `index_size` bytes before the last trailer); `old_table` is the table that
// was rewritten (its reader decodes the index entries). For a rewrite never assembled.
Result<FilterFacts> NewPartitionedFilterFacts(ByteSpan old_table, ByteSpan filter,
                                              std::uint64_t filter_offset, std::uint64_t index_size,
                                              const std::string& path, std::uint64_t keys);

// The false-positive rate of a bloom filter of `bits` bits and `k` hashes holding `n` keys.
double BloomFpRate(double bits, double k, double n);

}  // namespace bloomcodec::repair_internal

// MyRocks as Debian 12 ships it (MariaDB 10.11, RocksDB 6.29.5 inside ha_rocksdb): a private
// mariadbd of the test's own (data directory and socket in a temporary directory, no network)
// loads ha_rocksdb with a legacy Bloom filter, a capped prefix extractor and whole-key filtering
// off by default (MariaDB's recommended setup), plus column families with whole keys, partitioned
// filters and reverse order (index comments 'rev:...'). Tables are filled, memtables flushed, the
// server stopped; then `bloomcodec verify --json` of the `#rocksdb` directory reports no finding
// above info, every primary key written is stored in a table, every stored key is answered "may
// contain" by its table's read path (partition lookups in the comparator's direction), and each
// filter's fill is judged against the count the table records (rocksdb.num.filter_entries).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bloomcodec/input_file.h"
#include "cli/cli_runner.h"
#include "myrocks/mariadb_server.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::rocksdb {
namespace {

namespace fs = std::filesystem;
using testing::CliDir;
using testing::MariaDbServer;
using testing::MissingMyRocksPrograms;
using testing::RunCli;

// The server's configuration: MariaDB's knowledge base setup by default (legacy Bloom full
// filter, capped:8, whole key off), and families that vary it.
constexpr const char* kConfig =
    "plugin-load-add=ha_rocksdb\n"
    "rocksdb_default_cf_options=block_based_table_factory={filter_policy=bloomfilter:10:false;"
    "whole_key_filtering=0};prefix_extractor=capped:8\n"
    "rocksdb_override_cf_options="
    "cf_wk={block_based_table_factory={filter_policy=bloomfilter:10:false;whole_key_filtering=1};"
    "prefix_extractor=capped:12};"
    "cf_part={block_based_table_factory={filter_policy=bloomfilter:10:false;whole_key_filtering=0;"
    "partition_filters=true;index_type=kTwoLevelIndexSearch;metadata_block_size=256};"
    "prefix_extractor=capped:8};"
    "rev:cf_rpart={block_based_table_factory={filter_policy=bloomfilter:10:false;"
    "whole_key_filtering=1;partition_filters=true;index_type=kTwoLevelIndexSearch;"
    "metadata_block_size=256};prefix_extractor=capped:12}\n";

constexpr const char* kTables = R"sql(
CREATE DATABASE t; USE t;
CREATE TABLE t1 (id INT PRIMARY KEY, a INT, b VARCHAR(20),
  KEY ka (a) COMMENT 'rev:cf1', KEY kb (b) COMMENT 'cfname=cf_wk') ENGINE=ROCKSDB;
CREATE TABLE t2 (id INT, v VARCHAR(30), PRIMARY KEY (id) COMMENT 'cf_part') ENGINE=ROCKSDB;
CREATE TABLE t3 (id BIGINT, v VARCHAR(30), PRIMARY KEY (id) COMMENT 'rev:cf_rpart') ENGINE=ROCKSDB;
CREATE TABLE t4 (id INT PRIMARY KEY, v VARCHAR(30)) ENGINE=ROCKSDB COMMENT='ttl_duration=3600;';
CREATE TABLE t5 (id INT, v INT, PRIMARY KEY (id) COMMENT 'rev:cf_rev') ENGINE=ROCKSDB;
INSERT INTO t1 SELECT seq, seq % 50, CONCAT('b', seq) FROM seq_1_to_2000;
INSERT INTO t2 SELECT seq, CONCAT('v', seq) FROM seq_1_to_3000;
INSERT INTO t3 SELECT seq * 7919, CONCAT('v', seq) FROM seq_1_to_3000;
INSERT INTO t4 SELECT seq, CONCAT('v', seq) FROM seq_1_to_500;
INSERT INTO t5 SELECT seq, seq FROM seq_1_to_1500;
SET GLOBAL rocksdb_force_flush_memtable_now=1;
)sql";

// Primary keys written: the table, its row count, the id of row `seq`, the id's width.
struct PrimaryKeys {
  std::string table;
  std::uint64_t rows;
  std::uint64_t step;
  int width;  // 4 INT, 8 BIGINT
};
const std::vector<PrimaryKeys> kPrimaryKeys = {{"t1", 2000, 1, 4},
                                               {"t2", 3000, 1, 4},
                                               {"t3", 3000, 7919, 8},
                                               {"t4", 500, 1, 4},
                                               {"t5", 1500, 1, 4}};

// MyRocks's key of a primary key row (MariaDB storage/rocksdb/rdb_datadic.h): the index number,
// 4 bytes big-endian, then the integer big-endian with its sign bit flipped (mem-comparable).
std::string PrimaryKey(std::uint32_t index_number, std::uint64_t id, int width) {
  std::string key;
  for (int i = 3; i >= 0; --i) key.push_back(static_cast<char>(index_number >> (8 * i)));
  const std::uint64_t flipped = id ^ (std::uint64_t{1} << (8 * width - 1));
  for (int i = width - 1; i >= 0; --i) key.push_back(static_cast<char>(flipped >> (8 * i)));
  return key;
}

struct Table {
  std::string column_family;
  std::uint64_t entries = 0;
  std::optional<std::uint64_t> filter_entries;  // rocksdb.num.filter_entries
  std::string comparator;
};

// Every user key of every table of the directory, and what each table records.
std::set<std::string> StoredKeys(const std::string& dir, std::map<std::string, Table>& tables) {
  std::set<std::string> keys;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".sst") continue;
    const std::string path = e.path().string();
    Result<InputFile> in = InputFile::Open(path);
    EXPECT_TRUE(in.ok()) << in.status().ToString();
    if (!in.ok()) continue;
    Result<SstReader> sst = SstReader::Open(in->bytes(), path);
    EXPECT_TRUE(sst.ok()) << sst.status().ToString();
    if (!sst.ok()) continue;
    Table& t = tables[path];
    t.comparator = sst->comparator_name();
    t.filter_entries = sst->properties()->Number("rocksdb.num.filter_entries");
    KeyList own;
    const Status s = sst->ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) {
      const ByteSpan user = UserKeyOf(key);
      keys.emplace(reinterpret_cast<const char*>(user.data()), user.size());
      own.Add(user);
      ++t.entries;
      return Status();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    // The read path (for a partitioned filter: the partition sought in the comparator's order)
    // answers every stored key "may contain".
    std::vector<std::uint8_t> answers(own.size(), 0);
    const Status asked = sst->MayContainBatch(own, answers);
    EXPECT_TRUE(asked.ok()) << asked.ToString();
    std::size_t absent = 0;
    for (std::uint8_t a : answers) absent += a == 0 ? 1 : 0;
    EXPECT_EQ(absent, 0u) << path << " (" << t.comparator << "): stored keys the read path denies";
  }
  return keys;
}

TEST(MyRocksWitness, MariaDbTablesVerifyWithEveryKeyAndNoFindingAboveInfo) {
  ASSERT_EQ(MissingMyRocksPrograms(), "");
  CliDir dir;
  std::string ddl;
  {
    MariaDbServer server(dir.path(), kConfig);  // stopped at the end of this block in any case
    ASSERT_TRUE(server.Start()) << server.error();
    std::string out;
    ASSERT_TRUE(server.Sql(kTables, out)) << server.error();
    ASSERT_TRUE(
        server.Sql("SELECT TABLE_NAME, INDEX_NAME, INDEX_NUMBER, CF FROM "
                   "information_schema.ROCKSDB_DDL WHERE TABLE_SCHEMA = 't';",
                   ddl))
        << server.error();
    ASSERT_TRUE(server.Stop()) << server.error();
  }
  const std::string rocksdb_dir = dir.path() + "/data/#rocksdb";

  // Index numbers of the primary keys, from the data dictionary.
  std::map<std::string, std::uint32_t> primary;
  std::set<std::string> families;
  std::istringstream rows(ddl);
  for (std::string table, index, number, cf; rows >> table >> index >> number >> cf;) {
    if (index == "PRIMARY") primary[table] = static_cast<std::uint32_t>(std::stoul(number));
    families.insert(cf);
  }
  ASSERT_EQ(primary.size(), kPrimaryKeys.size()) << ddl;
  EXPECT_TRUE(families.count("rev:cf1") && families.count("rev:cf_rpart") &&
              families.count("rev:cf_rev"))
      << ddl;

  std::map<std::string, Table> tables;
  const std::set<std::string> stored = StoredKeys(rocksdb_dir, tables);
  std::size_t missing = 0, written = 0;
  for (const PrimaryKeys& p : kPrimaryKeys) {
    for (std::uint64_t seq = 1; seq <= p.rows; ++seq) {
      ++written;
      if (!stored.count(PrimaryKey(primary.at(p.table), seq * p.step, p.width))) ++missing;
    }
  }
  EXPECT_EQ(missing, 0u) << "of " << written << " primary keys written";

  const testing::CliRun r = RunCli({"verify", rocksdb_dir, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  int reverse = 0, small = 0;
  for (const auto& f : report.at("files")) {
    const std::string path = f.at("path");
    for (const auto& finding : f.at("findings")) {
      EXPECT_EQ(finding.at("severity"), "info") << path << ": " << finding.dump();
    }
    EXPECT_EQ(f.at("false_negative_count"), 0) << path;
    if (!tables.count(path)) continue;  // not a table (none expected: only .sst are listed)
    const Table& t = tables.at(path);
    EXPECT_GT(f.at("keys_checked").get<std::uint64_t>(), 0u) << path;
    // The fill is judged against what the table records the filter took.
    ASSERT_TRUE(t.filter_entries.has_value()) << path;
    EXPECT_EQ(f.at("sized_keys"), *t.filter_entries) << path;
    if (t.comparator == "rev:RocksDB_SE_v3.10") ++reverse;
    if (*t.filter_entries < 16) ++small;
    std::printf("[myrocks] %s %s: %llu entries, filter entries %llu (table), keys checked %llu\n",
                f.value("column_family", std::string("default")).c_str(),
                fs::path(path).filename().c_str(), static_cast<unsigned long long>(t.entries),
                static_cast<unsigned long long>(*t.filter_entries),
                f.at("keys_checked").get<unsigned long long>());
  }
  EXPECT_EQ(report.at("files").size(), tables.size());
  EXPECT_GE(reverse, 3) << "tables of the three reverse-ordered column families";
  EXPECT_GE(small, 1) << "a filter too small to judge (rev:cf1: one prefix for all its keys)";
}

}  // namespace
}  // namespace bloomcodec::rocksdb

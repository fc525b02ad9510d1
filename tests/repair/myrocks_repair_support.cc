// The MyRocks database of the repair tests and MariaDB's read-back (myrocks_repair_support.h).
#include "repair/myrocks_repair_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "bloomcodec/input_file.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "myrocks/mariadb_server.h"
#include "support/test_support.h"

namespace bloomcodec::repair_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::MariaDbServer;

// Column families without a prefix extractor: default (a full legacy Bloom filter: MyRocks
// writes format_version 2), cf_bb and cf_bb13 (block-based filters at 10 and 13 bits per key);
// cf_pfx as MariaDB's knowledge base recommends (capped:8, whole keys off); cf_rib a Ribbon filter
// everywhere (`ribbonfilter:10:-1`) and cf_rib0 the Ribbon policy's default (`ribbonfilter:10`:
// Ribbon from level 0 on, a flush's table gets FastLocalBloom). RocksDB 6.29 builds both kinds
// whatever the format_version, and records each under the name of every built-in policy before
// 7.0, "rocksdb.BuiltinBloomFilter": only the filter's trailer tells them. Auto compactions off
// (see the test's header); a small InnoDB log keeps each copy of the data directory small.
constexpr const char* kConfig =
    "plugin-load-add=ha_rocksdb\n"
    "innodb_log_file_size=4M\n"
    "innodb_buffer_pool_size=16M\n"
    "rocksdb_default_cf_options=block_based_table_factory={filter_policy=bloomfilter:10:false};"
    "disable_auto_compactions=true\n"
    "rocksdb_override_cf_options="
    "cf_bb={block_based_table_factory={filter_policy=bloomfilter:10:true}};"
    "cf_bb13={block_based_table_factory={filter_policy=bloomfilter:13:true}};"
    "cf_pfx={block_based_table_factory={filter_policy=bloomfilter:10:false;whole_key_filtering=0};"
    "prefix_extractor=capped:8};"
    "cf_rib={block_based_table_factory={filter_policy=ribbonfilter:10:-1}};"
    "cf_rib0={block_based_table_factory={filter_policy=ribbonfilter:10}}\n";

// Row `s` (1..rows) of each table has id 3 s: ids 3 s + 1 are absent keys between stored ones,
// inside every table's key range (RocksDB asks the filter only there).
constexpr const char* kTables = R"sql(
CREATE DATABASE t; USE t;
CREATE TABLE t1 (id INT PRIMARY KEY, a INT, b VARCHAR(20), KEY ka (a)) ENGINE=ROCKSDB;
CREATE TABLE t2 (id INT, v VARCHAR(30), PRIMARY KEY (id) COMMENT 'cf_bb',
  KEY kv (v) COMMENT 'cf_bb13') ENGINE=ROCKSDB;
CREATE TABLE t3 (id INT, v VARCHAR(30), PRIMARY KEY (id) COMMENT 'cf_pfx') ENGINE=ROCKSDB;
CREATE TABLE t4 (id INT, v VARCHAR(30), PRIMARY KEY (id) COMMENT 'cf_rib') ENGINE=ROCKSDB;
CREATE TABLE t5 (id INT, v VARCHAR(30), PRIMARY KEY (id) COMMENT 'cf_rib0') ENGINE=ROCKSDB;
INSERT INTO t1 SELECT seq * 3, seq % 50, CONCAT('b', seq) FROM seq_1_to_3000;
INSERT INTO t2 SELECT seq * 3, CONCAT('v', seq) FROM seq_1_to_3000;
INSERT INTO t3 SELECT seq * 3, CONCAT('w', seq) FROM seq_1_to_2000;
INSERT INTO t4 SELECT seq * 3, CONCAT('r', seq) FROM seq_1_to_2500;
INSERT INTO t5 SELECT seq * 3, CONCAT('r', seq) FROM seq_1_to_2500;
SET GLOBAL rocksdb_force_flush_memtable_now=1;
)sql";

struct TableSpec {
  const char* name;
  const char* columns;  // what a read selects
  int rows;
  bool whole_keys;  // its primary key's family filters whole keys
};
constexpr TableSpec kSpecs[] = {{"t1", "id, a, b", 3000, true},
                                {"t2", "id, v", 3000, true},
                                {"t3", "id, v", 2000, false},
                                {"t4", "id, v", 2500, true},
                                {"t5", "id, v", 2500, true}};

// The line MariaDB's batch output gives for row `s` of `table` (its columns, tab-separated).
std::string RowLine(const TableSpec& table, int s) {
  const std::string id = std::to_string(3 * s);
  if (std::strcmp(table.name, "t1") == 0) {
    return id + "\t" + std::to_string(s % 50) + "\tb" + std::to_string(s) + "\n";
  }
  const char* v = std::strcmp(table.name, "t2") == 0   ? "\tv"
                  : std::strcmp(table.name, "t3") == 0 ? "\tw"
                                                       : "\tr";
  return id + v + std::to_string(s) + "\n";
}

std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines = testing::SplitLines(text);
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::map<std::string, std::uint64_t> BloomCounters(MariaDbServer& server) {
  std::string out;
  EXPECT_TRUE(server.Sql("SHOW GLOBAL STATUS LIKE 'rocksdb_bloom_filter%';", out))
      << server.error();
  std::map<std::string, std::uint64_t> counters;
  std::istringstream lines(out);
  std::string name;
  for (std::uint64_t value; lines >> name >> value;) counters[name] = value;
  return counters;
}

// Every row by primary key point lookups (one statement each), and absent keys between them;
// returns the absent lookups in whole-key families.
int ReadByPrimaryKey(MariaDbServer& server) {
  int absent_whole_key = 0;
  for (const TableSpec& table : kSpecs) {
    std::string statements = "USE t;\n", expected, out;
    for (int s = 1; s <= table.rows; ++s) {
      const std::string select = std::string("SELECT ") + table.columns + " FROM " + table.name;
      statements += select + " WHERE id = " + std::to_string(3 * s) + ";\n";
      expected += RowLine(table, s);
      if (s % 10 == 0) {
        statements += select + " WHERE id = " + std::to_string(3 * s + 1) + ";\n";
        absent_whole_key += table.whole_keys ? 1 : 0;
      }
    }
    EXPECT_TRUE(server.Sql(statements, out)) << server.error();
    EXPECT_TRUE(out == expected) << table.name << ": the point lookups read "
                                 << testing::SplitLines(out).size() << " rows of " << table.rows
                                 << " (or other values)";
  }
  return absent_whole_key;
}

// Full scans of every index: the primary keys in order, the secondary indexes as sets.
void ReadByScans(MariaDbServer& server) {
  std::string out;
  for (const TableSpec& table : kSpecs) {
    std::string expected;
    for (int s = 1; s <= table.rows; ++s) expected += RowLine(table, s);
    ASSERT_TRUE(server.Sql(std::string("USE t; SELECT ") + table.columns + " FROM " + table.name +
                               " FORCE INDEX (PRIMARY) ORDER BY id;",
                           out))
        << server.error();
    EXPECT_TRUE(out == expected) << table.name << ": the scan read "
                                 << testing::SplitLines(out).size() << " rows of " << table.rows;
  }
  std::string ka, kv;
  for (int s = 1; s <= 3000; ++s) {
    ka += std::to_string(s % 50) + "\t" + std::to_string(3 * s) + "\n";
    kv += "v" + std::to_string(s) + "\t" + std::to_string(3 * s) + "\n";
  }
  ASSERT_TRUE(server.Sql("USE t; SELECT a, id FROM t1 FORCE INDEX (ka);", out)) << server.error();
  EXPECT_TRUE(SortedLines(out) == SortedLines(ka)) << "t1's secondary index ka";
  ASSERT_TRUE(server.Sql("USE t; SELECT v, id FROM t2 FORCE INDEX (kv);", out)) << server.error();
  EXPECT_TRUE(SortedLines(out) == SortedLines(kv)) << "t2's secondary index kv";
}

// MariaDB's live tables (information_schema.ROCKSDB_SST_PROPS) are the repair's, with the filter
// sizes it reports.
void ExpectLiveTablesOf(MariaDbServer& server, const json& repair_doc) {
  std::string out;
  ASSERT_TRUE(
      server.Sql("SELECT SST_NAME, FILTER_BLOCK_SIZE FROM "
                 "information_schema.ROCKSDB_SST_PROPS;",
                 out))
      << server.error();
  std::map<std::string, std::uint64_t> live;
  std::istringstream lines(out);
  std::string name;
  for (std::uint64_t size; lines >> name >> size;) live[name] = size;
  for (const json& t : repair_doc["tables"]) {
    const std::string old_name = fs::path(t["path"].get<std::string>()).filename();
    if (t["new_path"].is_null()) {
      EXPECT_EQ(live.count(old_name), 1u) << old_name << " (" << t["action"] << ") in\n" << out;
      continue;
    }
    const std::string new_name = fs::path(t["new_path"].get<std::string>()).filename();
    EXPECT_EQ(live.count(old_name), 0u) << old_name << " replaced, yet live:\n" << out;
    ASSERT_EQ(live.count(new_name), 1u) << new_name << " not live:\n" << out;
    EXPECT_EQ(live.at(new_name), t["new_filter_bytes"].get<std::uint64_t>()) << new_name;
  }
}

}  // namespace

void MyRocksDatabase::Write() {
  if (std::string missing = testing::MissingMyRocksPrograms(); !missing.empty()) {
    error_ = missing;
    return;
  }
  dir_ = std::make_unique<testing::CliDir>();
  {
    MariaDbServer server(dir_->path(), kConfig);
    std::string out;
    if (!server.Start() || !server.Sql(kTables, out) || !server.Stop()) {
      error_ = server.error();
      return;
    }
  }
  const testing::CliRun r = testing::RunCli({"verify", rocksdb_dir(), "--json"});
  const json doc = json::parse(r.out, nullptr, false);
  if (!doc.is_object()) {
    error_ = "verify of what MariaDB wrote: " + r.out + r.err;
    return;
  }
  for (const json& f : doc["files"]) {
    const std::string cf = f.value("column_family", std::string("default"));
    if (tables_.count(cf)) error_ += "two tables in column family " + cf + "; ";
    tables_[cf] = fs::path(f["path"].get<std::string>()).filename();
  }
  if (tables_.size() != 7) error_ += "the column families' tables: " + r.out;
}

std::string MyRocksDatabase::table_of(const std::string& cf) const {
  const auto it = tables_.find(cf);
  EXPECT_NE(it, tables_.end()) << cf;
  return it == tables_.end() ? std::string() : it->second;
}

std::string MyRocksDatabase::CopyTo(const std::string& dir) const {
  const std::string data = dir + "/data";
  fs::remove_all(data);
  fs::copy(dir_->path() + "/data", data, fs::copy_options::recursive);
  return data;
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

FileBytes ReadFiles(const std::string& dir) {
  FileBytes files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) files[e.path().filename()] = ReadFileBytes(e.path());
  }
  return files;
}

TableFacts ReadTableFacts(const std::string& path) {
  TableFacts facts;
  Result<InputFile> in = InputFile::Open(path);
  EXPECT_TRUE(in.ok()) << in.status().ToString();
  if (!in.ok()) return facts;
  rocksdb::SstOpenOptions options;
  options.verify_filter_checksum = false;  // a damaged filter's facts are read too
  Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(in->bytes(), path, options);
  EXPECT_TRUE(sst.ok() && sst->filter()) << path;
  if (!sst.ok() || !sst->filter()) return facts;
  facts.placement = sst->filter()->placement;
  facts.comparator = sst->comparator_name();
  if (sst->properties()) {
    facts.prefix_extractor =
        sst->properties()->String("rocksdb.prefix.extractor.name").value_or("");
    if (facts.prefix_extractor == "nullptr") facts.prefix_extractor.clear();
    facts.policy = sst->properties()->String("rocksdb.filter.policy").value_or("");
  }
  facts.filter_bytes = sst->filter()->handle.size;
  const ByteSpan bytes = sst->filter()->contents.bytes();
  facts.filter_block.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (facts.placement == rocksdb::FilterPlacement::kFull) {
    Result<rocksdb::FullFilterReader> f = rocksdb::FullFilterReader::Parse(bytes, path);
    EXPECT_TRUE(f.ok()) << path;
    if (f.ok()) {
      facts.kind = f->kind();
      facts.probes = f->num_probes();
      facts.legacy_lines = f->num_lines();
    }
  } else if (facts.placement == rocksdb::FilterPlacement::kBlockBased && bytes.size() >= 5) {
    // LevelDB's filter block layout: filters, their offsets, the offsets' start, base lg. The
    // first filter ends where the second starts (or the offsets do); its last byte: probes.
    auto fixed32 = [&](std::size_t at) {
      std::uint32_t v = 0;
      for (int i = 3; i >= 0; --i) v = (v << 8) | bytes[at + static_cast<std::size_t>(i)];
      return v;
    };
    const std::uint32_t offsets = fixed32(bytes.size() - 5);
    const std::uint32_t end = offsets + 8 <= bytes.size() - 5 ? fixed32(offsets + 4) : offsets;
    if (end >= 1 && end <= offsets) facts.probes = bytes[end - 1];
  }
  return facts;
}

void FlipFilterByte(const std::string& path) {
  const TableFacts facts = ReadTableFacts(path);
  ASSERT_GT(facts.filter_bytes, 0u) << path;
  std::uint64_t at = 0;
  {
    Result<InputFile> in = InputFile::Open(path);
    ASSERT_TRUE(in.ok());
    rocksdb::SstOpenOptions options;
    Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(in->bytes(), path, options);
    ASSERT_TRUE(sst.ok() && sst->filter()) << path;
    at = sst->filter()->handle.offset + sst->filter()->handle.size / 2;
  }
  testing::FlipBitsAt(path, at, 0x10);
}

void ExpectVerifyLists(const std::string& rocksdb_dir, const std::string& manifest,
                       const std::set<std::string>& live) {
  const testing::CliRun r = testing::RunCli({"verify", rocksdb_dir, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const json doc = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out;
  std::set<std::string> listed;
  for (const json& f : doc["files"]) {
    listed.insert(fs::path(f["path"].get<std::string>()).filename());
    EXPECT_EQ(f["manifest"], manifest) << f["path"];
    EXPECT_EQ(f["false_negative_count"], 0) << f["path"];
    for (const json& finding : f["findings"]) {
      EXPECT_NE(finding["severity"], "error") << f["path"] << ": " << finding.dump();
    }
  }
  EXPECT_EQ(listed, live);
}

double NearKeyPassRateOfMariaDb(const std::string& dir) {
  MariaDbServer server(dir, kConfig);
  EXPECT_TRUE(server.Start()) << server.error();
  std::string statements = "USE t;\n", out;
  for (int s = 1; s <= 3000; ++s) {
    statements += "SELECT id FROM t1 WHERE id = " + std::to_string(3 * s + 1) + ";\n";
  }
  const std::map<std::string, std::uint64_t> before = BloomCounters(server);
  EXPECT_TRUE(server.Sql(statements, out)) << server.error();
  EXPECT_EQ(out, "") << "an absent id was found";
  const std::map<std::string, std::uint64_t> after = BloomCounters(server);
  EXPECT_TRUE(server.Stop()) << server.error();
  auto delta = [&](const char* name) -> double {
    const auto b = before.find(name), a = after.find(name);
    EXPECT_TRUE(b != before.end() && a != after.end()) << name;
    return b == before.end() || a == after.end() ? 0 : static_cast<double>(a->second - b->second);
  };
  const double passed = delta("Rocksdb_bloom_filter_full_positive") -
                        delta("Rocksdb_bloom_filter_full_true_positive");
  const double denied = delta("Rocksdb_bloom_filter_useful");
  std::printf("[myrocks-repair] absent ids next to stored ones: %.0f passed, %.0f denied\n", passed,
              denied);
  EXPECT_GE(passed + denied, 2900) << "the filters were not asked";
  return passed + denied > 0 ? passed / (passed + denied) : 0;
}

void ReadBackWithMariaDb(const std::string& dir, const json& repair_doc) {
  MariaDbServer server(dir, kConfig);
  ASSERT_TRUE(server.Start()) << server.error();
  const std::map<std::string, std::uint64_t> before = BloomCounters(server);
  const int absent = ReadByPrimaryKey(server);
  const std::map<std::string, std::uint64_t> after = BloomCounters(server);
  ReadByScans(server);
  ExpectLiveTablesOf(server, repair_doc);
  // The running server holds the database's LOCK: another repair is refused, naming it.
  const std::string rocksdb_dir = dir + "/data/#rocksdb";
  const std::string current = ReadFileBytes(rocksdb_dir + "/CURRENT");
  const testing::CliRun live =
      testing::RunCli({"repair", rocksdb_dir, "--bits-per-key", "12", "--no-backup"});
  EXPECT_EQ(live.exit_code, 2) << live.out << live.err;
  EXPECT_NE(live.err.find("(mariadbd) holds its LOCK"), std::string::npos) << live.err;
  EXPECT_EQ(ReadFileBytes(rocksdb_dir + "/CURRENT"), current);
  ASSERT_TRUE(server.Stop()) << server.error();

  // The whole-key filters answered: one true positive for each row of t1 and t2 read by its key
  // (one table per column family), and most absent keys denied.
  auto delta = [&](const char* name) {
    const auto b = before.find(name), a = after.find(name);
    EXPECT_TRUE(b != before.end() && a != after.end()) << name;
    return b == before.end() || a == after.end() ? 0 : a->second - b->second;
  };
  std::printf("[myrocks-repair] point lookups (%d absent in whole-key families): bloom counters",
              absent);
  for (const auto& [name, value] : after) {
    std::printf(
        " %s +%llu", name.c_str(),
        static_cast<unsigned long long>(value - (before.count(name) ? before.at(name) : 0)));
  }
  std::printf("\n");
  EXPECT_GE(delta("Rocksdb_bloom_filter_full_true_positive"), 6000u);
  EXPECT_GE(delta("Rocksdb_bloom_filter_useful"), static_cast<std::uint64_t>(absent / 2))
      << "of " << absent << " absent keys";
  const std::string log = ReadFileBytes(dir + "/err.log");
  for (const char* bad : {"orruption", "[ERROR]"}) {
    EXPECT_EQ(log.find(bad), std::string::npos) << "the server's log:\n" << log;
  }
}

}  // namespace bloomcodec::repair_test

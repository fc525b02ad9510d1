// MariaDB's MyRocks (MariaDB 10.11 with RocksDB 6.29.5 inside ha_rocksdb, Debian's packages) as
// a witness of `bloomcodec repair` (issue 30). A private mariadbd (tests/myrocks/mariadb_server.h)
// writes one database, once for the whole suite: four tables, a secondary index each for two of
// them, in column families without a prefix extractor (a full legacy Bloom filter,
// `bloomfilter:10:false`; block-based filters, `bloomfilter:10:true` and `bloomfilter:13:true`,
// which RocksDB 6.29 still writes; a Ribbon filter, `ribbonfilter:10`, which 6.29 records as
// "rocksdb.BuiltinBloomFilter" like every built-in kind) and one with MariaDB's recommended setup
// (a capped prefix extractor, whole keys off). Every case repairs a copy of that data directory through the
// binary and, where it changed a table, starts MariaDB on the copy again:
//   * verify of what MariaDB wrote reports no error, and repair without parameters finds every
//     filter sound and changes no byte (dry run or not);
//   * `--dry-run --bits-per-key 14` changes no byte and plans what the repair then does; the
//     repair rebuilds every filter (block-based ones as full filters, as RocksDB writes them;
//     the Ribbon one as Ribbon, the kind read from its trailer; under 6.29's policy name),
//     links the old tables and MANIFEST into the --backup folder, and switches CURRENT to a new
//     MANIFEST that lists exactly the new tables;
//   * `--to rocksdb-ribbon`: Ribbon filters, which RocksDB 6.29 reads in any table;
//   * a flipped byte in three tables' filters (the full one and both block-based ones), repaired
//     without parameters: those three alone, at the bits per key and probes their writer chose
//     (RocksDB 6.29: probes = floor(bits per key x 0.69); full legacy filters of an odd number
//     of 512-bit lines);
//   * after each repair MariaDB reads every row back by primary key point lookups (which consult
//     the filters: a filter denying a key would make its row vanish) and by full scans of the
//     primary and secondary indexes, its counters show the filters answering, its view of the
//     live tables (information_schema.ROCKSDB_SST_PROPS) is the repair's, a repair while it runs
//     is refused (its LOCK, exit 2), and its error log has no corruption.
// The prefix-extractor table (cf_pfx) is rebuilt like the others, with the prefixes its filter
// holds (whole keys off): MariaDB's reads of t3 consult them.
// Auto compactions are off in every column family: RocksDB would otherwise rewrite the repaired
// tables ("BottommostFiles") seconds after the start, and the reads would witness its tables.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bloomcodec/input_file.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "cli/cli_runner.h"
#include "myrocks/mariadb_server.h"
#include "repair/myrocks_repair_support.h"
#include "repair/repair_harness.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::repair_test {
namespace {

using nlohmann::json;
using testing::CliRun;
using testing::RunCli;

MyRocksDatabase& Database() {
  static MyRocksDatabase db;
  return db;
}

class MyRocksRepair : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { Database().Write(); }
  void SetUp() override { ASSERT_EQ(Database().error(), "") << "writing the database"; }
};

// `bloomcodec repair ROCKSDB_DIR ARGS --json`: its exit status and document.
json RepairJson(const std::string& rocksdb_dir, std::vector<std::string> args, int expect_exit) {
  args.insert(args.begin(), {"repair", rocksdb_dir});
  args.push_back("--json");
  const CliRun r = RunCli(args);
  EXPECT_EQ(r.exit_code, expect_exit) << r.out << r.err;
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_TRUE(doc.is_object()) << r.out << r.err;
  return doc.is_object() ? doc : json::object({{"tables", json::array()}});
}

// The tables of a repair document by column family (one live table per family here).
std::map<std::string, json> ByFamily(const json& doc) {
  std::map<std::string, json> out;
  for (const json& t : doc["tables"]) {
    const std::string cf = t["column_family"].get<std::string>();
    EXPECT_EQ(out.count(cf), 0u) << "two tables in " << cf << ": " << doc.dump();
    out[cf] = t;
  }
  return out;
}

// The kind of full filter MariaDB's RocksDB 6.29 writes in each family (kConfig): a flush's table
// of the Ribbon policy's default is FastLocalBloom, in format_version 2 as well.
rocksdb::FullFilterKind KindWritten(const std::string& cf) {
  if (cf == "cf_rib") return rocksdb::FullFilterKind::kRibbon;
  if (cf == "cf_rib0") return rocksdb::FullFilterKind::kFastLocalBloom;
  return rocksdb::FullFilterKind::kLegacyBloom;
}

TEST_F(MyRocksRepair, VerifyOfWhatMariaDbWroteIsClean) {
  const MyRocksDatabase& db = Database();
  const CliRun r = RunCli({"verify", db.rocksdb_dir(), "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const json doc = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out;
  std::set<std::string> families, near_keys;
  for (const json& f : doc["files"]) {
    families.insert(f.value("column_family", std::string()));
    for (const json& finding : f["findings"]) {
      EXPECT_NE(finding["severity"], "error") << f["path"] << ": " << finding.dump();
      if (finding["kind"] == "near-keys") {
        near_keys.insert(f.value("column_family", std::string()));
        std::printf("[myrocks-repair] %s: %s\n", f.value("column_family", std::string()).c_str(),
                    finding["message"].get<std::string>().c_str());
      }
    }
    EXPECT_EQ(f["false_negative_count"], 0) << f["path"];
  }
  EXPECT_EQ(families, (std::set<std::string>{"default", "__system__", "cf_bb", "cf_bb13", "cf_pfx",
                                             "cf_rib", "cf_rib0"}));
  // MyRocks's keys end in big-endian ids (every third here): absent ids next to stored ones pass
  // the legacy Bloom filter of the default family far more often than random keys; the Ribbon
  // and FastLocalBloom filters of cf_rib and cf_rib0 hold the same ids without it.
  EXPECT_EQ(near_keys, std::set<std::string>{"default"});
  // What each family's table is, as MariaDB wrote it (the premise of the cases below).
  for (const auto& [cf, placement] : std::map<std::string, rocksdb::FilterPlacement>{
           {"default", rocksdb::FilterPlacement::kFull},
           {"cf_bb", rocksdb::FilterPlacement::kBlockBased},
           {"cf_bb13", rocksdb::FilterPlacement::kBlockBased},
           {"cf_pfx", rocksdb::FilterPlacement::kFull},
           {"cf_rib", rocksdb::FilterPlacement::kFull},
           {"cf_rib0", rocksdb::FilterPlacement::kFull}}) {
    const TableFacts facts = ReadTableFacts(db.rocksdb_dir() + "/" + db.table_of(cf));
    EXPECT_EQ(facts.placement, placement) << cf;
    EXPECT_EQ(facts.comparator, "RocksDB_SE_v3.10") << cf;
    EXPECT_EQ(facts.prefix_extractor, cf == "cf_pfx" ? "rocksdb.CappedPrefix.8" : "") << cf;
    // RocksDB before 7.0 names every built-in filter so, Ribbon included: the name does not
    // tell the kind, the filter's trailer does.
    EXPECT_EQ(facts.policy, "rocksdb.BuiltinBloomFilter") << cf;
    if (placement == rocksdb::FilterPlacement::kFull) {
      EXPECT_EQ(facts.kind, KindWritten(cf)) << cf;
    }
  }
}

TEST_F(MyRocksRepair, WithoutParametersEveryFilterIsSoundAndNoByteChanges) {
  const testing::CliDir dir;
  const std::string data = Database().CopyTo(dir.path());
  const std::string rocksdb_dir = data + "/#rocksdb";
  const FileBytes before = ReadFiles(rocksdb_dir);
  for (const bool dry : {true, false}) {
    SCOPED_TRACE(dry ? "--dry-run" : "repair");
    const json doc = RepairJson(
        rocksdb_dir, dry ? std::vector<std::string>{"--dry-run"} : std::vector<std::string>{}, 0);
    ASSERT_EQ(doc["tables"].size(), 7u) << doc.dump();
    for (const json& t : doc["tables"]) EXPECT_EQ(t["action"], "sound") << t.dump();
    EXPECT_EQ(doc["summary"]["rebuilt"], 0);
    EXPECT_EQ(ReadFiles(rocksdb_dir), before);
  }
  // Nothing to back up: no folder beside the database (inside MariaDB's data directory).
  for (const auto& e : fs::directory_iterator(data)) {
    EXPECT_EQ(e.path().filename().string().find("bloomcodec"), std::string::npos) << e.path();
  }
}

// The tables of a real repair against its dry run's plan: the same tables, actions and figures.
void ExpectPlanWasTheRepair(const json& dry, const json& real) {
  ASSERT_EQ(dry["tables"].size(), real["tables"].size());
  EXPECT_EQ(dry["summary"]["rebuilt"], real["summary"]["rebuilt"]);
  EXPECT_EQ(dry["summary"]["filter_bytes_delta"], real["summary"]["filter_bytes_delta"]);
  for (std::size_t i = 0; i < dry["tables"].size(); ++i) {
    const json& d = dry["tables"][i];
    const json& r = real["tables"][i];
    EXPECT_EQ(d["action"], r["action"] == "repaired" ? json("planned") : r["action"]) << d.dump();
    for (const char* field : {"path", "keys", "old_filter_bytes", "new_filter_bytes", "new_fp_rate",
                              "bits_per_key", "new_format"}) {
      EXPECT_EQ(d[field], r[field]) << field << ": " << d.dump() << " vs " << r.dump();
    }
  }
}

TEST_F(MyRocksRepair, BitsPerKeyRebuildsEveryFilterAndMariaDbReadsEveryRow) {
  const MyRocksDatabase& db = Database();
  const testing::CliDir dir;
  const std::string data = db.CopyTo(dir.path());
  const std::string rocksdb_dir = data + "/#rocksdb";
  const std::string backup = dir.Path("backup");
  const FileBytes before = ReadFiles(rocksdb_dir);
  const std::string old_manifest = fs::path(CurrentManifestPath(rocksdb_dir)).filename();

  const json dry = RepairJson(rocksdb_dir, {"--bits-per-key", "14", "--dry-run"}, 0);
  EXPECT_EQ(ReadFiles(rocksdb_dir), before) << "the dry run changed a file";
  EXPECT_FALSE(fs::exists(backup));
  const json real = RepairJson(rocksdb_dir, {"--bits-per-key", "14", "--backup", backup}, 0);
  ExpectPlanWasTheRepair(dry, real);

  std::set<std::string> live;  // file names the new MANIFEST must list
  for (const auto& [cf, t] : ByFamily(real)) {
    SCOPED_TRACE(cf);
    const std::string old_name = fs::path(t["path"].get<std::string>()).filename();
    ASSERT_EQ(t["action"], "repaired") << t.dump();
    EXPECT_EQ(t["reasons"], json::array({"requested"}));
    EXPECT_EQ(t["bits_per_key"], 14.0);
    // Each family keeps its kind (a block-based filter becomes the legacy full filter RocksDB
    // 6.29 writes in format_version 2, MyRocks's), and every new table records the policy under
    // 6.29's name.
    const rocksdb::FullFilterKind kind = KindWritten(cf);
    EXPECT_EQ(t["new_format"], kind == rocksdb::FullFilterKind::kRibbon ? "rocksdb-ribbon"
                               : kind == rocksdb::FullFilterKind::kFastLocalBloom
                                   ? "rocksdb-bloom"
                                   : "rocksdb-bloom-legacy");
    EXPECT_EQ(t["backup"], backup);
    const std::string new_path = t["new_path"].get<std::string>();
    live.insert(fs::path(new_path).filename());
    EXPECT_FALSE(fs::exists(rocksdb_dir + "/" + old_name)) << "the old table is still there";
    // The old table kept in the backup folder, byte for byte.
    EXPECT_EQ(ReadFileBytes(backup + "/" + old_name), before.at(old_name));
    // A full filter of the new size, whatever the old one was (block-based included): probes
    // floor(14 x 0.69) = 9 (RocksDB's legacy rule).
    const TableFacts facts = ReadTableFacts(new_path);
    EXPECT_EQ(facts.placement, rocksdb::FilterPlacement::kFull);
    EXPECT_EQ(facts.policy, "rocksdb.BuiltinBloomFilter");
    EXPECT_EQ(facts.kind, kind);
    if (kind == rocksdb::FullFilterKind::kLegacyBloom) {
      EXPECT_EQ(facts.probes, 9u);
    }
    EXPECT_EQ(facts.filter_bytes, t["new_filter_bytes"].get<std::uint64_t>());
    if (t["keys"].get<std::uint64_t>() > 1000) {
      EXPECT_GT(t["new_filter_bytes"].get<std::uint64_t>(),
                t["old_filter_bytes"].get<std::uint64_t>());
    }
  }
  EXPECT_EQ(live.size(), 7u);
  // The MANIFEST switch: CURRENT names a new MANIFEST, the old one is in the backup folder.
  const std::string new_manifest = CurrentManifestPath(rocksdb_dir);
  EXPECT_NE(fs::path(new_manifest).filename(), old_manifest);
  EXPECT_FALSE(fs::exists(rocksdb_dir + "/" + old_manifest));
  EXPECT_EQ(ReadFileBytes(backup + "/" + old_manifest), before.at(old_manifest));
  ExpectVerifyLists(rocksdb_dir, new_manifest, live);

  ReadBackWithMariaDb(dir.path(), real);
}

// RocksDB 6.29 reads a full filter by its trailer's marker, whatever the table's format_version:
// Ribbon filters (RocksDB 6.15+, which the OPTIONS file's rocksdb_version 6.29.5 allows) in
// MyRocks's format_version 2 tables, the block-based ones' included. The default backup folder
// goes beside MariaDB's data directory, not beside #rocksdb inside it (MariaDB would list it as a
// database).
TEST_F(MyRocksRepair, RibbonFiltersAreReadByMyRocks) {
  const testing::CliDir dir;
  const std::string data_dir = Database().CopyTo(dir.path());
  const std::string rocksdb_dir = data_dir + "/#rocksdb";
  const json doc = RepairJson(rocksdb_dir, {"--to", "rocksdb-ribbon", "--bits-per-key", "10"}, 0);
  for (const auto& [cf, t] : ByFamily(doc)) {
    SCOPED_TRACE(cf);
    ASSERT_EQ(t["action"], "repaired") << t.dump();
    const fs::path backup = t["backup"].get<std::string>();
    EXPECT_EQ(backup.parent_path(), fs::path(data_dir).parent_path());
    EXPECT_TRUE(backup.filename().string().starts_with(fs::path(data_dir).filename().string() +
                                                       ".#rocksdb.bloomcodec-backup-"))
        << backup;
    EXPECT_TRUE(fs::exists(backup / fs::path(t["path"].get<std::string>()).filename()));
    EXPECT_EQ(t["new_format"], "rocksdb-ribbon");
    const TableFacts facts = ReadTableFacts(t["new_path"].get<std::string>());
    EXPECT_EQ(facts.placement, rocksdb::FilterPlacement::kFull);
    if (t["keys"].get<std::uint64_t>() > 1000) {
      EXPECT_EQ(facts.kind, rocksdb::FullFilterKind::kRibbon);
    } else {
      // RocksDB's Ribbon builder writes FastLocalBloom where that is the smaller (few keys:
      // __system__'s table).
      EXPECT_TRUE(facts.kind == rocksdb::FullFilterKind::kRibbon ||
                  facts.kind == rocksdb::FullFilterKind::kFastLocalBloom)
          << rocksdb::FullFilterKindName(facts.kind);
    }
  }
  ReadBackWithMariaDb(dir.path(), doc);
}

// verify's near-keys warning (the default family's legacy Bloom filter lets through absent ids
// next to stored ones, VerifyOfWhatMariaDbWroteIsClean) is what MariaDB itself pays: its bloom
// counters over lookups of such ids. The fix the warning names, `--to rocksdb-bloom`, ends both.
TEST_F(MyRocksRepair, NearKeysPassMariaDbsLegacyFilterUntilRebuiltAsFastLocalBloom) {
  const testing::CliDir dir;
  const std::string rocksdb_dir = Database().CopyTo(dir.path()) + "/#rocksdb";
  const double before = NearKeyPassRateOfMariaDb(dir.path());
  EXPECT_GT(before, 0.05) << "MariaDB's filter let few near keys through";
  // --bits-per-key: cf_rib's Ribbon filter records none (alone, --to keeps each table's own).
  const json doc =
      RepairJson(rocksdb_dir, {"--to", "rocksdb-bloom", "--bits-per-key", "10", "--no-backup"}, 0);
  // (MariaDB's first run may have flushed a table more in some family.)
  for (const json& t : doc["tables"]) EXPECT_EQ(t["new_format"], "rocksdb-bloom") << t.dump();
  const CliRun r = RunCli({"verify", rocksdb_dir, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("near-keys"), std::string::npos) << r.out;
  const double after = NearKeyPassRateOfMariaDb(dir.path());
  EXPECT_LT(after, 0.03) << "before: " << before;
}

TEST_F(MyRocksRepair, DamagedFiltersAreRebuiltAtTheirWritersBitsPerKeyAndProbes) {
  const MyRocksDatabase& db = Database();
  const testing::CliDir dir;
  const std::string data = db.CopyTo(dir.path());
  const std::string rocksdb_dir = data + "/#rocksdb";
  // The writer's bits per key of each damaged family's filter (kConfig in the support file).
  const std::map<std::string, int> damaged = {{"default", 10}, {"cf_bb", 10}, {"cf_bb13", 13}};
  std::map<std::string, TableFacts> original;
  for (const auto& [cf, bits] : damaged) {
    original[cf] = ReadTableFacts(rocksdb_dir + "/" + db.table_of(cf));
    FlipFilterByte(rocksdb_dir + "/" + db.table_of(cf));
  }
  const json doc = RepairJson(rocksdb_dir, {"--no-backup"}, 0);
  for (const auto& [cf, t] : ByFamily(doc)) {
    SCOPED_TRACE(cf);
    if (!damaged.count(cf)) {
      EXPECT_EQ(t["action"], "sound") << t.dump();
      continue;
    }
    ASSERT_EQ(t["action"], "repaired") << t.dump();
    EXPECT_EQ(t["reasons"], json::array({"structure"})) << t.dump();
    const int bits = damaged.at(cf);
    std::printf("[myrocks-repair] %s: %s\n", cf.c_str(), t["sizing"].dump().c_str());
    EXPECT_EQ(t["bits_per_key"], static_cast<double>(bits)) << t["sizing"];
    // Read from the filter itself, not a default that happens to be the writer's.
    EXPECT_TRUE(t["sizing"].get<std::string>().starts_with("as recorded")) << t["sizing"];
    EXPECT_EQ(t["new_format"], "rocksdb-bloom-legacy");
    // RocksDB 6.29's rules (util/bloom_impl.h, table/block_based/filter_policy.cc): the probes
    // of a legacy filter, full or block-based, are floor(bits per key x 0.69); a legacy full
    // filter is keys x bits per key rounded up to 512-bit cache lines, their count made odd.
    const TableFacts facts = ReadTableFacts(t["new_path"].get<std::string>());
    const auto probes = static_cast<std::uint32_t>(bits * 0.69);
    EXPECT_EQ(facts.placement, rocksdb::FilterPlacement::kFull);
    EXPECT_EQ(facts.probes, probes);
    EXPECT_EQ(original.at(cf).probes, probes) << "the writer's own filter";
    const std::uint64_t keys = t["keys"].get<std::uint64_t>();
    std::uint64_t lines = (keys * bits + 511) / 512;
    if (lines % 2 == 0) ++lines;
    EXPECT_EQ(facts.legacy_lines, lines) << keys << " keys";
    if (original.at(cf).placement == rocksdb::FilterPlacement::kFull) {
      // At its writer's parameters a full filter comes back as MariaDB's RocksDB wrote it.
      EXPECT_TRUE(facts.filter_block == original.at(cf).filter_block) << "not byte for byte";
    }
  }
  ReadBackWithMariaDb(dir.path(), doc);
}

}  // namespace
}  // namespace bloomcodec::repair_test

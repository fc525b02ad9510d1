// Repairs of RocksDB tables with partitioned filters (partition_filters, a two-level index),
// written by Debian's librocksdb 7.8.3 and reopened by it with paranoid checks and SST unique-id
// verification. The rebuilt filter is what 7.8 writes: at the table's own bits per key the whole
// table is byte-identical to the original; at 14 bits per key and as Ribbon its partitions and
// their index are those of a table 7.8 wrote from the same data with that policy.
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <fstream>
#include <map>
#include <memory>
#include <random>

#include "bloomcodec/repair.h"
#include "repair/repair_harness.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"
#include "rocksdb/sst/verify.h"
#include "support/test_support.h"

namespace bloomcodec::repair_test {
namespace {

constexpr std::uint32_t kPartitionedKeys = 2400;  // keys 0, 2, 4, ...: the odd ones are absent

enum class Policy { kBloom10, kBloom14, kRibbon10 };

::rocksdb::Options PartitionedOptions(Policy policy) {
  ::rocksdb::Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.write_buffer_size = 4 << 20;
  options.paranoid_checks = true;
  options.verify_sst_unique_id_in_manifest = true;
  ::rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(policy == Policy::kRibbon10  ? ::rocksdb::NewRibbonFilterPolicy(10)
                            : policy == Policy::kBloom14 ? ::rocksdb::NewBloomFilterPolicy(14)
                                                         : ::rocksdb::NewBloomFilterPolicy(10));
  // A few keys a data block and a few blocks an index partition: the index's size cuts the
  // partitions at every bits per key tried here (a filter asks for a cut only after ~100 keys).
  table.block_size = 256;
  table.metadata_block_size = 256;
  table.partition_filters = true;
  table.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.format_version = 5;
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

// Two tables at level 0 over one at level 1, the same keys and values for every policy.
void WritePartitionedDb(const std::string& dir, Policy policy) {
  ::rocksdb::DB* raw = nullptr;
  const ::rocksdb::Options options = PartitionedOptions(policy);
  ASSERT_TRUE(::rocksdb::DB::Open(options, dir, &raw).ok());
  std::unique_ptr<::rocksdb::DB> db(raw);
  std::mt19937 rng(5);
  auto put = [&](std::uint32_t from, std::uint32_t to, std::uint32_t step) {
    for (std::uint32_t i = from; i < to; i += step) {
      const std::string value(40 + rng() % 40, static_cast<char>('a' + rng() % 26));
      ASSERT_TRUE(db->Put(::rocksdb::WriteOptions(), Key(i), value).ok());
    }
    ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions()).ok());
  };
  put(0, kPartitionedKeys, 2);
  ::rocksdb::CompactRangeOptions deep;
  deep.change_level = true;
  deep.target_level = 1;
  ASSERT_TRUE(db->CompactRange(deep, nullptr, nullptr).ok());
  put(400, 1400, 4);
  put(1000, 2000, 6);
  ASSERT_TRUE(db->Close().ok());
}

// The databases are written once for the suite: the 10-bit one repaired (copies), the others
// the references.
class RocksDbPartitioned : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    WritePartitionedDb(Db(Policy::kBloom10), Policy::kBloom10);
    WritePartitionedDb(Db(Policy::kBloom14), Policy::kBloom14);
    WritePartitionedDb(Db(Policy::kRibbon10), Policy::kRibbon10);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string Db(Policy p) { return dir_->path() + "/db" + std::to_string(int(p)); }
  static std::string Copy(const std::string& name) {
    const std::string to = dir_->path() + "/" + name;
    CopyDatabase(Db(Policy::kBloom10), to);
    return to;
  }
  static testing::TempDir* dir_;
};
testing::TempDir* RocksDbPartitioned::dir_ = nullptr;

// RocksDB 7.8 reopens `dir` (paranoid checks, unique ids verified), verifies every block and
// reads every present key with its value's length and no absent one.
void ExpectRocksDbReadsEveryKey(const std::string& dir) {
  ::rocksdb::DB* raw = nullptr;
  ::rocksdb::Options options = PartitionedOptions(Policy::kBloom10);
  options.create_if_missing = false;
  const ::rocksdb::Status s = ::rocksdb::DB::Open(options, dir, &raw);
  ASSERT_TRUE(s.ok()) << dir << ": " << s.ToString();
  std::unique_ptr<::rocksdb::DB> db(raw);
  EXPECT_TRUE(db->VerifyChecksum().ok());
  std::size_t found = 0;
  for (std::uint32_t i = 0; i < kPartitionedKeys; ++i) {
    std::string value;
    const ::rocksdb::Status g = db->Get(::rocksdb::ReadOptions(), Key(i), &value);
    if (i % 2 == 0) {
      EXPECT_TRUE(g.ok()) << Key(i) << ": " << g.ToString();
      found += g.ok() ? 1 : 0;
    } else {
      EXPECT_TRUE(g.IsNotFound()) << Key(i) << ": " << g.ToString();
    }
  }
  EXPECT_EQ(found, kPartitionedKeys / 2);
  ASSERT_TRUE(db->Close().ok());
}

// Where `b` first differs from `a` (a's size when they are equal).
std::size_t FirstDifference(ByteSpan a, ByteSpan b) {
  if (a.size() != b.size()) return std::min(a.size(), b.size());
  return static_cast<std::size_t>(std::mismatch(a.begin(), a.end(), b.begin()).first - a.begin());
}

// Where the data blocks end in the table at `path`, and its reader.
struct OpenedTable {
  std::string bytes;
  std::optional<rocksdb::SstReader> sst;
  std::uint64_t data_end = 0;
};
void OpenTable(const std::string& path, OpenedTable& t) {
  t.bytes = ReadText(path);
  Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(StringBytes(t.bytes), path);
  ASSERT_TRUE(sst.ok()) << sst.status().ToString();
  t.sst.emplace(std::move(*sst));
  ASSERT_TRUE(t.sst->filter() && t.sst->properties_handle()) << path;
  ASSERT_TRUE(t.sst
                  ->ForEachDataBlock([&](ByteSpan, const blocktable::BlockHandle& h) {
                    t.data_end =
                        std::max(t.data_end, h.offset + h.size + blocktable::kBlockTrailerSize);
                    return Status();
                  })
                  .ok());
}

// The bytes between the data blocks and the properties: the filter partitions, their index, the
// index partitions and the index's top level.
std::string MetaRegion(const std::string& path) {
  OpenedTable t;
  OpenTable(path, t);
  if (!t.sst) return {};
  return t.bytes.substr(t.data_end, t.sst->properties_handle()->offset - t.data_end);
}

// Rebuilt at the table's own 10 bits per key, every table is the one RocksDB 7.8 wrote, byte
// for byte (partitions cut along the index partitions, their index, properties, footer).
TEST_F(RocksDbPartitioned, RebuiltAtItsOwnBitsPerKeyTheTableIsByteIdentical) {
  const std::vector<std::string> tables = SstFilesIn(Db(Policy::kBloom10));
  ASSERT_EQ(tables.size(), 3u);
  for (const std::string& path : tables) {
    const std::string bytes = ReadText(path);
    Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(StringBytes(bytes), path);
    ASSERT_TRUE(sst.ok()) << sst.status().ToString();
    ASSERT_TRUE(sst->filter());
    ASSERT_EQ(sst->filter()->placement, rocksdb::FilterPlacement::kPartitioned);
    ASSERT_GE(sst->properties()->Number("rocksdb.index.partitions").value_or(0), 3u) << path;
    Result<ByteVector> again = rocksdb::RewriteSstFilter(*sst, 10.0);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(FirstDifference(StringBytes(bytes), *again), bytes.size()) << path;
  }
}

// Without parameters only the table whose filter partition has a flipped byte is rebuilt, and
// it comes back as RocksDB wrote it; RocksDB reads every key, our verify finds nothing.
TEST_F(RocksDbPartitioned, ADamagedPartitionIsRebuiltAndNothingElse) {
  const std::string db = Copy("damaged");
  const std::vector<std::string> tables = SstFilesIn(db);
  const std::string victim = tables.back();  // the newest: no other level-0 table renumbered
  const std::string original = ReadText(victim);
  {
    OpenedTable t;
    OpenTable(victim, t);
    ASSERT_EQ(t.sst->filter()->placement, rocksdb::FilterPlacement::kPartitioned);
    ASSERT_LT(t.data_end + 20, t.sst->filter()->handle.offset);
    std::string damaged = original;
    damaged[t.data_end + 20] ^= 0x10;  // inside the first filter partition
    std::ofstream(victim, std::ios::binary | std::ios::trunc) << damaged;
  }
  RepairOptions none;
  none.no_backup = true;
  const std::vector<std::string> paths{db};
  Result<RepairReport> report = RepairPaths(paths, none);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->rebuilt, 1u);
  EXPECT_EQ(report->damaged, 0u);
  for (const TableRepair& t : report->tables) {
    if (t.path != victim) {
      EXPECT_EQ(t.action, "sound") << t.path << " " << (t.reasons.empty() ? "" : t.reasons[0])
                                   << " " << (t.notes.empty() ? "" : t.notes[0]);
      continue;
    }
    EXPECT_EQ(t.action, "repaired") << t.damage;
    EXPECT_EQ(t.bits_per_key, 10.0) << t.sizing_basis;
    const std::string rebuilt = ReadText(t.new_path);
    EXPECT_EQ(FirstDifference(StringBytes(original), StringBytes(rebuilt)), original.size())
        << "the table RocksDB wrote, byte for byte";
    const FileReport verified = rocksdb::VerifySst(t.new_path, nullptr, "");
    EXPECT_TRUE(verified.findings.empty()) << verified.findings.front().message;
  }
  ExpectRocksDbReadsEveryKey(db);
}

// Damage to the filter's top-level index is the filter's: the table is rebuilt as RocksDB wrote
// it. Damage to an index partition is the table's: it is left untouched and reported.
TEST_F(RocksDbPartitioned, TheFilterIndexIsTheFiltersAnIndexPartitionIsTheTables) {
  const std::string db = Copy("indexes");
  const std::vector<std::string> tables = SstFilesIn(db);
  const std::string filter_victim = tables.back(), index_victim = tables.front();
  const std::string original = ReadText(filter_victim);
  auto flip = [](const std::string& path, bool filter_index) {
    OpenedTable t;
    OpenTable(path, t);
    ASSERT_TRUE(t.sst);
    const blocktable::BlockHandle& top = t.sst->filter()->handle;
    // The filter index's restart count, its top byte (a block that no longer parses); the
    // index partitions follow the filter's top-level index.
    const std::uint64_t at = filter_index ? top.offset + top.size - 1 : top.offset + top.size + 15;
    t.bytes[at] ^= 0x01;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << t.bytes;
  };
  flip(filter_victim, true);
  flip(index_victim, false);
  RepairOptions none;
  none.no_backup = true;
  const std::vector<std::string> paths{db};
  Result<RepairReport> report = RepairPaths(paths, none);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->rebuilt, 1u);
  EXPECT_EQ(report->damaged, 1u);
  for (const TableRepair& t : report->tables) {
    if (t.path == filter_victim) {
      EXPECT_EQ(t.action, "repaired") << t.damage;
      const std::string rebuilt = ReadText(t.new_path);
      EXPECT_EQ(FirstDifference(StringBytes(original), StringBytes(rebuilt)), original.size());
    } else if (t.path == index_victim) {
      EXPECT_EQ(t.action, "damaged");
      EXPECT_TRUE(fs::exists(t.path)) << "left untouched";
    } else {
      EXPECT_EQ(t.action, "sound") << t.path;
    }
  }
}

// --bits-per-key 14 and --to rocksdb-ribbon rebuild every table; its filter partitions, their
// index, the moved index partitions and the re-encoded top level of the index are byte for byte
// those of the table RocksDB 7.8 wrote with that policy (only the properties differ: session
// ids, times).
TEST_F(RocksDbPartitioned, RebuiltAsAnotherPolicyTheFilterIsRocksDbs) {
  struct Case {
    Policy reference;
    std::optional<double> bits;
    std::string to;
  };
  for (const Case& c :
       {Case{Policy::kBloom14, 14, ""}, Case{Policy::kRibbon10, 10, "rocksdb-ribbon"}}) {
    const std::string db = Copy("as" + std::to_string(int(c.reference)));
    RepairOptions options;
    options.bits_per_key = c.bits;
    options.to = c.to;
    options.no_backup = true;
    const std::vector<std::string> paths{db};
    Result<RepairReport> report = RepairPaths(paths, options);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->rebuilt, 3u);
    for (const TableRepair& t : report->tables) {
      ASSERT_EQ(t.action, "repaired") << t.path << " " << t.damage;
      const FileReport verified = rocksdb::VerifySst(t.new_path, nullptr, "");
      EXPECT_TRUE(verified.findings.empty()) << verified.findings.front().message;
      const std::string name = fs::path(t.path).filename().string();
      OpenedTable ours, theirs;
      OpenTable(t.new_path, ours);
      OpenTable(Db(c.reference) + "/" + name, theirs);
      ASSERT_TRUE(ours.sst && theirs.sst) << name;
      const std::string a = MetaRegion(t.new_path), b = MetaRegion(Db(c.reference) + "/" + name);
      ASSERT_FALSE(b.empty()) << name;
      EXPECT_EQ(FirstDifference(StringBytes(b), StringBytes(a)), b.size()) << name;
      for (const char* p : {"rocksdb.filter.size", "rocksdb.num.filter_entries",
                            "rocksdb.index.size", "rocksdb.top-level.index.size"}) {
        EXPECT_EQ(ours.sst->properties()->Number(p), theirs.sst->properties()->Number(p)) << p;
      }
      EXPECT_EQ(t.new_filter_bytes, ours.sst->properties()->Number("rocksdb.filter.size"));
      EXPECT_EQ(t.new_format, c.to.empty() ? "rocksdb-bloom" : c.to);
      ASSERT_TRUE(t.new_fp_rate.has_value());
      EXPECT_LT(*t.new_fp_rate, c.to.empty() ? 0.005 : 0.02);
      EXPECT_EQ(ours.sst->properties()->String("rocksdb.filter.policy"),
                theirs.sst->properties()->String("rocksdb.filter.policy"));
    }
    ExpectRocksDbReadsEveryKey(db);
  }
}

}  // namespace
}  // namespace bloomcodec::repair_test

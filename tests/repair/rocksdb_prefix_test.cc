// Repairs of RocksDB tables with a prefix extractor (issue 30), written by Debian's librocksdb
// 7.8.3 with fixed and capped extractors, with and without whole-key filtering, full and
// partitioned filters. The rebuilt filter is the one 7.8 writes: at the table's own bits per key
// the whole table comes back byte for byte; at 14 bits per key the filter (partitions and their
// index) equals that of the table 7.8 wrote from the same data at 14. 7.8 reopens every repaired
// database and finds every key by Get and every prefix by a prefix seek (a filter that denied a
// prefix would hide the table's keys from the seek).
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>

#include <map>
#include <memory>

#include "bloomcodec/repair.h"
#include "repair/repair_harness.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"
#include "support/test_support.h"

namespace bloomcodec::repair_test {
namespace {

struct PrefixConfig {
  bool capped;  // capped:5, else fixed:3
  bool whole_key;
  bool partitioned;
  std::string Name() const {
    return std::string(capped ? "capped5" : "fixed3") + (whole_key ? "-whole" : "-prefix") +
           (partitioned ? "-partitioned" : "-full");
  }
  std::size_t PrefixLength() const { return capped ? 5 : 3; }
};

// Groups "gNN" of keys "gNN/DDDD", the key "gNN" itself (equal to its fixed:3 prefix) in some,
// and two keys shorter than 3 bytes (outside fixed:3's domain; their own capped:5 prefixes).
std::vector<std::string> PrefixKeys() {
  std::vector<std::string> keys{"a", "zz"};
  for (int g = 0; g < 12; ++g) {
    char group[8];
    std::snprintf(group, sizeof group, "g%02d", g);
    if (g % 3 == 0) keys.push_back(group);
    for (int i = 0; i < 40 + 7 * g; ++i) {
      char key[32];
      std::snprintf(key, sizeof key, "%s/%04d", group, i * 37 % 2000);
      keys.push_back(key);
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

::rocksdb::Options PrefixOptions(const PrefixConfig& c, int bits) {
  ::rocksdb::Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.paranoid_checks = true;
  options.verify_sst_unique_id_in_manifest = true;
  options.prefix_extractor.reset(c.capped ? ::rocksdb::NewCappedPrefixTransform(5)
                                          : ::rocksdb::NewFixedPrefixTransform(3));
  ::rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(::rocksdb::NewBloomFilterPolicy(bits));
  table.whole_key_filtering = c.whole_key;
  table.format_version = 5;
  if (c.partitioned) {
    // Small blocks and index partitions, so that the index cuts the partitions (a filter asks
    // for a cut only after ~180 entries at 10 bits per key).
    table.block_size = 256;
    table.metadata_block_size = 256;
    table.partition_filters = true;
    table.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  }
  options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

std::string ValueOf(const std::string& key, int round) {
  return std::string(60, static_cast<char>('a' + (key.size() + round) % 26)) + key;
}

// A table at level 1 with every key, and one at level 0 with every third key written twice,
// both versions kept by a snapshot (repeated user keys, which 7.8's builder sees one by one).
void WritePrefixDb(const std::string& dir, const PrefixConfig& c, int bits) {
  ::rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(::rocksdb::DB::Open(PrefixOptions(c, bits), dir, &raw).ok());
  std::unique_ptr<::rocksdb::DB> db(raw);
  const std::vector<std::string> keys = PrefixKeys();
  for (const std::string& k : keys) {
    ASSERT_TRUE(db->Put(::rocksdb::WriteOptions(), k, ValueOf(k, 0)).ok());
  }
  ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions()).ok());
  ::rocksdb::CompactRangeOptions deep;
  deep.change_level = true;
  deep.target_level = 1;
  ASSERT_TRUE(db->CompactRange(deep, nullptr, nullptr).ok());
  for (std::size_t i = 0; i < keys.size(); i += 3) {
    ASSERT_TRUE(db->Put(::rocksdb::WriteOptions(), keys[i], ValueOf(keys[i], 1)).ok());
  }
  const ::rocksdb::Snapshot* snap = db->GetSnapshot();
  for (std::size_t i = 0; i < keys.size(); i += 3) {
    ASSERT_TRUE(db->Put(::rocksdb::WriteOptions(), keys[i], ValueOf(keys[i], 2)).ok());
  }
  ASSERT_TRUE(db->Flush(::rocksdb::FlushOptions()).ok());
  db->ReleaseSnapshot(snap);
  ASSERT_TRUE(db->Close().ok());
}

std::vector<PrefixConfig> Configs() {
  std::vector<PrefixConfig> out;
  for (bool capped : {false, true}) {
    for (bool whole : {true, false}) {
      for (bool partitioned : {false, true}) out.push_back({capped, whole, partitioned});
    }
  }
  return out;
}

// Every configuration written once at 10 bits per key (repaired on copies) and once at 14 (the
// reference).
class RocksDbPrefix : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    for (const PrefixConfig& c : Configs()) {
      WritePrefixDb(Db(c, 10), c, 10);
      WritePrefixDb(Db(c, 14), c, 14);
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string Db(const PrefixConfig& c, int bits) {
    return dir_->path() + "/" + c.Name() + "-" + std::to_string(bits);
  }
  static std::string Copy(const PrefixConfig& c, const std::string& name) {
    const std::string to = dir_->path() + "/" + c.Name() + "-" + name;
    CopyDatabase(Db(c, 10), to);
    return to;
  }
  static testing::TempDir* dir_;
};
testing::TempDir* RocksDbPrefix::dir_ = nullptr;

// The bytes between the data blocks and the properties block: the filter (partitions and their
// index) and the index.
std::string FilterAndIndex(const std::string& path) {
  const std::string bytes = ReadText(path);
  Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(StringBytes(bytes), path);
  EXPECT_TRUE(sst.ok()) << sst.status().ToString();
  if (!sst.ok() || !sst->filter() || !sst->properties_handle()) return {};
  std::uint64_t data_end = 0;
  EXPECT_TRUE(sst->ForEachDataBlock([&](ByteSpan, const blocktable::BlockHandle& h) {
                   data_end = std::max(data_end, h.offset + h.size + blocktable::kBlockTrailerSize);
                   return Status();
                 })
                  .ok());
  return bytes.substr(data_end, sst->properties_handle()->offset - data_end);
}

std::optional<std::uint64_t> FilterEntries(const std::string& path) {
  const std::string bytes = ReadText(path);
  Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(StringBytes(bytes), path);
  if (!sst.ok() || !sst->properties()) return std::nullopt;
  return sst->properties()->Number("rocksdb.num.filter_entries");
}

// RocksDB 7.8 reopens `dir` with the configuration's extractor, verifies every block, finds
// every key with its newest value, and every prefix's keys by a prefix seek (not total order:
// each table's filter is asked for the prefix).
void ExpectRocksDbFindsEveryKeyAndPrefix(const std::string& dir, const PrefixConfig& c) {
  ::rocksdb::DB* raw = nullptr;
  ::rocksdb::Options options = PrefixOptions(c, 10);
  options.create_if_missing = false;
  const ::rocksdb::Status s = ::rocksdb::DB::Open(options, dir, &raw);
  ASSERT_TRUE(s.ok()) << dir << ": " << s.ToString();
  std::unique_ptr<::rocksdb::DB> db(raw);
  EXPECT_TRUE(db->VerifyChecksum().ok());
  const std::vector<std::string> keys = PrefixKeys();
  std::map<std::string, std::size_t> per_prefix;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::string value;
    const ::rocksdb::Status g = db->Get(::rocksdb::ReadOptions(), keys[i], &value);
    EXPECT_TRUE(g.ok()) << keys[i] << ": " << g.ToString();
    EXPECT_EQ(value, ValueOf(keys[i], i % 3 == 0 ? 2 : 0)) << keys[i];
    if (c.capped || keys[i].size() >= 3) ++per_prefix[keys[i].substr(0, c.PrefixLength())];
  }
  std::unique_ptr<::rocksdb::Iterator> it(db->NewIterator(::rocksdb::ReadOptions()));
  for (const auto& [prefix, count] : per_prefix) {
    std::size_t seen = 0;
    // Keys after the prefix's own that start with it ("g00/..." after the key "g00", whose
    // capped:5 prefix is "g00") have prefixes of their own.
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      seen += it->key().size() == prefix.size() || prefix.size() == c.PrefixLength() ? 1 : 0;
    }
    EXPECT_EQ(seen, count) << c.Name() << ": prefix " << prefix;
  }
  EXPECT_TRUE(it->status().ok());
  it.reset();
  ASSERT_TRUE(db->Close().ok());
}

// At the table's own 10 bits per key every table comes back byte for byte: 7.8's entries (its
// empty key without whole-key filtering, the prefixes at partition cuts), count and filter.
TEST_F(RocksDbPrefix, RebuiltAtItsOwnBitsPerKeyTheTableIsByteIdentical) {
  for (const PrefixConfig& c : Configs()) {
    const std::vector<std::string> tables = SstFilesIn(Db(c, 10));
    ASSERT_EQ(tables.size(), 2u) << c.Name();
    for (const std::string& path : tables) {
      const std::string bytes = ReadText(path);
      Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(StringBytes(bytes), path);
      ASSERT_TRUE(sst.ok()) << sst.status().ToString();
      ASSERT_TRUE(sst->filter()) << path;
      ASSERT_EQ(sst->filter()->placement == rocksdb::FilterPlacement::kPartitioned, c.partitioned);
      if (c.partitioned) {
        EXPECT_GE(sst->properties()->Number("rocksdb.index.partitions").value_or(0), 3u) << path;
      }
      Result<ByteVector> again = rocksdb::RewriteSstFilter(*sst, 10.0);
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      EXPECT_TRUE(StringBytes(bytes).size() == again->size() &&
                  std::equal(again->begin(), again->end(), StringBytes(bytes).begin()))
          << c.Name() << " " << path;
    }
  }
}

// --bits-per-key 14 rebuilds every table; its filter and index (and the entries it records) are
// those of the table 7.8 wrote at 14 bits per key; 7.8 finds every key and every prefix.
TEST_F(RocksDbPrefix, RebuiltAt14BitsTheFilterIsRocksDbsAndEveryPrefixIsFound) {
  for (const PrefixConfig& c : Configs()) {
    const std::string db = Copy(c, "at14");
    RepairOptions options;
    options.bits_per_key = 14;
    options.no_backup = true;
    const std::vector<std::string> paths{db};
    options.dry_run = true;
    Result<RepairReport> plan = RepairPaths(paths, options);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    options.dry_run = false;
    Result<RepairReport> report = RepairPaths(paths, options);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->rebuilt, 2u) << c.Name();
    for (const TableRepair& t : report->tables) {
      ASSERT_EQ(t.action, "repaired")
          << c.Name() << " " << t.path << " " << (t.notes.empty() ? t.damage : t.notes[0]);
      const std::string reference = Db(c, 14) + "/" + fs::path(t.path).filename().string();
      const std::string ours = FilterAndIndex(t.new_path), theirs = FilterAndIndex(reference);
      ASSERT_FALSE(theirs.empty()) << reference;
      EXPECT_TRUE(ours == theirs) << c.Name() << " " << t.new_path;
      EXPECT_EQ(FilterEntries(t.new_path), FilterEntries(reference)) << c.Name();
      // The figures come from the entries (prefixes beside or instead of keys), the dry run's
      // as the repair's.
      ASSERT_TRUE(t.new_fp_rate.has_value());
      EXPECT_LT(*t.new_fp_rate, 0.005) << c.Name();
      for (const TableRepair& planned : plan->tables) {
        if (planned.path != t.path) continue;
        EXPECT_EQ(planned.new_filter_bytes, t.new_filter_bytes) << c.Name();
        EXPECT_EQ(planned.new_fp_rate, t.new_fp_rate) << c.Name();
      }
    }
    ExpectRocksDbFindsEveryKeyAndPrefix(db, c);
  }
}

// Without --bits-per-key the table's own bits per key are read from its filter's size for the
// entries it holds (a prefix-only filter holds far fewer entries than the table has keys), and
// the rebuilt filter is the table's own.
TEST_F(RocksDbPrefix, TheRecordedBitsPerKeyComeFromTheEntries) {
  for (const PrefixConfig& c : Configs()) {
    const std::string db = Copy(c, "recorded");
    RepairOptions options;
    options.to = "rocksdb-bloom";  // every filter rebuilt, at the parameters the table records
    options.no_backup = true;
    const std::vector<std::string> paths{db};
    Result<RepairReport> report = RepairPaths(paths, options);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    for (const TableRepair& t : report->tables) {
      EXPECT_EQ(t.bits_per_key, 10.0) << c.Name() << " " << t.sizing_basis;
      const std::string original = Db(c, 10) + "/" + fs::path(t.path).filename().string();
      const std::string now = t.new_path.empty() ? t.path : t.new_path;
      EXPECT_TRUE(FilterAndIndex(now) == FilterAndIndex(original)) << c.Name() << " " << t.action;
    }
  }
}

// An extractor RocksDB does not build in: its prefixes cannot be computed, so the table is left
// byte for byte and the repair says why.
class ReversedPrefix final : public ::rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "bloomcodec.test.LastTwoBytes"; }
  ::rocksdb::Slice Transform(const ::rocksdb::Slice& key) const override {
    return ::rocksdb::Slice(key.data() + key.size() - 2, 2);
  }
  bool InDomain(const ::rocksdb::Slice& key) const override { return key.size() >= 2; }
};

TEST_F(RocksDbPrefix, ACustomExtractorIsLeftAloneAndSaysWhy) {
  const std::string db = dir_->path() + "/custom";
  ::rocksdb::Options options = PrefixOptions({false, false, false}, 10);
  options.prefix_extractor = std::make_shared<ReversedPrefix>();
  {
    ::rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(::rocksdb::DB::Open(options, db, &raw).ok());
    std::unique_ptr<::rocksdb::DB> d(raw);
    for (const std::string& k : PrefixKeys()) {
      ASSERT_TRUE(d->Put(::rocksdb::WriteOptions(), k, ValueOf(k, 0)).ok());
    }
    ASSERT_TRUE(d->Flush(::rocksdb::FlushOptions()).ok());
    ASSERT_TRUE(d->Close().ok());
  }
  const std::vector<std::string> tables = SstFilesIn(db);
  ASSERT_EQ(tables.size(), 1u);
  const std::string before = ReadText(tables[0]);
  RepairOptions repair;
  repair.bits_per_key = 14;
  repair.no_backup = true;
  const std::vector<std::string> paths{db};
  Result<RepairReport> report = RepairPaths(paths, repair);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->tables.size(), 1u);
  const TableRepair& t = report->tables[0];
  EXPECT_EQ(t.action, "unsupported");
  ASSERT_FALSE(t.notes.empty());
  EXPECT_NE(t.notes[0].find("bloomcodec.test.LastTwoBytes"), std::string::npos) << t.notes[0];
  EXPECT_EQ(ReadText(tables[0]), before);
}

}  // namespace
}  // namespace bloomcodec::repair_test

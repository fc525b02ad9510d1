// Filters and prefix extractors under the names other builds of RocksDB give them, written by the
// original (Debian's librocksdb 7.8.3, SstFileWriter) through a FilterPolicy and a SliceTransform
// that carry those names:
// * TiKV (tikv/rust-rocksdb from April 2023 to July 2024): the built-in policies renamed
//   rocksdb.BuiltinBloomFilter.FullBloom / .Ribbon; its write column family's
//   "FixedSuffixSliceTransform" (the key without its 8-byte timestamp) with whole-key filtering
//   off, its lock column family's "NoopSliceTransform" with whole keys;
// * RocksDB 7.0.0 to 7.0.2, whose metaindex keys carry the policy's Name() (bloomfilter,
//   ribbonfilter, the internal policies' names) instead of rocksdb.BuiltinBloomFilter.
// librocksdb 7.8 names the metaindex entry after CompatibilityName() where 6.29 (TiKV's) and
// 7.0.0 to 7.0.2 used Name(); the policies here return the name for both, so the keys are the
// ones those builds wrote. Every table must verify with every key and prefix asked and nothing
// above info; a flipped filter byte (checksum made to match) must still be a false negative.
// TiKV's block-based name (.BlockBloom), which 7.8 cannot write, comes from our writer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "blocktable/trailer.h"
#include "bloomcodec/input_file.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"
#include "rocksdb/sst/verify.h"
#include "rocksdb/table.h"
#include "rocksdb_sst/rocksdb_sst_writer.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {
namespace {

using blocktable::BlockHandle;
using bloomcodec::testing::TempDir;

// A built-in policy under another name, as TiKV's wrapper and RocksDB 7.0.0 to 7.0.2 present it.
class RenamedPolicy final : public ::rocksdb::FilterPolicy {
 public:
  RenamedPolicy(std::string name, const ::rocksdb::FilterPolicy* inner)
      : name_(std::move(name)), inner_(inner) {}
  const char* Name() const override { return name_.c_str(); }
  const char* CompatibilityName() const override { return name_.c_str(); }
  ::rocksdb::FilterBitsBuilder* GetBuilderWithContext(
      const ::rocksdb::FilterBuildingContext& context) const override {
    return inner_->GetBuilderWithContext(context);
  }
  ::rocksdb::FilterBitsReader* GetFilterBitsReader(
      const ::rocksdb::Slice& contents) const override {
    return inner_->GetFilterBitsReader(contents);
  }

 private:
  std::string name_;
  std::unique_ptr<const ::rocksdb::FilterPolicy> inner_;
};

// TiKV's two extractors (components/engine_rocks/src/util.rs), under the names its column
// families give them; `suffix` 0 is the no-op one.
class TikvTransform final : public ::rocksdb::SliceTransform {
 public:
  TikvTransform(const char* name, std::size_t suffix) : name_(name), suffix_(suffix) {}
  const char* Name() const override { return name_; }
  ::rocksdb::Slice Transform(const ::rocksdb::Slice& key) const override {
    return ::rocksdb::Slice(key.data(), key.size() - suffix_);
  }
  bool InDomain(const ::rocksdb::Slice& key) const override { return key.size() >= suffix_; }

 private:
  const char* name_;
  std::size_t suffix_;
};

struct Table {
  std::string policy_name;
  bool ribbon = false;
  bool partitioned = false;
  const char* extractor = nullptr;  // a TikvTransform's name, or none
  bool whole_key = true;
  int format_version = 5;
};

// TiKV's write column family keys: "z" + a row key + the commit timestamp's complement as 8
// big-endian bytes, three versions a row; and three keys at the edge of the suffix extractor's
// domain (7 bytes: outside; 8 bytes: the empty prefix).
std::vector<std::string> Keys(int rows) {
  std::vector<std::string> keys = {"zshort1", "zshort12", "zshort123"};
  for (int row = 0; row < rows; ++row) {
    char user[32];
    std::snprintf(user, sizeof user, "zt%04d_r%06d", row % 7, row);
    for (std::uint64_t ts : {400u + row, 300u + row, 200u + row}) {
      std::string key = user;
      const std::uint64_t stored = ~ts;
      for (int i = 7; i >= 0; --i) key.push_back(static_cast<char>(stored >> (8 * i)));
      keys.push_back(std::move(key));
    }
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::string WriteTable(const std::string& dir, const Table& table,
                       const std::vector<std::string>& keys) {
  ::rocksdb::BlockBasedTableOptions t;
  t.format_version = table.format_version;
  t.block_size = 512;
  t.whole_key_filtering = table.whole_key;
  t.filter_policy = std::make_shared<RenamedPolicy>(
      table.policy_name,
      table.ribbon ? ::rocksdb::NewRibbonFilterPolicy(10) : ::rocksdb::NewBloomFilterPolicy(10));
  if (table.partitioned) {
    t.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    t.partition_filters = true;
    t.metadata_block_size = 512;
  }
  ::rocksdb::Options o;
  o.compression = ::rocksdb::kNoCompression;
  if (table.extractor != nullptr) {
    const bool noop = std::string(table.extractor) == "NoopSliceTransform";
    o.prefix_extractor = std::make_shared<TikvTransform>(table.extractor, noop ? 0 : 8);
  }
  o.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(t));
  return ::bloomcodec::testing::WriteSstWithRocksDb(dir, o, keys);
}

std::string Describe(const Table& t) {
  return t.policy_name + (t.ribbon ? " ribbon" : " bloom") +
         (t.partitioned ? " partitioned" : " full") +
         " extractor=" + (t.extractor ? t.extractor : "none") + (t.whole_key ? " whole-key" : "") +
         " format_version=" + std::to_string(t.format_version);
}

std::vector<std::string> Findings(const FileReport& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) out.push_back(f.kind + ": " + f.message);
  return out;
}

// Opens `path`, checks the filter is found under the key the table's builder wrote, and verifies
// it: every key (and prefix) asked, nothing above info.
void ExpectVerifies(const std::string& path, const Table& table, std::size_t keys) {
  SCOPED_TRACE(Describe(table));
  auto in = InputFile::Open(path);
  ASSERT_TRUE(in.ok());
  auto sst = SstReader::Open(in->bytes(), path);
  ASSERT_TRUE(sst.ok()) << sst.status().ToString();
  ASSERT_TRUE(sst->filter().has_value());
  EXPECT_EQ(sst->filter()->metaindex_key,
            (table.partitioned ? "partitionedfilter." : "fullfilter.") + table.policy_name);
  EXPECT_EQ(sst->filter()->placement,
            table.partitioned ? FilterPlacement::kPartitioned : FilterPlacement::kFull);
  if (table.extractor != nullptr) {
    EXPECT_EQ(sst->properties()->String("rocksdb.prefix.extractor.name"), table.extractor);
  }
  const FileReport r = VerifySst(path, nullptr, "group", std::nullopt);
  EXPECT_LE(r.worst(), Severity::kInfo) << ::testing::PrintToString(Findings(r));
  EXPECT_EQ(r.keys_checked, keys);
  EXPECT_EQ(r.false_negative_count, 0u);
  EXPECT_EQ(r.version, table.policy_name);  // rocksdb.filter.policy, as the table records it
  ASSERT_TRUE(r.fill.has_value());
  EXPECT_TRUE(r.fill->sized_keys.has_value());
}

TEST(SstForkNames, TikvWriteColumnFamilyTablesVerifyThroughTheirSuffixExtractor) {
  const std::vector<std::string> keys = Keys(600);
  for (const Table& table :
       {Table{"rocksdb.BuiltinBloomFilter.FullBloom", false, false, "FixedSuffixSliceTransform",
              false},
        Table{"rocksdb.BuiltinBloomFilter.Ribbon", true, false, "FixedSuffixSliceTransform", false},
        Table{"rocksdb.BuiltinBloomFilter.FullBloom", false, true, "FixedSuffixSliceTransform",
              false},
        Table{"rocksdb.BuiltinBloomFilter.Ribbon", true, true, "FixedSuffixSliceTransform", false},
        Table{"rocksdb.BuiltinBloomFilter.FullBloom", false, false, "FixedSuffixSliceTransform",
              true},
        // TiKV's lock and raft column families.
        Table{"rocksdb.BuiltinBloomFilter.FullBloom", false, false, "NoopSliceTransform", true},
        Table{"rocksdb.BuiltinBloomFilter.Ribbon", true, true, "NoopSliceTransform", true}}) {
    TempDir dir;
    const std::string path = WriteTable(dir.path(), table, keys);
    ExpectVerifies(path, table, keys.size());
  }
}

// The prefixes verify asks are the ones TiKV's extractor adds: each key in its domain without
// its last 8 bytes (the 8-byte key's empty prefix included) is in the filter, and another
// extractor's prefixes are not.
TEST(SstForkNames, TheSuffixExtractorsPrefixesAreTheOnesTheFilterHolds) {
  const std::vector<std::string> keys = Keys(600);
  TempDir dir;
  const Table table{"rocksdb.BuiltinBloomFilter.FullBloom", false, false,
                    "FixedSuffixSliceTransform", false};
  const std::string path = WriteTable(dir.path(), table, keys);
  auto in = InputFile::Open(path);
  ASSERT_TRUE(in.ok());
  auto sst = SstReader::Open(in->bytes(), path);
  ASSERT_TRUE(sst.ok());
  const auto recorded = PrefixExtractor::FromPropertyName("FixedSuffixSliceTransform");
  ASSERT_TRUE(recorded.has_value());
  std::size_t in_domain = 0;
  for (const std::string& k : keys) {
    const ByteSpan key = AsBytes(std::string_view(k));
    EXPECT_EQ(recorded->InDomain(key), k.size() >= 8) << k;
    if (!recorded->InDomain(key)) continue;
    ++in_domain;
    const ByteSpan prefix = recorded->Transform(key);
    EXPECT_EQ(prefix.size(), k.size() - 8);
    auto held = sst->FilterHolds(prefix, key);
    ASSERT_TRUE(held.ok());
    EXPECT_TRUE(*held) << k;
  }
  EXPECT_EQ(in_domain, keys.size() - 1);
  PrefixExtractor other;
  other.kind = PrefixExtractor::Kind::kFixed;
  other.length = 5;
  const FileReport missed = VerifySst(path, nullptr, "group", other);
  EXPECT_GT(missed.false_negative_count, 0u);
  EXPECT_EQ(missed.worst(), Severity::kError);
}

TEST(SstForkNames, RocksDb70AliasNamesAreReadAsTheBuiltInFilters) {
  const std::vector<std::string> keys = Keys(400);
  for (const Table& table :
       {Table{"bloomfilter", false, false}, Table{"bloomfilter", false, true},
        Table{"ribbonfilter", true, false}, Table{"ribbonfilter", true, true},
        Table{"rocksdb.internal.FastLocalBloomFilter", false, false},
        Table{"rocksdb.internal.Standard128RibbonFilter", true, true},
        Table{"rocksdb.internal.LegacyBloomFilter", false, false, nullptr, true, 4},
        Table{"bloomfilter", false, false, "FixedSuffixSliceTransform", false, 4}}) {
    TempDir dir;
    const std::string path = WriteTable(dir.path(), table, keys);
    ExpectVerifies(path, table, keys.size());
  }
}

// A byte of the filter flipped, the block's checksum made to match: keys (or prefixes) the
// filter now denies are false negatives, under every name.
TEST(SstForkNames, AFlippedFilterByteIsStillCaught) {
  const std::vector<std::string> keys = Keys(600);
  for (const Table& table :
       {Table{"rocksdb.BuiltinBloomFilter.FullBloom", false, false, "FixedSuffixSliceTransform",
              false},
        Table{"rocksdb.BuiltinBloomFilter.Ribbon", true, false, "FixedSuffixSliceTransform", false},
        Table{"ribbonfilter", true, false}, Table{"bloomfilter", false, false}}) {
    SCOPED_TRACE(Describe(table));
    TempDir dir;
    const std::string path = WriteTable(dir.path(), table, keys);
    auto in = InputFile::Open(path);
    ASSERT_TRUE(in.ok());
    ByteVector file(in->bytes().begin(), in->bytes().end());
    auto sst = SstReader::Open(file, path);
    ASSERT_TRUE(sst.ok() && sst->filter().has_value());
    const BlockHandle h = sst->filter()->handle;
    // A byte in the middle of the bit array with bits set: a set bit some entry needed is
    // cleared (Bloom), a solution byte changes (Ribbon).
    std::uint64_t at = h.offset + h.size / 2;
    while (file[at] == 0) ++at;
    ASSERT_LT(at, h.offset + h.size - 5);
    file[at] ^= 0xff;
    const std::uint32_t crc = blocktable::StoredBlockChecksum(
        sst->BlockOptions().trailer, ByteSpan(file).subspan(h.offset, h.size),
        file[h.offset + h.size], h.offset);
    for (int i = 0; i < 4; ++i) {
      file[h.offset + h.size + 1 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
    }
    const std::string damaged = dir.path() + "/000002.sst";
    std::ofstream(damaged, std::ios::binary)
        .write(reinterpret_cast<const char*>(file.data()),
               static_cast<std::streamsize>(file.size()));
    const FileReport r = VerifySst(damaged, nullptr, "group", std::nullopt);
    EXPECT_EQ(r.worst(), Severity::kError) << ::testing::PrintToString(Findings(r));
    EXPECT_GT(r.false_negative_count, 0u);
  }
}

// Names that are not the built-in filters' stay another policy's (a warning, the filter unused),
// and an extractor we do not know with whole-key filtering off stays unsupported.
TEST(SstForkNames, OtherPoliciesAndExtractorsStayUnsupported) {
  const std::vector<std::string> keys = Keys(200);
  for (const char* name : {"rocksdb.BuiltinBloomFilter.Custom", "bloomcodec.test.Policy"}) {
    TempDir dir;
    const std::string path = WriteTable(dir.path(), Table{name, false, false}, keys);
    const FileReport r = VerifySst(path, nullptr, "group", std::nullopt);
    ASSERT_EQ(r.findings.size(), 1u) << ::testing::PrintToString(Findings(r));
    EXPECT_EQ(r.findings[0].kind, "unsupported");
    EXPECT_EQ(r.findings[0].severity, Severity::kWarning);
    EXPECT_NE(r.findings[0].message.find(std::string("fullfilter.") + name), std::string::npos);
  }
  TempDir dir;
  const std::string path = WriteTable(
      dir.path(),
      Table{"rocksdb.BuiltinBloomFilter.FullBloom", false, false, "FixedSuffixTransform", false},
      keys);
  const FileReport r = VerifySst(path, nullptr, "group", std::nullopt);
  ASSERT_EQ(r.findings.size(), 1u) << ::testing::PrintToString(Findings(r));
  EXPECT_EQ(r.findings[0].kind, "unsupported");
  EXPECT_NE(r.findings[0].message.find("FixedSuffixTransform"), std::string::npos);
}

// TiKV's block-based name, from our writer (RocksDB 7.x writes no block-based filters): found
// under "filter." and every key checked through the read path 6.x uses.
TEST(SstForkNames, TikvsBlockBasedNameIsReadAsTheBlockBasedFilter) {
  std::vector<std::string> strings = Keys(300);
  KeyList keys;
  for (const std::string& k : strings) keys.Add(AsBytes(std::string_view(k)));
  SstWriteOptions options;
  options.block_based_filter = true;
  options.policy_name = "rocksdb.BuiltinBloomFilter.BlockBloom";
  auto bytes = WriteSst(keys, nullptr, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  TempDir dir;
  const std::string path = dir.path() + "/000001.sst";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes->data()),
             static_cast<std::streamsize>(bytes->size()));
  auto sst = SstReader::Open(*bytes, path);
  ASSERT_TRUE(sst.ok()) << sst.status().ToString();
  ASSERT_TRUE(sst->filter().has_value());
  EXPECT_EQ(sst->filter()->metaindex_key, "filter.rocksdb.BuiltinBloomFilter.BlockBloom");
  EXPECT_EQ(sst->filter()->placement, FilterPlacement::kBlockBased);
  const FileReport r = VerifySst(path, nullptr, "group", std::nullopt);
  EXPECT_LE(r.worst(), Severity::kInfo) << ::testing::PrintToString(Findings(r));
  EXPECT_EQ(r.keys_checked, strings.size());
  EXPECT_EQ(r.version, "rocksdb.BuiltinBloomFilter.BlockBloom");
}

}  // namespace
}  // namespace bloomcodec::rocksdb

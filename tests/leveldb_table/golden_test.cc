// Every golden LevelDB 1.23 table (fixtures/leveldb/tables, written by leveldb::DB and by
// leveldb::TableBuilder) read back by our reader: footer, metaindex, filter block layout, data
// blocks, every entry, and every recorded probe answer of the original read path. Also rebuilds
// each table with our writer and our filter rewriter and expects the original bytes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "blocktable/crc32c.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "support/test_support.h"

namespace bloomcodec::leveldb {
namespace {

using namespace bloomcodec::blocktable;  // the block-based table this format is

using bloomcodec::testing::HexBytes;
using bloomcodec::testing::ReadFixture;
using bloomcodec::testing::ReadTsvFixture;
using bloomcodec::testing::TsvTable;

const std::string kDir = "leveldb/tables/";

struct GoldenTable {
  std::string db;    // tables.tsv name
  std::string file;  // file name without .ldb
  bool is_db;
  int bits_per_key;
  bool snappy;
  std::size_t block_size;
  int restart_interval;
  std::string kind;
};

void PrintTo(const GoldenTable& g, std::ostream* os) { *os << g.file; }

std::vector<GoldenTable> AllGoldenTables() {
  TsvTable t = ReadTsvFixture(kDir + "tables.tsv");
  std::vector<GoldenTable> out;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    std::stringstream files(t.At(r, "table_files"));
    std::string f;
    while (std::getline(files, f, ',')) {
      GoldenTable g;
      g.db = t.At(r, "name");
      g.file = f.substr(0, f.size() - 4);
      g.kind = t.At(r, "kind");
      g.is_db = g.kind == "db";
      g.bits_per_key = std::stoi(t.At(r, "bits_per_key"));
      g.snappy = t.At(r, "compression") == "snappy";
      g.block_size = std::stoul(t.At(r, "block_size"));
      g.restart_interval = std::stoi(t.At(r, "restart_interval"));
      out.push_back(g);
    }
  }
  return out;
}

std::map<std::string, std::string> ReadMeta(const std::string& name) {
  // meta.tsv has no header line: every line is field<TAB>value[<TAB>value].
  std::string text = bloomcodec::testing::ReadFixtureText(kDir + name + ".meta.tsv");
  std::map<std::string, std::string> meta;
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::string field = line.substr(0, tab);
    if (field == "metaindex_entry") {
      meta["metaindex_entry"] += line.substr(tab + 1) + ";";
    } else {
      meta[field] = line.substr(tab + 1);
    }
  }
  return meta;
}

std::string HandleText(const BlockHandle& h) {
  return std::to_string(h.offset) + "," + std::to_string(h.size);
}

std::uint32_t LoadLe32(ByteSpan b) {
  return std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 |
         std::uint32_t{b[3]} << 24;
}

class GoldenTableTest : public ::testing::TestWithParam<GoldenTable> {
 protected:
  void SetUp() override {
    g_ = GetParam();
    bytes_ = ReadFixture(kDir + g_.file + ".ldb");
    ASSERT_FALSE(bytes_.empty());
    TableOpenOptions options;
    options.key_kind = g_.is_db ? KeyKind::kUser : KeyKind::kPlain;
    options.verify_checksums = true;
    auto t = TableReader::Open(bytes_, g_.file + ".ldb", options);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    table_.emplace(std::move(t).value());
  }

  GoldenTable g_;
  ByteVector bytes_;
  std::optional<TableReader> table_;
  int differing_ = 0;
};

TEST_P(GoldenTableTest, FooterMetaindexAndFilterBlockAsInMeta) {
  auto meta = ReadMeta(g_.file);
  const TableReader& t = *table_;
  EXPECT_EQ(std::to_string(bytes_.size()), meta["file_size"]);
  EXPECT_EQ(HandleText(t.footer().metaindex_handle), meta["footer_metaindex_handle"]);
  EXPECT_EQ(HandleText(t.footer().index_handle), meta["footer_index_handle"]);
  EXPECT_EQ(ToHex(ByteSpan(bytes_).last(48)), meta["footer_hex"]);
  EXPECT_EQ(std::to_string(static_cast<int>(t.metaindex_block().contents().compression())),
            meta["metaindex_block_compression"]);
  EXPECT_EQ(std::to_string(static_cast<int>(t.index_block().contents().compression())),
            meta["index_block_compression"]);
  EXPECT_EQ(std::to_string(t.metaindex().size()), meta["metaindex_num_entries"]);
  std::string entries;
  for (const MetaindexEntry& e : t.metaindex()) entries += e.key + "\t" + ToHex(e.value) + ";";
  EXPECT_EQ(entries, meta["metaindex_entry"]);
  EXPECT_EQ(t.filter().has_value() ? "1" : "0", meta["has_filter_block"]);
  if (t.filter()) {
    const TableFilter& f = *t.filter();
    EXPECT_EQ(f.metaindex_key, meta["filter_metaindex_key"]);
    EXPECT_EQ(f.v117, g_.kind.find("legacy") != std::string::npos);
    EXPECT_EQ(HandleText(f.handle), meta["filter_block_handle"]);
    const ByteSpan trailer = ByteSpan(bytes_).subspan(f.handle.offset + f.handle.size, 5);
    EXPECT_EQ(std::to_string(trailer[0]), meta["filter_block_trailer_type"]);
    const std::uint32_t stored = LoadLe32(trailer.subspan(1));
    EXPECT_EQ(stored, std::stoul(meta["filter_block_trailer_masked_crc32c"], nullptr, 16));
    EXPECT_EQ(UnmaskCrc(stored),
              std::stoul(meta["filter_block_trailer_unmasked_crc32c"], nullptr, 16));
    EXPECT_EQ(stored, BlockTrailerCrc(f.contents.bytes(), 0));
    auto layout = ParseFilterBlockLayout(f.contents.bytes(), t.source(), f.handle.offset);
    ASSERT_TRUE(layout.ok()) << layout.status().ToString();
    EXPECT_EQ(std::to_string(layout->base_lg), meta["filter_block_base_lg"]);
    EXPECT_EQ(std::to_string(layout->array_offset), meta["filter_block_array_offset"]);
    EXPECT_EQ(std::to_string(layout->filters.size()), meta["filter_block_num_filters"]);
    EXPECT_EQ(std::to_string(layout->num_empty()), meta["filter_block_num_empty_filters"]);
    std::string offsets;
    for (const FilterRange& r : layout->filters) {
      offsets += (offsets.empty() ? "" : ",") + std::to_string(r.start);
    }
    EXPECT_EQ(offsets, meta["filter_offsets"]);
    // filterblock.bin: the block's bytes exactly.
    const ByteVector expected = ReadFixture(kDir + g_.file + ".filterblock.bin");
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), f.contents.bytes().begin(),
                           f.contents.bytes().end()));

    TsvTable filters = ReadTsvFixture(kDir + g_.file + ".filters.tsv");
    ASSERT_EQ(filters.rows.size(), layout->filters.size());
    for (std::size_t i = 0; i < filters.rows.size(); ++i) {
      const FilterRange& r = layout->filters[i];
      EXPECT_EQ(filters.At(i, "filter_index"), std::to_string(i));
      EXPECT_EQ(filters.At(i, "start"), std::to_string(r.start));
      EXPECT_EQ(filters.At(i, "limit"), std::to_string(r.limit));
      EXPECT_EQ(filters.At(i, "length"), std::to_string(r.size()));
      EXPECT_EQ(filters.At(i, "k"),
                r.empty() ? "-" : std::to_string(f.contents.bytes()[r.limit - 1]));
    }
  }
  std::string block_offsets;
  std::size_t blocks = 0;
  ASSERT_TRUE(t.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) -> Status {
                 block_offsets += (block_offsets.empty() ? "" : ",") + std::to_string(h.offset);
                 ++blocks;
                 return Status();
               }).ok());
  EXPECT_EQ(std::to_string(blocks), meta["num_data_blocks"]);
  EXPECT_EQ(block_offsets, meta["data_block_offsets"]);
}

TEST_P(GoldenTableTest, DataBlocksAsInBlocksTsv) {
  TsvTable rows = ReadTsvFixture(kDir + g_.file + ".blocks.tsv");
  std::size_t i = 0;
  Status s = table_->ForEachDataBlock([&](ByteSpan index_key, const BlockHandle& h) -> Status {
    EXPECT_LT(i, rows.rows.size());
    if (i >= rows.rows.size()) return Status();
    EXPECT_EQ(rows.At(i, "offset"), std::to_string(h.offset));
    EXPECT_EQ(rows.At(i, "size"), std::to_string(h.size));
    EXPECT_EQ(rows.At(i, "index_key_hex"), ToHex(index_key));
    EXPECT_EQ(rows.At(i, "filter_index"),
              table_->filter() ? std::to_string(h.offset >> 11) : std::string("-1"));
    BLOOMCODEC_ASSIGN_OR_RETURN(Block block, table_->ReadDataBlock(h));
    EXPECT_EQ(rows.At(i, "compression"),
              std::to_string(static_cast<int>(block.contents().compression())));
    EXPECT_EQ(block.contents().owned(),
              block.contents().compression() == BlockCompression::kSnappy);
    BLOOMCODEC_ASSIGN_OR_RETURN(std::uint64_t n, VerifyBlock(block, table_->key_order()));
    EXPECT_EQ(rows.At(i, "num_entries"), std::to_string(n));
    ++i;
    return Status();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(i, rows.rows.size());
}

TEST_P(GoldenTableTest, EveryKeyReadBackInOrder) {
  TsvTable rows = ReadTsvFixture(kDir + g_.file + ".keys.tsv");
  std::size_t i = 0;
  Status s = table_->ForEachEntry([&](ByteSpan key, ByteSpan value, const BlockHandle& h) {
    EXPECT_LT(i, rows.rows.size());
    if (i >= rows.rows.size()) return Status();
    if (g_.is_db) {
      EXPECT_EQ(rows.At(i, "user_key_hex"), ToHex(UserKeyOf(key)));
      EXPECT_EQ(rows.At(i, "sequence"), std::to_string(TagOf(key) >> 8));
      EXPECT_EQ(rows.At(i, "type"), std::to_string(TagOf(key) & 0xff));
    } else {
      EXPECT_EQ(rows.At(i, "key_hex"), ToHex(key));
      EXPECT_EQ(rows.At(i, "value_len"), std::to_string(value.size()));
    }
    EXPECT_EQ(rows.At(i, "data_block_offset"), std::to_string(h.offset));
    ++i;
    return Status();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(i, rows.rows.size());
  auto verified = table_->Verify();
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_EQ(*verified, rows.rows.size());
}

TEST_P(GoldenTableTest, ProbesAnsweredAsTheOriginalReadPath) {
  TsvTable probes = ReadTsvFixture(kDir + (g_.is_db ? g_.db : g_.file) + ".probes.tsv");
  ASSERT_GT(probes.rows.size(), 0u);
  KeyList keys;
  std::vector<std::uint8_t> expected;
  std::size_t filter_calls = 0;
  for (std::size_t r = 0; r < probes.rows.size(); ++r) {
    const std::string key_hex = probes.At(r, g_.is_db ? "user_key_hex" : "key_hex");
    keys.Add(HexBytes(key_hex));
    auto trace = table_->Trace(keys[r]);
    ASSERT_TRUE(trace.ok()) << trace.status().ToString();
    const std::string may = probes.At(r, "key_may_match");
    const std::string block = probes.At(r, "data_block_offset");
    std::uint8_t want;
    if (g_.is_db) {
      // Only the table whose key range holds the key is asked; other tables answer 0.
      const bool this_table = probes.At(r, "table") == g_.file;
      want = this_table && may == "1" ? 1 : 0;
      if (this_table) {
        EXPECT_TRUE(trace->block_found) << key_hex;
        EXPECT_EQ(std::to_string(trace->block.offset), block) << key_hex;
        EXPECT_EQ(trace->filter_asked, may != "-") << key_hex;
      } else {
        EXPECT_FALSE(trace->in_range && trace->block_found) << key_hex;
      }
    } else {
      if (block == "-1") {
        want = 0;
        EXPECT_FALSE(trace->block_found) << key_hex;
      } else {
        EXPECT_EQ(std::to_string(trace->block.offset), block) << key_hex;
        want = may == "-" ? 1 : (may == "1" ? 1 : 0);  // '-': no filter, LevelDB reads the block
      }
    }
    if (trace->filter_asked) ++filter_calls;
    expected.push_back(want);
    EXPECT_EQ(trace->answer ? 1 : 0, want) << key_hex;
  }
  std::vector<std::uint8_t> answers(keys.size());
  ASSERT_TRUE(table_->MayContainBatch(keys, answers).ok());
  EXPECT_EQ(answers, expected);
  if (g_.kind == "tablebuilder+no_filter_policy") {
    EXPECT_EQ(filter_calls, 0u);
  }
}

// DB::Get looks up (user key, the database's last sequence). The default snapshot stands for any
// such sequence; the maximal sequence 2^56-1 is NOT equivalent: it ties with the tag LevelDB
// gives shortened index separators and stops one block early when a probe equals one.
class GoldenDbTableTest : public GoldenTableTest {};

TEST_P(GoldenDbTableTest, MaximalSequenceDiffersOnlyAtShortenedSeparators) {
  TableOpenOptions options;
  options.key_kind = KeyKind::kUser;
  options.sequence = kMaxSequenceNumber;
  auto at_max = TableReader::Open(bytes_, g_.file, options);
  ASSERT_TRUE(at_max.ok());
  TsvTable probes = ReadTsvFixture(kDir + g_.db + ".probes.tsv");
  std::vector<ByteVector> separators;
  ASSERT_TRUE(table_
                  ->ForEachDataBlock([&](ByteSpan key, const BlockHandle&) {
                    separators.emplace_back(key.begin(), key.end());
                    return Status();
                  })
                  .ok());
  for (std::size_t r = 0; r < probes.rows.size(); ++r) {
    const ByteVector key = HexBytes(probes.At(r, "user_key_hex"));
    auto a = table_->Trace(key);
    auto b = at_max->Trace(key);
    ASSERT_TRUE(a.ok() && b.ok());
    if (a->block_found == b->block_found && a->block == b->block) continue;
    // Only a probe equal to a shortened separator's user key may differ.
    bool equals_separator = false;
    for (const ByteVector& s : separators) {
      equals_separator |=
          TagOf(s) == (kMaxSequenceNumber << 8 | 1) &&
          std::equal(key.begin(), key.end(), UserKeyOf(s).begin(), UserKeyOf(s).end());
    }
    EXPECT_TRUE(equals_separator) << probes.At(r, "user_key_hex");
    ++differing_;
  }
  std::cout << "probes answered from another block at sequence 2^56-1: " << differing_ << "\n";
}

TEST_P(GoldenTableTest, KeyKindDecidedFromTheTable) {
  TableOpenOptions options;  // kAuto
  auto t = TableReader::Open(bytes_, g_.file, options);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->key_kind(), g_.is_db ? KeyKind::kUser : KeyKind::kPlain);
}

// Our writer, fed the table's own entries with the generator's options, writes the same bytes.
TEST_P(GoldenTableTest, WriterReproducesTheTable) {
  TableWriteOptions options;
  // A database clamps block_size to >= 1024; a TableBuilder uses it as given.
  options.block_size = g_.is_db ? std::max<std::size_t>(1024, g_.block_size) : g_.block_size;
  options.restart_interval = g_.restart_interval;
  options.compression = g_.snappy ? BlockCompression::kSnappy : BlockCompression::kNone;
  options.key_kind = g_.is_db ? KeyKind::kUser : KeyKind::kPlain;
  if (g_.kind.find("legacy") != std::string::npos) {
    options.filter = BloomPolicy::Legacy117(g_.bits_per_key);
  } else if (g_.bits_per_key > 0) {
    options.filter = BloomPolicy::Current(g_.bits_per_key);
  }
  TableWriter writer(options);
  ASSERT_TRUE(table_
                  ->ForEachEntry([&](ByteSpan key, ByteSpan value, const BlockHandle&) {
                    return writer.Add(key, value);
                  })
                  .ok());
  auto out = writer.Finish();
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->size(), bytes_.size());
  EXPECT_TRUE(*out == bytes_)
      << "first difference at byte "
      << (std::mismatch(out->begin(), out->end(), bytes_.begin(), bytes_.end()).first -
          out->begin());
}

// Rewriting the filter with the policy the table already has gives the table back; removing it
// gives a table without filter that still reads every key.
TEST_P(GoldenTableTest, FilterRewriteRoundTrips) {
  std::optional<BloomPolicy> policy;
  if (g_.kind.find("legacy") != std::string::npos) {
    policy = BloomPolicy::Legacy117(g_.bits_per_key);
  } else if (g_.bits_per_key > 0) {
    policy = BloomPolicy::Current(g_.bits_per_key);
  }
  auto same = RewriteTableFilter(*table_, policy);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_TRUE(*same == bytes_);

  auto none = RewriteTableFilter(*table_, std::nullopt);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  TableOpenOptions options;
  options.key_kind = table_->key_kind();
  options.verify_checksums = true;
  auto stripped = TableReader::Open(*none, "stripped", options);
  ASSERT_TRUE(stripped.ok()) << stripped.status().ToString();
  EXPECT_FALSE(stripped->filter().has_value());
  EXPECT_TRUE(stripped->metaindex().empty());
  auto n1 = table_->Verify();
  auto n2 = stripped->Verify();
  ASSERT_TRUE(n1.ok() && n2.ok());
  EXPECT_EQ(*n1, *n2);
}

std::string Name(const ::testing::TestParamInfo<GoldenTable>& info) {
  std::string n = info.param.file;
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Tables, GoldenTableTest, ::testing::ValuesIn(AllGoldenTables()), Name);

std::vector<GoldenTable> DbTables() {
  std::vector<GoldenTable> out;
  for (const GoldenTable& g : AllGoldenTables()) {
    if (g.is_db) out.push_back(g);
  }
  return out;
}
INSTANTIATE_TEST_SUITE_P(DbTables, GoldenDbTableTest, ::testing::ValuesIn(DbTables()), Name);

}  // namespace
}  // namespace bloomcodec::leveldb

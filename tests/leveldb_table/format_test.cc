// The `leveldb-table` format as the command line sees it: detection by footer magic, probe with
// --key-kind (and without, where the table tells), hash, build; and the CLI binary end to end.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "bloomcodec/leveldb/hash.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "support/test_support.h"

namespace bloomcodec::leveldb {
namespace {

using namespace bloomcodec::blocktable;  // the block-based table this format is

using bloomcodec::testing::FixturePath;
using bloomcodec::testing::HexBytes;
using bloomcodec::testing::ReadFixture;
using bloomcodec::testing::ReadTsvFixture;

const std::string kDbTable = "leveldb/tables/db_bpk1_none_bs1024__000005.ldb";
const std::string kDbProbes = "leveldb/tables/db_bpk1_none_bs1024.probes.tsv";

const FormatCodec& Codec() {
  const FormatCodec* f = FindFormat("leveldb-table");
  EXPECT_NE(f, nullptr);
  return *f;
}

// The golden probes of the single-table database and DB::Get's filter answers for them.
void GoldenProbes(KeyList& keys, std::vector<std::uint8_t>& expected) {
  auto probes = ReadTsvFixture(kDbProbes);
  for (std::size_t r = 0; r < probes.rows.size(); ++r) {
    keys.Add(HexBytes(probes.At(r, "user_key_hex")));
    expected.push_back(probes.At(r, "key_may_match") == "1" ? 1 : 0);
  }
}

TEST(TableFormatTest, ClaimedByFooterMagicOnly) {
  const ByteVector table = ReadFixture(kDbTable);
  EXPECT_TRUE(Codec().Claims("000005.ldb", table));
  EXPECT_EQ(DetectFormat("000005.ldb", table), &Codec());
  ByteVector damaged = table;
  damaged.back() ^= 0xff;
  EXPECT_FALSE(Codec().Claims("000005.ldb", damaged));
  EXPECT_FALSE(Codec().Claims("x.ldb", ByteSpan(table).first(40)));
}

TEST(TableFormatTest, ProbeAsDbGetWithAndWithoutKeyKind) {
  const ByteVector table = ReadFixture(kDbTable);
  KeyList keys;
  std::vector<std::uint8_t> expected;
  GoldenProbes(keys, expected);
  for (KeyKind kind : {KeyKind::kUser, KeyKind::kAuto}) {
    std::vector<std::uint8_t> answers(keys.size(), 7);
    ProbeOptions options;
    options.family.Set(LevelDbOptions{.key_kind = kind});
    Status s = Codec().Probe(table, "000005.ldb", keys, options, answers);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(answers, expected);
  }
}

TEST(TableFormatTest, UndecidableKeyKindIsAUsageError) {
  // A table without filter whose keys look like internal keys and sort both ways.
  KeyList keys;
  for (int i = 0; i < 20; ++i) {
    std::string k = "key" + std::to_string(100 + i);
    k.append("\x01\x00\x00\x00\x00\x00\x00\x00", 8);  // tag: sequence 0, type 1
    keys.Add(k);
  }
  FilterParams params;
  params.bits_per_key = 10;
  auto built = Codec().Build(keys, params);
  ASSERT_TRUE(built.ok());
  // With a filter the table decides: filter 0 is rebuilt from whole keys, not from user keys.
  auto automatic = TableReader::Open(*built, "t", {});
  ASSERT_TRUE(automatic.ok()) << automatic.status().ToString();
  EXPECT_EQ(automatic->key_kind(), KeyKind::kPlain);
  // Without the filter nothing in the table tells: the user must say.
  auto stripped = RewriteTableFilter(*automatic, std::nullopt);
  ASSERT_TRUE(stripped.ok());
  std::vector<std::uint8_t> answers(keys.size());
  Status s = Codec().Probe(*stripped, "stripped.ldb", keys, {}, answers);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.ToString().find("--key-kind"), std::string::npos) << s.ToString();
  ProbeOptions plain;
  plain.family.Set(LevelDbOptions{.key_kind = KeyKind::kPlain});
  ASSERT_TRUE(Codec().Probe(*stripped, "stripped.ldb", keys, plain, answers).ok());
  EXPECT_EQ(answers, std::vector<std::uint8_t>(keys.size(), 1));  // no filter: may contain
}

TEST(TableFormatTest, HashIsTheCurrentBloomHash) {
  auto vectors = ReadTsvFixture("leveldb/raw/hash_vectors.tsv");
  std::size_t checked = 0;
  for (std::size_t r = 0; r < vectors.rows.size(); ++r) {
    if (vectors.At(r, "seed") != "bc9f1d34") continue;
    std::string line;
    ASSERT_TRUE(Codec().Hash(HexBytes(vectors.At(r, "data_hex")), line).ok());
    EXPECT_EQ(line, std::to_string(std::stoul(vectors.At(r, "hash_leveldb_1_23"), nullptr, 16)));
    ++checked;
  }
  EXPECT_GT(checked, 10u);
}

TEST(TableFormatTest, BuildSortsDeduplicatesAndFilters) {
  KeyList keys;
  for (const char* k : {"pear", "apple", "fig", "apple", "", "zucchini"})
    keys.Add(std::string_view(k));
  FilterParams params;
  params.bits_per_key = 10;
  auto built = Codec().Build(keys, params);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  TableOpenOptions options;
  options.key_kind = KeyKind::kPlain;
  options.verify_checksums = true;
  auto table = TableReader::Open(*built, "built.ldb", options);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_TRUE(table->filter().has_value());
  EXPECT_EQ(table->filter()->metaindex_key, "filter.leveldb.BuiltinBloomFilter2");
  std::vector<std::string> stored;
  ASSERT_TRUE(table
                  ->ForEachEntry([&](ByteSpan k, ByteSpan v, const BlockHandle&) {
                    EXPECT_TRUE(v.empty());
                    stored.emplace_back(AsChars(k));
                    return Status();
                  })
                  .ok());
  EXPECT_EQ(stored, (std::vector<std::string>{"", "apple", "fig", "pear", "zucchini"}));
  std::vector<std::uint8_t> answers(keys.size());
  ASSERT_TRUE(Codec().Probe(*built, "built.ldb", keys, {}, answers).ok());
  EXPECT_EQ(answers, std::vector<std::uint8_t>(keys.size(), 1));
  // k = floor(10 * 0.69) = 6 in the one filter.
  const ByteSpan block = table->filter()->contents.bytes();
  const FilterBlockReader reader(block, HashFlavor::kUnsignedTail);
  EXPECT_EQ(reader.FilterFor(0).filter.back(), 6);

  FilterParams fractional;
  fractional.bits_per_key = 7.5;
  EXPECT_EQ(Codec().Build(keys, fractional).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Codec().Build(keys, FilterParams{}).status().code(), StatusCode::kInvalidArgument);
  FilterParams fp;
  fp.bits_per_key = 10;
  fp.fp_chance = 0.01;
  EXPECT_EQ(Codec().Build(keys, fp).status().code(), StatusCode::kInvalidArgument);
}

TEST(TableFormatTest, CommandLineProbe) {
  KeyList keys;
  std::vector<std::uint8_t> expected;
  GoldenProbes(keys, expected);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("bloomcodec_ldbt_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto key_file = dir / "probes.hex";
  {
    std::ofstream out(key_file);
    for (std::size_t i = 0; i < keys.size(); ++i) out << ToHex(keys[i]) << "\n";
  }
  const std::string command = std::string(BLOOMCODEC_CLI) + " probe " + FixturePath(kDbTable) +
                              " --keys " + key_file.string() + " --key-format hex --key-kind user";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  EXPECT_EQ(::pclose(pipe), 0) << command;
  std::string want;
  for (std::uint8_t e : expected) want += e ? "1\n" : "0\n";
  EXPECT_EQ(output, want);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bloomcodec::leveldb

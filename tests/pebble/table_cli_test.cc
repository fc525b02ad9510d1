// The built CLI on Pebble tables made by table_builder.h and columnar_table_builder.h: a table is
// detected by its magic and verified as a pebble-table (no longer the LevelDB magic error), alone
// or as a folder of tables, row-based or columnar; a columnar table naming no key schema is an
// `unsupported` warning naming its version, exit 0.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pebble/columnar_table_builder.h"
#include "pebble/table_builder.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::pebble {
namespace {

using bloomcodec::testing::Json;
using bloomcodec::testing::TempDir;
using bloomcodec::testing::VerifyJson;
using bloomcodec::testing::WriteFileAt;

std::vector<testing::PebbleEntry> Entries(std::size_t n) {
  std::vector<testing::PebbleEntry> entries;
  for (std::size_t i = 0; i < n; ++i) {
    entries.push_back({"row" + std::to_string(10000 + i), 3, testing::kSet, "v"});
  }
  return entries;
}

TEST(PebbleTableCli, FolderOfTablesIsOneGroupOfPebbleTables) {
  TempDir dir;
  testing::PebbleTableSpec spec;
  WriteFileAt(dir.path() + "/tables/000004.sst", BuildPebbleTable(Entries(300), spec));
  spec.version = 4;
  spec.compression = blocktable::BlockCompression::kSnappy;
  WriteFileAt(dir.path() + "/tables/000005.sst", BuildPebbleTable(Entries(700), spec));
  const Json doc = VerifyJson({dir.path() + "/tables"}, 0);
  ASSERT_EQ(doc["files"].size(), 2u);
  std::uint64_t keys = 0;
  for (const Json& f : doc["files"]) {
    EXPECT_EQ(f["format"], "pebble-table");
    EXPECT_TRUE(f["findings"].empty()) << f.dump();
    keys += f["keys_checked"].get<std::uint64_t>();
  }
  EXPECT_EQ(keys, 1000u);
  EXPECT_EQ(doc["files"][1]["version"], "Pebblev4");
}

TEST(PebbleTableCli, ColumnarTablesAreVerified) {
  TempDir dir;
  for (std::uint32_t v = 5; v <= 8; ++v) {
    testing::ColumnarTableSpec spec;
    spec.version = v;
    WriteFileAt(dir.path() + "/00000" + std::to_string(v) + ".sst",
                testing::BuildColumnarTable(Entries(300), spec));
  }
  const Json doc = VerifyJson({dir.path()}, 0);
  ASSERT_EQ(doc["files"].size(), 4u) << doc.dump();
  for (std::uint32_t v = 5; v <= 8; ++v) {
    const Json& f = doc["files"][v - 5];
    EXPECT_EQ(f["format"], "pebble-table");
    EXPECT_EQ(f["version"], "Pebblev" + std::to_string(v));
    EXPECT_TRUE(f["findings"].empty()) << f.dump();
    EXPECT_EQ(f["keys_checked"], 300u);
  }
}

// A row table relabelled Pebblev5 names no key schema: unsupported, as Pebble refuses it.
TEST(PebbleTableCli, ColumnarTableWithoutKeySchemaIsAnUnsupportedWarning) {
  TempDir dir;
  ByteVector table = BuildPebbleTable(Entries(50), {});
  table[table.size() - 12] = 5;  // Pebblev5: columnar blocks
  WriteFileAt(dir.path() + "/000007.sst", table);
  const Json doc = VerifyJson({dir.path() + "/000007.sst"}, 0);
  const Json& f = doc["files"][0];
  EXPECT_EQ(f["format"], "pebble-table");
  ASSERT_EQ(f["findings"].size(), 1u);
  EXPECT_EQ(f["findings"][0]["kind"], "unsupported");
  EXPECT_EQ(f["findings"][0]["severity"], "warning");
  EXPECT_NE(f["findings"][0]["message"].get<std::string>().find("Pebblev5"), std::string::npos);
}

TEST(PebbleTableCli, PebbleBloomFileHasItsFillJudged) {
  TempDir dir;
  KeyList keys;
  for (const testing::PebbleEntry& e : Entries(200)) keys.Add(e.user_key);
  BloomPolicy policy;
  std::optional<ByteVector> filter = BuildBloom(policy, keys).value();
  ASSERT_TRUE(filter.has_value());
  WriteFileAt(dir.path() + "/f.bloom", *filter);
  const Json doc = VerifyJson({dir.path() + "/f.bloom", "--format", "pebble-bloom"}, 0);
  const Json& fill = doc["files"][0];
  EXPECT_EQ(fill["format"], "pebble-bloom");
  // 200 keys at 10 bits per key: ceil(2000 / 512) | 1 = 5 lines of 512 bits, 6 probes.
  EXPECT_EQ(fill["bits"], 5 * 512);
  EXPECT_EQ(fill["hash_count"], 6);
}

}  // namespace
}  // namespace bloomcodec::pebble

// dump -> convert gives every fixture filter of every format back byte for byte; so does the
// identity conversion; and the dump documents carry the header fields of the golden metadata.
#include <gtest/gtest.h>

#include "convert_support.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

TEST(DumpRoundTrip, EveryFixtureFilterOfEveryFormatComesBackByteForByte) {
  const std::vector<FixtureFile> files = AllFixtureFilters();
  ASSERT_GT(files.size(), 100u);
  CliDir dir;
  int formats_seen = 0;
  std::string last_format;
  for (const FixtureFile& f : files) {
    SCOPED_TRACE(f.relative);
    const std::string in = FixtureForCli(f.relative);
    CliRun dump = RunCli({"dump", in, "--format", f.format, "--json"});
    ASSERT_EQ(dump.exit_code, 0) << dump.err;
    const std::string json = dir.Write("dump.json", dump.out);
    CliRun back = RunCli({"convert", json, "--to", f.format, "-o", dir.Path("back.bin")});
    ASSERT_EQ(back.exit_code, 0) << back.err;
    const ByteVector original = ReadFixture(f.relative);
    EXPECT_EQ(ReadAnyFile(dir.Path("back.bin")), original);
    EXPECT_NE(back.out.find("lossless"), std::string::npos) << back.out;

    CliRun same =
        RunCli({"convert", in, "--format", f.format, "--to", f.format, "-o", dir.Path("same.bin")});
    ASSERT_EQ(same.exit_code, 0) << same.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("same.bin")), original);
    if (f.format != last_format) ++formats_seen;
    last_format = f.format;
  }
  EXPECT_EQ(formats_seen, 7);  // every format with a dump
}

TEST(DumpRoundTrip, CassandraDumpsCarryTheGoldenHeaderFields) {
  TsvTable table = ReadTsvFixture("cassandra-1.0/filters/filters.tsv");
  ASSERT_FALSE(table.rows.empty());
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    SCOPED_TRACE(table.At(i, "file"));
    auto doc = RunJson({"dump", FixtureForCli("cassandra-1.0/" + table.At(i, "file")), "--format",
                        "cassandra-1.0", "--json"});
    EXPECT_EQ(doc["format"], "cassandra-1.0");
    EXPECT_EQ(doc["dump_version"], 1);
    EXPECT_EQ(doc["hash_count"].get<long>(), std::stol(table.At(i, "hash_count")));
    EXPECT_EQ(doc["word_count"].get<long>(), std::stol(table.At(i, "word_count")));
    ByteVector words;
    ASSERT_TRUE(FromBase64(doc["words_base64"].get<std::string>(), words));
    EXPECT_EQ(words.size() + 8, std::stoul(table.At(i, "file_bytes")));
  }
}

TEST(DumpRoundTrip, LevelDbDumpsSeparateTheBitsFromTheKByte) {
  TsvTable table = ReadTsvFixture("leveldb/raw/filters.tsv");
  for (std::size_t i = 0; i < table.rows.size(); i += 7) {
    SCOPED_TRACE(table.At(i, "file"));
    auto doc = RunJson({"dump", FixtureForCli("leveldb/raw/" + table.At(i, "file")), "--format",
                        "leveldb-bloom", "--json"});
    EXPECT_EQ(doc["hash_count"].get<long>(), std::stol(table.At(i, "k")));
    ByteVector bits;
    ASSERT_TRUE(FromBase64(doc["bits_base64"].get<std::string>(), bits));
    EXPECT_EQ(bits.size() * 8, std::stoul(table.At(i, "bit_array_bits")));
  }
}

TEST(DumpRoundTrip, DumpNeedsJsonAndOneFile) {
  const std::string in = FixtureForCli("cassandra-1.0/filters/n10_b15.Filter.db");
  CliRun r = RunCli({"dump", in, "--format", "cassandra-1.0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--json"), std::string::npos) << r.err;
  r = RunCli({"dump", in, in, "--format", "cassandra-1.0", "--json"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(DumpRoundTrip, EditedDumpsAreRefusedWhereTheyDoNotAddUp) {
  CliDir dir;
  auto doc = RunJson({"dump", FixtureForCli("cassandra-1.0/filters/n10_b15.Filter.db"), "--format",
                      "cassandra-1.0", "--json"});
  doc["word_count"] = doc["word_count"].get<int>() + 1;  // the words no longer fill it
  CliRun r = RunCli({"convert", dir.Write("bad.json", doc.dump()), "--to", "cassandra-1.0", "-o",
                     dir.Path("out")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("words_base64"), std::string::npos) << r.err;
  EXPECT_EQ(LineCount(r.err), 1u);

  // A table dump whose filter was edited: the table's blocks would have to be rebuilt; refused.
  auto table = RunJson({"dump", FixtureForCli("leveldb/tables/tb_bpk10_none_bs64.ldb"), "--json"});
  table["filter"]["block"]["filters"][0]["base64"] = "AAAA";
  r = RunCli({"convert", dir.Write("table.json", table.dump()), "--to", "leveldb-table", "-o",
              dir.Path("t.ldb")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("file_base64"), std::string::npos) << r.err;

  // A filter block dump whose offsets do not follow the filters' sizes.
  auto block = RunJson({"dump", FixtureForCli("leveldb/tables/tb_bpk10_none_bs64.filterblock.bin"),
                        "--format", "leveldb-filter-block", "--json"});
  block["filters"][1]["offset"] = block["filters"][1]["offset"].get<int>() + 1;
  r = RunCli({"convert", dir.Write("block.json", block.dump()), "--to", "leveldb-filter-block",
              "-o", dir.Path("b.bin")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("filters[1].offset"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace bloomcodec::testing

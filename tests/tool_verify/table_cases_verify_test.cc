// verify on single LevelDB tables, run as a process: a table without a filter needs no key kind,
// a table's file name is a hint when its bytes claim no format (truncated: then `unknown`, not
// a damaged table), and a saturated filter inside a table.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "blocktable/crc32c.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "codec/byte_writer.h"
#include "leveldb/table/table_reader.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

constexpr const char* kDemoTable = "demo/leveldb-db/000050.ldb";

TEST(VerifyTableCases, ATableWithoutAFilterNeedsNoKeyKind) {
  CliDir dir;
  const std::string table = dir.Path("nof.ldb");
  CliRun converted = RunCli(
      {"convert", FixturePath(kDemoTable), "--to", "leveldb-table", "--no-filter", "-o", table});
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  const Json doc = VerifyJson({table}, 0);
  const Json& f = doc["files"][0];
  EXPECT_EQ(f["status"], "warning");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"no-filter"});
  EXPECT_GT(f["keys_checked"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(f["fp_rate"], 1.0);
  // Keys to look up need the kind (user keys or whole keys): unknown, that is bad usage.
  CliRun probes = RunCli({"verify", table, "--keys", dir.Write("k.txt", "a\n")});
  EXPECT_EQ(probes.exit_code, 2) << probes.out;
  EXPECT_NE(probes.err.find("--key-kind"), std::string::npos) << probes.err;
  EXPECT_TRUE(probes.out.empty());
  // Given, it works.
  CliRun given =
      RunCli({"verify", table, "--keys", dir.Write("k2.txt", "a\n"), "--key-kind", "user"});
  EXPECT_NE(given.exit_code, 2) << given.err;
}

TEST(VerifyTableCases, ATruncatedTableNamedOnTheCommandLineIsNotAFormatWeKnow) {
  CliDir dir;
  ByteVector bytes = ReadFixture(kDemoTable);
  ASSERT_GT(bytes.size(), 100000u);
  bytes.resize(100000);
  // Its name made it a table to read, but its last 8 bytes are no table magic: nothing in the
  // file says it is a (damaged) table, so it is `unknown`, a warning at the magic's offset
  // (docs/cli.md, "Evidence standard"). A MANIFEST listing it would make it an error
  // (tests/tool_verify/evidence_test.cc).
  const Json doc = VerifyJson({dir.Write("000051.ldb", bytes)}, 0);
  const Json& f = doc["files"][0];
  EXPECT_EQ(f["format"], "leveldb-table");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"unknown"});
  EXPECT_EQ(f["status"], "warning");
  ASSERT_TRUE(f["findings"][0].contains("offset")) << f.dump(1);
  EXPECT_EQ(f["findings"][0]["offset"], 100000 - 8);
  EXPECT_EQ(f["findings"][0]["magic"], ToHex(ByteSpan(bytes).last(8)));
  // Without a table's name the bytes alone cannot tell the format: bad usage, as before.
  CliRun unnamed = RunCli({"verify", dir.Write("000051.bin", bytes)});
  EXPECT_EQ(unnamed.exit_code, 2);
  EXPECT_NE(unnamed.err.find("--format"), std::string::npos) << unnamed.err;
}

TEST(VerifyTableCases, ASaturatedFilterInATableIsOverfilledAndSaidSaturated) {
  CliDir dir;
  const std::string path = dir.Path("000050.ldb");
  ByteVector bytes = ReadFixture(kDemoTable);
  {
    leveldb::TableOpenOptions options;
    options.key_kind = KeyKind::kUser;
    auto table = leveldb::TableReader::Open(bytes, path, options);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    const auto& tf = *table->filter();
    ASSERT_EQ(tf.contents.compression(), blocktable::BlockCompression::kNone);
    auto layout = leveldb::ParseFilterBlockLayout(tf.contents.bytes(), path);
    ASSERT_TRUE(layout.ok());
    const leveldb::FilterRange r = layout->filters[0];
    ASSERT_GT(r.size(), 1u);
    const std::uint64_t start = tf.handle.offset + r.start;
    std::fill(bytes.begin() + start, bytes.begin() + start + r.size() - 1, 0xff);
    ByteSpan contents(bytes.data() + tf.handle.offset, tf.handle.size);
    ByteVector le;
    ByteWriter(le).PutLittleU32(blocktable::BlockTrailerCrc(contents, 0));
    std::copy(le.begin(), le.end(), bytes.begin() + tf.handle.offset + tf.handle.size + 1);
  }
  WriteFileAt(path, bytes);
  const Json doc = VerifyJson({path, "--key-kind", "user"}, 1);
  const Json& f = doc["files"][0];
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"overfilled"});
  const std::string message = f["findings"][0]["message"];
  EXPECT_NE(message.find("saturated"), std::string::npos) << message;
  EXPECT_EQ(message.find("estimated keys 0"), std::string::npos) << message;
  EXPECT_EQ(f["false_negative_count"], 0);
}

}  // namespace
}  // namespace bloomcodec::testing

// verify on single LevelDB tables, run as a process: a saturated filter inside a table.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bloomcodec/leveldb/crc32c.h"
#include "bloomcodec/leveldb/filter_block.h"
#include "bloomcodec/leveldb/table_reader.h"
#include "bloomcodec/byte_writer.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

constexpr const char* kDemoTable = "demo/leveldb-db/000050.ldb";

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
    ASSERT_EQ(tf.contents.compression(), leveldb::BlockCompression::kNone);
    auto layout = leveldb::ParseFilterBlockLayout(tf.contents.bytes(), path);
    ASSERT_TRUE(layout.ok());
    const leveldb::FilterRange r = layout->filters[0];
    ASSERT_GT(r.size(), 1u);
    const std::uint64_t start = tf.handle.offset + r.start;
    std::fill(bytes.begin() + start, bytes.begin() + start + r.size() - 1, 0xff);
    ByteSpan contents(bytes.data() + tf.handle.offset, tf.handle.size);
    ByteVector le;
    ByteWriter(le).PutLittleU32(leveldb::BlockTrailerCrc(contents, 0));
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

// goleveldb's tables: a filter named leveldb.BuiltinBloomFilter (LevelDB <= 1.17's name) built
// with 1.18+'s hash (unsigned tail bytes). The writer is decided from the table's own keys.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "codec/byte_writer.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"
#include "leveldb/table/verify.h"

namespace bloomcodec::leveldb {
namespace {

// Database tables (internal keys: user key + tag (sequence << 8 | 1)), one key in 4 ending with
// a byte >= 0x80 when `high_tails` (where the two hashes differ).
ByteVector MakeDbTable(const BloomPolicy& policy, bool high_tails,
                       std::vector<std::string>* users) {
  TableWriteOptions options;
  options.key_kind = KeyKind::kUser;
  options.filter = policy;
  TableWriter writer(options);
  for (int i = 0; i < 400; ++i) {
    std::string user = "key" + std::to_string(10000 + i);    // 8 bytes: no tail
    if (i % 4 == 0) user += high_tails ? "\xc3\xa9" : "ab";  // 2 tail bytes
    users->push_back(user);
    ByteVector key(user.begin(), user.end());
    ByteWriter(key).PutLittleU64((std::uint64_t{1000} + i) << 8 | 1);
    EXPECT_TRUE(writer.Add(key, AsBytes("v")).ok());
  }
  auto table = writer.Finish();
  EXPECT_TRUE(table.ok());
  return std::move(table).value();
}

struct Case {
  BloomPolicy policy;
  bool high_tails;
  std::string writer;
};

TEST(GoLevelDbWriterTest, WriterDecidedFromTheKeysAndEveryKeyPresent) {
  const std::vector<Case> cases = {
      {BloomPolicy::GoLevelDb(10), true, "goleveldb"},
      {BloomPolicy::Legacy117(10), true, "leveldb-1.17"},
      {BloomPolicy::Current(10), true, "leveldb-1.18+"},
      {BloomPolicy::GoLevelDb(10), false, "leveldb-1.17-or-goleveldb"},
      {BloomPolicy::Legacy117(10), false, "leveldb-1.17-or-goleveldb"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.writer + (c.high_tails ? " high tails" : " plain tails"));
    std::vector<std::string> users;
    const ByteVector bytes = MakeDbTable(c.policy, c.high_tails, &users);
    TableOpenOptions options;  // key kind decided from the table, as for an unknown file
    options.verify_checksums = true;
    auto t = TableReader::Open(bytes, "000005.ldb", options);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->key_kind(), KeyKind::kUser);
    EXPECT_EQ(t->writer(), c.writer);
    auto verified = t->Verify();
    EXPECT_TRUE(verified.ok()) << verified.status().ToString();
    for (const std::string& u : users) {
      auto maybe = t->MayContain(AsBytes(u));
      ASSERT_TRUE(maybe.ok());
      EXPECT_TRUE(*maybe) << u;
    }
  }
}

TEST(GoLevelDbWriterTest, GoLevelDbPolicyNamesTheLegacyFilterWithTheCurrentHash) {
  EXPECT_EQ(BloomPolicy::GoLevelDb(10).name(), "leveldb.BuiltinBloomFilter");
  EXPECT_EQ(BloomPolicy::GoLevelDb(10).flavor, HashFlavor::kUnsignedTail);
  // The key kind is decidable again: before, the signed hash fitted neither kind.
  std::vector<std::string> users;
  const ByteVector bytes = MakeDbTable(BloomPolicy::GoLevelDb(10), true, &users);
  auto t = TableReader::Open(bytes, "000005.ldb", TableOpenOptions{});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_TRUE(t->filter().has_value());
  EXPECT_FALSE(t->filter()->v117);
  EXPECT_TRUE(t->filter()->goleveldb);

  // verify reports it healthy, names the writer, and counts its filter (not ignored).
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("goleveldb_" + std::to_string(::getpid()) + "_000005.ldb"))
                               .string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  const FileReport report = VerifyTable(path, KeyKind::kAuto, nullptr, "db");
  std::filesystem::remove(path);
  EXPECT_EQ(report.writer, "goleveldb");
  EXPECT_EQ(report.false_negative_count, 0u);
  EXPECT_EQ(report.status_name(), "ok");
  EXPECT_FALSE(report.filter_ignored_by_reader);
  EXPECT_EQ(report.keys_checked, users.size());
}

}  // namespace
}  // namespace bloomcodec::leveldb

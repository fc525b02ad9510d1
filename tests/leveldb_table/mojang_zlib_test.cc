// Mojang's LevelDB compression (block types 2: zlib with header, 4: raw deflate): tables whose
// blocks zlib itself compressed (through TableWriter) are read back whole, and damaged
// compressed blocks are Corrupt at the block's offset.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "blocktable/crc32c.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"

namespace bloomcodec::leveldb {
namespace {

using blocktable::BlockCompression;
using blocktable::BlockHandle;

std::vector<std::string> Keys() {
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) keys.push_back("chunk:" + std::to_string(100000 + i * 7));
  return keys;
}

ByteVector MakeTable(BlockCompression compression) {
  TableWriteOptions options;
  options.compression = compression;
  options.filter = BloomPolicy::Current(10);
  TableWriter writer(options);
  for (const std::string& k : Keys()) {
    const std::string value(200, static_cast<char>('a' + k.size() % 7));  // compresses well
    EXPECT_TRUE(writer.Add(AsBytes(k), AsBytes(value)).ok());
  }
  auto table = writer.Finish();
  EXPECT_TRUE(table.ok());
  return std::move(table).value();
}

TableOpenOptions Checked() {
  TableOpenOptions options;
  options.key_kind = KeyKind::kPlain;
  options.verify_checksums = true;
  return options;
}

// The first data block's handle (from the index).
BlockHandle FirstDataBlock(const TableReader& t) {
  BlockHandle first;
  bool seen = false;
  EXPECT_TRUE(t.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) -> Status {
                 if (!seen) first = h;
                 seen = true;
                 return Status();
               }).ok());
  return first;
}

class MojangZlibTest : public ::testing::TestWithParam<int> {
 protected:
  BlockCompression Compression() const {
    return GetParam() == 2 ? BlockCompression::kMojangZlib : BlockCompression::kMojangRawDeflate;
  }
};

TEST_P(MojangZlibTest, TablesReadBackWholeAndZlibAgrees) {
  const ByteVector bytes = MakeTable(Compression());
  auto t = TableReader::Open(bytes, "mojang.ldb", Checked());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const BlockHandle first = FirstDataBlock(*t);
  // The trailer carries Mojang's type byte, and zlib itself inflates the block (window bits
  // 15 for type 2, -15 for type 4).
  ASSERT_EQ(bytes[first.offset + first.size], GetParam());
  std::vector<std::uint8_t> out(1 << 16);
  z_stream s{};
  ASSERT_EQ(inflateInit2(&s, GetParam() == 2 ? 15 : -15), Z_OK);
  s.next_in = const_cast<Bytef*>(bytes.data() + first.offset);
  s.avail_in = static_cast<uInt>(first.size);
  s.next_out = out.data();
  s.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&s, Z_FINISH), Z_STREAM_END);
  inflateEnd(&s);
  auto block = t->ReadDataBlock(first);
  ASSERT_TRUE(block.ok()) << block.status().ToString();
  EXPECT_EQ(block->contents().compression(), Compression());
  EXPECT_EQ(block->contents().bytes().size(), s.total_out);

  auto verified = t->Verify();
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  std::vector<std::string> read;
  ASSERT_TRUE(t->ForEachEntry([&](ByteSpan key, ByteSpan, const BlockHandle&) {
                 read.emplace_back(AsChars(key));
                 return Status();
               }).ok());
  EXPECT_EQ(read, Keys());
  for (const std::string& k : Keys()) {
    auto maybe = t->MayContain(AsBytes(k));
    ASSERT_TRUE(maybe.ok()) << maybe.status().ToString();
    EXPECT_TRUE(*maybe) << k;
  }
  // Rewriting the filter keeps the table's compression for the new metaindex block.
  auto rewritten = RewriteTableFilter(*t, BloomPolicy::Current(5));
  ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
  auto again = TableReader::Open(*rewritten, "rewritten.ldb", Checked());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->Verify().ok());
}

TEST_P(MojangZlibTest, DamagedStreamIsCorruptAtTheBlockOffset) {
  ByteVector bytes = MakeTable(Compression());
  TableOpenOptions unchecked = Checked();
  unchecked.verify_checksums = false;  // let the damage reach the decompressor
  BlockHandle first;
  {
    auto t = TableReader::Open(bytes, "damaged.ldb", unchecked);
    ASSERT_TRUE(t.ok());
    first = FirstDataBlock(*t);
  }
  // The second half of the stream overwritten: inflate fails on it (an invalid block type).
  for (std::uint64_t i = first.size / 2; i < first.size; ++i) bytes[first.offset + i] = 0xff;
  auto t = TableReader::Open(bytes, "damaged.ldb", unchecked);
  ASSERT_TRUE(t.ok());
  auto block = t->ReadDataBlock(first);
  ASSERT_FALSE(block.ok());
  EXPECT_EQ(block.status().code(), StatusCode::kCorrupt);
  ASSERT_TRUE(block.status().offset().has_value());
  EXPECT_EQ(*block.status().offset(), first.offset) << block.status().ToString();
  EXPECT_NE(block.status().ToString().find("Mojang"), std::string::npos)
      << block.status().ToString();
}

TEST_P(MojangZlibTest, InflatedSizeIsBounded) {
  const ByteVector bytes = MakeTable(Compression());
  TableOpenOptions options = Checked();
  options.max_uncompressed_block_size = 64;  // every data block inflates to more
  auto t = TableReader::Open(bytes, "big.ldb", options);
  if (!t.ok()) {  // the index block may be compressed too: then it is the one refused
    EXPECT_NE(t.status().ToString().find("inflates to at most 64 bytes"), std::string::npos)
        << t.status().ToString();
    return;
  }
  auto block = t->ReadDataBlock(FirstDataBlock(*t));
  ASSERT_FALSE(block.ok());
  EXPECT_NE(block.status().ToString().find("inflates to at most 64 bytes"), std::string::npos)
      << block.status().ToString();
}

TEST(MojangZlibTypes, OtherTypeBytesStayCorrupt) {
  ByteVector bytes = MakeTable(BlockCompression::kNone);
  auto t = TableReader::Open(bytes, "t.ldb", Checked());
  ASSERT_TRUE(t.ok());
  const BlockHandle first = FirstDataBlock(*t);
  bytes[first.offset + first.size] = 3;
  TableOpenOptions unchecked = Checked();
  unchecked.verify_checksums = false;
  auto damaged = TableReader::Open(bytes, "t.ldb", unchecked);
  ASSERT_TRUE(damaged.ok());
  auto block = damaged->ReadDataBlock(first);
  ASSERT_FALSE(block.ok());
  EXPECT_EQ(*block.status().offset(), first.offset + first.size);
  EXPECT_NE(block.status().ToString().find("4 (raw deflate"), std::string::npos)
      << block.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Types, MojangZlibTest, ::testing::Values(2, 4));

}  // namespace
}  // namespace bloomcodec::leveldb

// Our block compression is RocksDB's, byte for byte: a repair that moves or rebuilds a compressed
// block (a partitioned index's top level, a filter partition's index) must store the bytes RocksDB
// would have stored, or the rewritten table differs from the one RocksDB writes at the new size.
// Debian's librocksdb 7.8.3 writes tables with each compression it supports and small blocks (so
// many data and index blocks); every block it stored compressed is decompressed and compressed
// again by blocktable::CompressBlock, and the two must be the same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "blocktable/block.h"
#include "blocktable/trailer.h"
#include "bloomcodec/input_file.h"
#include "leveldb/random_keys.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {
namespace {

using blocktable::BlockHandle;

// Writes `keys` (sorted, distinct) with values that compress (repeated words) into one table.
std::string WriteCompressedTable(const std::string& dir, ::rocksdb::CompressionType compression,
                                 int format_version, int block_size,
                                 const std::vector<std::string>& keys) {
  ::rocksdb::BlockBasedTableOptions t;
  t.format_version = static_cast<std::uint32_t>(format_version);
  t.block_size = static_cast<std::size_t>(block_size);
  t.index_type = ::rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  t.partition_filters = true;
  t.metadata_block_size = 256;
  t.filter_policy.reset(::rocksdb::NewBloomFilterPolicy(10));
  ::rocksdb::Options o;
  o.compression = compression;
  o.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(t));
  const std::string path = dir + "/000001.sst";
  ::rocksdb::SstFileWriter writer(::rocksdb::EnvOptions(), o);
  EXPECT_TRUE(writer.Open(path).ok());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string value = "value value " + std::to_string(i % 97) + " of " + keys[i];
    EXPECT_TRUE(writer.Put(keys[i], value).ok());
  }
  EXPECT_TRUE(writer.Finish().ok());
  return path;
}

// Every block of the table with a handle: data blocks, index partitions, the top-level index and
// the meta blocks.
std::vector<BlockHandle> BlocksOf(const SstReader& sst) {
  std::vector<BlockHandle> blocks = {sst.footer().index_handle};
  for (const SstMetaindexEntry& e : sst.metaindex()) {
    if (e.handle) blocks.push_back(*e.handle);
  }
  auto add = [&](ByteSpan, const BlockHandle& h) {
    blocks.push_back(h);
    return Status();
  };
  EXPECT_TRUE(sst.ForEachDataBlock(add).ok());
  EXPECT_TRUE(sst.ForEachIndexPartition(add).ok());
  return blocks;
}

TEST(SstCompression, EveryBlockRocksDbCompressedIsCompressedToTheSameBytesByUs) {
  const std::vector<::rocksdb::CompressionType> supported = ::rocksdb::GetSupportedCompressions();
  int compressions_seen = 0;
  for (::rocksdb::CompressionType type :
       {::rocksdb::kSnappyCompression, ::rocksdb::kZlibCompression, ::rocksdb::kLZ4Compression,
        ::rocksdb::kLZ4HCCompression, ::rocksdb::kZSTD}) {
    if (std::find(supported.begin(), supported.end(), type) == supported.end()) continue;
    ++compressions_seen;
    std::size_t compressed_blocks = 0;
    for (int format_version : {2, 5}) {
      for (int block_size : {64, 300, 1024, 4096}) {
        std::vector<std::string> keys = ::bloomcodec::testing::RandomKeys(
            static_cast<std::uint64_t>(block_size * 31 + format_version), 3000);
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        ::bloomcodec::testing::TempDir dir;
        const std::string path =
            WriteCompressedTable(dir.path(), type, format_version, block_size, keys);
        auto in = InputFile::Open(path);
        ASSERT_TRUE(in.ok());
        auto sst = SstReader::Open(in->bytes(), path);
        ASSERT_TRUE(sst.ok()) << sst.status().message();
        for (const BlockHandle& h : BlocksOf(*sst)) {
          auto block = blocktable::ReadBlock(in->bytes(), h, path, sst->BlockOptions());
          ASSERT_TRUE(block.ok()) << block.status().message();
          const blocktable::BlockCompression c = block->compression();
          if (c == blocktable::BlockCompression::kNone) continue;
          ++compressed_blocks;
          ByteVector ours;
          ASSERT_TRUE(blocktable::CompressBlock(c, block->bytes(), ours));
          const ByteSpan stored = in->bytes().subspan(h.offset, h.size);
          ASSERT_TRUE(std::equal(stored.begin(), stored.end(), ours.begin(), ours.end()))
              << "compression " << static_cast<int>(type) << ", format_version " << format_version
              << ", block_size " << block_size << ": the block at offset " << h.offset << " ("
              << h.size << " bytes stored, " << ours.size() << " ours)";
        }
      }
    }
    // Small blocks of repeated words compress: most blocks of every table are stored compressed.
    EXPECT_GT(compressed_blocks, 1000u) << "compression " << static_cast<int>(type);
  }
  EXPECT_GE(compressions_seen, 3);
}

}  // namespace
}  // namespace bloomcodec::rocksdb

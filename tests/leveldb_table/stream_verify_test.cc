// VerifyTable streams a table in chunks of keys and checks ranges of its data blocks on the
// run's workers. Whatever the split, and with one thread or a pool, the report must be exactly the
// one a single pass over the whole table gives: tables written by the original LevelDB 1.23
// (databases: internal keys, several versions of a key, deletions; TableBuilder: plain keys),
// with false negatives, and damaged in their middle.
#include <gtest/gtest.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/table_builder.h>
#include <leveldb/write_batch.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "blocktable/block.h"
#include "blocktable/block_handle.h"
#include "blocktable/crc32c.h"
#include "blocktable/stream.h"
#include "bloomcodec/input_file.h"
#include "codec/parallel.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/verify.h"
#include "leveldb_table/leveldb_harness.h"
#include "support/report_equal.h"
#include "support/stream_limits.h"
#include "support/test_support.h"

namespace bloomcodec::leveldb {
namespace {

namespace fs = std::filesystem;
using blocktable::BlockHandle;

using bloomcodec::testing::TempDir;

// Every split reports what the whole-table pass reports (support/stream_limits.h).
FileReport ExpectSameUnderEverySplit(const std::string& path, KeyKind kind) {
  return bloomcodec::testing::ExpectSameUnderEverySplit(
      [&] { return VerifyTable(path, kind, nullptr, "group"); }, path);
}

// LevelDB's bloom policy with half of each filter's bytes cleared (the k byte kept): a filter
// damaged at write time, with valid block checksums, that misses many of its keys.
class DamagingPolicy final : public ::leveldb::FilterPolicy {
 public:
  DamagingPolicy() : inner_(::leveldb::NewBloomFilterPolicy(10)) {}
  const char* Name() const override { return inner_->Name(); }
  void CreateFilter(const ::leveldb::Slice* keys, int n, std::string* dst) const override {
    const std::size_t start = dst->size();
    inner_->CreateFilter(keys, n, dst);
    for (std::size_t i = start; i + 1 < dst->size(); i += 2) (*dst)[i] = 0;
  }
  bool KeyMayMatch(const ::leveldb::Slice& key, const ::leveldb::Slice& filter) const override {
    return inner_->KeyMayMatch(key, filter);
  }

 private:
  std::unique_ptr<const ::leveldb::FilterPolicy> inner_;
};

using leveldb_test::VersionedKey;

std::string WriteDatabaseTable(const std::string& dir, const ::leveldb::FilterPolicy* policy, int n,
                               int versions, bool snappy) {
  return leveldb_test::WriteVersionedDatabaseTable(dir, policy, n, versions, snappy);
}

std::string WritePlainTable(const std::string& dir, const ::leveldb::FilterPolicy* policy, int n) {
  ::leveldb::Options options;
  options.filter_policy = policy;
  options.block_size = 200;
  options.compression = ::leveldb::kNoCompression;
  leveldb_test::StringSink sink;
  ::leveldb::TableBuilder builder(options, &sink);
  for (int i = 0; i < n; ++i) builder.Add(VersionedKey(i * 3), "value-" + std::to_string(i));
  EXPECT_TRUE(builder.Finish().ok());
  const std::string path = dir + "/000007.ldb";
  std::ofstream(path, std::ios::binary) << sink.contents;
  return path;
}

ByteVector ReadAll(const std::string& path) {
  auto in = InputFile::Open(path);
  EXPECT_TRUE(in.ok());
  return ByteVector(in->bytes().begin(), in->bytes().end());
}

void WriteAll(const std::string& path, const ByteVector& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

std::vector<BlockHandle> DataBlocks(const ByteVector& file, KeyKind kind) {
  TableOpenOptions options;
  options.key_kind = kind;
  auto table = TableReader::Open(file, "t", options);
  EXPECT_TRUE(table.ok());
  std::vector<BlockHandle> blocks;
  if (!table.ok()) return blocks;
  EXPECT_TRUE(table
                  ->ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
                    blocks.push_back(h);
                    return Status();
                  })
                  .ok());
  return blocks;
}

TEST(StreamedTableVerify, DatabaseTablesWithVersionsAcrossBlocksReportAsOnePass) {
  for (bool snappy : {false, true}) {
    TempDir dir;
    std::unique_ptr<const ::leveldb::FilterPolicy> bloom(::leveldb::NewBloomFilterPolicy(10));
    const std::string path = WriteDatabaseTable(dir.path(), bloom.get(), 1500, 3, snappy);
    // The case this is about: a user key whose versions straddle two data blocks.
    const ByteVector file = ReadAll(path);
    TableOpenOptions options;
    options.key_kind = KeyKind::kUser;
    auto table = TableReader::Open(file, path, options);
    ASSERT_TRUE(table.ok());
    std::size_t straddling = 0;
    // What each filter was built from: its blocks' user keys, a repeated one once.
    std::uint64_t per_filter_keys = 0;
    std::uint64_t last_filter = ~std::uint64_t{0};
    ByteVector last_user;
    std::uint64_t last_block = ~std::uint64_t{0};
    ASSERT_TRUE(
        table
            ->ForEachEntry([&](ByteSpan key, ByteSpan, const BlockHandle& block) {
              const ByteSpan user = UserKeyOf(key);
              if (block.offset != last_block && last_block != ~std::uint64_t{0} &&
                  std::equal(user.begin(), user.end(), last_user.begin(), last_user.end())) {
                ++straddling;
              }
              const std::uint64_t filter = block.offset >> kFilterBaseLg;
              if (filter != last_filter ||
                  !std::equal(user.begin(), user.end(), last_user.begin(), last_user.end())) {
                ++per_filter_keys;
              }
              last_filter = filter;
              last_user.assign(user.begin(), user.end());
              last_block = block.offset;
              return Status();
            })
            .ok());
    EXPECT_GT(straddling, 10u);
    const FileReport r = ExpectSameUnderEverySplit(path, KeyKind::kUser);
    EXPECT_EQ(r.keys_checked, 4500u);
    EXPECT_EQ(r.false_negative_count, 0u);
    EXPECT_EQ(r.status_name(), "ok");
    ASSERT_TRUE(r.fill.has_value());
    ASSERT_TRUE(r.fill->sized_keys.has_value());
    EXPECT_EQ(*r.fill->sized_keys, static_cast<double>(per_filter_keys));
    EXPECT_GT(per_filter_keys, 1500u);  // some keys' versions straddle two filters
  }
}

TEST(StreamedTableVerify, PlainTablesReportAsOnePass) {
  TempDir dir;
  std::unique_ptr<const ::leveldb::FilterPolicy> bloom(::leveldb::NewBloomFilterPolicy(10));
  const std::string path = WritePlainTable(dir.path(), bloom.get(), 3000);
  const FileReport r = ExpectSameUnderEverySplit(path, KeyKind::kPlain);
  EXPECT_EQ(r.keys_checked, 3000u);
  EXPECT_EQ(r.status_name(), "ok");
}

TEST(StreamedTableVerify, FalseNegativesAreCountedAndListedInKeyOrderAsOnePass) {
  DamagingPolicy damaging;
  {
    TempDir dir;
    const std::string path = WritePlainTable(dir.path(), &damaging, 3000);
    const FileReport r = ExpectSameUnderEverySplit(path, KeyKind::kPlain);
    EXPECT_GT(r.false_negative_count, kMaxListedFalseNegatives);
    EXPECT_EQ(r.false_negatives.size(), kMaxListedFalseNegatives);
  }
  {
    TempDir dir;
    const std::string path = WriteDatabaseTable(dir.path(), &damaging, 1200, 2, false);
    const FileReport r = ExpectSameUnderEverySplit(path, KeyKind::kUser);
    EXPECT_GT(r.false_negative_count, kMaxListedFalseNegatives);
    EXPECT_EQ(r.keys_checked, 2400u);
  }
}

// A data block in the middle of the table damaged: its checksum fails (the walk stops there), or
// the block is changed and its checksum made to match (the structure check stops there, the walk
// goes on). Findings, offsets and counts are the single pass's.
TEST(StreamedTableVerify, ADataBlockDamagedMidTableIsReportedAtTheSameOffsetAsOnePass) {
  TempDir dir;
  std::unique_ptr<const ::leveldb::FilterPolicy> bloom(::leveldb::NewBloomFilterPolicy(10));
  const std::string healthy = WriteDatabaseTable(dir.path(), bloom.get(), 1500, 2, false);
  const ByteVector file = ReadAll(healthy);
  const std::vector<BlockHandle> blocks = DataBlocks(file, KeyKind::kUser);
  ASSERT_GT(blocks.size(), 20u);
  std::mt19937_64 rng(17);
  std::size_t structure_findings = 0;
  for (int round = 0; round < 24; ++round) {
    const BlockHandle block = blocks[blocks.size() / 3 + rng() % (blocks.size() / 3)];
    ByteVector damaged = file;
    const std::uint64_t at = block.offset + rng() % block.size;
    damaged[at] ^= static_cast<std::uint8_t>(1 + rng() % 255);
    const bool fix_checksum = round % 2 == 1;
    if (fix_checksum) {
      const std::uint8_t type = damaged[block.offset + block.size];
      const std::uint32_t crc =
          blocktable::BlockTrailerCrc(ByteSpan(damaged).subspan(block.offset, block.size), type);
      for (int i = 0; i < 4; ++i) {
        damaged[block.offset + block.size + 1 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
      }
    }
    const std::string path = dir.path() + "/000100.ldb";
    WriteAll(path, damaged);
    const FileReport r = ExpectSameUnderEverySplit(path, KeyKind::kUser);
    for (const Finding& f : r.findings) {
      if (f.kind != finding_kind::kStructure) continue;
      ++structure_findings;
      ASSERT_TRUE(f.offset.has_value()) << f.message;
      EXPECT_GE(*f.offset, block.offset) << f.message;
      EXPECT_LT(*f.offset, block.offset + block.size + blocktable::kBlockTrailerSize) << f.message;
    }
    if (!fix_checksum) {
      EXPECT_EQ(r.worst(), Severity::kError);
      EXPECT_LT(r.keys_checked, 3000u);  // the walk stopped at the damaged block
    }
  }
  EXPECT_GE(structure_findings, 12u);
}

// A byte changed anywhere in any block (data, filter, metaindex, index) with the block's checksum
// made to match: whatever the checks meet first (before, in or after the data blocks), the split
// reports it as the single pass does.
TEST(StreamedTableVerify, ABlockChangedAnywhereWithAMatchingChecksumReportsAsOnePass) {
  TempDir dir;
  std::unique_ptr<const ::leveldb::FilterPolicy> bloom(::leveldb::NewBloomFilterPolicy(10));
  const std::string healthy = WriteDatabaseTable(dir.path(), bloom.get(), 800, 2, false);
  const ByteVector file = ReadAll(healthy);
  TableOpenOptions options;
  options.key_kind = KeyKind::kUser;
  auto table = TableReader::Open(file, healthy, options);
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE(table->filter().has_value());
  std::vector<BlockHandle> blocks = DataBlocks(file, KeyKind::kUser);
  blocks.push_back(table->filter()->handle);
  blocks.push_back(table->footer().metaindex_handle);
  blocks.push_back(table->footer().index_handle);
  blocks.push_back(table->footer().index_handle);  // the index twice as often
  std::mt19937_64 rng(41);
  std::size_t errors = 0;
  std::size_t past_checksum = 0;
  for (int round = 0; round < 40; ++round) {
    const BlockHandle block = blocks[rng() % blocks.size()];
    ByteVector damaged = file;
    damaged[block.offset + rng() % block.size] ^= static_cast<std::uint8_t>(1 + rng() % 255);
    const std::uint8_t type = damaged[block.offset + block.size];
    const std::uint32_t crc =
        blocktable::BlockTrailerCrc(ByteSpan(damaged).subspan(block.offset, block.size), type);
    for (int i = 0; i < 4; ++i) {
      damaged[block.offset + block.size + 1 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
    }
    const std::string path = dir.path() + "/000200.ldb";
    WriteAll(path, damaged);
    const FileReport r = ExpectSameUnderEverySplit(path, KeyKind::kUser);
    if (r.worst() == Severity::kError) ++errors;
    // The checksum was made to match: what is reported lies past it.
    if (!bloomcodec::testing::MentionsChecksum(r)) ++past_checksum;
  }
  EXPECT_EQ(past_checksum, 40u);
  EXPECT_GE(errors, 20u);
}

// The data blocks are walked once, and what the block's own check (VerifyBlock) finds anywhere in
// a block comes before what the per-key checks find earlier in it, as when the block was walked
// twice: an entry of type 2 followed by an entry out of order reports the order, at that entry.
TEST(StreamedTableVerify, ABlockOutOfOrderIsReportedBeforeAnEarlierKeyOfABadType) {
  TempDir dir;
  std::unique_ptr<const ::leveldb::FilterPolicy> bloom(::leveldb::NewBloomFilterPolicy(10));
  const std::string healthy = WriteDatabaseTable(dir.path(), bloom.get(), 600, 1, false);
  const ByteVector file = ReadAll(healthy);
  const std::vector<BlockHandle> blocks = DataBlocks(file, KeyKind::kUser);
  ASSERT_GT(blocks.size(), 4u);
  const BlockHandle handle = blocks[blocks.size() / 2];
  auto parsed = blocktable::Block::Parse(
      blocktable::BlockContents::View(ByteSpan(file).subspan(handle.offset, handle.size),
                                      handle.offset),
      "t");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  // Entries whose header is three one-byte lengths and whose key suffix holds the whole tag and
  // at least one byte of the user key: the type byte and a user-key byte sit at known places.
  struct Entry {
    std::size_t at;
    std::uint32_t shared;
    std::size_t key_size;
  };
  std::vector<Entry> entries;
  blocktable::BlockIterator it(*parsed, blocktable::KeyOrder::kInternal);
  ASSERT_TRUE(it.SeekToFirst().ok());
  while (it.valid()) {
    entries.push_back({it.entry_position(), it.shared(), it.key().size()});
    ASSERT_TRUE(it.Next().ok());
  }
  ASSERT_GE(entries.size(), 6u);
  const auto suitable = [&](std::size_t i) {
    const Entry& e = entries[i];
    const ByteSpan header = ByteSpan(file).subspan(handle.offset + e.at, 3);
    return e.shared > 0 && (header[0] | header[1] | header[2]) < 0x80 &&
           e.key_size - e.shared > 8 && file[handle.offset + e.at + 3] > 0;
  };
  std::size_t j = 1;
  while (j < entries.size() && !suitable(j)) ++j;
  std::size_t k = j + 2;
  while (k < entries.size() && !suitable(k)) ++k;
  ASSERT_LT(k, entries.size());
  const auto type_at = [&](std::size_t i) {
    return handle.offset + entries[i].at + 3 + (entries[i].key_size - entries[i].shared) - 8;
  };
  const auto with_crc = [&](ByteVector bytes) {
    const std::uint8_t type = bytes[handle.offset + handle.size];
    const std::uint32_t crc =
        blocktable::BlockTrailerCrc(ByteSpan(bytes).subspan(handle.offset, handle.size), type);
    for (int i = 0; i < 4; ++i) {
      bytes[handle.offset + handle.size + 1 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
    }
    return bytes;
  };
  const auto first_structure = [](const FileReport& r) -> const Finding* {
    for (const Finding& f : r.findings) {
      if (f.kind == finding_kind::kStructure) return &f;
    }
    return nullptr;
  };
  const std::string path = dir.path() + "/000300.ldb";

  ByteVector bad_type = file;
  bad_type[type_at(j)] = 2;  // kTypeValue is 1: LevelDB writes no type 2
  WriteAll(path, with_crc(bad_type));
  const FileReport typed = ExpectSameUnderEverySplit(path, KeyKind::kUser);
  const Finding* f = first_structure(typed);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, std::optional<std::uint64_t>(handle.offset + entries[j].at)) << f->message;
  EXPECT_NE(f->message.find("an internal key of type 0 or 1"), std::string::npos) << f->message;

  ByteVector both = bad_type;
  both[handle.offset + entries[k].at + 3] = 0;  // below the byte the key before has there
  WriteAll(path, with_crc(both));
  const FileReport ordered = ExpectSameUnderEverySplit(path, KeyKind::kUser);
  f = first_structure(ordered);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->offset, std::optional<std::uint64_t>(handle.offset + entries[k].at)) << f->message;
  EXPECT_NE(f->message.find("keys in strictly increasing order"), std::string::npos) << f->message;
  for (const Finding& g : ordered.findings) {
    EXPECT_EQ(g.message.find("type 0 or 1"), std::string::npos) << g.message;
  }
}

}  // namespace
}  // namespace bloomcodec::leveldb

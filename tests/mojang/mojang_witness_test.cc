// Mojang's LevelDB as the witness (npm's leveldb-zlib: Mojang's fork with its zlib compressors and
// a prebuilt Node binding, installed into the build tree by scripts/install-deps; run through
// witness.js). Databases it writes with random keys (raw deflate blocks, type 4) verify healthy:
// every table's every key answers "may contain", and the filter block rebuilt from the table's
// keys with LevelDB's policy (the binding's NewBloomFilterPolicy(10)) is the file's byte for byte
// (the binding exposes no filter probe, so the filter bytes stand for its answers). Tables we
// rewrite (convert table rewrite, its zlib blocks carried over) are read back by it: with a
// MANIFEST naming them at their new sizes, every key written is found.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blocktable/crc32c.h"
#include "bloomcodec/input_file.h"
#include "cli/cli_runner.h"
#include "codec/byte_writer.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"

namespace bloomcodec::leveldb {
namespace {

using bloomcodec::testing::CliDir;
using bloomcodec::testing::CliRun;
using bloomcodec::testing::RunCli;

// Runs witness.js with `args`; its standard output.
std::string Witness(const std::vector<std::string>& args) {
  CliDir out;
  std::string command = std::string("LEVELDB_ZLIB='") + MOJANG_LEVELDB_ZLIB + "' '" +
                        NODE_EXECUTABLE + "' '" + MOJANG_WITNESS + "'";
  for (const std::string& a : args) command += " '" + a + "'";
  command += " > '" + out.Path("stdout") + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(out.Path("stdout"));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> Tables(const std::string& db) {
  std::vector<std::string> tables;
  for (const auto& e : std::filesystem::directory_iterator(db)) {
    if (e.path().extension() == ".ldb") tables.push_back(e.path().string());
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

// The binding's RepairDB runs without compressors and drops every compressed table, so a
// database of rewritten tables (whose sizes changed) is described to it afresh: CURRENT and a
// MANIFEST of one version edit (LevelDB's log record format: masked CRC32C, length, FULL type)
// naming every table at level 0 with its size and smallest / largest internal keys. Test-only.
void WriteManifestOfTables(const std::string& db, const std::vector<std::string>& tables) {
  ByteVector edit;
  ByteWriter w(edit);
  const std::string comparator = "leveldb.BytewiseComparator";
  w.PutVarint32(1);  // comparator
  w.PutVarint32(static_cast<std::uint32_t>(comparator.size()));
  w.PutBytes(AsBytes(comparator));
  w.PutVarint32(2);  // log number: 0, every log is replayed
  w.PutVarint64(0);
  std::uint64_t max_number = 0, max_sequence = 0;
  for (const std::string& path : tables) {
    const std::uint64_t number = std::stoull(std::filesystem::path(path).stem().string());
    max_number = std::max(max_number, number);
    auto in = InputFile::Open(path);
    ASSERT_TRUE(in.ok());
    TableOpenOptions open;
    open.key_kind = KeyKind::kUser;
    auto table = TableReader::Open(in->bytes(), path, open);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    ByteVector smallest, largest;
    ASSERT_TRUE(table
                    ->ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle&) {
                      if (smallest.empty()) smallest.assign(key.begin(), key.end());
                      largest.assign(key.begin(), key.end());
                      max_sequence = std::max(max_sequence, TagOf(key) >> 8);
                      return Status();
                    })
                    .ok());
    w.PutVarint32(7);  // new file: level, number, size, smallest, largest
    w.PutVarint32(0);
    w.PutVarint64(number);
    w.PutVarint64(in->bytes().size());
    w.PutVarint32(static_cast<std::uint32_t>(smallest.size()));
    w.PutBytes(smallest);
    w.PutVarint32(static_cast<std::uint32_t>(largest.size()));
    w.PutBytes(largest);
  }
  for (const auto& e : std::filesystem::directory_iterator(db)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".log" || name.rfind("MANIFEST-", 0) == 0) {
      const std::string digits =
          e.path().extension() == ".log" ? e.path().stem().string() : name.substr(9);
      max_number = std::max<std::uint64_t>(max_number, std::stoull(digits));
    }
  }
  const std::uint64_t manifest_number = max_number + 1;
  w.PutVarint32(3);  // next file number
  w.PutVarint64(manifest_number + 1);
  w.PutVarint32(4);  // last sequence
  w.PutVarint64(max_sequence);
  ASSERT_LT(edit.size(), 32768u - 7);  // one FULL record in the first block
  ByteVector record;
  ByteWriter r(record);
  const std::uint8_t kFull = 1;
  std::uint32_t crc = blocktable::Crc32c(ByteSpan(&kFull, 1));
  crc = blocktable::Crc32cExtend(crc, edit);
  r.PutLittleU32(blocktable::MaskCrc(crc));
  r.PutU8(static_cast<std::uint8_t>(edit.size() & 0xff));
  r.PutU8(static_cast<std::uint8_t>(edit.size() >> 8));
  r.PutU8(kFull);
  r.PutBytes(edit);
  char name[32];
  std::snprintf(name, sizeof name, "MANIFEST-%06llu",
                static_cast<unsigned long long>(manifest_number));
  std::ofstream(db + "/" + name, std::ios::binary)
      .write(reinterpret_cast<const char*>(record.data()),
             static_cast<std::streamsize>(record.size()));
  std::ofstream(db + "/CURRENT") << name << "\n";
}

TEST(MojangWitness, DatabasesItWritesVerifyAndTheirFiltersAreLevelDbsBytes) {
  ASSERT_TRUE(std::filesystem::exists(MOJANG_LEVELDB_ZLIB))
      << "npm's leveldb-zlib is not in the build tree: run scripts/install-deps";
  for (int seed : {11, 12}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    CliDir dir;
    const std::string db = dir.Path("db");
    const std::string keys = Witness({"write", db, std::to_string(seed), "15000"});
    ASSERT_FALSE(keys.empty());
    const std::vector<std::string> tables = Tables(db);
    ASSERT_GE(tables.size(), 2u);
    std::size_t raw_deflate_blocks = 0, entries = 0;
    for (const std::string& path : tables) {
      SCOPED_TRACE(path);
      auto in = InputFile::Open(path);
      ASSERT_TRUE(in.ok());
      TableOpenOptions open;
      open.key_kind = KeyKind::kUser;
      open.verify_checksums = true;
      auto table = TableReader::Open(in->bytes(), path, open);
      ASSERT_TRUE(table.ok()) << table.status().ToString();
      EXPECT_EQ(table->writer(), "leveldb-1.18+");
      auto checked = table->Verify();  // every key of the table answered "may contain"
      ASSERT_TRUE(checked.ok()) << checked.status().ToString();
      entries += *checked;
      ASSERT_TRUE(table
                      ->ForEachDataBlock([&](ByteSpan, const blocktable::BlockHandle& h) {
                        auto block = table->ReadDataBlock(h);
                        if (!block.ok()) return block.status();
                        raw_deflate_blocks += block->contents().compression() ==
                                              blocktable::BlockCompression::kMojangRawDeflate;
                        return Status();
                      })
                      .ok());
      auto rebuilt = RewriteTableFilter(*table, BloomPolicy::Current(10));
      ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
      auto again = TableReader::Open(*rebuilt, path + " (rebuilt)", open);
      ASSERT_TRUE(again.ok() && again->filter().has_value());
      const ByteSpan mine = again->filter()->contents.bytes();
      const ByteSpan theirs = table->filter()->contents.bytes();
      EXPECT_TRUE(std::equal(mine.begin(), mine.end(), theirs.begin(), theirs.end()));
    }
    EXPECT_GT(raw_deflate_blocks, 0u);
    std::cout << tables.size() << " tables, " << entries << " entries, " << raw_deflate_blocks
              << " raw-deflate data blocks\n";
    const CliRun verify = RunCli({"verify", db, "--json"});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  }
}

TEST(MojangWitness, TablesWeRewriteAreReadBackByIt) {
  ASSERT_TRUE(std::filesystem::exists(MOJANG_LEVELDB_ZLIB))
      << "npm's leveldb-zlib is not in the build tree: run scripts/install-deps";
  CliDir dir;
  const std::string db = dir.Path("db");
  const std::string keys = Witness({"write", db, "21", "15000"});
  const std::string key_file = dir.Write("keys", keys);
  const std::size_t written = std::count(keys.begin(), keys.end(), '\n');
  const std::vector<std::string> tables = Tables(db);
  ASSERT_GE(tables.size(), 2u);
  for (const std::string& path : tables) {
    const std::string out = path + ".new";
    const CliRun rewrite =
        RunCli({"convert", path, "--to", "leveldb-table", "--bits-per-key", "14", "-o", out});
    ASSERT_EQ(rewrite.exit_code, 0) << rewrite.err;
    std::filesystem::rename(out, path);
  }
  // The rewritten tables still hold Mojang's compressed blocks, and verify finds them healthy.
  const CliRun verify = RunCli({"verify", db});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  // A MANIFEST with the new sizes; then every key is found through our filters.
  WriteManifestOfTables(db, tables);
  EXPECT_EQ(Witness({"read", db, key_file}),
            "found " + std::to_string(written) + " of " + std::to_string(written) + "\n");
}

}  // namespace
}  // namespace bloomcodec::leveldb

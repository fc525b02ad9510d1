// RocksDB 9.7 (@nxtedition/rocksdb, from build/npm) as the witness of prefix-table rebuilds: it
// writes databases with a fixed (Bloom) and a capped (Ribbon) prefix extractor, whole-key
// filtering on (the binding sets neither whole_key_filtering nor partitioned filters, and
// rocksdb-native, RocksDB 10.5.1, takes no prefix extractor at all). Its tables record
// rocksdb.key.largest.seqno, so the rebuild follows 9.6's AddKeyAndAlt order: at the table's own
// bits per key every filter comes back byte for byte (Ribbon's bytes depend on that order).
// Then `bloomcodec repair --bits-per-key 14` rebuilds every table and 9.7 reopens the database
// and finds every key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bloomcodec/input_file.h"
#include "cli/cli_runner.h"
#include "crash/kill_harness.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"

namespace bloomcodec::repair_test {
namespace {

using nlohmann::json;
using testing::CliDir;
using testing::RunCli;

// Random keys of 1 to 12 bytes from a small alphabet: many share their 2- and 3-byte prefixes,
// some are shorter than fixed:3 (outside its domain).
std::vector<std::string> WitnessPrefixKeys(unsigned seed) {
  std::mt19937 rng(seed);
  std::set<std::string> keys;
  while (keys.size() < 2500) {
    std::string k(1 + rng() % 12, '\0');
    for (char& c : k) c = static_cast<char>('a' + rng() % 6);
    keys.insert(k);
  }
  return {keys.begin(), keys.end()};
}

// write_db.js under Node.js with `args` after the engine, database and keys file; its JSON line.
json RunWriter(const std::string& db, const std::string& keys_file,
               const std::vector<std::string>& args) {
  std::vector<std::string> argv = {
      BLOOMCODEC_NODE, BLOOMCODEC_ROCKSDB_WITNESS, BLOOMCODEC_NPM_MODULES, "rocksdb9", db,
      keys_file};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string out;
  EXPECT_EQ(crash_test::RunProgram(argv, out), 0) << out;
  const std::vector<std::string> lines = testing::SplitLines(out);
  return lines.empty() ? json() : json::parse(lines.back(), nullptr, false);
}

struct PrefixWitnessCase {
  std::string filter;  // write_db.js's filter=
  std::string prefix;  // RocksDB's name of the extractor
  unsigned seed;
};

void RunPrefixWitness(const PrefixWitnessCase& c) {
  ASSERT_STRNE(BLOOMCODEC_NODE, "") << "Node.js not found when configuring";
  CliDir dir;
  const std::string db = dir.Path("db");
  std::string hex;
  for (const std::string& k : WitnessPrefixKeys(c.seed)) {
    hex += ToHex(ByteSpan(reinterpret_cast<const std::uint8_t*>(k.data()), k.size())) + "\n";
  }
  const std::string keys_file = dir.Write("keys.txt", hex);
  const std::vector<std::string> options = {"filter=" + c.filter, "optimize_filters_for_memory=0",
                                            "prefix=" + c.prefix};
  ASSERT_TRUE(RunWriter(db, keys_file, options).is_object());
  int tables = 0;
  for (const auto& e : std::filesystem::directory_iterator(db)) {
    if (e.path().extension() != ".sst") continue;
    ++tables;
    Result<InputFile> in = InputFile::Open(e.path().string());
    ASSERT_TRUE(in.ok()) << in.status().ToString();
    Result<rocksdb::SstReader> sst = rocksdb::SstReader::Open(in->bytes(), e.path().string());
    ASSERT_TRUE(sst.ok()) << sst.status().ToString();
    ASSERT_EQ(sst->properties()->String("rocksdb.prefix.extractor.name"), c.prefix);
    ASSERT_TRUE(sst->properties()->Number("rocksdb.key.largest.seqno").has_value());
    Result<ByteVector> again = rocksdb::RewriteSstFilter(*sst, 10.0);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    Result<rocksdb::SstReader> rebuilt = rocksdb::SstReader::Open(*again, "rebuilt");
    ASSERT_TRUE(rebuilt.ok() && rebuilt->filter()) << rebuilt.status().ToString();
    const ByteSpan theirs = sst->filter()->contents.bytes(),
                   ours = rebuilt->filter()->contents.bytes();
    EXPECT_TRUE(std::equal(theirs.begin(), theirs.end(), ours.begin(), ours.end()))
        << c.prefix << " " << e.path();
    EXPECT_EQ(rebuilt->properties()->Number("rocksdb.num.filter_entries"),
              sst->properties()->Number("rocksdb.num.filter_entries"));
  }
  EXPECT_GE(tables, 2);
  const testing::CliRun r = RunCli({"repair", db, "--bits-per-key", "14", "--json", "--no-backup"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json doc = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out;
  for (const json& t : doc["tables"]) EXPECT_EQ(t["action"], "repaired") << t.dump();
  std::vector<std::string> read = options;
  read.push_back("read=1");
  const json back = RunWriter(db, keys_file, read);
  ASSERT_TRUE(back.is_object());
  EXPECT_EQ(back["found"], back["of"]) << back.dump();
}

TEST(RocksDbPrefixWitness, RocksDb97FixedPrefixBloom) {
  RunPrefixWitness({"bloom:10", "rocksdb.FixedPrefix.3", 11});
}

TEST(RocksDbPrefixWitness, RocksDb97CappedPrefixRibbon) {
  RunPrefixWitness({"ribbon:10", "rocksdb.CappedPrefix.2", 12});
}

}  // namespace
}  // namespace bloomcodec::repair_test

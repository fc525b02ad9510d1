// goleveldb-bloom and --writer without the oracle: the facts of goleveldb's filter/bloom.go that
// differ from LevelDB (k in integers wrapping at 256, bits in uint32), the format's subcommands,
// and tables whose writer is forced.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bloomcodec/leveldb/bloom.h"
#include "cli/cli_runner.h"
#include "codec/byte_writer.h"
#include "formats/leveldb/family.h"
#include "leveldb/table/table_reader.h"
#include "leveldb/table/table_writer.h"

namespace bloomcodec::leveldb {
namespace {

using bloomcodec::testing::CliDir;
using bloomcodec::testing::CliRun;
using bloomcodec::testing::RunCli;

const FormatCodec* Go() { return Codec(FormatId::kGoLevelDbBloom); }

TEST(GoLevelDbBloom, KIsComputedInIntegersAndWrapsAt256) {
  // k = uint8(b * 69 / 100), < 1 -> 1, > 30 -> 30 (filter/bloom.go's NewGenerator).
  EXPECT_EQ(BloomPolicy::GoLevelDb(0).probes(), 1);
  EXPECT_EQ(BloomPolicy::GoLevelDb(10).probes(), 6);
  EXPECT_EQ(BloomPolicy::GoLevelDb(44).probes(), 30);
  EXPECT_EQ(BloomPolicy::GoLevelDb(371).probes(), 30);  // 255
  EXPECT_EQ(BloomPolicy::GoLevelDb(372).probes(), 1);   // 256 -> 0 -> 1
  EXPECT_EQ(BloomPolicy::GoLevelDb(380).probes(), 6);   // 262 -> 6
  EXPECT_EQ(BloomPolicy::GoLevelDb(400).probes(), 20);  // 276 -> 20
  EXPECT_EQ(BloomPolicy::Current(400).probes(), 30);
  // Below the first wrap goleveldb's k is LevelDB's floor(b * 0.69) clamped.
  for (int b = 0; b < 372; ++b) {
    EXPECT_EQ(BloomPolicy::GoLevelDb(b).probes(), BloomPolicy::Current(b).probes()) << b;
  }
}

TEST(GoLevelDbBloom, BitsWrapAt2To32AndTheDivisionByZeroIsRefused) {
  FilterParams p;
  p.bits_per_key = 10;
  // 429496730 * 10 = 2^32 + 4: goleveldb allocates max(64, 4) bits, LevelDB refuses the int.
  p.expected_keys = 429496730;
  auto go = Go()->Size(p);
  ASSERT_TRUE(go.ok()) << go.status().ToString();
  EXPECT_EQ(go->bits, 64);
  EXPECT_EQ(go->file_bytes, 9);
  EXPECT_EQ(Codec(FormatId::kBloom)->Size(p).status().code(), StatusCode::kRefused);
  // 2^32 - 3 bits round up past 2^32: 0 bytes, and goleveldb's generator divides by zero.
  p.bits_per_key = 1;
  p.expected_keys = (std::int64_t{1} << 32) - 3;
  auto panics = Go()->Size(p);
  ASSERT_FALSE(panics.ok());
  EXPECT_EQ(panics.status().code(), StatusCode::kRefused);
  EXPECT_NE(panics.status().ToString().find("divides by zero"), std::string::npos);
  EXPECT_TRUE(GeometryFor(BloomPolicy::GoLevelDb(1), (std::uint64_t{1} << 32) - 3).go_panics);
  EXPECT_FALSE(GeometryFor(BloomPolicy::GoLevelDb(1), (std::uint64_t{1} << 32) - 8).go_panics);
}

TEST(GoLevelDbBloom, BuildsLevelDbsBytesBelowTheWrapAndProbesThem) {
  KeyList keys;
  for (int i = 0; i < 300; ++i) keys.Add(AsBytes("k\xe9" + std::to_string(i)));
  FilterParams p;
  p.bits_per_key = 10;
  auto go = Go()->Build(keys, p);
  auto current = Codec(FormatId::kBloom)->Build(keys, p);
  auto legacy = Codec(FormatId::kBloomLegacy)->Build(keys, p);
  ASSERT_TRUE(go.ok() && current.ok() && legacy.ok());
  EXPECT_EQ(*go, *current);
  EXPECT_NE(*go, *legacy);  // the tails >= 0x80 hash differently under 1.17
  std::vector<std::uint8_t> answers(keys.size());
  ASSERT_TRUE(Go()->Probe(*go, "f", keys, {}, answers).ok());
  for (std::uint8_t a : answers) EXPECT_EQ(a, 1);
  // With a wrapped k the bytes differ from LevelDB's.
  p.bits_per_key = 380;
  auto go380 = Go()->Build(keys, p);
  ASSERT_TRUE(go380.ok());
  EXPECT_EQ(go380->back(), 6);
  EXPECT_EQ(Codec(FormatId::kBloom)->Build(keys, p)->back(), 30);
}

TEST(GoLevelDbBloom, InspectDumpAndUndump) {
  KeyList keys;
  for (int i = 0; i < 50; ++i) keys.Add(AsBytes("key" + std::to_string(i)));
  FilterParams p;
  p.bits_per_key = 10;
  auto bytes = Go()->Build(keys, p);
  ASSERT_TRUE(bytes.ok());
  auto facts = Go()->Inspect(*bytes, "f");
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ((*facts)["format"], "goleveldb-bloom");
  EXPECT_EQ((*facts)["policy_name"], "leveldb.BuiltinBloomFilter");
  EXPECT_EQ((*facts)["hash_count"], 6);
  auto dump = Go()->Dump(*bytes, "f");
  ASSERT_TRUE(dump.ok());
  EXPECT_EQ((*dump)["format"], "goleveldb-bloom");
  auto back = Go()->Undump(*dump, "f.json");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, *bytes);
  // Another format's dump is refused, naming the format.
  auto other = Codec(FormatId::kBloom)->Dump(*bytes, "f");
  ASSERT_TRUE(other.ok());
  auto refused = Go()->Undump(*other, "f.json");
  EXPECT_FALSE(refused.ok());
}

// A sparse file of `size` bytes: `first` at offset 0, k = 6 at the end, zeros between.
std::string SparseFilter(const CliDir& dir, const std::string& name, std::uint64_t size,
                         std::uint8_t first) {
  const std::string path = dir.Path(name);
  { std::ofstream(path, std::ios::binary).put(static_cast<char>(first)); }
  std::filesystem::resize_file(path, size);
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(size - 1));
  f.put(6);
  return path;
}

TEST(GoLevelDbBloom, FiltersOver512MiBUseTheLow32BitsOfTheBitCount) {
  CliDir dir;
  const std::string keys = dir.Write("keys", "a\nb\nc\nd\n");
  // (2^29 + 1) bytes: a bit array of 2^32 bits, goleveldb's uint32 modulus is 0: it would divide
  // by zero, so probe refuses, naming the file.
  const std::string panics = SparseFilter(dir, "panics.bin", (std::uint64_t{1} << 29) + 1, 0xff);
  const CliRun refused = RunCli({"probe", panics, "--format", "goleveldb-bloom", "--keys", keys});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("panics.bin"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("divides by zero"), std::string::npos) << refused.err;
  // (2^29 + 2) bytes: 2^32 + 8 bits, of which goleveldb's modulus keeps 8: only the first byte
  // (all ones) is probed, so every key may match; LevelDB probes the zeros beyond.
  const std::string low = SparseFilter(dir, "low.bin", (std::uint64_t{1} << 29) + 2, 0xff);
  const CliRun go = RunCli({"probe", low, "--format", "goleveldb-bloom", "--keys", keys});
  EXPECT_EQ(go.exit_code, 0) << go.err;
  EXPECT_EQ(go.out, "1\n1\n1\n1\n");
  const CliRun leveldb = RunCli({"probe", low, "--format", "leveldb-bloom", "--keys", keys});
  EXPECT_EQ(leveldb.exit_code, 0) << leveldb.err;
  EXPECT_EQ(leveldb.out, "0\n0\n0\n0\n");
  // The same bytes cannot carry over between the two.
  const CliRun convert = RunCli({"convert", low, "--format", "goleveldb-bloom", "--to",
                                 "leveldb-bloom", "-o", dir.Path("out.bin")});
  EXPECT_EQ(convert.exit_code, 2);
  EXPECT_NE(convert.err.find("512 MiB"), std::string::npos) << convert.err;
}

// A database table (internal keys) whose keys end in bytes >= 0x80 (or not).
ByteVector MakeDbTable(const BloomPolicy& policy, bool high_tails) {
  TableWriteOptions options;
  options.key_kind = KeyKind::kUser;
  options.filter = policy;
  TableWriter writer(options);
  for (int i = 0; i < 300; ++i) {
    std::string user = "key" + std::to_string(10000 + i);
    if (i % 3 == 0) user += high_tails ? "\xc3\xa9" : "ab";
    ByteVector key(user.begin(), user.end());
    ByteWriter(key).PutLittleU64((std::uint64_t{1000} + i) << 8 | 1);
    EXPECT_TRUE(writer.Add(key, AsBytes("v")).ok());
  }
  auto table = writer.Finish();
  EXPECT_TRUE(table.ok());
  return std::move(table).value();
}

TEST(GoLevelDbWriter, ForcedWritersReadTheFilterAsThatDatabaseDoes) {
  const ByteVector go = MakeDbTable(BloomPolicy::GoLevelDb(10), true);
  TableOpenOptions o;
  o.key_kind = KeyKind::kUser;
  o.writer = FilterWriter::kGoLevelDb;
  auto t = TableReader::Open(go, "000005.ldb", o);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->writer(), "goleveldb");
  EXPECT_TRUE(t->filter()->writer_forced);
  o.writer = FilterWriter::kLevelDb117;
  auto as117 = TableReader::Open(go, "000005.ldb", o);
  ASSERT_TRUE(as117.ok());
  EXPECT_EQ(as117->writer(), "leveldb-1.17");
  // 1.17's hash misses some of goleveldb's keys: Verify finds them.
  EXPECT_FALSE(as117->Verify().ok());
  o.writer = FilterWriter::kLevelDb;
  auto as118 = TableReader::Open(go, "000005.ldb", o);
  ASSERT_FALSE(as118.ok());
  EXPECT_EQ(as118.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(as118.status().ToString().find("filter.leveldb.BuiltinBloomFilter"), std::string::npos);
  // And the other way: a 1.18 table is nobody's but 1.18's.
  const ByteVector current = MakeDbTable(BloomPolicy::Current(10), true);
  o.writer = FilterWriter::kGoLevelDb;
  EXPECT_EQ(TableReader::Open(current, "000006.ldb", o).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseFilterWriter("leveldb-1.18+").value(), FilterWriter::kLevelDb);
  EXPECT_FALSE(ParseFilterWriter("rocksdb").ok());
}

TEST(GoLevelDbWriter, ABaseLgOf64OrMoreIsGoShiftToFilterZero) {
  // base_lg 75: LevelDB on x86 shifts by 75 mod 64 = 11 (the usual filters), goleveldb's shift
  // gives 0 (filter 0 answers for every data block).
  ByteVector table = MakeDbTable(BloomPolicy::GoLevelDb(10), false);
  TableOpenOptions o;
  o.key_kind = KeyKind::kUser;
  o.writer = FilterWriter::kLevelDb117;
  auto before = TableReader::Open(table, "000005.ldb", o);
  ASSERT_TRUE(before.ok() && before->filter().has_value());
  const blocktable::BlockHandle h = before->filter()->handle;
  ASSERT_EQ(table[h.offset + h.size - 1], 11);
  table[h.offset + h.size - 1] = 75;  // no CRC check here: only the filter block's byte changes
  std::vector<ByteVector> late_keys;  // keys of data blocks served by a filter other than 0
  auto patched117 = TableReader::Open(table, "000005.ldb", o);
  ASSERT_TRUE(patched117.ok());
  ASSERT_TRUE(patched117
                  ->ForEachEntry([&](ByteSpan key, ByteSpan, const blocktable::BlockHandle& b) {
                    if ((b.offset >> 11) > 0)
                      late_keys.emplace_back(UserKeyOf(key).begin(), UserKeyOf(key).end());
                    return Status();
                  })
                  .ok());
  ASSERT_GT(late_keys.size(), 10u);
  o.writer = FilterWriter::kGoLevelDb;
  auto go = TableReader::Open(table, "000005.ldb", o);
  ASSERT_TRUE(go.ok());
  std::size_t go_misses = 0;
  for (const ByteVector& k : late_keys) {
    // These keys have no tail byte >= 0x80: both hashes agree, only the filter chosen differs.
    EXPECT_TRUE(*patched117->MayContain(k));
    go_misses += !*go->MayContain(k);
  }
  EXPECT_GT(go_misses, late_keys.size() / 2) << "filter 0 does not hold the later blocks' keys";
}

TEST(GoLevelDbWriter, CommandLineInspectProbeVerifyAndSplit) {
  CliDir dir;
  const std::string go = dir.Write("000005.ldb", MakeDbTable(BloomPolicy::GoLevelDb(10), true));
  const std::string ambiguous =
      dir.Write("000007.ldb", MakeDbTable(BloomPolicy::GoLevelDb(10), false));

  const CliRun inspect = RunCli({"inspect", go, ambiguous, "--json"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const auto facts = nlohmann::json::parse(inspect.out);
  EXPECT_EQ(facts["files"][0]["filter"]["writer"], "goleveldb");
  EXPECT_EQ(facts["files"][0]["filter"]["filter_format"], "goleveldb-bloom");
  EXPECT_FALSE(facts["files"][0]["filter"].contains("writer_note"));
  EXPECT_EQ(facts["files"][1]["filter"]["writer"], "leveldb-1.17-or-goleveldb");
  EXPECT_TRUE(facts["files"][1]["filter"].contains("writer_note"));
  const CliRun text = RunCli({"inspect", ambiguous});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("leveldb-1.17-or-goleveldb"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("cannot tell the writers apart"), std::string::npos) << text.out;

  // verify: decided and forced agree; forcing 1.17 finds false negatives (exit 1); forcing a
  // writer of another name, or with a directory, is a usage error.
  const CliRun decided = RunCli({"verify", go, "--json"});
  EXPECT_EQ(decided.exit_code, 0) << decided.out << decided.err;
  EXPECT_EQ(nlohmann::json::parse(decided.out)["files"][0]["writer"], "goleveldb");
  EXPECT_EQ(RunCli({"verify", go, "--writer", "goleveldb"}).exit_code, 0);
  const CliRun as117 = RunCli({"verify", go, "--writer", "leveldb-1.17", "--json"});
  EXPECT_EQ(as117.exit_code, 1) << as117.out;
  EXPECT_GT(nlohmann::json::parse(as117.out)["files"][0]["false_negative_count"].get<int>(), 0);
  const CliRun wrong = RunCli({"verify", go, "--writer", "leveldb"});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("--writer"), std::string::npos) << wrong.err;
  EXPECT_EQ(RunCli({"verify", dir.path(), "--writer", "goleveldb"}).exit_code, 2);
  EXPECT_EQ(RunCli({"verify", go, "--writer", "nobody"}).exit_code, 2);

  // probe --writer on something that is not a LevelDB table.
  const std::string keys = dir.Write("keys", "key10001\n");
  EXPECT_EQ(RunCli({"probe", go, "--keys", keys, "--writer", "goleveldb"}).out, "1\n");
  const std::string raw = dir.Path("f.bin");
  ASSERT_EQ(RunCli({"build", "--format", "goleveldb-bloom", "--bits-per-key", "10", "--keys", keys,
                    "-o", raw})
                .exit_code,
            0);
  EXPECT_EQ(RunCli({"probe", raw, "--format", "goleveldb-bloom", "--keys", keys}).out, "1\n");
  EXPECT_EQ(
      RunCli({"probe", raw, "--format", "goleveldb-bloom", "--keys", keys, "--writer", "goleveldb"})
          .exit_code,
      2);

  // A goleveldb table splits into goleveldb-bloom filters, not 1.18's or 1.17's.
  const CliRun split = RunCli({"convert", go, "--to", "goleveldb-bloom", "-o", dir.Path("split/")});
  EXPECT_EQ(split.exit_code, 0) << split.err;
  const CliRun refused =
      RunCli({"convert", go, "--to", "leveldb-bloom-legacy", "-o", dir.Path("split117/")});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("goleveldb-bloom"), std::string::npos) << refused.err;
  // goleveldb-bloom <-> leveldb-bloom: the same bytes.
  const CliRun to118 = RunCli({"convert", raw, "--format", "goleveldb-bloom", "--to",
                               "leveldb-bloom", "-o", dir.Path("f118.bin")});
  EXPECT_EQ(to118.exit_code, 0) << to118.err;
  EXPECT_EQ(bloomcodec::testing::ReadAnyFile(dir.Path("f118.bin")),
            bloomcodec::testing::ReadAnyFile(raw));
}

// The writer of a table whose keys cannot tell is its database's (database_writer.h): a sibling
// whose keys decide, or the LOG. Alone, or beside LevelDB's LOG, it stays undecided.
TEST(GoLevelDbDatabase, AnUndecidedTableTakesTheWriterItsDatabaseShows) {
  const ByteVector decisive = MakeDbTable(BloomPolicy::GoLevelDb(10), true);
  const ByteVector undecided = MakeDbTable(BloomPolicy::GoLevelDb(10), false);
  auto writers = [](const std::string& folder) {
    const CliRun r = RunCli({"verify", folder, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    std::map<std::string, std::string> out;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    for (const auto& f : doc["files"]) {
      const std::string path = f["path"];
      std::string w = f.value("writer", "");
      for (const auto& x : f["findings"]) {
        if (x["kind"] == "manifest" && x["severity"] == "info")
          w += " (" + x["message"].get<std::string>() + ")";
      }
      out[std::filesystem::path(path).filename().string()] = w;
    }
    return out;
  };
  {  // a folder of tables (a copy, no CURRENT): the sibling decides
    CliDir dir;
    dir.Write("000005.ldb", decisive);
    dir.Write("000007.ldb", undecided);
    const auto w = writers(dir.path());
    EXPECT_EQ(w.at("000005.ldb"), "goleveldb");
    EXPECT_TRUE(w.at("000007.ldb").starts_with("goleveldb (")) << w.at("000007.ldb");
    EXPECT_NE(w.at("000007.ldb").find("its sibling 000005.ldb was written by goleveldb"),
              std::string::npos)
        << w.at("000007.ldb");
  }
  {  // alone: nothing tells
    CliDir dir;
    dir.Write("000007.ldb", undecided);
    EXPECT_EQ(writers(dir.path()).at("000007.ldb"), "leveldb-1.17-or-goleveldb");
  }
  {  // goleveldb's LOG tells, LevelDB's does not make it goleveldb's
    CliDir dir;
    dir.Write("000007.ldb", undecided);
    dir.Write("LOG",
              "=============== Nov 28, 2026 (UTC) ===============\n"
              "12:39:54.525902 log@legend F\xc2\xb7NumFile\n12:39:54.556942 db@open opening\n");
    const auto go = writers(dir.path());
    EXPECT_NE(go.at("000007.ldb").find("its database's LOG is goleveldb's"), std::string::npos)
        << go.at("000007.ldb");
    dir.Write("LOG", "2026/11/28-12:40:00.123456 7f12345678 Recovering log #3\n");
    EXPECT_EQ(writers(dir.path()).at("000007.ldb"), "leveldb-1.17-or-goleveldb");
  }
}

}  // namespace
}  // namespace bloomcodec::leveldb

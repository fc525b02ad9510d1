// Repair against the JVM oracle: every era's sstable repaired at its own parameters and at a new
// fp chance; the Filter.db it writes must be the bytes the oracle's Java builds for the same keys
// (getFilter(key count, ...) of the version's writer, every key added, serialized as the
// version's BloomFilterSerializer writes it). The keys handed to the oracle are the ones the
// test wrote (or, for the demo data, read here from Index.db without the library), never what
// repair read. Statistics.db is re-read with the new chance and its checksums.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cassandra/era_table.h"
#include "cassandra/repair/repair.h"
#include "cassandra/repair/statistics.h"
#include "cassandra/statistics_db.h"
#include "oracle/jvm_oracle.h"
#include "repair/cassandra_sstables.h"
#include "support/test_support.h"

namespace bloomcodec::cassandra {
namespace {

namespace fs = std::filesystem;
using testing::FilterState;
using testing::JvmOracle;
using testing::OracleAnswers;
using testing::OracleOp;
using testing::OracleRequest;

KeyList ToKeyList(const std::vector<ByteVector>& keys) {
  KeyList out;
  for (const ByteVector& k : keys) out.Add(k);
  return out;
}

// What the oracle builds: "OK" and the file, or its refusal.
struct OracleFile {
  std::string outcome;
  ByteVector bytes;
};

OracleFile Ask(OracleRequest& request) {
  request.EndCase();
  Result<ByteVector> answer = JvmOracle::Shared().Call(request);
  EXPECT_TRUE(answer.ok()) << answer.status().ToString();
  if (!answer.ok()) return {};
  OracleAnswers a(*answer);
  OracleFile f{a.Utf(), {}};
  if (f.outcome == "OK") f.bytes = a.Bytes();
  EXPECT_TRUE(a.ok() && a.at_end()) << a.error();
  return f;
}

// The oracle's Filter.db of `era` for `keys`, sized by fp chance or buckets per element.
OracleFile OracleFilter(Era era, const std::vector<ByteVector>& keys, const FilterSizing& s) {
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  const std::uint8_t kind = s.fp_chance ? 0 : 1;
  const double fp = s.fp_chance.value_or(0);
  const std::int32_t target = s.buckets_per_element.value_or(0);
  switch (Facts(era).hash) {
    case KeyHash::kMurmur3: {
      OracleRequest r(OracleOp::kBuildMurmur3);
      r.U8(era == Era::kV12 ? 0 : era == Era::kV30 ? 1 : 2);
      r.I64(n);
      r.F64(fp);
      r.Keys(ToKeyList(keys));
      return Ask(r);
    }
    case KeyHash::kMurmur2x64:
    case KeyHash::kMurmur2x32: {
      OracleRequest r(Facts(era).hash == KeyHash::kMurmur2x64 ? OracleOp::kBuildV10
                                                              : OracleOp::kBuildLegacy);
      r.U8(kind);
      r.I64(n);
      r.F64(fp);
      r.I32(target);
      r.Keys(ToKeyList(keys));
      return Ask(r);
    }
    case KeyHash::kMurmur2x32JavaString: {
      // The keys are the Strings' UTF-16 code units (ASCII here: one unit per byte).
      OracleRequest r(OracleOp::kBuildStringSized);
      r.U8(kind);
      r.I64(n);
      r.F64(fp);
      r.I32(target);
      r.I32(static_cast<std::int32_t>(keys.size()));
      for (const ByteVector& k : keys) {
        ByteVector units;
        for (std::uint8_t c : k) units.insert(units.end(), {0, c});
        r.Bytes(units);
      }
      return Ask(r);
    }
  }
  return {};
}

RepairRequest Request(std::optional<double> fp) {
  RepairRequest r;
  r.fp_chance = fp;
  r.backup = SnapshotBackup("oracle-test");
  return r;
}

// Repairs `path`'s sstable and compares its Filter.db with the oracle's for `keys`.
void RepairAndCompare(const std::string& path, Era era, const std::vector<ByteVector>& keys,
                      std::optional<double> fp) {
  SCOPED_TRACE(path + (fp ? " at fp " + std::to_string(*fp) : " at its own parameters"));
  FileOps ops;
  Result<RepairOutcome> out = RepairSstable(path, Request(fp), ops);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->action == RepairAction::kRepaired || out->action == RepairAction::kUnchanged);
  EXPECT_EQ(out->keys, keys.size());
  const OracleFile expected = OracleFilter(era, keys, out->sizing);
  ASSERT_EQ(expected.outcome, "OK");
  EXPECT_EQ(testing::ReadAll(out->sstable.filter_path), expected.bytes);
}

// Every Murmur3-era version, BIG and BTI and ScyllaDB's own: sstables with CQLSSTableWriter's
// saturated 16-byte filter repaired at the recorded chance, then at 0.001.
TEST(CassandraRepairOracle, EveryMurmur3VersionAtItsOwnAndANewFpChance) {
  struct Case {
    std::string version, format;
  };
  const Case cases[] = {{"ia", ""},    {"ic", ""},    {"ja", ""},    {"jb", ""},
                        {"ka", ""},    {"la", "big"}, {"ma", "big"}, {"mc", "big"},
                        {"me", "big"}, {"ms", "big"}, {"mt", "big"}, {"na", "big"},
                        {"nb", "big"}, {"nc", "big"}, {"oa", "big"}, {"da", "bti"}};
  for (const Case& c : cases) {
    testing::TempDir tmp;
    testing::SstableRecipe recipe;
    recipe.version = c.version;
    recipe.format = c.format;
    recipe.keys = 150;
    recipe.recorded_fp = 0.01;
    const testing::MadeSstable s = testing::MakeSstable(tmp.path(), recipe);
    const Era era = EraForVersion(c.version, c.format);
    const auto before = testing::FilesUnder(s.table_dir);
    RepairAndCompare(s.prefix + "Data.db", era, s.keys, std::nullopt);
    const ByteVector stats_before = testing::ReadAll(s.prefix + "Statistics.db");
    RepairAndCompare(s.prefix + "Filter.db", era, s.keys, 0.001);
    const ByteVector stats = testing::ReadAll(s.prefix + "Statistics.db");
    // Every other component is the file it was, byte for byte.
    const auto after = testing::FilesUnder(s.table_dir);
    for (const auto& [name, bytes] : before) {
      if (name.ends_with("Filter.db") || name.ends_with("Statistics.db")) continue;
      EXPECT_EQ(after.at(name), bytes) << c.version << ": " << name;
    }
    if (!RecordsFpChance(c.version, c.format)) {
      EXPECT_EQ(stats, stats_before) << c.version;  // nothing recorded, nothing rewritten
      continue;
    }
    // The new chance, read back with every checksum of the version; the same bytes as the
    // file the test writes for that chance.
    Result<RecordedFpChance> r = FindRecordedFpChance(stats, "s", c.version, c.format);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->fp_chance, 0.001);
    EXPECT_EQ(stats, testing::StatisticsFile(c.version, c.format, 0.001)) << c.version;
    if (HasMetadataToc(c.version, c.format)) {
      EXPECT_TRUE(ReadValidationMetadata(stats, "s", c.version, c.format).ok());
    }
  }
}

// The demo data directory's 0.6, legacy and 1.0 sstables: no record of the chance, so the
// writer's default (getFilter(keyCount, 15)), then a given fp chance.
TEST(CassandraRepairOracle, EveryEraBefore12FromTheDemoData) {
  testing::TempDir tmp;
  fs::copy(testing::FixturePath("demo/cassandra-data"), tmp.path(), fs::copy_options::recursive);
  struct Case {
    std::string stem;
    Era era;
  };
  const Case cases[] = {{"Keyspace1/Standard2-b-6-", Era::kV06},
                        {"Keyspace1/Standard1-e-3-", Era::kLegacy},
                        {"Keyspace1/Standard1-hc-1-", Era::kV10},
                        {"Keyspace1/Standard2-hc-4-", Era::kV10},
                        {"Keyspace2/Users/Keyspace2-Users-hf-1-", Era::kV10}};
  for (const Case& c : cases) {
    const std::string prefix = tmp.path() + "/" + c.stem;
    const std::vector<ByteVector> keys =
        testing::KeysOfOldIndexDb(testing::ReadAll(prefix + "Index.db"));
    ASSERT_FALSE(keys.empty()) << c.stem;
    RepairAndCompare(prefix + "Index.db", c.era, keys, std::nullopt);
    RepairAndCompare(prefix + "Index.db", c.era, keys, 0.1);
  }
}

}  // namespace
}  // namespace bloomcodec::cassandra

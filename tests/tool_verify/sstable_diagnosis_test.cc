// verify's diagnosis of what a Cassandra data directory holds, run as a process (issue 29, §4):
// a file whose name only resembles an sstable component is not an sstable (skipped with an info
// finding, never an error; a directory of nothing else says it holds no database), and an
// Index.db that lost keys against the partition count its own Statistics.db records is an
// `index` finding ("holds 0 of the 2,000 partitions"), not an overfilled filter; where
// Statistics.db records no count, Summary.db's ("of about 2,048"). The sstables
// are written here: filters by the library's builders, Index.db by its writer, Statistics.db as
// MetadataSerializer lays it out.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <string>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "cassandra/index_db.h"
#include "codec/byte_writer.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

std::uint32_t Crc(ByteSpan a, ByteSpan b = {}) {
  uLong c = crc32(0L, Z_NULL, 0);
  c = crc32(c, a.data(), static_cast<uInt>(a.size()));
  if (!b.empty()) c = crc32(c, b.data(), static_cast<uInt>(b.size()));
  return static_cast<std::uint32_t>(c);
}

// Statistics.db of ka and later: VALIDATION (type 0) and STATS (type 2), whose first field is
// the estimated partition size histogram; its buckets count `partitions`. With `checksums` (na
// and later) every part is followed by its CRC32.
ByteVector StatisticsRecording(std::uint64_t partitions, bool checksums) {
  const std::string partitioner = "org.apache.cassandra.dht.Murmur3Partitioner";
  ByteVector validation;
  ByteWriter v(validation);
  v.PutBigU16(static_cast<std::uint16_t>(partitioner.size()));
  v.PutBytes(AsBytes(std::string_view(partitioner)));
  const double fp = 0.01;
  std::uint64_t bits;
  std::memcpy(&bits, &fp, sizeof bits);
  v.PutBigU64(bits);
  ByteVector stats;
  ByteWriter s(stats);
  const std::uint64_t counts[] = {partitions / 3, partitions - partitions / 3, 0};
  s.PutBigI32(3);
  for (int i = 0; i < 3; ++i) {
    s.PutBigU64(static_cast<std::uint64_t>(100 * (i + 1)));
    s.PutBigU64(counts[i]);
  }
  s.PutBigI32(0);  // the cell count histogram, empty (not read)
  const std::size_t crc = checksums ? 4 : 0;
  const std::size_t toc_end = 4 + crc + 16 + crc;
  ByteVector out;
  ByteWriter w(out);
  w.PutBigI32(2);
  if (checksums) w.PutBigU32(Crc(ByteSpan(out).first(4)));
  const std::size_t entries_at = out.size();
  w.PutBigI32(0);
  w.PutBigI32(static_cast<std::int32_t>(toc_end));
  w.PutBigI32(2);
  w.PutBigI32(static_cast<std::int32_t>(toc_end + validation.size() + crc));
  if (checksums) w.PutBigU32(Crc(ByteSpan(out).first(4), ByteSpan(out).subspan(entries_at)));
  w.PutBytes(validation);
  if (checksums) w.PutBigU32(Crc(validation));
  w.PutBytes(stats);
  if (checksums) w.PutBigU32(Crc(stats));
  return out;
}

constexpr int kKeys = 2000;

// A table of 2000 keys in `version` (me: 3.x, nb: 4.0), its filter sized for them at 0.01, whose
// Index.db holds the first `indexed` keys (the writer's file cut at an entry's end) and whose
// Statistics.db records 2000 partitions. Returns the table's folder.
std::string PutTable(const CliDir& dir, const std::string& version, int indexed,
                     bool with_statistics = true) {
  const std::string t = dir.Path("data/ks/tbl-0123456789abcdef0123456789abcdef");
  KeyList keys, kept;
  std::vector<std::int64_t> positions;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "key" + std::to_string(100000 + i);
    keys.Add(std::string_view(key));
    if (i < indexed) {
      kept.Add(std::string_view(key));
      positions.push_back(i * 50);
    }
  }
  const cassandra::Era era = version == "me" ? cassandra::Era::kV30 : cassandra::Era::kV40;
  auto spec = cassandra::SizeMurmur3Filter(kKeys, 0.01);
  EXPECT_TRUE(spec.ok());
  auto filter = cassandra::BuildMurmur3Filter(keys, spec->hash_count, spec->word_count, era);
  EXPECT_TRUE(filter.ok());
  auto index =
      cassandra::WriteIndexDb(kept, positions, cassandra::IndexEntryForm::kVIntPositionAndPromoted);
  EXPECT_TRUE(index.ok());
  const std::string prefix = t + "/" + version + "-1-big-";
  WriteFileAt(prefix + "Filter.db", *filter);
  WriteFileAt(prefix + "Index.db", *index);
  if (with_statistics) {
    WriteFileAt(prefix + "Statistics.db", StatisticsRecording(kKeys, version >= "na"));
  }
  return t;
}

std::string Messages(const Json& file) {
  std::string all;
  for (const Json& f : file["findings"]) all += f["message"].get<std::string>() + "\n";
  return all;
}

TEST(IndexAgainstStatistics, AWholeIndexOfEveryRecordedPartitionIsHealthy) {
  for (const std::string version : {"me", "nb"}) {
    CliDir dir;
    PutTable(dir, version, kKeys);
    Json doc = VerifyJson({dir.Path("data")}, 0);
    const Json& f = FileEndingWith(doc, version + "-1-big-Filter.db");
    EXPECT_EQ(Kinds(f), std::vector<std::string>{"statistics"}) << version;
    EXPECT_EQ(f["keys_checked"], kKeys);
    EXPECT_EQ(f["sized_keys_from"], "index");
  }
}

TEST(IndexAgainstStatistics, AnEmptyIndexIsAnIndexFindingNotAnOverfilledFilter) {
  for (const std::string version : {"me", "nb"}) {
    CliDir dir;
    PutTable(dir, version, 0);
    Json doc = VerifyJson({dir.Path("data")}, 1);
    const Json& f = FileEndingWith(doc, version + "-1-big-Filter.db");
    EXPECT_EQ(Kinds(f), (std::vector<std::string>{"index", "statistics"})) << Messages(f);
    EXPECT_EQ(f["findings"][0]["severity"], "error");
    const std::string message = f["findings"][0]["message"];
    EXPECT_NE(message.find(version + "-1-big-Index.db holds 0 of the 2,000 partitions"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(version + "-1-big-Statistics.db records"), std::string::npos) << message;
    // The filter is judged by what its size and K allow, which explain its fill.
    EXPECT_EQ(f["sized_keys_from"], "parameters");
    EXPECT_EQ(f["status"], "error");
  }
}

TEST(IndexAgainstStatistics, AnIndexCutAtAnEntrysEndIsAnIndexFindingWithTheKeysItHolds) {
  CliDir dir;
  PutTable(dir, "me", 500);
  Json doc = VerifyJson({dir.Path("data")}, 1);
  const Json& f = FileEndingWith(doc, "me-1-big-Filter.db");
  EXPECT_EQ(Kinds(f), (std::vector<std::string>{"index", "statistics"})) << Messages(f);
  EXPECT_NE(Messages(f).find("holds 500 of the 2,000 partitions"), std::string::npos)
      << Messages(f);
  // The keys that are there are still asked: none is a false negative.
  EXPECT_EQ(f["keys_checked"], 500);
  EXPECT_EQ(f["false_negative_count"], 0);
  EXPECT_EQ(f["sized_keys_from"], "parameters");
  // No fp-chance verdict rests on the missing keys either.
  EXPECT_EQ(Messages(f).find("fp rate"), std::string::npos) << Messages(f);
}

TEST(IndexAgainstStatistics, WithoutARecordedCountAnEmptyIndexStaysTheErrorItWas) {
  CliDir dir;
  PutTable(dir, "me", 0, /*with_statistics=*/false);
  Json doc = VerifyJson({dir.Path("data")}, 1);
  const Json& f = FileEndingWith(doc, "me-1-big-Filter.db");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"overfilled"}) << Messages(f);
}

TEST(IndexAgainstStatistics, AnIndexCutInsideAnEntryIsReportedOnce) {
  CliDir dir;
  const std::string t = PutTable(dir, "me", kKeys);
  ByteVector index = ReadAnyFile(t + "/me-1-big-Index.db");
  index.resize(index.size() / 2 + 3);  // inside some entry
  WriteFileAt(t + "/me-1-big-Index.db", index);
  Json doc = VerifyJson({dir.Path("data")}, 1);
  const Json& f = FileEndingWith(doc, "me-1-big-Filter.db");
  EXPECT_EQ(Kinds(f), (std::vector<std::string>{"index", "statistics"})) << Messages(f);
  EXPECT_EQ(Messages(f).find("partitions"), std::string::npos) << Messages(f);
  EXPECT_FALSE(f["findings"][0]["offset"].is_null());
}

// Summary.db of ka and later recording `keys` partitions at min_index_interval 128, full
// sampling: the 24-byte header, then one sampled entry (its offset, key and position) for every
// 128th key, then the first and last keys. `entries` overrides the entry count in the header.
ByteVector SummaryRecording(int keys, int entries = -1) {
  const int full = (keys + 127) / 128;
  ByteVector body;
  ByteWriter b(body);
  for (int i = 0; i < full; ++i) b.PutLittleU32(static_cast<std::uint32_t>(4 * full + 16 * i));
  for (int i = 0; i < full; ++i) {
    b.PutBytes(AsBytes(std::string_view("key" + std::to_string(100000 + 128 * i))));
    b.PutBigU64(static_cast<std::uint64_t>(i) * 6400);
  }
  ByteVector out;
  ByteWriter w(out);
  w.PutBigI32(128);
  w.PutBigI32(entries < 0 ? full : entries);
  w.PutBigU64(body.size());
  w.PutBigI32(128);
  w.PutBigI32(full);
  w.PutBytes(body);
  return out;
}

// Where Statistics.db records no count (here: there is none), Summary.db's size at full sampling
// S = ceil(2000 / 128) = 16 bounds the partitions indexed: 1,921 .. 2,048.
TEST(IndexAgainstSummary, AnEmptyIndexIsAnIndexFindingAgainstTheSummarysCount) {
  CliDir dir;
  const std::string t = PutTable(dir, "me", 0, /*with_statistics=*/false);
  WriteFileAt(t + "/me-1-big-Summary.db", SummaryRecording(kKeys));
  Json doc = VerifyJson({dir.Path("data")}, 1);
  const Json& f = FileEndingWith(doc, "me-1-big-Filter.db");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"index"}) << Messages(f);
  EXPECT_NE(Messages(f).find("me-1-big-Index.db holds 0 of about 2,048 partitions (at least "
                             "1,921) " +
                             t + "/me-1-big-Summary.db records"),
            std::string::npos)
      << Messages(f);
  EXPECT_EQ(f["sized_keys_from"], "parameters");
}

TEST(IndexAgainstSummary, AnIndexWithinTheSummarysRangeIsNotJudgedShort) {
  CliDir dir;
  const std::string t = PutTable(dir, "me", 1950, /*with_statistics=*/false);
  WriteFileAt(t + "/me-1-big-Summary.db", SummaryRecording(kKeys));
  Json doc = VerifyJson({dir.Path("data")}, 0);
  const Json& f = FileEndingWith(doc, "me-1-big-Filter.db");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{}) << Messages(f);
  EXPECT_EQ(f["keys_checked"], 1950);
}

// A Summary.db whose header does not hold together, or one ScyllaDB wrote (its older releases
// count sampled entries, not keys), records no count: the empty index is judged as before.
TEST(IndexAgainstSummary, ADamagedOrScyllaSummaryRecordsNoCount) {
  const ByteVector whole = SummaryRecording(kKeys);
  const std::vector<ByteVector> damaged = {
      ByteVector(whole.begin(), whole.begin() + 20),  // header cut short
      ByteVector(whole.begin(), whole.begin() + 40),  // its entries cut short
      SummaryRecording(kKeys, 17),                    // more entries than at full sampling
      SummaryRecording(kKeys, 0),                     // no entry (the writer asserts one)
  };
  for (std::size_t i = 0; i <= damaged.size(); ++i) {
    CliDir dir;
    const std::string t = PutTable(dir, "me", 0, /*with_statistics=*/false);
    if (i < damaged.size()) {
      WriteFileAt(t + "/me-1-big-Summary.db", damaged[i]);
    } else {
      WriteFileAt(t + "/me-1-big-Summary.db", whole);
      WriteFileAt(t + "/me-1-big-Scylla.db", AsBytes("\0"));
    }
    Json doc = VerifyJson({dir.Path("data")}, 1);
    const Json& f = FileEndingWith(doc, "me-1-big-Filter.db");
    EXPECT_EQ(Kinds(f), std::vector<std::string>{"overfilled"}) << i << Messages(f);
  }
}

// A data directory's files named like sstable components that are none: `names` below `dir`.
void Touch(const CliDir& dir, const std::vector<std::string>& names) {
  for (const std::string& name : names) WriteFileAt(dir.Path(name), AsBytes("not an sstable\n"));
}

TEST(LookalikeNames, AFolderOfConfigurationFilesHoldsNothingToVerify) {
  CliDir dir;
  // /etc/ld.so.conf.d/zz-cuda-13-0.conf parses as column family "zz", version "cuda",
  // generation 13, component "0.conf"; CommitLog-7-1234.log as a versionless 0.6 name.
  Touch(dir,
        {"etc/ld.so.conf.d/zz-cuda-13-0.conf", "etc/commitlog/CommitLog-7-1234.log", "etc/hosts"});
  CliRun r = RunCli({"verify", dir.Path("etc")});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("nothing to verify"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("missing-index"), std::string::npos) << r.out;
}

TEST(LookalikeNames, NamesOnePartAwayFromAComponentAreSkippedWithAnInfoLine) {
  CliDir dir;
  Touch(dir, {"d/ks/tbl-0123456789abcdef0123456789abcdef/pa-1-big-Data.db",
              "d/ks/tbl-0123456789abcdef0123456789abcdef/nb-2-big-Notes.txt",
              "d/Keyspace1/Standard1-zz-3-Filter.db", "d/ld.so.conf.d/zz-cuda-13-0.conf"});
  Json doc = VerifyJson({dir.Path("d")}, 0);
  ASSERT_EQ(doc["files"].size(), 4u) << doc.dump(1);
  const Json& version = FileEndingWith(doc, "pa-1-big-Data.db");
  EXPECT_EQ(Kinds(version), std::vector<std::string>{"not-sstable"});
  EXPECT_EQ(version["findings"][0]["severity"], "info");
  EXPECT_NE(Messages(version).find("version 'pa'"), std::string::npos) << Messages(version);
  EXPECT_EQ(version["format"], "");
  const Json& component = FileEndingWith(doc, "nb-2-big-Notes.txt");
  EXPECT_NE(Messages(component).find("'Notes.txt' is no component"), std::string::npos)
      << Messages(component);
  EXPECT_EQ(Kinds(FileEndingWith(doc, "Standard1-zz-3-Filter.db")),
            std::vector<std::string>{"not-sstable"});
  // The directory says it holds no database, as info: nothing is wrong.
  const Json& none = doc["files"][3];
  EXPECT_EQ(none["path"], dir.Path("d"));
  EXPECT_EQ(Kinds(none), std::vector<std::string>{"no-database"});
  EXPECT_NE(Messages(none).find("3 file names resemble sstable components but are none"),
            std::string::npos)
      << Messages(none);
  EXPECT_EQ(doc["summary"]["errors"], 0);
  EXPECT_EQ(doc["summary"]["groups"].size(), 0u);
}

TEST(LookalikeNames, BesideRealSstablesTheyAreSkippedAndTheSstablesChecked) {
  CliDir dir;
  PutTable(dir, "nb", kKeys);
  Touch(dir, {"data/ks/tbl-0123456789abcdef0123456789abcdef/nb-1-big-Notes.txt",
              "data/ks/tbl-0123456789abcdef0123456789abcdef/zz-cuda-13-0.conf"});
  Json doc = VerifyJson({dir.Path("data")}, 0);
  ASSERT_EQ(doc["files"].size(), 2u) << doc.dump(1);
  EXPECT_EQ(Kinds(FileEndingWith(doc, "nb-1-big-Filter.db")),
            std::vector<std::string>{"statistics"});
  EXPECT_EQ(FileEndingWith(doc, "nb-1-big-Filter.db")["keys_checked"], kKeys);
  EXPECT_EQ(Kinds(FileEndingWith(doc, "nb-1-big-Notes.txt")),
            std::vector<std::string>{"not-sstable"});
}

TEST(LookalikeNames, EveryVersionAWriterUsesIsAnSstable) {
  // DataStax's BTI versions, ScyllaDB's ms / mt, Cassandra's oldest and newest: their Filter.db
  // without Index.db is missing-index (an error, as before), not a skipped name.
  CliDir dir;
  Touch(dir, {"d/ks/t/aa-1-bti-Filter.db", "d/ks/t/cc-2-bti-Filter.db", "d/ks/t/ms-3-big-Filter.db",
              "d/ks/t/oa-4-big-Filter.db", "d/Keyspace1/Standard1-hf-5-Filter.db",
              "d/Keyspace1/Standard1-b-6-Filter.db"});
  Json doc = VerifyJson({dir.Path("d")}, 1);
  for (const Json& f : doc["files"]) {
    for (const Json& x : f["findings"]) EXPECT_NE(x["kind"], "not-sstable") << f.dump(1);
  }
  EXPECT_EQ(doc["files"].size(), 6u) << doc.dump(1);
}

}  // namespace
}  // namespace bloomcodec::testing

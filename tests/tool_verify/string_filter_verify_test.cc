// verify on sstables of versions before c (Cassandra 0.4 - 0.7 beta), run as a process: their
// Filter.db (cassandra-0.6) holds each Index.db entry's String, hashed as getBytes("UTF-16").
// The Index.db files are written here as DataOutput.writeUTF writes them (modified UTF-8), the
// filters with the library's 0.6 writer, which the JVM oracle holds to Java's semantics.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/java_string.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "cassandra/index_db.h"
#include "support/java_text.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

// A pre-c Index.db: u16 length, the key as writeUTF wrote it, i64 position.
ByteVector IndexOf(const std::vector<ByteVector>& stored) {
  ByteVector out;
  std::uint64_t position = 0;
  for (const ByteVector& k : stored) {
    out.push_back(static_cast<std::uint8_t>(k.size() >> 8));
    out.push_back(static_cast<std::uint8_t>(k.size() & 0xff));
    out.insert(out.end(), k.begin(), k.end());
    for (int i = 7; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(position >> (8 * i)));
    position += 100;
  }
  return out;
}

// The 0.6 writer: getFilter(keys, 15), each String added.
ByteVector FilterOf(const std::vector<std::u16string>& strings) {
  KeyList hashed;
  for (const std::u16string& s : strings) hashed.Add(ByteSpan(cassandra::JavaUtf16Bytes(s)));
  auto spec = cassandra::StringFilterSizeForBucketsPerElement(
      static_cast<std::int64_t>(strings.size()), 15);
  EXPECT_TRUE(spec.ok());
  auto bytes = cassandra::BuildLegacyFilter(hashed, *spec);
  EXPECT_TRUE(bytes.ok());
  return *bytes;
}

class StringFilterDir : public ::testing::Test {
 protected:
  void SetUp() override {
    ks_ = dir_.Path("data/Keyspace1");
    // ASCII, Latin-1, NUL inside, a supplementary character, an unpaired surrogate.
    strings_ = {u"k1", u"caf\u00e9", std::u16string{u'a', 0, u'b'}, u"\U0001F600x",
                std::u16string{u'z', 0xdc00}};
    for (int i = 0; i < 40; ++i)
      strings_.push_back(u"row" + std::u16string(1, u'A' + i % 26) +
                         std::u16string(1, u'0' + i / 26));
  }
  std::string Filter() const { return ks_ + "/Standard1-b-1-Filter.db"; }
  std::string Index() const { return ks_ + "/Standard1-b-1-Index.db"; }
  std::vector<ByteVector> Stored() const {
    std::vector<ByteVector> out;
    for (const std::u16string& s : strings_) out.push_back(ModifiedUtf8(s));
    return out;
  }

  CliDir dir_;
  std::string ks_;
  std::vector<std::u16string> strings_;
};

TEST_F(StringFilterDir, EveryStringIsPresent) {
  WriteFileAt(Filter(), FilterOf(strings_));
  WriteFileAt(Index(), IndexOf(Stored()));
  Json doc = VerifyJson({dir_.Path("data")}, 0);
  const Json& f = FileEndingWith(doc, "Standard1-b-1-Filter.db");
  EXPECT_EQ(f["format"], "cassandra-0.6");
  EXPECT_EQ(f["version"], "b");
  EXPECT_EQ(f["keys_checked"], strings_.size());
  EXPECT_EQ(f["false_negative_count"], 0);
  EXPECT_EQ(f["status"], "ok");
  EXPECT_EQ(Kinds(f), std::vector<std::string>{"partitioner"});
  EXPECT_EQ(f["sized_keys"], strings_.size());
}

TEST_F(StringFilterDir, AStringMissingFromTheFilterIsAFalseNegative) {
  std::vector<std::u16string> fewer(strings_.begin() + 1, strings_.end());
  WriteFileAt(Filter(), FilterOf(fewer));
  WriteFileAt(Index(), IndexOf(Stored()));
  Json doc = VerifyJson({dir_.Path("data")}, 1);
  const Json& f = FileEndingWith(doc, "Standard1-b-1-Filter.db");
  EXPECT_EQ(f["false_negative_count"], 1);
  EXPECT_EQ(f["false_negatives"][0], "feff006b0031");  // the String's bytes, as hashed
}

TEST_F(StringFilterDir, TheBytesHashedAreTheStringNotTheStoredBytes) {
  // A filter of the stored (modified UTF-8) bytes, as the legacy filter would take them: every
  // non-trivial key is then absent under the 0.6 reading.
  KeyList raw;
  for (const ByteVector& k : Stored()) raw.Add(ByteSpan(k));
  auto spec = cassandra::LegacySizeForBucketsPerElement(static_cast<std::int64_t>(raw.size()), 15);
  ASSERT_TRUE(spec.ok());
  auto bytes = cassandra::BuildLegacyFilter(raw, *spec);
  ASSERT_TRUE(bytes.ok());
  WriteFileAt(Filter(), *bytes);
  WriteFileAt(Index(), IndexOf(Stored()));
  Json doc = VerifyJson({dir_.Path("data")}, 1);
  const Json& f = FileEndingWith(doc, "Standard1-b-1-Filter.db");
  EXPECT_GT(f["false_negative_count"].get<int>(), 30);
}

TEST_F(StringFilterDir, RandomPartitionerDiskFormIsHashedWhole) {
  // RandomPartitioner's Index.db holds "<token>:<key>", and the 0.6 writer added that String.
  std::vector<std::u16string> disk;
  std::vector<ByteVector> stored;
  for (const char* key : {"alpha", "beta", "gamma", "delta"}) {
    const std::string s =
        cassandra::RandomPartitionerToken(AsBytes(std::string_view(key))) + ":" + key;
    disk.emplace_back(s.begin(), s.end());
    stored.emplace_back(s.begin(), s.end());
  }
  WriteFileAt(Filter(), FilterOf(disk));
  WriteFileAt(Index(), IndexOf(stored));
  Json doc = VerifyJson({dir_.Path("data")}, 0);
  const Json& f = FileEndingWith(doc, "Standard1-b-1-Filter.db");
  EXPECT_EQ(f["keys_checked"], 4);
  const std::string message = f["findings"][0]["message"];
  EXPECT_NE(message.find("RandomPartitioner"), std::string::npos) << message;
  EXPECT_NE(message.find("whole string"), std::string::npos) << message;
}

TEST_F(StringFilterDir, AKeyReadUtfRefusesIsIndexDamageWithItsOffset) {
  std::vector<ByteVector> stored = Stored();
  stored[2] = HexBytes("41f041");  // f0 starts no modified UTF-8 character
  WriteFileAt(Filter(), FilterOf(strings_));
  WriteFileAt(Index(), IndexOf(stored));
  Json doc = VerifyJson({dir_.Path("data")}, 1);
  const Json& f = FileEndingWith(doc, "Standard1-b-1-Filter.db");
  ASSERT_EQ(Kinds(f), (std::vector<std::string>{"partitioner", "index"}));
  const std::uint64_t entry2 = (2 + stored[0].size() + 8) + (2 + stored[1].size() + 8);
  EXPECT_EQ(f["findings"][1]["offset"], entry2 + 2);
  EXPECT_EQ(f["keys_checked"], 2);  // the keys before it
}

TEST_F(StringFilterDir, KeysGivenMustBeUtf8Text) {
  const std::string single = dir_.Path("Standard9-b-2-Filter.db");
  WriteFileAt(single, FilterOf({u"k1", u"caf\u00e9"}));
  Json ok = VerifyJson({single, "--keys", dir_.Write("k.txt", "k1\ncaf\xc3\xa9\n")}, 0);
  EXPECT_EQ(ok["files"][0]["format"], "cassandra-0.6");
  EXPECT_EQ(ok["files"][0]["keys_checked"], 2);
  Json bad = VerifyJson({single, "--keys", dir_.Write("bad.txt", "k1\ncaf\xe9\n")}, 1);
  ASSERT_EQ(Kinds(bad["files"][0]), std::vector<std::string>{"key-text"});
  const std::string message = bad["files"][0]["findings"][0]["message"];
  EXPECT_NE(message.find("key 2 (hex 636166e9)"), std::string::npos) << message;
}

}  // namespace
}  // namespace bloomcodec::testing

namespace bloomcodec::testing {
namespace {

// Version d (legacy filter of the key after the ':'): --partitioner forces the Index.db reading.
TEST(PartitionerOption, ForcesHowIndexKeysBeforeEAreRead) {
  CliDir dir;
  const std::string ks = dir.Path("data/Keyspace1");
  KeyList raw;
  std::vector<ByteVector> stored;
  for (const char* key : {"alpha", "beta", "gamma", "delta"}) {
    raw.Add(std::string_view(key));
    const std::string s =
        cassandra::RandomPartitionerToken(AsBytes(std::string_view(key))) + ":" + key;
    stored.emplace_back(s.begin(), s.end());
  }
  auto spec = cassandra::LegacySizeForBucketsPerElement(4, 15);
  ASSERT_TRUE(spec.ok());
  auto filter = cassandra::BuildLegacyFilter(raw, *spec);
  ASSERT_TRUE(filter.ok());
  WriteFileAt(ks + "/Standard1-d-1-Filter.db", *filter);
  WriteFileAt(ks + "/Standard1-d-1-Index.db", IndexOf(stored));

  Json told = VerifyJson({dir.Path("data")}, 0);
  const Json& t = FileEndingWith(told, "Standard1-d-1-Filter.db");
  EXPECT_EQ(t["findings"][0]["partitioner"], "random");
  EXPECT_EQ(t["keys_checked"], 4);
  Json same = VerifyJson({dir.Path("data"), "--partitioner", "random"}, 0);
  const Json& r = FileEndingWith(same, "Standard1-d-1-Filter.db");
  EXPECT_NE(r["findings"][0]["message"].get<std::string>().find("as --partitioner says"),
            std::string::npos);
  // Read as the key itself, the whole "<token>:<key>" is asked: none of them is in the filter.
  Json forced = VerifyJson({dir.Path("data"), "--partitioner", "order-preserving"}, 1);
  const Json& f = FileEndingWith(forced, "Standard1-d-1-Filter.db");
  EXPECT_EQ(f["findings"][0]["partitioner"], "order-preserving");
  EXPECT_EQ(f["false_negative_count"], 4);
  // The single file takes it too.
  Json single =
      VerifyJson({ks + "/Standard1-d-1-Filter.db", "--partitioner", "order-preserving"}, 1);
  EXPECT_EQ(single["files"][0]["false_negative_count"], 4);
  // inspect says which partitioner the Index.db beside the filter shows.
  CliRun inspect = RunCli({"inspect", ks + "/Standard1-d-1-Filter.db", "--json"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  Json doc = Json::parse(inspect.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << inspect.out;
  EXPECT_EQ(doc["files"][0]["sstable"]["partitioner"], "random");
  EXPECT_EQ(doc["files"][0]["sstable"]["partitioner_from"], ks + "/Standard1-d-1-Index.db");
  // An order-preserving one's keys (the 0.6 filter of version b: each String whole).
  WriteFileAt(ks + "/Standard1-b-2-Filter.db", FilterOf({u"12:k1"}));
  WriteFileAt(ks + "/Standard1-b-2-Index.db", IndexOf({HexBytes("31323a6b31")}));
  CliRun inspect_b = RunCli({"inspect", ks + "/Standard1-b-2-Filter.db", "--json"});
  Json doc_b = Json::parse(inspect_b.out, nullptr, false);
  ASSERT_FALSE(doc_b.is_discarded()) << inspect_b.out << inspect_b.err;
  EXPECT_EQ(doc_b["files"][0]["format"], "cassandra-0.6");
  EXPECT_EQ(doc_b["files"][0]["sstable"]["partitioner"], "order-preserving");
  EXPECT_EQ(doc_b["files"][0]["key_encoding"], "String.getBytes(\"UTF-16\")");
  CliRun bad = RunCli({"verify", dir.Path("data"), "--partitioner", "murmur3"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--partitioner: expected random or order-preserving"), std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace bloomcodec::testing

namespace bloomcodec::testing {
namespace {

// Statistics.db of a 3.x sstable (no checksums): VALIDATION only.
ByteVector StatisticsOf(const std::string& partitioner, double fp) {
  ByteVector out;
  const auto put32 = [&](std::uint32_t v) {
    for (int i = 3; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  put32(1);
  put32(0);
  put32(12);
  out.push_back(static_cast<std::uint8_t>(partitioner.size() >> 8));
  out.push_back(static_cast<std::uint8_t>(partitioner.size()));
  out.insert(out.end(), partitioner.begin(), partitioner.end());
  std::uint64_t bits;
  std::memcpy(&bits, &fp, sizeof bits);
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
  return out;
}

// A 3.x table of 2000 keys whose filter was sized for `estimated` keys at fp chance 0.01.
Json VerifyTable(CliDir& dir, std::int64_t estimated, const ByteVector& statistics,
                 int expected_exit) {
  const std::string t = dir.Path("data/ks/tbl-0123456789abcdef0123456789abcdef");
  KeyList keys;
  std::vector<std::int64_t> positions;
  for (int i = 0; i < 2000; ++i) {
    keys.Add(std::string_view("key" + std::to_string(100000 + i)));
    positions.push_back(i * 50);
  }
  auto spec = cassandra::SizeMurmur3Filter(estimated, 0.01);
  EXPECT_TRUE(spec.ok());
  auto filter =
      cassandra::BuildMurmur3Filter(keys, spec->hash_count, spec->word_count, cassandra::Era::kV30);
  EXPECT_TRUE(filter.ok());
  auto index =
      cassandra::WriteIndexDb(keys, positions, cassandra::IndexEntryForm::kVIntPositionAndPromoted);
  EXPECT_TRUE(index.ok());
  WriteFileAt(t + "/me-1-big-Filter.db", *filter);
  WriteFileAt(t + "/me-1-big-Index.db", *index);
  WriteFileAt(t + "/me-1-big-Statistics.db", statistics);
  return VerifyJson({dir.Path("data")}, expected_exit);
}

TEST(StatisticsVerify, TheConfiguredChanceJudgesTheFill) {
  const std::string partitioner = "org.apache.cassandra.dht.Murmur3Partitioner";
  {
    CliDir dir;
    Json doc = VerifyTable(dir, 2000, StatisticsOf(partitioner, 0.01), 0);
    const Json& f = FileEndingWith(doc, "me-1-big-Filter.db");
    ASSERT_EQ(Kinds(f), std::vector<std::string>{"statistics"});
    EXPECT_EQ(f["findings"][0]["partitioner"], partitioner);
    EXPECT_EQ(f["findings"][0]["bloom_filter_fp_chance"], "0.01");
    EXPECT_EQ(f["status"], "ok");
  }
  {
    // Sized for 20000 keys, holding 2000: far better than 0.01 promises for 2000 keys.
    CliDir dir;
    Json doc = VerifyTable(dir, 20000, StatisticsOf(partitioner, 0.01), 0);
    const Json& f = FileEndingWith(doc, "me-1-big-Filter.db");
    ASSERT_EQ(Kinds(f), (std::vector<std::string>{"statistics", "fp-chance"}));
    const Json& w = f["findings"][1];
    EXPECT_EQ(w["severity"], "warning");
    EXPECT_LT(std::stod(w["implied_fp_rate"].get<std::string>()),
              0.75 * std::stod(w["promised_fp_rate"].get<std::string>()));
    EXPECT_NE(w["message"].get<std::string>().find("likely too high"), std::string::npos);
    // inspect shows both figures.
    const std::string filter =
        dir.Path("data/ks/tbl-0123456789abcdef0123456789abcdef/me-1-big-Filter.db");
    CliRun inspect = RunCli({"inspect", filter, "--json"});
    ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
    Json i = Json::parse(inspect.out, nullptr, false);
    ASSERT_FALSE(i.is_discarded()) << inspect.out;
    const Json& stats = i["files"][0]["statistics"];
    EXPECT_EQ(stats["partitioner"], partitioner);
    EXPECT_EQ(stats["bloom_filter_fp_chance"], 0.01);
    EXPECT_EQ(stats["index_keys"], 2000);
    EXPECT_NEAR(stats["promised_fp_rate"].get<double>(),
                std::stod(w["promised_fp_rate"].get<std::string>()), 1e-6);
    EXPECT_LT(i["files"][0]["estimated_false_positive_rate"].get<double>(),
              0.75 * stats["promised_fp_rate"].get<double>());
  }
  {
    // Sized for 200 keys, holding 2000: far worse.
    CliDir dir;
    // (Not overfilled: Index.db says 2000 keys, which explains the fill.)
    Json doc = VerifyTable(dir, 200, StatisticsOf(partitioner, 0.01), 0);
    const Json& f = FileEndingWith(doc, "me-1-big-Filter.db");
    bool warned = false;
    for (const Json& x : f["findings"]) {
      if (x["kind"] == "fp-chance") {
        warned = true;
        EXPECT_NE(x["message"].get<std::string>().find("likely too low"), std::string::npos);
      }
    }
    EXPECT_TRUE(warned) << f.dump(1);
  }
  {
    // A damaged Statistics.db: Cassandra cannot open the sstable.
    CliDir dir;
    ByteVector bad = StatisticsOf(partitioner, 0.01);
    bad[7] = 9;  // the first entry's type
    Json doc = VerifyTable(dir, 2000, bad, 1);
    const Json& f = FileEndingWith(doc, "me-1-big-Filter.db");
    ASSERT_EQ(Kinds(f), std::vector<std::string>{"statistics"});
    EXPECT_EQ(f["findings"][0]["severity"], "error");
    EXPECT_EQ(f["findings"][0]["offset"], 4);
  }
}

}  // namespace
}  // namespace bloomcodec::testing

namespace bloomcodec::testing {
namespace {

// convert --index with a 0.6 filter: the Index.db entries are its Strings, whole.
TEST_F(StringFilterDir, ConvertTakesIndexStringsWhole) {
  std::vector<std::u16string> text(strings_.begin(), strings_.end());
  text.erase(text.begin() + 4);  // "z" + an unpaired surrogate: no UTF-8 form
  std::vector<ByteVector> stored;
  for (const std::u16string& s : text) stored.push_back(ModifiedUtf8(s));
  WriteFileAt(Filter(), FilterOf(text));
  WriteFileAt(Index(), IndexOf(stored));
  const std::string out = dir_.Path("out-Filter.db");
  CliRun ok = RunCli({"convert", Filter(), "--to", "cassandra-legacy", "--buckets-per-element",
                      "15", "--index", Index(), "-o", out, "--json"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err << ok.out;
  Json doc = Json::parse(ok.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << ok.out;
  EXPECT_EQ(doc["keys"], text.size()) << ok.out;
  // With the unpaired surrogate back in, the entry is refused at its offset.
  stored.insert(stored.begin() + 1, ModifiedUtf8(std::u16string{u'z', 0xdc00}));
  WriteFileAt(Index(), IndexOf(stored));
  CliRun bad = RunCli({"convert", Filter(), "--to", "cassandra-legacy", "--buckets-per-element",
                       "15", "--index", Index(), "-o", out});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("unpaired surrogate"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("byte " + std::to_string(2 + stored[0].size() + 8 + 2)), std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace bloomcodec::testing

// Every fixture cut short: at every byte boundary up to 4 KiB and at ~500 sampled boundaries
// beyond, through the same FormatCodec::Probe the command line calls (in process: tens of
// thousands of cuts), and at a sample of those boundaries through the `bloomcodec` binary itself,
// whose exit status, message and peak memory are checked. Formats whose original reads any bytes
// (LevelDB raw filters, filter blocks) must answer exactly as LevelDB 1.23 does on the same cut
// bytes; the others must refuse with the file, an offset inside it and what was expected.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <ranges>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "cassandra/descriptor.h"
#include "cassandra/index_db.h"
#include "damaged/damaged_runner.h"
#include "leveldb/leveldb_internal.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;

const std::string kDemoDir = "demo/cassandra-data/Keyspace1";

const char kKeysText[] = "\nkey0\nkey1\nbloomcodec\nuser-000042\nk\n0123456789abcdef\nzz\n";

KeyList ProbeKeys() {
  Result<KeyList> keys = ParseKeyFile(AsBytes(kKeysText), KeyFormat::kText, "keys");
  EXPECT_TRUE(keys.ok());
  return std::move(keys).value();
}

// Every cut up to 4 KiB, then ~500 spread evenly over the rest; never the whole file.
std::vector<std::size_t> AllCuts(std::size_t size) {
  std::vector<std::size_t> cuts;
  for (std::size_t n = 0; n < size && n <= 4096; ++n) cuts.push_back(n);
  if (size > 4097) {
    const std::size_t step = std::max<std::size_t>(1, (size - 4097) / 500);
    for (std::size_t n = 4097; n < size; n += step) cuts.push_back(n);
    cuts.push_back(size - 1);
  }
  return cuts;
}

// The cuts run through the binary: the first 24 bytes (headers), a spread of 16, the last 9.
std::vector<std::size_t> CliCuts(std::size_t size) {
  std::vector<std::size_t> cuts;
  for (std::size_t n = 0; n < size && n < 24; ++n) cuts.push_back(n);
  for (int i = 1; i <= 16; ++i) cuts.push_back(size * i / 17);
  for (std::size_t back = 1; back <= 9 && back <= size; ++back) cuts.push_back(size - back);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

enum class Expect {
  kRefuse,              // the original cannot read a cut file: exit 2 with a Corrupt message
  kLevelDbBloom,        // any bytes are a filter: LevelDB's BloomFilterPolicy answers
  kLevelDbFilterBlock,  // any bytes are a filter block: LevelDB's FilterBlockReader answers
  // Cassandra 5.0: the empty cut is the always-present filter (every answer 1), any other cut
  // is refused.
  kRefuseButEmptyIsAlwaysPresent,
};

struct Case {
  std::string format;
  std::string fixture;  // relative to fixtures/
  Expect expect;
};

std::vector<Case> Fixtures(const std::string& dir, const std::string& suffix,
                           const std::string& format, Expect expect) {
  std::vector<Case> cases;
  for (const auto& entry : fs::directory_iterator(FixturePath(dir))) {
    std::string name = entry.path().filename().string();
    std::string plain = name.ends_with(".gz") ? name.substr(0, name.size() - 3) : name;
    // A table without a filter has an empty filterblock.bin: nothing to cut.
    if (!plain.ends_with(suffix) || fs::file_size(entry.path()) == 0) continue;
    cases.push_back({format, dir + "/" + plain, expect});
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.fixture < b.fixture; });
  EXPECT_FALSE(cases.empty()) << dir;
  return cases;
}

// What LevelDB 1.23 answers for each key on these exact bytes (the policy of bpk 10: the reader
// takes k from the filter, never from the policy).
std::vector<std::uint8_t> OriginalAnswers(Expect expect, ByteSpan bytes, const KeyList& keys) {
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(10));
  const ::leveldb::Slice contents(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::vector<std::uint8_t> answers;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const ::leveldb::Slice key(reinterpret_cast<const char*>(keys[i].data()), keys[i].size());
    if (expect == Expect::kLevelDbBloom) {
      answers.push_back(policy->KeyMayMatch(key, contents) ? 1 : 0);
    } else {
      ::leveldb::FilterBlockReader reader(policy.get(), contents);
      answers.push_back(reader.KeyMayMatch(0, key) ? 1 : 0);
    }
  }
  return answers;
}

void CheckInProcess(const Case& c, const ByteVector& whole, const KeyList& keys) {
  const FormatCodec* format = FindFormat(c.format);
  ASSERT_NE(format, nullptr) << c.format;
  std::vector<std::uint8_t> answers(keys.size());
  std::size_t checked = 0;
  for (std::size_t cut : AllCuts(whole.size())) {
    const ByteSpan bytes = ByteSpan(whole).first(cut);
    const std::string source = c.fixture + "@" + std::to_string(cut);
    Status s = format->Probe(bytes, source, keys, ProbeOptions{}, answers);
    if (c.expect == Expect::kRefuseButEmptyIsAlwaysPresent && cut == 0) {
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(answers, std::vector<std::uint8_t>(keys.size(), 1)) << source;
    } else if (c.expect == Expect::kRefuse || c.expect == Expect::kRefuseButEmptyIsAlwaysPresent) {
      ASSERT_FALSE(s.ok()) << source << " was accepted";
      ASSERT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
      ASSERT_EQ(s.file(), source) << s.ToString();
      ASSERT_TRUE(s.offset().has_value()) << s.ToString();
      ASSERT_LE(*s.offset(), cut) << s.ToString();
      ASSERT_EQ(s.message().rfind("expected ", 0), 0u) << s.ToString();
    } else {
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(answers, OriginalAnswers(c.expect, bytes, keys)) << source;
    }
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

void CheckThroughCli(const Case& c, const ByteVector& whole, const KeyList& keys) {
  DamagedDir dir;
  const std::string keys_path = dir.Write("keys.txt", std::string(kKeysText, sizeof kKeysText - 1));
  for (std::size_t cut : CliCuts(whole.size())) {
    const std::string file = dir.Write("cut" + std::to_string(cut), ByteSpan(whole).first(cut));
    Child r = RunChild({"probe", "--format", c.format, "--keys", keys_path, file});
    SCOPED_TRACE(c.fixture + " cut at " + std::to_string(cut));
    EXPECT_LE(r.peak_rss_kib, RssBoundKib(cut)) << "baseline " << BaselineRssKib() << " KiB";
    if (c.expect == Expect::kRefuseButEmptyIsAlwaysPresent && cut == 0) {
      ASSERT_EQ(r.exit_code, 0) << r.err;
      std::string ones;
      for (std::size_t i = 0; i < keys.size(); ++i) ones += "1\n";
      EXPECT_EQ(r.out, ones);
    } else if (c.expect == Expect::kRefuse || c.expect == Expect::kRefuseButEmptyIsAlwaysPresent) {
      ExpectCorruptMessage(r, "probe", file, cut);
    } else {
      ASSERT_EQ(r.exit_code, 0) << r.err;
      std::string expected;
      for (std::uint8_t a : OriginalAnswers(c.expect, ByteSpan(whole).first(cut), keys)) {
        expected += a ? "1\n" : "0\n";
      }
      EXPECT_EQ(r.out, expected);
    }
    std::filesystem::remove(file);
  }
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.format << " " << c.fixture; }

class Truncation : public ::testing::TestWithParam<Case> {};

TEST_P(Truncation, EveryCutRefusedOrAnsweredAsTheOriginal) {
  const Case& c = GetParam();
  const ByteVector whole = ReadFixture(c.fixture);
  ASSERT_FALSE(whole.empty()) << c.fixture;
  const KeyList keys = ProbeKeys();
  CheckInProcess(c, whole, keys);
  CheckThroughCli(c, whole, keys);
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.fixture.substr(info.param.fixture.rfind('/') + 1);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(CassandraFilterDb, Truncation,
                         ::testing::ValuesIn(Fixtures("cassandra-1.0/filters", ".Filter.db",
                                                      "cassandra-1.0", Expect::kRefuse)),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(CassandraLegacy, Truncation,
                         ::testing::ValuesIn(Fixtures("cassandra-1.0/legacy", ".Filter.db",
                                                      "cassandra-legacy", Expect::kRefuse)),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(CassandraRowFilter, Truncation,
                         ::testing::ValuesIn(Fixtures("cassandra-1.0/rowfilter", ".bin",
                                                      "cassandra-1.0-row", Expect::kRefuse)),
                         CaseName);
// Cassandra 1.2 - 5.0: the fp 0.01 filter of every key-set size, in each variant.
INSTANTIATE_TEST_SUITE_P(Cassandra12, Truncation,
                         ::testing::ValuesIn(Fixtures("cassandra-murmur3/v1_2_to_2_2",
                                                      "fp0.01.Filter.db", "cassandra-1.2",
                                                      Expect::kRefuse)),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Cassandra30, Truncation,
                         ::testing::ValuesIn(Fixtures("cassandra-murmur3/v3_x", "fp0.01.Filter.db",
                                                      "cassandra-3.0", Expect::kRefuse)),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Cassandra40, Truncation,
                         ::testing::ValuesIn(Fixtures("cassandra-murmur3/v4_0_to_5_0",
                                                      "fp0.01.Filter.db", "cassandra-4.0",
                                                      Expect::kRefuseButEmptyIsAlwaysPresent)),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(LevelDbTable, Truncation,
                         ::testing::ValuesIn(Fixtures("leveldb/tables", ".ldb", "leveldb-table",
                                                      Expect::kRefuse)),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(LevelDbFilterBlock, Truncation,
                         ::testing::ValuesIn(Fixtures("leveldb/tables", ".filterblock.bin",
                                                      "leveldb-filter-block",
                                                      Expect::kLevelDbFilterBlock)),
                         CaseName);
// Raw filters: one per bits-per-key (the n1000 ones), every cut of which LevelDB still reads.
std::vector<Case> RawFilters() {
  std::vector<Case> cases;
  for (Case c :
       Fixtures("leveldb/raw/filters", "_n1000.bin", "leveldb-bloom", Expect::kLevelDbBloom)) {
    cases.push_back(c);
  }
  return cases;
}
INSTANTIATE_TEST_SUITE_P(LevelDbRawFilter, Truncation, ::testing::ValuesIn(RawFilters()), CaseName);
// LevelDB 1.17 filters (signed-char hash tail): its KeyMayMatch is 1.23's (length < 2 absent,
// k > 30 present, the same probes) and every probe key above is ASCII, where the signed and the
// unsigned tail hash alike, so LevelDB 1.23's answers are 1.17's on these cut bytes too.
std::vector<Case> LegacyRawFilters() {
  for (unsigned char ch : std::string_view(kKeysText)) EXPECT_LT(ch, 0x80);
  return Fixtures("leveldb/raw/legacy_v1.17_signed_char/filters", "_n1000.bin",
                  "leveldb-bloom-legacy", Expect::kLevelDbBloom);
}
INSTANTIATE_TEST_SUITE_P(LevelDbLegacyRawFilter, Truncation,
                         ::testing::ValuesIn(LegacyRawFilters()), CaseName);
// goleveldb's Contains (filter/bloom.go) is LevelDB 1.23's KeyMayMatch for filters below 512 MiB:
// every cut of the 1.18 filters answers as 1.23 does under goleveldb-bloom too.
std::vector<Case> GoLevelDbRawFilters() {
  return Fixtures("leveldb/raw/filters", "_n1000.bin", "goleveldb-bloom", Expect::kLevelDbBloom);
}
INSTANTIATE_TEST_SUITE_P(GoLevelDbRawFilter, Truncation, ::testing::ValuesIn(GoLevelDbRawFilters()),
                         CaseName);
// The demo data directory's Filter.db files (1.0 and legacy), as `verify DIR` meets them.
INSTANTIATE_TEST_SUITE_P(
    DemoFilterDb, Truncation,
    ::testing::Values(
        Case{"cassandra-legacy", kDemoDir + "/Standard1-e-3-Filter.db", Expect::kRefuse},
        Case{"cassandra-1.0", kDemoDir + "/Standard1-hc-1-Filter.db", Expect::kRefuse},
        Case{"cassandra-1.0", kDemoDir + "/Standard1-hc-2-Filter.db", Expect::kRefuse},
        Case{"cassandra-1.0", kDemoDir + "/Standard2-hc-5-Filter.db", Expect::kRefuse}),
    CaseName);

// ---- The demo Index.db files: entries until the end of the file, so a cut at an entry
// boundary is a shorter index (its keys a prefix of the whole one's) and a cut inside an entry
// is Corrupt at that entry. Through `verify FILTER --index CUT`: an index finding with an
// offset inside the cut file, the keys before it still checked.

struct IndexCase {
  std::string name;    // in kDemoDir
  std::string filter;  // the Filter.db beside it, or empty
};

void PrintTo(const IndexCase& c, std::ostream* os) { *os << c.name; }

class IndexTruncation : public ::testing::TestWithParam<IndexCase> {};

TEST_P(IndexTruncation, EveryCutIsAPrefixOrAnIndexFindingWithAnOffset) {
  const IndexCase& c = GetParam();
  const ByteVector whole = ReadFixture(kDemoDir + "/" + c.name);
  ASSERT_FALSE(whole.empty());
  Result<cassandra::Descriptor> d = cassandra::ParseDescriptor(c.name);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  const cassandra::IndexKeyForm form = cassandra::IndexKeyFormForVersion(d->version);
  Result<cassandra::IndexDb> full = cassandra::ReadIndexDb(whole, c.name, form);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  for (std::size_t cut : AllCuts(whole.size())) {
    const std::string source = c.name + "@" + std::to_string(cut);
    Result<cassandra::IndexDb> index =
        cassandra::ReadIndexDb(ByteSpan(whole).first(cut), source, form);
    if (index.ok()) {
      ASSERT_LE(index->keys.size(), full->keys.size()) << source;
      for (std::size_t i = 0; i < index->keys.size(); ++i) {
        ASSERT_TRUE(std::ranges::equal(index->keys[i], full->keys[i])) << source << " key " << i;
      }
    } else {
      const Status& s = index.status();
      ASSERT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
      ASSERT_EQ(s.file(), source) << s.ToString();
      ASSERT_TRUE(s.offset().has_value()) << s.ToString();
      ASSERT_LE(*s.offset(), cut) << s.ToString();
      ASSERT_EQ(s.message().rfind("expected ", 0), 0u) << s.ToString();
    }
  }
  if (c.filter.empty()) return;
  DamagedDir dir;
  const std::string filter = FixturePath(kDemoDir + "/" + c.filter);
  for (std::size_t cut : CliCuts(whole.size())) {
    SCOPED_TRACE(c.name + " cut at " + std::to_string(cut));
    const std::string file = dir.Write(c.name, ByteSpan(whole).first(cut));
    Child r = RunChild({"verify", filter, "--index", file, "--json"});
    EXPECT_LE(r.peak_rss_kib, RssBoundKib(cut + whole.size())) << "baseline " << BaselineRssKib();
    const Document doc = Document::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
    const Document& findings = doc["files"][0]["findings"];
    const Document* index_finding = nullptr;
    for (const Document& f : findings) {
      if (f["kind"] == "index") index_finding = &f;
    }
    // At an entry boundary the cut file is a shorter, valid index.
    if (cassandra::ReadIndexDb(ByteSpan(whole).first(cut), file, form).ok()) {
      EXPECT_EQ(index_finding, nullptr) << r.out;
      continue;
    }
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    ASSERT_NE(index_finding, nullptr) << r.out;
    EXPECT_EQ((*index_finding)["severity"], "error") << r.out;
    ASSERT_TRUE((*index_finding)["offset"].is_number_unsigned()) << r.out;
    EXPECT_LE((*index_finding)["offset"].get<std::uint64_t>(), cut) << r.out;
    EXPECT_NE((*index_finding)["message"].get<std::string>().find(file), std::string::npos)
        << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Demo, IndexTruncation,
    ::testing::Values(IndexCase{"Standard1-e-3-Index.db", "Standard1-e-3-Filter.db"},
                      IndexCase{"Standard1-hc-1-Index.db", "Standard1-hc-1-Filter.db"},
                      IndexCase{"Standard1-hc-2-Index.db", "Standard1-hc-2-Filter.db"},
                      IndexCase{"Standard2-hc-5-Index.db", "Standard2-hc-5-Filter.db"},
                      IndexCase{"Standard2-hc-4-Index.db", ""},
                      IndexCase{"Standard2-b-6-Index.db", ""}),
    [](const ::testing::TestParamInfo<IndexCase>& info) {
      std::string name = info.param.name;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace bloomcodec::testing

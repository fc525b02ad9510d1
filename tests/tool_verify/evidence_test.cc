// The evidence standard of verify (docs/cli.md, "Evidence standard"), kind by kind: the kinds
// are read from the one list in code (namespace finding_kind of engine's bloomcodec/verify.h),
// and the test fails when a kind has no case here or no row in docs/cli.md's Findings table.
// Each case makes a minimal input that raises its kind and asserts the kind, its severity and
// that the finding names its evidence (the file it is reported for, the byte offset where the
// evidence has one, the words that say what was seen).
#include <gtest/gtest.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/verify.h"
#include "cassandra/bti/partitions_db.h"
#include "cassandra/index_db.h"
#include "codec/read_log.h"
#include "leveldb/table/verify.h"
#include "rocksdb/sst/sst_writer.h"
#include "support/test_support.h"
#include "tool_verify/verify_support.h"

namespace bloomcodec::testing {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The kind names of namespace finding_kind, as the header spells them.
std::set<std::string> KindsInCode() {
  const std::string header = ReadText(BLOOMCODEC_VERIFY_HEADER);
  const auto begin = header.find("namespace finding_kind {");
  const auto end = header.find("}  // namespace finding_kind");
  EXPECT_NE(begin, std::string::npos);
  EXPECT_NE(end, std::string::npos);
  const std::string list = header.substr(begin, end - begin);
  const std::regex constant(R"re(std::string_view k\w+ = "([a-z-]+)")re");
  std::set<std::string> kinds;
  for (std::sregex_iterator i(list.begin(), list.end(), constant), e; i != e; ++i) {
    kinds.insert((*i)[1]);
  }
  return kinds;
}

// The kinds the Findings table of docs/cli.md has a row for.
std::set<std::string> KindsInDocs() {
  const std::string docs = ReadText(BLOOMCODEC_CLI_DOCS);
  const auto begin = docs.find("### Findings");
  const auto end = docs.find("#### Evidence standard");
  EXPECT_NE(begin, std::string::npos);
  EXPECT_NE(end, std::string::npos);
  const std::string table = docs.substr(begin, end - begin);
  const std::regex row(R"re(\n\| `([a-z-]+)`)re");
  std::set<std::string> kinds;
  for (std::sregex_iterator i(table.begin(), table.end(), row), e; i != e; ++i) {
    kinds.insert((*i)[1]);
  }
  return kinds;
}

// What a case found: the report of the file and the one finding of the kind asked for.
struct Seen {
  Json file;
  Json finding;
};

// The finding of `kind` in the report of the file ending with `suffix` (a failure when absent).
Seen Find(const Json& doc, const std::string& suffix, const std::string& kind) {
  const Json& file = FileEndingWith(doc, suffix);
  for (const Json& f : file["findings"]) {
    if (f["kind"] == kind) return {file, f};
  }
  ADD_FAILURE() << "no " << kind << " finding for *" << suffix << ": " << file.dump(1);
  return {file, Json::object()};
}

// The evidence a finding must carry: its severity, its offset when it has one, and words.
void Expect(const Seen& s, const std::string& severity, bool offset,
            const std::vector<std::string>& words) {
  EXPECT_EQ(s.finding.value("severity", ""), severity) << s.finding.dump();
  EXPECT_EQ(s.finding.contains("offset"), offset) << s.finding.dump();
  const std::string message = s.finding.value("message", "");
  for (const std::string& w : words) {
    EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
  }
}

constexpr const char* kFilter1000 = "cassandra-1.0/filters/n1000_b15.Filter.db";
constexpr const char* kKeys1000 = "cassandra-1.0/filters/keys_n1000.txt";

// A Cassandra 1.0 data directory of one table of 1000 keys (Standard1-hc-1) in `dir`/data.
std::string CassandraData(const CliDir& dir) {
  const std::string ks = dir.Path("data/Keyspace1");
  PutSstable(ks, "Standard1-hc-1-", kFilter1000, ReadHexKeysFixture(kKeys1000));
  return ks;
}

// A raw LevelDB 1.18+ filter of `n` keys "k<i>" at 10 bits per key, and its key file.
struct RawFilter {
  std::string filter;
  std::string keys;
};
RawFilter LevelDbFilter(const CliDir& dir, const std::string& name, int n, int first = 0) {
  std::string text;
  for (int i = first; i < first + n; ++i) text += "k" + std::to_string(i) + "\n";
  RawFilter r{dir.Path(name + ".bin"), dir.Write(name + ".txt", text)};
  CliRun built = RunCli({"build", "--format", "leveldb-bloom", "--keys", r.keys, "--bits-per-key",
                         "10", "-o", r.filter});
  EXPECT_EQ(built.exit_code, 0) << built.err;
  return r;
}

// A LevelDB database written by libleveldb 1.23: 300 keys over a few tables, with or without a
// Bloom filter. Returns its live tables, sorted.
std::vector<std::string> LevelDbDatabase(const std::string& path, bool filter) {
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(::leveldb::NewBloomFilterPolicy(10));
  ::leveldb::Options options;
  options.create_if_missing = true;
  options.filter_policy = filter ? policy.get() : nullptr;
  options.write_buffer_size = 16 << 10;
  options.compression = ::leveldb::kNoCompression;
  ::leveldb::DB* raw = nullptr;
  EXPECT_TRUE(::leveldb::DB::Open(options, path, &raw).ok());
  std::unique_ptr<::leveldb::DB> db(raw);
  for (int i = 0; i < 300; ++i) {
    EXPECT_TRUE(db->Put({}, "key" + std::to_string(1000 + i), std::string(200, 'v')).ok());
  }
  db->CompactRange(nullptr, nullptr);
  db.reset();
  std::vector<std::string> tables;
  for (const auto& e : fs::directory_iterator(path)) {
    if (e.path().extension() == ".ldb") tables.push_back(e.path().string());
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

// The library's run over `dir` on one worker, a hook called after every open.
VerifyReport RunWithHook(const std::string& dir, std::function<void(const std::string&)> hook) {
  ReadLog::SetAfterOpenHookForTesting(std::move(hook));
  VerifyOptions options;
  options.threads = 1;
  const std::vector<std::string> paths{dir};
  Result<VerifyReport> report = VerifyPaths(paths, options);
  ReadLog::SetAfterOpenHookForTesting({});
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return report.ok() ? *report : VerifyReport{};
}

const Finding* FindingOf(const VerifyReport& r, const std::string& suffix, std::string_view kind) {
  for (const FileReport& f : r.files) {
    if (!f.path.ends_with(suffix)) continue;
    for (const Finding& finding : f.findings) {
      if (finding.kind == kind) return &finding;
    }
  }
  ADD_FAILURE() << "no " << kind << " finding for *" << suffix;
  return nullptr;
}

using Case = std::function<void()>;

// Cassandra's filter and sstable findings.
void AddCassandraCases(std::map<std::string, Case>& cases) {
  cases["structure"] = [] {
    CliDir dir;
    ByteVector cut = ReadFixture(kFilter1000);
    cut.resize(100);
    const std::string f = dir.Write("cut.bin", cut);
    const Seen s = Find(VerifyJson({f, "--format", "cassandra-1.0"}, 1), "cut.bin", "structure");
    Expect(s, "error", true, {"bytes"});
  };
  cases["trailing-bytes"] = [] {
    CliDir dir;
    ByteVector more = ReadFixture(kFilter1000);
    const std::uint64_t end = more.size();
    more.insert(more.end(), 3, 0);
    const std::string f = dir.Write("more.bin", more);
    const Seen s =
        Find(VerifyJson({f, "--format", "cassandra-1.0"}, 0), "more.bin", "trailing-bytes");
    Expect(s, "warning", true, {"3 bytes after the filter"});
    EXPECT_EQ(s.finding["offset"], end);
  };
  cases["hash-count"] = [] {
    CliDir dir;
    ByteVector k0 = ReadFixture(kFilter1000);
    std::fill(k0.begin(), k0.begin() + 4, 0);  // the i32 hash count
    const std::string f = dir.Write("k0.bin", k0);
    const Seen s = Find(VerifyJson({f, "--format", "cassandra-1.0"}, 0), "k0.bin", "hash-count");
    Expect(s, "warning", true, {"hash count 0"});
  };
  cases["missing-filter"] = [] {
    CliDir dir;
    const std::string ks = CassandraData(dir);
    fs::remove(ks + "/Standard1-hc-1-Filter.db");
    const Seen s =
        Find(VerifyJson({dir.Path("data")}, 0), "Standard1-hc-1-Filter.db", "missing-filter");
    Expect(s, "warning", false, {"no Filter.db"});
  };
  cases["missing-index"] = [] {
    CliDir dir;
    const std::string ks = CassandraData(dir);
    fs::remove(ks + "/Standard1-hc-1-Index.db");
    const Seen s =
        Find(VerifyJson({dir.Path("data")}, 1), "Standard1-hc-1-Filter.db", "missing-index");
    Expect(s, "error", false, {"Standard1-hc-1-Index.db"});
  };
  cases["index"] = [] {
    CliDir dir;
    const std::string ks = CassandraData(dir);
    const std::string index = ks + "/Standard1-hc-1-Index.db";
    fs::resize_file(index, fs::file_size(index) - 3);  // the last entry cut short
    const Seen s = Find(VerifyJson({dir.Path("data")}, 1), "Standard1-hc-1-Filter.db", "index");
    Expect(s, "error", true, {"Index.db"});
  };
  cases["temporary"] = [] {
    CliDir dir;
    const std::string ks = CassandraData(dir);
    WriteFileAt(ks + "/Standard1-tmp-hc-9-Filter.db", ReadFixture(kFilter1000));
    const Seen s =
        Find(VerifyJson({dir.Path("data")}, 0), "Standard1-tmp-hc-9-Filter.db", "temporary");
    Expect(s, "info", false, {});
  };
  cases["partitioner"] = [] {
    CliDir dir;
    // Version b, "12:k1": not the MD5 token of "k1", an order-preserving partitioner's key.
    WriteFileAt(dir.Path("data/Keyspace1/Standard3-b-8-Index.db"), HexBytes("0005"
                                                                            "31323a6b31"
                                                                            "0000000000000000"));
    const Seen s =
        Find(VerifyJson({dir.Path("data")}, 0), "Standard3-b-8-Filter.db", "partitioner");
    Expect(s, "info", false, {"order-preserving"});
    EXPECT_EQ(s.finding["partitioner"], "order-preserving");
  };
  cases["rebuilt-filter"] = [] {
    // Retired: a version below c has its cassandra-0.6 filter checked instead; the kind is
    // never raised any more (docs/cli.md says so in its row).
    CliDir dir;
    WriteFileAt(dir.Path("data/Keyspace1/Standard3-b-8-Index.db"), HexBytes("0005"
                                                                            "31323a6b31"
                                                                            "0000000000000000"));
    const Json doc = VerifyJson({dir.Path("data")}, 0);
    for (const std::string& kind : Kinds(FileEndingWith(doc, "Standard3-b-8-Filter.db"))) {
      EXPECT_NE(kind, "rebuilt-filter");
    }
  };
  cases["not-sstable"] = [] {
    CliDir dir;
    const std::string ks = CassandraData(dir);
    WriteFileAt(ks + "/nb-1-big-Notes.txt", ByteVector{1});
    const Seen s = Find(VerifyJson({dir.Path("data")}, 0), "nb-1-big-Notes.txt", "not-sstable");
    Expect(s, "info", false, {"Notes.txt"});
  };
  cases["no-database"] = [] {
    CliDir dir;
    WriteFileAt(dir.Path("conf/nb-1-big-Notes.txt"), ByteVector{1});
    const Json doc = VerifyJson({dir.Path("conf")}, 0);
    bool seen = false;
    for (const Json& f : doc["files"]) {
      for (const Json& finding : f["findings"]) {
        if (finding["kind"] != "no-database") continue;
        seen = true;
        EXPECT_EQ(finding["severity"], "info");
        EXPECT_EQ(f["path"].get<std::string>().find(dir.Path("conf")), 0u);
      }
    }
    EXPECT_TRUE(seen) << doc.dump(1);
  };
}

// Findings that rest on the keys: the filter's answers and its fill.
void AddKeyCases(std::map<std::string, Case>& cases) {
  cases["false-negative"] = [] {
    CliDir dir;
    const RawFilter f = LevelDbFilter(dir, "a", 200);
    const RawFilter other = LevelDbFilter(dir, "b", 200, 5000);
    const Seen s =
        Find(VerifyJson({f.filter, "--format", "leveldb-bloom", "--keys", other.keys}, 1), "a.bin",
             "false-negative");
    Expect(s, "error", false, {"answered 'definitely absent'", "first: "});
  };
  cases["overfilled"] = [] {
    CliDir dir;
    const RawFilter f = LevelDbFilter(dir, "a", 1000);
    const std::string few = LevelDbFilter(dir, "few", 100).keys;
    const Seen s = Find(VerifyJson({f.filter, "--format", "leveldb-bloom", "--keys", few}, 1),
                        "a.bin", "overfilled");
    // The count, where it comes from, and the bound: 100 keys of k = 6 set at most 600 bits.
    Expect(s, "error", true, {"of 10000 bits set", "100 keys given set at most 600 (k bits each)"});
    // 500 keys could set 3000 bits, but only with a chance below 1e-6 more than about 2944.
    const std::string half = LevelDbFilter(dir, "half", 500).keys;
    const Seen h = Find(VerifyJson({f.filter, "--format", "leveldb-bloom", "--keys", half}, 1),
                        "a.bin", "overfilled");
    Expect(h, "error", true, {"500 keys given set at most", "false-alarm probability 1e-6"});
  };
  cases["undersized"] = [] {
    CliDir dir;
    // A 64-bit filter (LevelDB's least) with every bit set, and 100 keys given: 100 keys can
    // set every bit of 64, so the fill shows the sizing, not damage.
    const RawFilter f = LevelDbFilter(dir, "tiny", 1);
    ByteVector bytes = ReadAnyFile(f.filter);
    std::fill(bytes.begin(), bytes.end() - 1, 0xff);  // keep the k byte
    const std::string full = dir.Write("full.bin", bytes);
    const std::string keys = LevelDbFilter(dir, "many", 100).keys;
    const Seen s = Find(VerifyJson({full, "--format", "leveldb-bloom", "--keys", keys}, 0),
                        "full.bin", "undersized");
    Expect(s, "warning", true, {"saturated (every bit set)", "the writer sized it too small"});
  };
  cases["key-text"] = [] {
    CliDir dir;
    // A cassandra-0.6 filter (by its version in the name) and a key that is not UTF-8.
    const std::string keys = dir.Write("k.txt", "k1\n");
    const std::string filter = dir.Path("Standard9-b-2-Filter.db");
    ASSERT_EQ(RunCli({"build", "--format", "cassandra-0.6", "--keys", keys, "--buckets-per-element",
                      "15", "-o", filter})
                  .exit_code,
              0);
    const Seen s = Find(VerifyJson({filter, "--keys", dir.Write("bad.txt", "k1\ncaf\xe9\n")}, 1),
                        "Standard9-b-2-Filter.db", "key-text");
    Expect(s, "error", false, {"key 2 (hex 636166e9)"});
  };
}

// Cassandra 3.x with a Statistics.db (VALIDATION only: partitioner and fp chance), 2000 keys in
// a filter sized for `estimated`.
std::string StatisticsTable(const CliDir& dir, std::int64_t estimated) {
  const std::string partitioner = "org.apache.cassandra.dht.Murmur3Partitioner";
  ByteVector stats;
  const auto put32 = [&](std::uint32_t v) {
    for (int i = 3; i >= 0; --i) stats.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  put32(1);  // one component: VALIDATION (type 0) at byte 12
  put32(0);
  put32(12);
  stats.push_back(0);
  stats.push_back(static_cast<std::uint8_t>(partitioner.size()));
  stats.insert(stats.end(), partitioner.begin(), partitioner.end());
  const double fp = 0.01;
  std::uint64_t bits;
  std::memcpy(&bits, &fp, sizeof bits);
  for (int i = 7; i >= 0; --i) stats.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
  const std::string t = dir.Path("data/ks/tbl-0123456789abcdef0123456789abcdef");
  KeyList keys;
  std::vector<std::int64_t> positions;
  for (int i = 0; i < 2000; ++i) {
    keys.Add(std::string_view("key" + std::to_string(100000 + i)));
    positions.push_back(i * 50);
  }
  auto spec = cassandra::SizeMurmur3Filter(estimated, 0.01);
  auto filter =
      cassandra::BuildMurmur3Filter(keys, spec->hash_count, spec->word_count, cassandra::Era::kV30);
  auto index =
      cassandra::WriteIndexDb(keys, positions, cassandra::IndexEntryForm::kVIntPositionAndPromoted);
  WriteFileAt(t + "/me-1-big-Filter.db", *filter);
  WriteFileAt(t + "/me-1-big-Index.db", *index);
  WriteFileAt(t + "/me-1-big-Statistics.db", stats);
  return dir.Path("data");
}

void AddCassandraComponentCases(std::map<std::string, Case>& cases) {
  cases["statistics"] = [] {
    CliDir dir;
    const Seen s =
        Find(VerifyJson({StatisticsTable(dir, 2000)}, 0), "me-1-big-Filter.db", "statistics");
    Expect(s, "info", false, {"Murmur3Partitioner"});
  };
  cases["fp-chance"] = [] {
    CliDir dir;
    const Seen s =
        Find(VerifyJson({StatisticsTable(dir, 20000)}, 0), "me-1-big-Filter.db", "fp-chance");
    Expect(s, "warning", false, {"likely too high"});
    EXPECT_TRUE(s.finding.contains("implied_fp_rate"));
  };
  cases["key-source"] = [] {
    CliDir dir;
    // A BTI sstable of one key: Partitions.db points into an uncompressed Data.db.
    const ByteVector key = {'k', 'e', 'y'};
    const std::string prefix = dir.Path("data/ks/t-0123456789abcdef0123456789abcdef/da-1-bti-");
    cassandra::bti::PartitionEntry entry;
    entry.prefix = {'k'};
    entry.position = ~std::int64_t{0};  // Data.db at byte 0
    auto trie = cassandra::bti::WritePartitionsDb({entry}, key, key);
    ASSERT_TRUE(trie.ok());
    ByteVector data = {0, 3, 'k', 'e', 'y', 0, 0, 0, 0};
    KeyList keys;
    keys.Add(key);
    auto filter = cassandra::BuildMurmur3Filter(keys, 5, 1, cassandra::Era::kV40);
    WriteFileAt(prefix + "Partitions.db", *trie);
    WriteFileAt(prefix + "Data.db", data);
    WriteFileAt(prefix + "Filter.db", *filter);
    const Seen s = Find(VerifyJson({dir.Path("data")}, 0), "da-1-bti-Filter.db", "key-source");
    Expect(s, "info", false, {"Partitions.db: 1 keys", "Data.db uncompressed"});
  };
}

// LevelDB databases and tables, and what verify cannot read.
void AddDatabaseCases(std::map<std::string, Case>& cases) {
  cases["missing-table"] = [] {
    CliDir dir;
    const auto tables = LevelDbDatabase(dir.Path("db"), true);
    ASSERT_FALSE(tables.empty());
    fs::remove(tables[0]);
    const std::string name = fs::path(tables[0]).filename().string();
    const Seen s = Find(VerifyJson({dir.Path("db")}, 1), name, "missing-table");
    Expect(s, "error", false, {"the MANIFEST lists table", "the file is missing"});
  };
  cases["obsolete"] = [] {
    CliDir dir;
    const auto tables = LevelDbDatabase(dir.Path("db"), true);
    fs::copy_file(tables[0], dir.Path("db/999999.ldb"));
    const Seen s = Find(VerifyJson({dir.Path("db")}, 0), "999999.ldb", "obsolete");
    Expect(s, "info", false, {"no live version of MANIFEST-"});
  };
  cases["key-range"] = [] {
    CliDir dir;
    const auto tables = LevelDbDatabase(dir.Path("db"), true);
    ASSERT_GE(tables.size(), 2u);
    // The second table's bytes under the first's name: its keys are not the recorded range.
    fs::copy_file(tables[1], tables[0], fs::copy_options::overwrite_existing);
    const std::string name = fs::path(tables[0]).filename().string();
    const Seen s = Find(VerifyJson({dir.Path("db")}, 1), name, "key-range");
    Expect(s, "error", false, {"MANIFEST"});
  };
  cases["manifest"] = [] {
    CliDir dir;
    LevelDbDatabase(dir.Path("db"), true);
    std::ofstream(dir.Path("db/CURRENT"), std::ios::trunc) << "MANIFEST-999999\n";
    const Json doc = VerifyJson({dir.Path("db")}, 1);
    const Seen s = Find(doc, "CURRENT", "manifest");
    Expect(s, "error", true, {"MANIFEST-999999"});
  };
  cases["no-filter"] = [] {
    CliDir dir;
    const auto tables = LevelDbDatabase(dir.Path("db"), false);
    const std::string name = fs::path(tables[0]).filename().string();
    const Seen s = Find(VerifyJson({dir.Path("db")}, 0), name, "no-filter");
    Expect(s, "warning", false, {});
  };
  cases["near-keys"] = [] {
    CliDir dir;
    // MyRocks's key layout (a 4-byte index number, then a big-endian id; every third id) in a
    // legacy Bloom filter, as RocksDB writes it below format_version 5.
    KeyList keys;
    for (std::uint32_t s = 1; s <= 3000; ++s) {
      const std::uint32_t id = 3 * s;
      const std::uint8_t key[8] = {0,
                                   0,
                                   1,
                                   0,
                                   static_cast<std::uint8_t>(id >> 24),
                                   static_cast<std::uint8_t>(id >> 16),
                                   static_cast<std::uint8_t>(id >> 8),
                                   static_cast<std::uint8_t>(id)};
      keys.Add(ByteSpan(key, sizeof(key)));
    }
    rocksdb::SstWriteOptions options;
    options.filter = rocksdb::FilterEncoding::kLegacyBloom;
    Result<ByteVector> sst = rocksdb::WriteSst(keys, nullptr, options);
    ASSERT_TRUE(sst.ok()) << sst.status().ToString();
    const std::string f = dir.Write("000011.sst", *sst);
    const Seen s = Find(VerifyJson({f}, 0), "000011.sst", "near-keys");
    Expect(s, "warning", true, {"absent keys next to stored ones", "repair --to rocksdb-bloom"});
  };
  cases["unknown"] = [] {
    CliDir dir;
    ByteVector junk(200);
    for (std::size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<std::uint8_t>(i * 37 + 11);
    const std::string f = dir.Write("000007.ldb", junk);
    const Seen s = Find(VerifyJson({f}, 0), "000007.ldb", "unknown");
    Expect(s, "warning", true, {"not a format we know: magic " + ToHex(ByteSpan(junk).last(8))});
    EXPECT_EQ(s.finding["offset"], 192);
    // The same bytes as a live table of a database: the MANIFEST makes it a damaged table.
    const auto tables = LevelDbDatabase(dir.Path("db"), true);
    fs::copy_file(f, tables[0], fs::copy_options::overwrite_existing);
    const Seen listed =
        Find(VerifyJson({dir.Path("db")}, 1), fs::path(tables[0]).filename().string(), "structure");
    Expect(listed, "error", true, {"the MANIFEST lists this table"});
  };
  cases["unsupported"] = [] {
    CliDir dir;
    // A RocksDB plain table's magic (0x8242229663bf9564) after 56 zero bytes: a table type
    // bloomcodec does not read, named.
    ByteVector plain(56, 0);
    for (int i = 0; i < 8; ++i) {
      plain.push_back(static_cast<std::uint8_t>(0x8242229663bf9564ull >> (8 * i)));
    }
    const std::string f = dir.Write("000009.sst", plain);
    const Seen s = Find(VerifyJson({f, "--format", "rocksdb-sst"}, 0), "000009.sst", "unsupported");
    // The offset is in the message: the reader's refusal names the byte.
    Expect(s, "warning", false, {"byte 56", "plain table"});
  };
  cases["no-keys"] = [] {
    // Library callers only (the command line refuses it, exit 2): a table without a filter
    // whose keys fit both kinds, asked for given keys without a kind.
    CliDir dir;
    const std::string table = dir.Path("nof.ldb");
    ASSERT_EQ(RunCli({"convert", FixturePath("demo/leveldb-db/000050.ldb"), "--to", "leveldb-table",
                      "--no-filter", "-o", table})
                  .exit_code,
              0);
    KeyList probe;
    probe.Add(std::string_view("a"));
    const auto probes = KeyListStream(probe, "probes");
    const FileReport r = leveldb::VerifyTable(table, KeyKind::kAuto, probes.get(), "");
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].kind, finding_kind::kNoKeys);
    EXPECT_EQ(r.findings[0].severity, Severity::kError);
    EXPECT_NE(r.findings[0].message.find("nof.ldb"), std::string::npos) << r.findings[0].message;
  };
}

// Files that move under the reader (live nodes), through the library's open hook.
void AddLiveCases(std::map<std::string, Case>& cases) {
  cases["gone"] = [] {
    CliDir dir;
    const std::string ks = CassandraData(dir);
    PutSstable(ks, "Standard1-hc-2-", kFilter1000, ReadHexKeysFixture(kKeys1000));
    const VerifyReport r = RunWithHook(dir.Path("data"), [&](const std::string& path) {
      if (path.ends_with("hc-1-Filter.db")) fs::remove(ks + "/Standard1-hc-2-Filter.db");
    });
    const Finding* f = FindingOf(r, "hc-2-Filter.db", finding_kind::kGone);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, Severity::kInfo);
  };
  cases["changed"] = [] {
    CliDir dir;
    const std::string ks = CassandraData(dir);
    const VerifyReport r = RunWithHook(dir.Path("data"), [&](const std::string& path) {
      if (path.ends_with("hc-1-Filter.db")) {
        std::ofstream(path, std::ios::binary | std::ios::app) << "more";  // a writer appending
      }
    });
    const Finding* f = FindingOf(r, "hc-1-Filter.db", finding_kind::kChanged);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, Severity::kInfo);
  };
  cases["unreadable"] = [] {
    CliDir dir;
    const std::string ks = CassandraData(dir);
    PutSstable(ks, "Standard1-hc-2-", kFilter1000, ReadHexKeysFixture(kKeys1000));
    // Listed as a file, then a directory by the time it is opened: the OS refuses to read it.
    const std::string second = ks + "/Standard1-hc-2-Filter.db";
    const VerifyReport r = RunWithHook(dir.Path("data"), [&](const std::string& path) {
      if (!path.ends_with("hc-1-Filter.db") || fs::is_directory(second)) return;
      fs::remove(second);
      fs::create_directory(second);
    });
    const Finding* f = FindingOf(r, "hc-2-Filter.db", finding_kind::kUnreadable);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_NE(f->message.find("Standard1-hc-2-Filter.db"), std::string::npos) << f->message;
  };
}

std::map<std::string, Case> Cases() {
  std::map<std::string, Case> cases;
  AddCassandraCases(cases);
  AddKeyCases(cases);
  AddCassandraComponentCases(cases);
  AddDatabaseCases(cases);
  AddLiveCases(cases);
  return cases;
}

TEST(EvidenceStandard, EveryKindInCodeHasACaseAndARowInTheDocs) {
  const std::set<std::string> kinds = KindsInCode();
  ASSERT_GE(kinds.size(), 25u);
  const std::set<std::string> documented = KindsInDocs();
  const std::map<std::string, Case> cases = Cases();
  for (const std::string& kind : kinds) {
    EXPECT_TRUE(cases.contains(kind)) << "no case for the finding kind '" << kind << "'";
    EXPECT_TRUE(documented.contains(kind)) << "no row in docs/cli.md for '" << kind << "'";
  }
  for (const auto& [kind, c] : cases) {
    EXPECT_TRUE(kinds.contains(kind)) << "a case for '" << kind << "', not a kind in code";
  }
}

TEST(EvidenceStandard, EachKindIsRaisedWithItsSeverityAndEvidence) {
  for (const auto& [kind, c] : Cases()) {
    SCOPED_TRACE("finding kind " + kind);
    c();
  }
}

}  // namespace
}  // namespace bloomcodec::testing

// The command line against the Cassandra 1.0 golden data: build reproduces the original's
// Filter.db bytes, probe its answers, hash its hash vectors, size its getFilter results.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cli_runner.h"
#include "support/test_support.h"

namespace bloomcodec::testing {
namespace {

const std::string kGolden = "cassandra-1.0/";

// Probe files are `key_hex<TAB>answer` lines without a header; returns (keys, answers) as
// the CLI takes and prints them.
struct ProbeSet {
  std::string keys;     // hex key lines
  std::string answers;  // "0\n1\n..."
  std::size_t positives = 0;
};
ProbeSet ReadProbes(const std::string& relative) {
  ProbeSet set;
  for (const std::string& line : SplitLines(ReadFixtureText(relative))) {
    std::size_t tab = line.find('\t');
    EXPECT_NE(tab, std::string::npos) << relative << ": " << line;
    if (tab == std::string::npos) continue;
    set.keys += line.substr(0, tab) + "\n";
    set.answers += line.substr(tab + 1) + "\n";
    set.positives += line.substr(tab + 1) == "1";
  }
  return set;
}

std::vector<std::string> ParamsFor(const std::string& overload, const std::string& param) {
  if (overload == "buckets") return {"--buckets-per-element", param};
  return {"--fp-chance", param};
}

TEST(CassandraCli, BuildReproducesEveryGoldenFilterDb) {
  TsvTable filters = ReadTsvFixture(kGolden + "filters/filters.tsv");
  ASSERT_GT(filters.rows.size(), 10u);
  CliDir dir;
  int built = 0;
  for (std::size_t i = 0; i < filters.rows.size(); ++i) {
    std::string overload = filters.At(i, "overload");
    if (overload == "emptyFilter") continue;  // not built from keys: BloomFilter.emptyFilter()
    std::vector<std::string> args = {"build",
                                     "--format",
                                     "cassandra-1.0",
                                     "--keys",
                                     FixtureForCli(kGolden + filters.At(i, "keys_file")),
                                     "--key-format",
                                     "hex",
                                     "-o",
                                     dir.Path("out.db")};
    for (const std::string& a : ParamsFor(overload, filters.At(i, "param"))) args.push_back(a);
    if (filters.At(i, "n_sized") != filters.At(i, "n_inserted")) {
      args.insert(args.end(), {"--expected-keys", filters.At(i, "n_sized")});
    }
    CliRun r = RunCli(args);
    ASSERT_EQ(r.exit_code, 0) << filters.At(i, "name") << ": " << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(ReadAnyFile(dir.Path("out.db")), ReadFixture(kGolden + filters.At(i, "file")))
        << filters.At(i, "name");
    ++built;
  }
  EXPECT_GE(built, 15);
}

TEST(CassandraCli, ProbeReproducesEveryGoldenAnswer) {
  TsvTable filters = ReadTsvFixture(kGolden + "filters/filters.tsv");
  CliDir dir;
  for (std::size_t i = 0; i < filters.rows.size(); ++i) {
    ProbeSet probes = ReadProbes(kGolden + filters.At(i, "probes_file"));
    ASSERT_EQ(std::to_string(probes.positives), filters.At(i, "probe_positives"));
    std::string keys = dir.Write("probes.hex", probes.keys);
    CliRun r = RunCli({"probe", FixtureForCli(kGolden + filters.At(i, "file")), "--format",
                       "cassandra-1.0", "--keys", keys, "--key-format", "hex"});
    ASSERT_EQ(r.exit_code, 0) << filters.At(i, "name") << ": " << r.err;
    EXPECT_EQ(r.out, probes.answers) << filters.At(i, "name");
  }
}

TEST(CassandraCli, ProbeJsonDocument) {
  ProbeSet probes = ReadProbes(kGolden + "filters/n1000_fp0.1.probes.tsv");
  CliDir dir;
  std::string keys = dir.Write("probes.hex", probes.keys);
  std::string filter = FixtureForCli(kGolden + "filters/n1000_fp0.1.Filter.db");
  CliRun r = RunCli({"probe", filter, "--format", "cassandra-1.0", "--keys", keys, "--key-format",
                     "hex", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["file"], filter);
  EXPECT_EQ(doc["format"], "cassandra-1.0");
  EXPECT_EQ(doc["key_file"], keys);
  EXPECT_EQ(doc["keys"], SplitLines(probes.keys).size());
  EXPECT_EQ(doc["positives"], probes.positives);
  std::string expected;
  for (const std::string& a : SplitLines(probes.answers)) expected += a;
  EXPECT_EQ(doc["answers"], expected);
}

TEST(CassandraCli, ProbeDetectsTheFormatFromAVersionedFileName) {
  ProbeSet probes = ReadProbes(kGolden + "filters/n1000_b15.probes.tsv");
  CliDir dir;
  std::string keys = dir.Write("probes.hex", probes.keys);
  // hc = Cassandra 1.0's SSTable version: the name alone says which Filter.db layout this is.
  std::string named = dir.Write("Keyspace1-Standard1-hc-12-Filter.db",
                                ReadFixture(kGolden + "filters/n1000_b15.Filter.db"));
  CliRun r = RunCli({"probe", named, "--keys", keys, "--key-format", "hex"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, probes.answers);
}

TEST(CassandraCli, ProbeReadsKeysFromStandardInput) {
  ProbeSet probes = ReadProbes(kGolden + "filters/n10_fp0.5.probes.tsv");
  CliRun r = RunCli({"probe", FixtureForCli(kGolden + "filters/n10_fp0.5.Filter.db"), "--format",
                     "cassandra-1.0", "--keys", "-", "--key-format", "hex"},
                    probes.keys);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, probes.answers);
}

TEST(CassandraCli, TruncatedFilterIsAnErrorNamingFileAndOffset) {
  CliDir dir;
  ByteVector golden = ReadFixture(kGolden + "filters/n1000_b15.Filter.db");
  ASSERT_GT(golden.size(), 100u);
  std::string cut = dir.Write("cut.Filter.db", ByteSpan(golden).first(100));
  std::string keys = dir.Write("keys.txt", "a\nb\n");
  CliRun r = RunCli({"probe", cut, "--format", "cassandra-1.0", "--keys", keys});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(cut), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("byte "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected"), std::string::npos) << r.err;
  EXPECT_EQ(LineCount(r.err), 1u) << r.err;
}

TEST(CassandraCli, LegacyFiltersBuildAndProbeAsTheOriginal) {
  TsvTable filters = ReadTsvFixture(kGolden + "legacy/legacy_filters.tsv");
  ASSERT_GE(filters.rows.size(), 5u);
  CliDir dir;
  for (std::size_t i = 0; i < filters.rows.size(); ++i) {
    std::string name = filters.At(i, "name");
    std::vector<std::string> args = {"build",
                                     "--format",
                                     "cassandra-legacy",
                                     "--keys",
                                     FixtureForCli(kGolden + filters.At(i, "keys_file")),
                                     "--key-format",
                                     "hex",
                                     "-o",
                                     dir.Path("legacy.db")};
    for (const std::string& a : ParamsFor(filters.At(i, "overload"), filters.At(i, "param"))) {
      args.push_back(a);
    }
    CliRun built = RunCli(args);
    ASSERT_EQ(built.exit_code, 0) << name << ": " << built.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("legacy.db")), ReadFixture(kGolden + filters.At(i, "file")))
        << name;

    ProbeSet probes = ReadProbes(kGolden + filters.At(i, "probes_file"));
    CliRun r = RunCli({"probe", FixtureForCli(kGolden + filters.At(i, "file")), "--format",
                       "cassandra-legacy", "--keys", dir.Write("p.hex", probes.keys),
                       "--key-format", "hex"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, probes.answers) << name;
  }
}

TEST(CassandraCli, RowFiltersBuildAndProbeAsTheOriginal) {
  TsvTable rows = ReadTsvFixture(kGolden + "rowfilter/rowfilters.tsv");
  ASSERT_GE(rows.rows.size(), 5u);
  CliDir dir;
  for (std::size_t i = 0; i < rows.rows.size(); ++i) {
    std::string name = rows.At(i, "name");
    CliRun built =
        RunCli({"build", "--format", "cassandra-1.0-row", "--keys",
                FixtureForCli(kGolden + rows.At(i, "names_file")), "--key-format", "hex",
                "--expected-keys", rows.At(i, "estimated_columns"), "-o", dir.Path("row.bin")});
    ASSERT_EQ(built.exit_code, 0) << name << ": " << built.err;
    EXPECT_EQ(ReadAnyFile(dir.Path("row.bin")), ReadFixture(kGolden + rows.At(i, "file"))) << name;

    ProbeSet probes = ReadProbes(kGolden + rows.At(i, "probes_file"));
    CliRun r = RunCli({"probe", FixtureForCli(kGolden + rows.At(i, "file")), "--format",
                       "cassandra-1.0-row", "--keys", dir.Write("p.hex", probes.keys),
                       "--key-format", "hex"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out, probes.answers) << name;
  }
}

// Runs `hash` over the key_hex column of a vector file and compares with two decimal columns.
void ExpectHashColumns(const std::string& format, const std::string& relative) {
  TsvTable vectors = ReadTsvFixture(relative);
  ASSERT_GT(vectors.rows.size(), 300u);
  std::string keys, expected;
  for (std::size_t i = 0; i < vectors.rows.size(); ++i) {
    keys += vectors.At(i, "key_hex") + "\n";
    expected += vectors.At(i, "h1_dec") + "\t" + vectors.At(i, "h2_dec") + "\n";
  }
  CliDir dir;
  CliRun r = RunCli(
      {"hash", "--format", format, "--keys", dir.Write("k.hex", keys), "--key-format", "hex"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected);
  // --json: the same values as exact JSON integers, [h1, h2] per key in key order.
  CliRun j = RunCli(
      {"hash", "--format", format, "--keys", dir.Path("k.hex"), "--key-format", "hex", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json doc = nlohmann::json::parse(j.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << j.out;
  EXPECT_EQ(doc["format"], format);
  ASSERT_EQ(doc["keys"], vectors.rows.size());
  ASSERT_EQ(doc["hashes"].size(), vectors.rows.size());
  for (std::size_t i = 0; i < vectors.rows.size(); ++i) {
    const auto& h = doc["hashes"][i];
    ASSERT_EQ(h.size(), 2u) << i;
    EXPECT_EQ(h[0].dump() + "\t" + h[1].dump(),
              vectors.At(i, "h1_dec") + "\t" + vectors.At(i, "h2_dec"))
        << "key " << vectors.At(i, "key_hex");
  }
}

TEST(CassandraCli, HashReproducesMurmurHash64Vectors) {
  ExpectHashColumns("cassandra-1.0", kGolden + "hash64_vectors.tsv");
}

TEST(CassandraCli, HashReproducesLegacyMurmurHash32Vectors) {
  ExpectHashColumns("cassandra-legacy", kGolden + "legacy/hash32_vectors.tsv");
}

// Checks `size --json` against one sizing row: the fields where the original allocated a
// filter, exit 2 with the original's exception text where it refused.
void ExpectSizeRow(const std::string& format, const std::vector<std::string>& param,
                   const TsvTable& t, std::size_t i) {
  std::vector<std::string> args = {
      "size", "--format", format, "--expected-keys", t.At(i, "num_elements"), "--json"};
  args.insert(args.end(), param.begin(), param.end());
  std::string what = t.At(i, "num_elements") + " " + param[1];
  CliRun r = RunCli(args);
  std::string outcome = t.At(i, "outcome");
  if (outcome != "OK") {
    EXPECT_EQ(r.exit_code, 2) << what << ": " << r.out;
    EXPECT_NE(r.err.find(outcome), std::string::npos) << what << ": " << r.err;
    EXPECT_EQ(LineCount(r.err), 1u) << r.err;
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << what << ": " << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["hash_count"].dump(), t.At(i, "K")) << what;
  EXPECT_EQ(doc["buckets_per_element"].dump(), t.At(i, "buckets_per_element")) << what;
  EXPECT_EQ(doc["words"].dump(), t.At(i, "num_words")) << what;
  EXPECT_EQ(doc["bits"].dump(), t.At(i, "size_bits")) << what;
  EXPECT_EQ(doc["file_bytes"].dump(), t.At(i, "serialized_bytes")) << what;
  std::set<std::string> allowed = {"hash_count", "buckets_per_element", "bits",
                                   "words",      "file_bytes",          "warnings"};
  for (const auto& [key, value] : doc.items()) EXPECT_TRUE(allowed.count(key)) << key;
  if (t.Column("warning") >= 0) {
    // The original's WARN text is among the warnings exactly when it logged one; the library
    // may add notes of its own (e.g. about Java's word-count truncation).
    std::vector<std::string> warnings;
    if (doc.contains("warnings")) warnings = doc["warnings"].get<std::vector<std::string>>();
    EXPECT_TRUE(!doc.contains("warnings") || !warnings.empty()) << r.out;
    int originals = 0;
    for (const std::string& w : warnings) originals += w.starts_with("Cannot provide an optimal");
    if (t.At(i, "warning").empty()) {
      EXPECT_EQ(originals, 0) << what << ": " << r.out;
    } else {
      EXPECT_EQ(originals, 1) << what << ": " << r.out;
      EXPECT_NE(std::find(warnings.begin(), warnings.end(), t.At(i, "warning")), warnings.end())
          << what << ": " << r.out;
    }
  }
}

// A spread of rows: every 29th, which covers small, huge and negative counts, refusals and
// warnings; rows whose word count is not positive are left to the library's own tests (the
// original never constructs those filters).
bool Selected(const TsvTable& t, std::size_t i) {
  if (i % 29 != 0) return false;
  if (t.At(i, "outcome") != "OK") return true;
  return t.At(i, "num_words") != "NA" && std::stoll(t.At(i, "num_words")) > 0;
}

TEST(CassandraCli, SizeForFpChanceMatchesGetFilter) {
  TsvTable t = ReadTsvFixture(kGolden + "sizing/sizing_fp.tsv");
  int ok = 0, refused = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (!Selected(t, i)) continue;
    ExpectSizeRow("cassandra-1.0", {"--fp-chance", t.At(i, "fp")}, t, i);
    (t.At(i, "outcome") == "OK" ? ok : refused)++;
  }
  EXPECT_GE(ok, 20);
  EXPECT_GE(refused, 5);
}

TEST(CassandraCli, SizeForBucketsMatchesGetFilterWithWarnings) {
  TsvTable t = ReadTsvFixture(kGolden + "sizing/sizing_buckets.tsv");
  int warned = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    bool warns = !t.At(i, "warning").empty() && t.At(i, "outcome") == "OK";
    // Every warned row of a small count too, so that the warnings array is exercised.
    if (!Selected(t, i) && !(warns && i % 7 == 0)) continue;
    if (warns && t.At(i, "num_words") != "NA" && std::stoll(t.At(i, "num_words")) <= 0) continue;
    ExpectSizeRow("cassandra-1.0", {"--buckets-per-element", t.At(i, "target_buckets_per_element")},
                  t, i);
    warned += warns;
  }
  EXPECT_GE(warned, 3);
}

// The legacy filter through the binary: K and the BitSet the original constructed (its words,
// BitSet.size() bits, and the 77-byte Java stream around them), or the original's refusal.
TEST(CassandraCli, SizeOfLegacyFiltersMatchesLegacyGetFilter) {
  TsvTable t = ReadTsvFixture(kGolden + "sizing/sizing_legacy.tsv");
  int ok = 0, refused = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    // Every refusal, and every 7th row the original sized.
    if (t.At(i, "outcome") == "OK" && i % 7 != 0) continue;
    if (t.At(i, "constructed") == "ctor:NegativeArraySizeException") continue;
    const bool fp = t.At(i, "overload") == "fp";
    std::string what = t.At(i, "num_elements") + " " + t.At(i, "overload") + "=" + t.At(i, "param");
    CliRun r =
        RunCli({"size", "--format", "cassandra-legacy", "--expected-keys", t.At(i, "num_elements"),
                fp ? "--fp-chance" : "--buckets-per-element", t.At(i, "param"), "--json"});
    if (t.At(i, "outcome") != "OK") {
      EXPECT_EQ(r.exit_code, 2) << what << ": " << r.out;
      EXPECT_NE(r.err.find(t.At(i, "outcome")), std::string::npos) << what << ": " << r.err;
      ++refused;
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << what << ": " << r.err;
    nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out;
    EXPECT_EQ(doc["hash_count"].dump(), t.At(i, "K")) << what;
    EXPECT_EQ(doc["words"].dump(), t.At(i, "bitset_words")) << what;
    EXPECT_EQ(doc["bits"].dump(), t.At(i, "bitset_size_bits")) << what;
    EXPECT_EQ(doc["file_bytes"].get<std::int64_t>(), 77 + 8 * std::stoll(t.At(i, "bitset_words")))
        << what;
    ++ok;
  }
  EXPECT_GE(ok, 40);
  EXPECT_GE(refused, 1);
}

// A row's column filter is sized by Cassandra itself (getFilter(columns, 4)): --expected-keys
// alone, and the file is the filter plus its 4-byte length prefix.
TEST(CassandraCli, SizeOfRowFiltersMatchesEveryGoldenRow) {
  TsvTable rows = ReadTsvFixture(kGolden + "rowfilter/rowfilters.tsv");
  ASSERT_GE(rows.rows.size(), 5u);
  for (std::size_t i = 0; i < rows.rows.size(); ++i) {
    std::string name = rows.At(i, "name");
    CliRun r = RunCli({"size", "--format", "cassandra-1.0-row", "--expected-keys",
                       rows.At(i, "estimated_columns"), "--json"});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out;
    EXPECT_EQ(doc["hash_count"].dump(), rows.At(i, "hash_count")) << name;
    EXPECT_EQ(doc["words"].dump(), rows.At(i, "word_count")) << name;
    EXPECT_EQ(doc["bits"].dump(), rows.At(i, "size_bits")) << name;
    EXPECT_EQ(doc["file_bytes"].dump(), rows.At(i, "file_bytes")) << name;
  }
  CliRun refused = RunCli({"size", "--format", "cassandra-1.0-row", "--expected-keys", "10",
                           "--buckets-per-element", "4"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("takes no sizing parameter"), std::string::npos) << refused.err;
}

TEST(CassandraCli, SizeRefusalIsExitTwoWithTheOriginalsMessage) {
  // BloomCalculations.computeBloomSpec cannot reach 1e-5 with the 20 buckets its table holds.
  CliRun r = RunCli(
      {"size", "--format", "cassandra-1.0", "--expected-keys", "1000", "--fp-chance", "1.0E-9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("Unable to satisfy 1.0E-9 with 20 buckets per element"), std::string::npos)
      << r.err;
  EXPECT_EQ(LineCount(r.err), 1u) << r.err;
}

TEST(CassandraCli, SizeHumanOutputNamesTheFields) {
  CliRun r = RunCli({"size", "--format", "cassandra-1.0", "--expected-keys", "1000",
                     "--buckets-per-element", "15"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* field : {"hash count", "buckets per element", "bits", "words", "file bytes"}) {
    EXPECT_NE(r.out.find(field), std::string::npos) << field << " in\n" << r.out;
  }
}

}  // namespace
}  // namespace bloomcodec::testing

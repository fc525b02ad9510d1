// convert with keys streamed (--index of an Index.db of several 1 MiB windows, --keys of several
// 4096-key chunks): the result is what `build` writes for the same keys, and damage anywhere in
// the key source is reported as the whole-file readers report it, with nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bloomcodec/format.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/output_file.h"
#include "cassandra/index_db.h"
#include "convert_support.h"

namespace bloomcodec::testing {
namespace {

// Distinct keys of 8..40 bytes (fixed seed).
KeyList MakeKeys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<std::string> seen;
  KeyList keys;
  while (keys.size() < n) {
    std::string k(8 + static_cast<std::size_t>(rng() % 33), '\0');
    for (char& c : k) c = static_cast<char>(rng() & 0xff);
    if (seen.insert(k).second) keys.Add(k);
  }
  return keys;
}

std::string HexLines(const KeyList& keys) {
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) out += ToHex(keys[i]) + "\n";
  return out;
}

ByteVector BuildWith(const std::string& format, const KeyList& keys, double fp_chance) {
  FilterParams p;
  p.fp_chance = fp_chance;
  Result<ByteVector> bytes = FindFormat(format)->Build(keys, p);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : ByteVector();
}

// An Index.db of the ma .. oa form for `keys`, each entry with a promoted index of 100 bytes (so
// 30000 entries span several of the stream's 1 MiB windows); positions increase by 64 bytes,
// except that `backwards` (when set) goes back to the position before the previous one.
ByteVector IndexDbOf(const KeyList& keys, std::optional<std::size_t> backwards = std::nullopt) {
  std::vector<std::int64_t> positions(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) positions[i] = static_cast<std::int64_t>(i) * 64;
  if (backwards) positions[*backwards] = positions[*backwards - 1] - 1;
  const std::vector<std::uint32_t> promoted(keys.size(), 100);
  Result<ByteVector> index = cassandra::WriteIndexDb(
      keys, positions, cassandra::IndexEntryForm::kVIntPositionAndPromoted, promoted);
  EXPECT_TRUE(index.ok()) << index.status().ToString();
  return index.ok() ? *index : ByteVector();
}

// The Status the whole-file reader gives for an Index.db of that form.
Status ReadWhole(ByteSpan index, const std::string& path) {
  cassandra::IndexDb whole;
  return cassandra::ReadIndexDbInto(index, path, cassandra::IndexKeyForm::kRaw,
                                    cassandra::IndexEntryForm::kVIntPositionAndPromoted, whole);
}

// The offset of entry `i` of IndexDbOf(keys): 2 bytes of length, the key, a vint position, a
// one-byte vint size (100) and the 100 promoted bytes.
std::size_t EntryOffset(const KeyList& keys, std::size_t i) {
  std::size_t at = 0;
  for (std::size_t e = 0; e < i; ++e) {
    ByteVector vint;
    cassandra::PutCassandraUnsignedVInt(vint, static_cast<std::uint64_t>(e) * 64);
    at += 2 + keys[e].size() + vint.size() + 1 + 100;
  }
  return at;
}

constexpr std::size_t kIndexKeys = 30000;

TEST(ConvertStreamed, IndexDbOfManyWindowsRebuildsAsBuildDoes) {
  CliDir dir;
  const KeyList keys = MakeKeys(kIndexKeys, 1);
  const ByteVector index = IndexDbOf(keys);
  ASSERT_GT(index.size(), 3u << 20) << "the Index.db must span several 1 MiB windows";
  const std::string index_path = dir.Write("nb-1-big-Index.db", index);
  const std::string in = dir.Write("nb-1-big-Filter.db", BuildWith("cassandra-4.0", keys, 0.01));
  const std::string key_file = dir.Write("keys.hex", HexLines(keys));
  for (const char* to : {"cassandra-3.0", "cassandra-4.0"}) {
    SCOPED_TRACE(to);
    const std::string out = dir.Path(std::string(to) + ".db");
    auto report = RunJson({"convert", in, "--format", "cassandra-4.0", "--to", to, "--fp-chance",
                           "0.001", "--index", index_path, "-o", out, "--json"});
    EXPECT_EQ(report["how"], "rebuilt");
    EXPECT_EQ(report["keys"].get<std::size_t>(), kIndexKeys);
    EXPECT_EQ(report["key_source"], index_path);
    const std::string built = dir.Path(std::string(to) + ".built");
    CliRun b = RunCli({"build", "--format", to, "--keys", key_file, "--key-format", "hex",
                       "--fp-chance", "0.001", "-o", built});
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_TRUE(ReadAnyFile(out) == ReadAnyFile(built));
    EXPECT_TRUE(ReadAnyFile(out) == BuildWith(to, keys, 0.001));
  }
  // The same Index.db gzipped (inflated into memory, then read in the same windows).
  const std::string gz_path = dir.Path("nb-1-big-Index.db.gz");
  ASSERT_TRUE(WriteFileAtomically(gz_path, index).ok());
  CliRun r = RunCli({"convert", in, "--format", "cassandra-4.0", "--to", "cassandra-3.0",
                     "--fp-chance", "0.001", "--index", gz_path, "-o", dir.Path("gz.db")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(ReadAnyFile(dir.Path("gz.db")) == BuildWith("cassandra-3.0", keys, 0.001));
}

// Damage after the first window: the error is the whole-file reader's, file and offset, and no
// output is left behind.
TEST(ConvertStreamed, DamageInALaterWindowOfTheIndexDbIsReportedAsReadIndexDbReportsIt) {
  CliDir dir;
  const KeyList keys = MakeKeys(kIndexKeys, 2);
  const std::string in = dir.Write("nb-1-big-Filter.db", BuildWith("cassandra-4.0", keys, 0.01));
  const ByteVector good = IndexDbOf(keys);
  // Entry 25000 sits well past the third MiB.
  const std::size_t damaged_entry = 25000;
  const std::size_t entry_offset = EntryOffset(keys, damaged_entry);
  ASSERT_GT(entry_offset, 2u << 20);
  ASSERT_LT(entry_offset, good.size());
  // The reader names the field of the entry where the damage is: the position (2 + key bytes into
  // the entry), or the promoted index after the position's vint and the size's one byte.
  const std::size_t position_at = entry_offset + 2 + keys[damaged_entry].size();
  ByteVector vint;
  cassandra::PutCassandraUnsignedVInt(vint, static_cast<std::uint64_t>(damaged_entry) * 64);
  struct Case {
    std::string name;
    ByteVector bytes;
    std::size_t offset;
  };
  std::vector<Case> cases;
  // An entry cut short by the end of the file (its promoted index half there).
  cases.push_back(
      {"cut",
       ByteVector(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(
                                                   entry_offset + 30 + keys[damaged_entry].size())),
       position_at + vint.size() + 1});
  cases.push_back({"backwards", IndexDbOf(keys, damaged_entry), position_at});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string index_path = dir.Write("nb-" + c.name + "-big-Index.db", c.bytes);
    const Status whole = ReadWhole(c.bytes, index_path);
    ASSERT_FALSE(whole.ok());
    ASSERT_TRUE(whole.offset().has_value());
    EXPECT_EQ(*whole.offset(), c.offset) << whole.ToString();
    EXPECT_NE(whole.ToString().find("entry " + std::to_string(damaged_entry)), std::string::npos);
    const std::string out = dir.Path(c.name + ".db");
    CliRun r = RunCli({"convert", in, "--format", "cassandra-4.0", "--to", "cassandra-3.0",
                       "--fp-chance", "0.001", "--index", index_path, "-o", out});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(whole.ToString()), std::string::npos)
        << r.err << "\nexpected: " << whole.ToString();
    EXPECT_NE(r.err.find(index_path + ": byte " + std::to_string(c.offset) + ":"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(LineCount(r.err), 1u);
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

// A bad line after the first chunk of a key file: named with its offset as ParseKeyFile names it;
// nothing written, the input untouched.
TEST(ConvertStreamed, AMalformedKeyLineAfterTheFirstChunkIsNamedAndNothingIsWritten) {
  CliDir dir;
  const KeyList keys = MakeKeys(9000, 3);
  const ByteVector filter = BuildWith("cassandra-4.0", keys, 0.01);
  const std::string in = dir.Write("nb-3-big-Filter.db", filter);
  std::string text = HexLines(keys);
  std::size_t line_start = 0;
  for (int i = 0; i < 4999; ++i) line_start = text.find('\n', line_start) + 1;
  text.insert(line_start, "x");  // line 5000 starts with a non-hex digit
  const std::string key_file = dir.Write("keys.hex", text);
  const Status whole = ParseKeyFile(AsBytes(text), KeyFormat::kHex, key_file).status();
  ASSERT_FALSE(whole.ok());
  EXPECT_EQ(whole.offset(), line_start);
  const std::string out = dir.Path("out.db");
  CliRun r = RunCli({"convert", in, "--format", "cassandra-4.0", "--to", "cassandra-3.0",
                     "--fp-chance", "0.001", "--keys", key_file, "--key-format", "hex", "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(whole.ToString()), std::string::npos)
      << r.err << "\nexpected: " << whole.ToString();
  EXPECT_NE(r.err.find("line 5000 "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("byte " + std::to_string(line_start)), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_TRUE(ReadAnyFile(in) == filter);
}

// Keys absent from the input, the first of them in a later chunk: the refusal counts them and
// names the first line; --force rebuilds from every line.
TEST(ConvertStreamed, AbsentKeysInALaterChunkAreNamedByLineAndForceStillRebuilds) {
  CliDir dir;
  const KeyList keys = MakeKeys(8000, 4);
  const ByteVector filter = BuildWith("cassandra-4.0", keys, 0.001);
  const std::string in = dir.Write("nb-4-big-Filter.db", filter);
  // Lines 1..6000 the filter's keys, then 100 others, then the filter's remaining keys.
  const KeyList others = MakeKeys(100, 5);
  KeyList lines;
  for (std::size_t i = 0; i < 6000; ++i) lines.Add(keys[i]);
  for (std::size_t i = 0; i < others.size(); ++i) lines.Add(others[i]);
  for (std::size_t i = 6000; i < keys.size(); ++i) lines.Add(keys[i]);
  // Which of them the input answers 0 for (some of the others may be false positives).
  std::vector<std::uint8_t> answers(lines.size());
  ASSERT_TRUE(FindFormat("cassandra-4.0")->Probe(filter, in, lines, ProbeOptions{}, answers).ok());
  std::size_t absent = 0, first = 0;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i] == 0 && absent++ == 0) first = i + 1;
  }
  ASSERT_GT(absent, 0u);
  ASSERT_GT(first, kStreamChunkKeys);
  const std::string key_file = dir.Write("keys.hex", HexLines(lines));
  const std::string what = std::to_string(absent) + " of " + std::to_string(lines.size()) +
                           " keys of " + key_file + " (the first on line " + std::to_string(first) +
                           ") are absent from " + in +
                           ": they are not the keys this filter was built from";
  const std::string out = dir.Path("out.db");
  CliRun r = RunCli({"convert", in, "--format", "cassandra-4.0", "--to", "cassandra-3.0",
                     "--fp-chance", "0.01", "--keys", key_file, "--key-format", "hex", "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(what + " (--force rebuilds anyway)"), std::string::npos)
      << r.err << "\nexpected: " << what;
  EXPECT_FALSE(std::filesystem::exists(out));

  auto report =
      RunJson({"convert", in, "--format", "cassandra-4.0", "--to", "cassandra-3.0", "--fp-chance",
               "0.01", "--keys", key_file, "--key-format", "hex", "-o", out, "--force", "--json"});
  EXPECT_EQ(report["how"], "rebuilt");
  EXPECT_EQ(report["keys"].get<std::size_t>(), lines.size());
  ASSERT_EQ(report["warnings"].size(), 1u);
  EXPECT_EQ(report["warnings"][0].get<std::string>(), what);
  EXPECT_TRUE(ReadAnyFile(out) == BuildWith("cassandra-3.0", lines, 0.01));
  EXPECT_TRUE(ReadAnyFile(in) == filter);
}

// Index.db entries absent from the input filter, the first past the first 1 MiB window: named by
// entry, counted over the whole file.
TEST(ConvertStreamed, AbsentIndexEntriesInALaterWindowAreNamedByEntry) {
  CliDir dir;
  const KeyList keys = MakeKeys(kIndexKeys, 6);
  KeyList filter_keys;  // all but entries 20001 .. 20100 (1-based)
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i < 20000 || i >= 20100) filter_keys.Add(keys[i]);
  }
  const ByteVector filter = BuildWith("cassandra-4.0", filter_keys, 0.001);
  const std::string in = dir.Write("nb-6-big-Filter.db", filter);
  const std::string index_path = dir.Write("nb-6-big-Index.db", IndexDbOf(keys));
  std::vector<std::uint8_t> answers(keys.size());
  ASSERT_TRUE(FindFormat("cassandra-4.0")->Probe(filter, in, keys, ProbeOptions{}, answers).ok());
  std::size_t absent = 0, first = 0;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i] == 0 && absent++ == 0) first = i + 1;
  }
  ASSERT_GT(absent, 0u);
  ASSERT_GT(first, 20000u);
  const std::string out = dir.Path("out.db");
  CliRun r = RunCli({"convert", in, "--format", "cassandra-4.0", "--to", "cassandra-3.0",
                     "--fp-chance", "0.01", "--index", index_path, "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(std::to_string(absent) + " of " + std::to_string(kIndexKeys) + " keys of " +
                       index_path + " (the first is entry " + std::to_string(first) +
                       ") are absent from " + in),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// --keys - : standard input is read once, whole, and the three passes go over those bytes.
TEST(ConvertStreamed, KeysFromStandardInputOfSeveralChunksRebuildAsBuildDoes) {
  CliDir dir;
  const KeyList keys = MakeKeys(9000, 7);
  const std::string in = dir.Write("nb-7-big-Filter.db", BuildWith("cassandra-4.0", keys, 0.01));
  const std::string out = dir.Path("out.db");
  CliRun r = RunCli({"convert", in, "--format", "cassandra-4.0", "--to", "cassandra-3.0",
                     "--fp-chance", "0.001", "--keys", "-", "--key-format", "hex", "-o", out},
                    HexLines(keys));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("9000 keys"), std::string::npos) << r.out;
  EXPECT_TRUE(ReadAnyFile(out) == BuildWith("cassandra-3.0", keys, 0.001));
}

}  // namespace
}  // namespace bloomcodec::testing

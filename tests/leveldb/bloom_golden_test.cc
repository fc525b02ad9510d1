// The bloom policy against everything in fixtures/leveldb/raw: filters rebuilt byte for byte,
// every recorded KeyMayMatch answer, the hand-made edge filters, the k table and the LevelDB 1.17
// (signed char) filters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bloomcodec/leveldb/bloom.h"
#include "support/test_support.h"

namespace bloomcodec::leveldb {
namespace {

using ::bloomcodec::testing::HexBytes;
using ::bloomcodec::testing::ReadFixture;
using ::bloomcodec::testing::ReadHexKeysFixture;
using ::bloomcodec::testing::ReadTsvFixture;
using ::bloomcodec::testing::TsvTable;

// The golden keys and probes are shared by every test of this file; read them once.
const KeyList& GoldenKeys() {
  static const KeyList keys = ReadHexKeysFixture("leveldb/raw/keys.hex");
  return keys;
}
const KeyList& GoldenProbes() {
  static const KeyList probes = ReadHexKeysFixture("leveldb/raw/probes.hex");
  return probes;
}

std::vector<ByteSpan> Spans(const KeyList& keys, std::size_t n) {
  std::vector<ByteSpan> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(keys[i]);
  return out;
}

std::string Answers(HashFlavor flavor, const KeyList& keys, ByteSpan filter) {
  std::vector<std::uint8_t> answers(keys.size());
  BloomKeyMayMatchBatch(flavor, keys, filter, answers);
  std::string out(answers.size(), '0');
  for (std::size_t i = 0; i < answers.size(); ++i) out[i] = answers[i] ? '1' : '0';
  return out;
}

KeyList Prefix(const KeyList& keys, std::size_t n) {
  KeyList out;
  for (std::size_t i = 0; i < n; ++i) out.Add(keys[i]);
  return out;
}

// Rebuilds and probes every filter of a filters.tsv; returns how many rows were checked.
std::size_t CheckFilterTable(const std::string& folder, HashFlavor flavor) {
  const TsvTable table = ReadTsvFixture(folder + "/filters.tsv");
  const KeyList& keys = GoldenKeys();
  const KeyList& probes = GoldenProbes();
  EXPECT_EQ(keys.size(), 100000u);
  EXPECT_EQ(probes.size(), 5000u);
  const std::vector<ByteSpan> key_spans = Spans(keys, keys.size());
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    const int b = std::stoi(table.At(row, "bits_per_key"));
    const std::size_t n = std::stoul(table.At(row, "num_keys"));
    SCOPED_TRACE(folder + "/" + table.At(row, "file"));
    const ByteVector golden = ReadFixture(folder + "/" + table.At(row, "file"));
    const BloomPolicy policy{b, flavor};

    ByteVector ours;
    AppendBloomFilter(policy, std::span<const ByteSpan>(key_spans).first(n), ours);
    EXPECT_TRUE(ours == golden) << "filter bytes differ (" << ours.size() << " vs " << golden.size()
                                << " bytes)";
    EXPECT_EQ(std::to_string(ours.back()), table.At(row, "k"));
    EXPECT_EQ(std::to_string(ours.size()), table.At(row, "filter_len"));
    EXPECT_EQ(std::to_string((ours.size() - 1) * 8), table.At(row, "bit_array_bits"));
    EXPECT_EQ(GeometryFor(policy, n).filter_bytes, golden.size());

    // Probe answers are asked of the golden bytes, so they stand on their own.
    const std::string answers = Answers(flavor, probes, golden);
    EXPECT_EQ(answers, table.At(row, "probe_answers"));
    EXPECT_EQ(std::to_string(std::count(answers.begin(), answers.end(), '1')),
              table.At(row, "probe_positives"));
    // The single-key path answers as the batch path does.
    for (std::size_t i = 0; i < probes.size(); i += 97) {
      EXPECT_EQ(BloomKeyMayMatch(flavor, probes[i], golden), answers[i] == '1');
    }
    // No false negatives for any inserted key.
    const std::string inserted = Answers(flavor, Prefix(keys, n), golden);
    EXPECT_EQ(inserted.find('0'), std::string::npos);
  }
  return table.rows.size();
}

TEST(BloomGolden, EveryLevelDB123FilterRebuiltAndProbed) {
  EXPECT_EQ(CheckFilterTable("leveldb/raw", HashFlavor::kUnsignedTail), 90u);
}

TEST(BloomGolden, EveryLevelDB117SignedCharFilterRebuiltAndProbed) {
  EXPECT_EQ(CheckFilterTable("leveldb/raw/legacy_v1.17_signed_char", HashFlavor::kSignedTail), 27u);
}

// Fixture integrity, not a test of our code: the 1.17 and 1.23 files differ exactly where the
// golden table says (the two EveryLevelDB... tests rebuild both sets with ours).
TEST(BloomFixtureIntegrity, LegacyFiltersDifferFromCurrentExactlyWhereRecorded) {
  const TsvTable table = ReadTsvFixture("leveldb/raw/legacy_v1.17_signed_char/filters.tsv");
  int identical = 0;
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    const std::string file = table.At(row, "file");
    SCOPED_TRACE(file);
    const ByteVector legacy = ReadFixture("leveldb/raw/legacy_v1.17_signed_char/" + file);
    const ByteVector current = ReadFixture("leveldb/raw/" + file);
    const bool same = legacy == current;
    EXPECT_EQ(same ? "1" : "0", table.At(row, "identical_to_1.23"));
    identical += same;
  }
  EXPECT_EQ(identical, 3);  // only the three zero-key filters
}

TEST(BloomGolden, CurrentHashOnLegacyFilterGivesFalseNegatives) {
  // Why the two flavours must never be mixed: asked with the 1.18+ hash, a 1.17 filter rejects
  // keys that were inserted.
  const ByteVector legacy =
      ReadFixture("leveldb/raw/legacy_v1.17_signed_char/filters/bpk10_n1000.bin");
  const std::string answers =
      Answers(HashFlavor::kUnsignedTail, Prefix(GoldenKeys(), 1000), legacy);
  EXPECT_GT(std::count(answers.begin(), answers.end(), '0'), 100);
}

TEST(BloomGolden, EdgeFiltersAnswerAsRecorded) {
  const TsvTable table = ReadTsvFixture("leveldb/raw/edge_filters.tsv");
  ASSERT_EQ(table.rows.size(), 28u);
  const KeyList inserted = Prefix(GoldenKeys(), 100);
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    SCOPED_TRACE(table.At(row, "name"));
    const ByteVector filter = HexBytes(table.At(row, "filter_hex"));
    const std::string probe_answers = Answers(HashFlavor::kUnsignedTail, GoldenProbes(), filter);
    EXPECT_EQ(probe_answers, table.At(row, "probe_answers"));
    EXPECT_EQ(std::to_string(std::count(probe_answers.begin(), probe_answers.end(), '1')),
              table.At(row, "probe_positives"));
    const std::string prefix_answers = Answers(HashFlavor::kUnsignedTail, inserted, filter);
    EXPECT_EQ(prefix_answers, table.At(row, "inserted_prefix_answers"));
    EXPECT_EQ(std::to_string(std::count(prefix_answers.begin(), prefix_answers.end(), '1')),
              table.At(row, "inserted_prefix_positives"));
    for (std::size_t i = 0; i < inserted.size(); ++i) {
      EXPECT_EQ(BloomKeyMayMatch(HashFlavor::kUnsignedTail, inserted[i], filter),
                prefix_answers[i] == '1');
    }
  }
}

TEST(BloomGolden, KTableAndMinimumSizes) {
  const TsvTable table = ReadTsvFixture("leveldb/raw/k_table.tsv");
  ASSERT_EQ(table.rows.size(), 101u);
  const std::vector<ByteSpan> keys = Spans(GoldenKeys(), 100);
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    const int b = std::stoi(table.At(row, "bits_per_key"));
    SCOPED_TRACE("bits_per_key " + std::to_string(b));
    const BloomPolicy policy = BloomPolicy::Current(b);
    EXPECT_EQ(std::to_string(policy.probes()), table.At(row, "k"));
    const struct {
      std::size_t n;
      const char* column;
    } cases[] = {{0, "filter_len_for_0_keys"},
                 {1, "filter_len_for_1_key"},
                 {100, "filter_len_for_100_keys"}};
    for (const auto& c : cases) {
      ByteVector filter;
      AppendBloomFilter(policy, std::span<const ByteSpan>(keys).first(c.n), filter);
      EXPECT_EQ(std::to_string(filter.size()), table.At(row, c.column));
      EXPECT_EQ(std::to_string(filter.back()), table.At(row, "k"));
      EXPECT_EQ(std::to_string(GeometryFor(policy, c.n).filter_bytes), table.At(row, c.column));
    }
  }
}

}  // namespace
}  // namespace bloomcodec::leveldb

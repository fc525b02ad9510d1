// RocksDB 7.8.3's own output (fixtures/rocksdb): hash vectors, the raw filters it built from the
// golden keys with every probe answer, and hand-made edge filters with the answers its reader
// gave. Keys and probes are the LevelDB raw set (fixtures/leveldb/raw), which RocksDB's
// generator read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/rocksdb/hash.h"
#include "support/test_support.h"

namespace bloomcodec::rocksdb {
namespace {

using testing::HexBytes;
using testing::ReadFixture;
using testing::ReadHexKeysFixture;
using testing::ReadTsvFixture;

const KeyList& GoldenKeys() {
  static const KeyList keys = ReadHexKeysFixture("leveldb/raw/keys.hex");
  return keys;
}
const KeyList& GoldenProbes() {
  static const KeyList probes = ReadHexKeysFixture("leveldb/raw/probes.hex");
  return probes;
}

std::string Answers(const FullFilterReader& filter, const KeyList& probes) {
  std::vector<std::uint8_t> a(probes.size());
  filter.MayContainBatch(probes, a);
  std::string s;
  for (std::uint8_t x : a) s.push_back(x ? '1' : '0');
  return s;
}

std::string SingleAnswers(const FullFilterReader& filter, const KeyList& probes) {
  std::string s;
  for (std::size_t i = 0; i < probes.size(); ++i)
    s.push_back(filter.MayContain(probes[i]) ? '1' : '0');
  return s;
}

TEST(RocksdbHashGolden, EveryVector) {
  const testing::TsvTable t = ReadTsvFixture("rocksdb/hash_vectors.tsv");
  ASSERT_GT(t.rows.size(), 400U);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ByteVector data = HexBytes(t.At(i, "data_hex"));
    EXPECT_EQ(std::stoul(t.At(i, "hash32_seed_bc9f1d34"), nullptr, 16), LegacyBloomHash(data))
        << "row " << i << " length " << data.size();
    EXPECT_EQ(std::stoull(t.At(i, "hash64_xxph3"), nullptr, 16), Hash64(data))
        << "row " << i << " length " << data.size();
  }
}

struct GoldenFilter {
  std::string policy;
  std::string kind;
  double bits_per_key;
  int format_version;
  std::size_t num_keys;
  ByteVector bytes;
  std::string answers;
};

std::vector<GoldenFilter> GoldenFilters() {
  const testing::TsvTable t = ReadTsvFixture("rocksdb/raw_filters.tsv");
  std::vector<GoldenFilter> out;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    GoldenFilter g;
    g.policy = t.At(i, "policy");
    g.kind = t.At(i, "kind");
    g.bits_per_key = std::stod(t.At(i, "bits_per_key"));
    g.format_version = std::stoi(t.At(i, "format_version"));
    g.num_keys = std::stoul(t.At(i, "num_keys"));
    g.bytes = ReadFixture("rocksdb/" + t.At(i, "file"));
    EXPECT_EQ(g.bytes.size(), std::stoul(t.At(i, "filter_len"))) << t.At(i, "file");
    g.answers = t.At(i, "probe_answers");
    out.push_back(std::move(g));
  }
  return out;
}

KeyList FirstKeys(std::size_t n) {
  KeyList keys;
  for (std::size_t i = 0; i < n; ++i) keys.Add(GoldenKeys()[i]);
  return keys;
}

TEST(RocksdbFilterGolden, EveryRawFilterAnswersEveryProbe) {
  const auto filters = GoldenFilters();
  ASSERT_EQ(filters.size(), 78U);
  for (const GoldenFilter& g : filters) {
    auto r = FullFilterReader::Parse(g.bytes, g.policy);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Answers(r.value(), GoldenProbes()), g.answers) << g.policy << " n=" << g.num_keys;
    EXPECT_EQ(SingleAnswers(r.value(), GoldenProbes()), g.answers)
        << g.policy << " n=" << g.num_keys;
  }
}

TEST(RocksdbFilterGolden, EveryRawFilterRebuiltByteForByte) {
  for (const GoldenFilter& g : GoldenFilters()) {
    const FilterEncoding encoding = g.kind == "ribbon"     ? FilterEncoding::kRibbon
                                    : g.format_version < 5 ? FilterEncoding::kLegacyBloom
                                                           : FilterEncoding::kFastLocalBloom;
    auto built = BuildFullFilter(encoding, g.bits_per_key, FirstKeys(g.num_keys));
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    EXPECT_EQ(ToHex(built.value()), ToHex(g.bytes)) << g.policy << " n=" << g.num_keys;
  }
}

TEST(RocksdbFilterGolden, EveryBuiltKeyMatches) {
  for (const GoldenFilter& g : GoldenFilters()) {
    auto r = FullFilterReader::Parse(g.bytes, g.policy);
    ASSERT_TRUE(r.ok());
    const KeyList keys = FirstKeys(g.num_keys);
    std::vector<std::uint8_t> a(keys.size());
    r.value().MayContainBatch(keys, a);
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i], 1) << g.policy << " n=" << g.num_keys << " key " << i;
    }
  }
}

TEST(RocksdbFilterGolden, EdgeFilters) {
  const testing::TsvTable t = ReadTsvFixture("rocksdb/edge_filters.tsv");
  ASSERT_EQ(t.rows.size(), 11U);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ByteVector bytes = HexBytes(t.At(i, "filter_hex"));
    auto r = FullFilterReader::Parse(bytes, t.At(i, "name"));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Answers(r.value(), GoldenProbes()), t.At(i, "probe_answers")) << t.At(i, "name");
  }
}

}  // namespace
}  // namespace bloomcodec::rocksdb

// Every golden Filter.db, legacy filter and row filter: parsed, rebuilt from its keys byte for
// byte, re-serialized, and every probe answered as the original answered it.
#include <gtest/gtest.h>

#include <vector>

#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "formats/cassandra/family.h"
#include "golden_util.h"

namespace bloomcodec::cassandra {
namespace {

using bloomcodec::testing::ReadFixture;
using bloomcodec::testing::ReadHexKeysFixture;
using bloomcodec::testing::ReadTsvFixture;
using testing::kDir;
using testing::ParseI64;
using testing::Probes;
using testing::ReadProbes;

const FormatCodec& Codec(std::string_view name) {
  for (const FormatCodec* f : Formats()) {
    if (f->name() == name) return *f;
  }
  throw std::logic_error("no format");
}

// Answers of `filter` for the probes, batch and one by one (they must agree).
void ExpectProbes(const Filter& filter, const Probes& p, std::int64_t positives,
                  const std::string& where) {
  std::vector<std::uint8_t> batch(p.keys.size());
  filter.MayContainBatch(p.keys, batch);
  std::int64_t ones = 0;
  for (std::size_t i = 0; i < p.keys.size(); ++i) {
    ASSERT_EQ(batch[i], p.answers[i]) << where << " probe " << i;
    ASSERT_EQ(filter.MayContain(p.keys[i]) ? 1 : 0, p.answers[i]) << where << " probe " << i;
    ones += batch[i];
  }
  EXPECT_EQ(ones, positives) << where;
}

void ExpectAllPresent(const Filter& filter, const KeyList& keys, const std::string& where) {
  std::vector<std::uint8_t> answers(keys.size());
  filter.MayContainBatch(keys, answers);
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(answers[i], 1) << where << " key " << i;
}

TEST(CassandraFilterGolden, EveryFilterDb) {
  auto t = ReadTsvFixture(kDir + "filters/filters.tsv");
  ASSERT_EQ(t.rows.size(), 20u);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::string name = t.At(i, "name");
    const ByteVector file = ReadFixture(kDir + t.At(i, "file"));
    ASSERT_EQ(static_cast<std::int64_t>(file.size()), ParseI64(t.At(i, "file_bytes"))) << name;

    auto parsed = V10Filter::Parse(file, name);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_FALSE(parsed->owning());
    EXPECT_EQ(parsed->serialized().data(), file.data()) << "zero-copy view";
    EXPECT_EQ(parsed->signed_hash_count(), ParseI64(t.At(i, "hash_count"))) << name;
    EXPECT_EQ(parsed->word_count(), ParseI64(t.At(i, "word_count"))) << name;
    EXPECT_EQ(parsed->modulus(), ParseI64(t.At(i, "size_bits"))) << name;
    EXPECT_EQ(parsed->trailing_bytes(), 0u);

    // Rebuild from the keys with the original's sizing.
    const std::string overload = t.At(i, "overload");
    const std::int64_t n_sized = ParseI64(t.At(i, "n_sized"));
    KeyList keys;
    if (!t.At(i, "keys_file").empty()) keys = ReadHexKeysFixture(kDir + t.At(i, "keys_file"));
    ASSERT_EQ(static_cast<std::int64_t>(keys.size()), ParseI64(t.At(i, "n_inserted"))) << name;
    ByteVector rebuilt;
    if (overload == "emptyFilter") {
      V10Filter empty = V10Filter::Empty();
      rebuilt.assign(empty.serialized().begin(), empty.serialized().end());
    } else {
      FilterParams params;
      params.expected_keys = n_sized;
      Result<FilterSpec> spec = Status::InvalidArgument("?");
      if (overload == "buckets") {
        params.buckets_per_element = ParseI64(t.At(i, "param"));
        spec = SizeForBucketsPerElement(n_sized,
                                        static_cast<std::int32_t>(*params.buckets_per_element));
      } else {
        ASSERT_EQ(overload, "fp");
        params.fp_chance = std::strtod(t.At(i, "param").c_str(), nullptr);
        spec = SizeForFpChance(n_sized, *params.fp_chance);
      }
      ASSERT_TRUE(spec.ok()) << name;
      auto built = BuildV10Filter(keys, *spec);
      ASSERT_TRUE(built.ok()) << name;
      rebuilt = std::move(built).value();
      auto via_cli = Codec("cassandra-1.0").Build(keys, params);
      ASSERT_TRUE(via_cli.ok()) << name;
      EXPECT_EQ(*via_cli, file) << name << " (codec build)";
    }
    EXPECT_EQ(rebuilt, file) << name << ": rebuilt bytes differ";

    ExpectAllPresent(*parsed, keys, name);
    const Probes p = ReadProbes(kDir + t.At(i, "probes_file"));
    ASSERT_EQ(static_cast<std::int64_t>(p.keys.size()), ParseI64(t.At(i, "probes"))) << name;
    ExpectProbes(*parsed, p, ParseI64(t.At(i, "probe_positives")), name);
    std::vector<std::uint8_t> answers(p.keys.size());
    ASSERT_TRUE(Codec("cassandra-1.0").Probe(file, name, p.keys, {}, answers).ok());
    EXPECT_EQ(answers, p.answers) << name << " (codec probe)";
  }
}

TEST(CassandraFilterGolden, EveryLegacyFilter) {
  auto t = ReadTsvFixture(kDir + "legacy/legacy_filters.tsv");
  ASSERT_EQ(t.rows.size(), 6u);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::string name = t.At(i, "name");
    const ByteVector file = ReadFixture(kDir + t.At(i, "file"));
    ASSERT_EQ(static_cast<std::int64_t>(file.size()), ParseI64(t.At(i, "file_bytes")));
    auto parsed = LegacyFilter::Parse(file, name);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->signed_hash_count(), ParseI64(t.At(i, "hash_count"))) << name;
    EXPECT_EQ(parsed->word_count(), ParseI64(t.At(i, "bitset_words"))) << name;
    EXPECT_EQ(parsed->modulus(), ParseI64(t.At(i, "bitset_size_bits"))) << name;
    EXPECT_EQ(parsed->Serialize(), file) << name << ": re-written bytes differ";

    const KeyList keys = ReadHexKeysFixture(kDir + t.At(i, "keys_file"));
    ASSERT_EQ(static_cast<std::int64_t>(keys.size()), ParseI64(t.At(i, "n_inserted")));
    const std::int64_t n = static_cast<std::int64_t>(keys.size());
    FilterParams params;
    Result<LegacyFilterSpec> spec = Status::InvalidArgument("?");
    if (t.At(i, "overload") == "buckets") {
      params.buckets_per_element = ParseI64(t.At(i, "param"));
      spec =
          LegacySizeForBucketsPerElement(n, static_cast<std::int32_t>(*params.buckets_per_element));
    } else {
      params.fp_chance = std::strtod(t.At(i, "param").c_str(), nullptr);
      spec = LegacySizeForFpChance(n, *params.fp_chance);
    }
    ASSERT_TRUE(spec.ok());
    auto built = BuildLegacyFilter(keys, *spec);
    ASSERT_TRUE(built.ok());
    EXPECT_EQ(*built, file) << name << ": rebuilt bytes differ";
    auto via_cli = Codec("cassandra-legacy").Build(keys, params);
    ASSERT_TRUE(via_cli.ok());
    EXPECT_EQ(*via_cli, file) << name;

    ExpectAllPresent(*parsed, keys, name);
    const Probes p = ReadProbes(kDir + t.At(i, "probes_file"));
    ASSERT_EQ(static_cast<std::int64_t>(p.keys.size()), ParseI64(t.At(i, "probes")));
    ExpectProbes(*parsed, p, ParseI64(t.At(i, "probe_positives")), name);
    std::vector<std::uint8_t> answers(p.keys.size());
    ASSERT_TRUE(Codec("cassandra-legacy").Probe(file, name, p.keys, {}, answers).ok());
    EXPECT_EQ(answers, p.answers) << name;
  }
}

TEST(CassandraFilterGolden, EveryRowFilter) {
  auto t = ReadTsvFixture(kDir + "rowfilter/rowfilters.tsv");
  ASSERT_EQ(t.rows.size(), 6u);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::string name = t.At(i, "name");
    const ByteVector file = ReadFixture(kDir + t.At(i, "file"));
    ASSERT_EQ(static_cast<std::int64_t>(file.size()), ParseI64(t.At(i, "file_bytes")));
    auto parsed = RowFilter::Parse(file, name);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->length_prefix(), ParseI64(t.At(i, "length_prefix")));
    EXPECT_EQ(parsed->consumed_bytes(), file.size());
    ASSERT_NE(parsed->v10(), nullptr);
    EXPECT_EQ(parsed->v10()->signed_hash_count(), ParseI64(t.At(i, "hash_count")));
    EXPECT_EQ(parsed->v10()->word_count(), ParseI64(t.At(i, "word_count")));
    EXPECT_EQ(parsed->v10()->modulus(), ParseI64(t.At(i, "size_bits")));

    const KeyList names = ReadHexKeysFixture(kDir + t.At(i, "names_file"));
    ASSERT_EQ(static_cast<std::int64_t>(names.size()), ParseI64(t.At(i, "names_added")));
    const std::int64_t estimated = ParseI64(t.At(i, "estimated_columns"));
    auto built = BuildRowFilter(names, estimated);
    ASSERT_TRUE(built.ok());
    EXPECT_EQ(*built, file) << name << ": rebuilt bytes differ";
    FilterParams params;
    params.expected_keys = estimated;
    auto via_cli = Codec("cassandra-1.0-row").Build(names, params);
    ASSERT_TRUE(via_cli.ok());
    EXPECT_EQ(*via_cli, file) << name;

    ExpectAllPresent(parsed->filter(), names, name);
    const Probes p = ReadProbes(kDir + t.At(i, "probes_file"));
    ASSERT_EQ(static_cast<std::int64_t>(p.keys.size()), ParseI64(t.At(i, "probes")));
    ExpectProbes(parsed->filter(), p, ParseI64(t.At(i, "probe_positives")), name);
    std::vector<std::uint8_t> answers(p.keys.size());
    ASSERT_TRUE(Codec("cassandra-1.0-row").Probe(file, name, p.keys, {}, answers).ok());
    EXPECT_EQ(answers, p.answers) << name;
  }
}

// Each fixed field of the legacy stream, altered in a real file, is refused at its offset.
TEST(CassandraFilterGolden, LegacyRejectsEachAlteredField) {
  const ByteVector good = ReadFixture(kDir + "legacy/legacy_n10_b15.Filter.db");
  ASSERT_TRUE(LegacyFilter::Parse(good, "f").ok());
  struct Case {
    std::size_t offset;
    const char* what;
  } cases[] = {{4, "magic"},
               {7, "version"},
               {8, "TC_OBJECT"},
               {20, "class name"},
               {30, "serialVersionUID"},
               {36, "flags"},
               {39, "field type"},
               {42, "field name"},
               {47, "TC_STRING"},
               {53, "TC_ARRAY"},
               {57, "array class"},
               {60, "array uid"},
               {67, "array flags"},
               {good.size() - 1, "end block data"}};
  for (const Case& c : cases) {
    ByteVector bad = good;
    bad[c.offset] ^= 0x01;
    auto r = LegacyFilter::Parse(bad, "f");
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.status().code(), StatusCode::kCorrupt) << c.what;
    EXPECT_EQ(r.status().offset(), c.offset) << c.what << ": " << r.status().ToString();
  }
  // An array length beyond the file: refused at the length, before touching the words.
  ByteVector huge = good;
  huge[72] = 0x01;
  auto r = LegacyFilter::Parse(huge, "f");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
  // Trailing bytes are ignored as the original ignores them, but reported.
  ByteVector longer = good;
  longer.push_back(0);
  auto l = LegacyFilter::Parse(longer, "f");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->trailing_bytes(), 1u);
  EXPECT_EQ(l->Serialize(), good);
}

}  // namespace
}  // namespace bloomcodec::cassandra

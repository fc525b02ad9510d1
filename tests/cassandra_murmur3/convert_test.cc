// Conversions among the 1.2 - 5.0 formats and to/from the others, and dump/undump round trips,
// over the golden filters.
#include "bloomcodec/convert.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "murmur3_util.h"

namespace bloomcodec::cassandra {
namespace {

using bloomcodec::testing::ReadFixture;
using bloomcodec::testing::ReadHexKeysFixture;
using murmur3_testing::Codec;
using murmur3_testing::kDir;

Result<Conversion> ConvertWith(const ByteVector& in, const std::string& from, const std::string& to,
                               const KeyList* keys = nullptr,
                               std::optional<double> fp = std::nullopt) {
  ConvertInput input;
  input.source = "in-" + from;
  input.bytes = in;
  input.format = &Codec(from);
  ConvertOptions options;
  options.to = &Codec(to);
  std::unique_ptr<KeyStream> stream = keys ? KeyListStream(*keys, "keys") : nullptr;
  options.keys = stream.get();
  options.params.fp_chance = fp;
  return Convert(input, options);
}

TEST(CassandraMurmur3Convert, ThreeToFourAndBackIsLossless) {
  for (const std::string name : {"n0_fp0.01", "n1_fp0.1", "n1000_fp0.001", "n100000_fp0.01"}) {
    const ByteVector v3 = ReadFixture(kDir + "v3_x/" + name + ".Filter.db");
    const ByteVector v4 = ReadFixture(kDir + "v4_0_to_5_0/" + name + ".Filter.db");
    auto to4 = ConvertWith(v3, "cassandra-3.0", "cassandra-4.0");
    ASSERT_TRUE(to4.ok()) << to4.status().ToString();
    EXPECT_EQ(to4->kind, ConversionKind::kLossless);
    EXPECT_EQ(to4->files.at(0).bytes, v4) << name;
    auto to3 = ConvertWith(v4, "cassandra-4.0", "cassandra-3.0");
    ASSERT_TRUE(to3.ok());
    EXPECT_EQ(to3->files.at(0).bytes, v3) << name;
  }
}

TEST(CassandraMurmur3Convert, AlwaysPresentHasNoLongForm) {
  auto r = ConvertWith(ReadFixture(kDir + "v4_0_to_5_0/n10_fp1.0.Filter.db"), "cassandra-4.0",
                       "cassandra-3.0");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kRefused);
}

TEST(CassandraMurmur3Convert, BetweenIndexOrdersIsARebuildFromKeys) {
  const ByteVector v12 = ReadFixture(kDir + "v1_2_to_2_2/n1000_fp0.01.Filter.db");
  const KeyList keys = ReadHexKeysFixture(kDir + "keys/keys_n1000.txt");
  auto without = ConvertWith(v12, "cassandra-1.2", "cassandra-3.0");
  ASSERT_FALSE(without.ok());
  EXPECT_EQ(without.status().code(), StatusCode::kRefused);
  // Rebuilt from the keys with the fp chance: exactly the original's file of the other era.
  for (const auto& v : murmur3_testing::Variants()) {
    auto r = ConvertWith(v12, "cassandra-1.2", v.format, &keys, 0.01);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->files.at(0).bytes, ReadFixture(kDir + v.folder + "/n1000_fp0.01.Filter.db"))
        << v.format;
  }
  // And back from 4.0 to 1.2.
  auto back = ConvertWith(ReadFixture(kDir + "v4_0_to_5_0/n1000_fp0.01.Filter.db"), "cassandra-4.0",
                          "cassandra-1.2", &keys, 0.01);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->files.at(0).bytes, v12);
}

TEST(CassandraMurmur3Convert, RefusesKeysTheFilterDoesNotHold) {
  const ByteVector v3 = ReadFixture(kDir + "v3_x/n1000_fp0.01.Filter.db");
  const KeyList other = ReadHexKeysFixture(kDir + "keys/keys_n10.txt");
  auto r = ConvertWith(v3, "cassandra-3.0", "cassandra-1.2", &other, 0.01);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kRefused);
  // Too few keys for the fill (a subset): refused as well.
  KeyList subset;
  const KeyList all = ReadHexKeysFixture(kDir + "keys/keys_n1000.txt");
  for (std::size_t i = 0; i < 100; ++i) subset.Add(all[i]);
  auto s = ConvertWith(v3, "cassandra-3.0", "cassandra-4.0", &subset, 0.01);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kRefused);
}

TEST(CassandraMurmur3Convert, ToAndFromOtherFamilies) {
  const KeyList keys = ReadHexKeysFixture(kDir + "keys/keys_n1000.txt");
  const ByteVector v4 = ReadFixture(kDir + "v4_0_to_5_0/n1000_fp0.01.Filter.db");
  ConvertInput input;
  input.source = "v4";
  input.bytes = v4;
  input.format = &Codec("cassandra-4.0");
  ConvertOptions options;
  options.to = &Codec("leveldb-bloom");
  const std::unique_ptr<KeyStream> stream = KeyListStream(keys, "keys");
  options.keys = stream.get();
  options.params.bits_per_key = 10;
  auto to_leveldb = Convert(input, options);
  ASSERT_TRUE(to_leveldb.ok()) << to_leveldb.status().ToString();
  EXPECT_EQ(to_leveldb->kind, ConversionKind::kRebuilt);
  // From the LevelDB filter back to cassandra-4.0: the golden bytes again.
  ConvertInput back;
  back.source = "ldb";
  back.bytes = to_leveldb->files.at(0).bytes;
  back.format = &Codec("leveldb-bloom");
  ConvertOptions to4;
  to4.to = &Codec("cassandra-4.0");
  to4.keys = stream.get();
  to4.params.fp_chance = 0.01;
  auto again = Convert(back, to4);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->files.at(0).bytes, v4);
}

TEST(CassandraMurmur3Convert, DumpUndumpEveryGoldenFile) {
  for (const auto& v : murmur3_testing::Variants()) {
    for (const std::string name : {"n0_fp0.01", "n2_fp0.1", "n1000_fp0.5", "n100000_fp0.1"}) {
      const ByteVector file = ReadFixture(kDir + v.folder + "/" + name + ".Filter.db");
      const FormatCodec& codec = Codec(v.format);
      auto dump = codec.Dump(file, name);
      ASSERT_TRUE(dump.ok()) << dump.status().ToString();
      EXPECT_EQ((*dump)["format"], v.format);
      auto back = codec.Undump(*dump, name);
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      EXPECT_EQ(*back, file) << v.format << " " << name;
      // Through the JSON text and the convert engine, as `convert dump.json --to F` does.
      const std::string text = dump->dump();
      ConvertInput input;
      input.source = "dump.json";
      input.bytes = AsBytes(std::string_view(text));
      ConvertOptions options;
      options.to = &codec;
      auto c = Convert(input, options);
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      EXPECT_EQ(c->files.at(0).bytes, file);
    }
  }
  // With trailing bytes, and the 0-byte always-present file.
  ByteVector trailing = ReadFixture(kDir + "v3_x/n10_fp0.01.Filter.db");
  trailing.push_back(0x42);
  auto d = Codec("cassandra-3.0").Dump(trailing, "t");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*Codec("cassandra-3.0").Undump(*d, "t"), trailing);
  const ByteVector empty;
  auto e = Codec("cassandra-4.0").Dump(empty, "e");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)["always_present"], true);
  EXPECT_TRUE(Codec("cassandra-4.0").Undump(*e, "e")->empty());
  // A dump whose bits disagree with its word count is refused.
  Document bad = *Codec("cassandra-3.0").Dump(ReadFixture(kDir + "v3_x/n10_fp0.01.Filter.db"), "b");
  bad["word_count"] = 7;
  EXPECT_EQ(Codec("cassandra-3.0").Undump(bad, "b").status().code(), StatusCode::kCorrupt);
}

// Inspect of every golden filter: the header and the candidates of FilterFactory's sizing,
// including K = 2 with 1 bucket per element (fp >= 0.393), which BloomCalculations' table has no
// false-positive rate for (found by formats_fuzzer: the look-up must not run past row 1).
TEST(CassandraMurmur3Convert, InspectEveryGoldenFilter) {
  for (const auto& v : murmur3_testing::Variants()) {
    for (const std::string name : {"n1000_fp0.5", "n1000_fp0.01", "n1000_fp0.1", "n1000_fp0.0001",
                                   "n0_fp0.01", "n100000_fp0.01"}) {
      const ByteVector file = ReadFixture(kDir + v.folder + "/" + name + ".Filter.db");
      auto doc = Codec(v.format).Inspect(file, name);
      ASSERT_TRUE(doc.ok()) << doc.status().ToString();
      EXPECT_EQ((*doc)["word_count"], (file.size() - 8) / 8) << name;
      const Document& candidates = (*doc)["sizing"]["candidates"];
      ASSERT_FALSE(candidates.empty()) << name;
      if (name == "n1000_fp0.5") {
        EXPECT_EQ((*doc)["hash_count"], 2);
        bool one_bucket = false;
        for (const Document& c : candidates) {
          if (c["buckets_per_element"] == 1) {
            one_bucket = true;
            EXPECT_TRUE(c["promised_false_positive_rate"].is_null());
            EXPECT_EQ(c["sized_for_keys"], 1024 - 20);
          }
        }
        EXPECT_TRUE(one_bucket);
      }
      if (name == "n1000_fp0.01") {
        EXPECT_EQ((*doc)["sizing"]["buckets_per_element"], 10);
        EXPECT_EQ((*doc)["sizing"]["sized_for_keys"], 1002);
      }
    }
  }
}

TEST(CassandraMurmur3Convert, DamagedFilesAreCorruptWithOffsets) {
  const ByteVector file = ReadFixture(kDir + "v1_2_to_2_2/n10_fp0.01.Filter.db");
  KeyList probe;
  probe.Add(std::string_view("x"));
  std::vector<std::uint8_t> answers(1);
  for (const auto& v : murmur3_testing::Variants()) {
    for (std::size_t cut = 0; cut < file.size(); ++cut) {
      if (cut == 0 && v.era == Era::kV40) continue;  // always-present
      Status s = Codec(v.format).Probe(ByteSpan(file).first(cut), "f", probe, {}, answers);
      ASSERT_EQ(s.code(), StatusCode::kCorrupt) << v.format << " cut " << cut;
      ASSERT_TRUE(s.offset().has_value()) << s.ToString();
      EXPECT_LE(*s.offset(), cut) << s.ToString();
    }
  }
  // K > 21: Cassandra cannot look the filter up; a clear error instead of an answer.
  ByteVector k22 = file;
  k22[3] = 22;
  Status s = Codec("cassandra-3.0").Probe(k22, "k22", probe, {}, answers);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.ToString().find("ArrayIndexOutOfBoundsException"), std::string::npos);
  ByteVector k21 = file;
  k21[3] = 21;
  EXPECT_TRUE(Codec("cassandra-3.0").Probe(k21, "k21", probe, {}, answers).ok());
  // W = 0 and negative K.
  ByteVector w0 = {0, 0, 0, 5, 0, 0, 0, 0};
  EXPECT_EQ(Codec("cassandra-4.0").Probe(w0, "w0", probe, {}, answers).code(),
            StatusCode::kCorrupt);
  ByteVector kneg = file;
  kneg[0] = 0xff;
  EXPECT_EQ(Codec("cassandra-1.2").Probe(kneg, "kneg", probe, {}, answers).code(),
            StatusCode::kCorrupt);
}

}  // namespace
}  // namespace bloomcodec::cassandra

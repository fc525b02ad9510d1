// The FormatCodecs pebble-bloom and pebble-binaryfuse (not registered yet: reached through
// formats/pebble/format_codecs.h): build, streamed build, size, hash, probe, inspect, dump and
// undump agree with the library functions and with each other, and refuse what Pebble refuses.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <set>
#include <string>
#include <vector>

#include "leveldb/random_keys.h"
#include "pebble/binary_fuse.h"
#include "pebble/bloom.h"
#include "pebble/format_codecs.h"

namespace bloomcodec::pebble {
namespace {

using ::bloomcodec::testing::RandomKeys;

KeyList Keys(std::uint64_t seed, std::size_t n) {
  KeyList keys;
  for (const std::string& k : RandomKeys(seed, n)) keys.Add(k);
  return keys;
}

FilterParams Bits(double b) {
  FilterParams p;
  p.bits_per_key = b;
  return p;
}

ByteVector Streamed(const FormatCodec* codec, const KeyList& keys, const FilterParams& params,
                    std::size_t chunk) {
  auto builder = codec->StartBuild(keys.size(), params);
  EXPECT_TRUE(builder.ok()) << builder.status().ToString();
  std::vector<ByteSpan> views;
  for (std::size_t i = 0; i < keys.size(); ++i) views.push_back(keys[i]);
  for (std::size_t at = 0; at < views.size(); at += chunk) {
    const std::size_t m = std::min(chunk, views.size() - at);
    EXPECT_TRUE((*builder)->Add(std::span<const ByteSpan>(views).subspan(at, m)).ok());
  }
  auto out = (*builder)->Finish();
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : ByteVector();
}

void ExpectDumpRoundTrip(const FormatCodec* codec, const ByteVector& bytes) {
  auto dump = codec->Dump(bytes, "f");
  ASSERT_TRUE(dump.ok());
  auto back = codec->Undump(*dump, "f");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, bytes);
  if (dump->contains("num_probes") || dump->contains("seed")) {
    Document fields = *dump;  // hand-written dumps: the trailer from its decoded fields
    fields.erase("trailer_hex");
    auto composed = codec->Undump(fields, "f");
    ASSERT_TRUE(composed.ok()) << composed.status().ToString();
    EXPECT_EQ(*composed, bytes);
  }
}

TEST(PebbleFilterCodec, Bloom) {
  const FormatCodec* codec = BloomCodec();
  EXPECT_EQ(codec->name(), "pebble-bloom");
  const KeyList keys = Keys(1, 3000);
  auto built = codec->Build(keys, Bits(10));
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(*built, BuildBloom(BloomPolicy{}, keys)->value());
  for (std::size_t chunk : {1U, 7U, 4096U})
    EXPECT_EQ(Streamed(codec, keys, Bits(10), chunk), *built);
  EXPECT_EQ(codec->Build(KeyList(), Bits(10))->size(), 0u);  // Pebble <= 26.1's empty block
  EXPECT_EQ(codec->Build(keys, Bits(9.5)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(codec->Build(keys, Bits(0)).status().code(), StatusCode::kInvalidArgument);
  FilterParams fp;
  fp.fp_chance = 0.01;
  EXPECT_EQ(codec->Build(keys, fp).status().code(), StatusCode::kInvalidArgument);
  FilterParams expected = Bits(10);
  expected.expected_keys = 5;
  EXPECT_EQ(codec->Build(keys, expected).status().code(), StatusCode::kInvalidArgument);

  const std::size_t distinct = CollapsedBloomHashes(keys, HashFlavor::kSignedTail).size();
  FilterParams sizing = Bits(10);
  sizing.expected_keys = static_cast<std::int64_t>(distinct);
  auto size = codec->Size(sizing);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(size->file_bytes, static_cast<std::int64_t>(built->size()));
  EXPECT_EQ(size->hash_count, 6);
  EXPECT_EQ(size->bits, static_cast<std::int64_t>(built->size() - 5) * 8);

  std::string line;
  ASSERT_TRUE(codec->Hash(AsBytes("hello"), line).ok());
  EXPECT_EQ(line, std::to_string(BloomKeyHash(AsBytes("hello"))));

  std::vector<std::uint8_t> answers(keys.size());
  ASSERT_TRUE(codec->Probe(*built, "f", keys, {}, answers).ok());
  for (std::uint8_t a : answers) ASSERT_EQ(a, 1);
  ByteVector broken = *built;
  broken[broken.size() - 4] = 0;  // lines 0 (the count is small: its high bytes are 0)
  broken[broken.size() - 3] = 0;
  EXPECT_EQ(codec->Probe(broken, "f", keys, {}, answers).code(), StatusCode::kCorrupt);

  auto doc = codec->Inspect(*built, "f");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ((*doc)["format"], "pebble-bloom");
  EXPECT_EQ((*doc)["num_probes"], 6);
  EXPECT_EQ((*doc)["line_bytes"], 64);
  const Document& rounded = (*doc)["policy"]["rounded_probes"];
  EXPECT_LE(rounded["bits_per_key_min"].get<int>(), 10);
  EXPECT_GE(rounded["bits_per_key_max"].get<int>(), 10);
  EXPECT_LE(rounded["sized_for_keys_min"].get<std::uint64_t>(), distinct);
  EXPECT_GE(rounded["sized_for_keys_max"].get<std::uint64_t>(), distinct);
  // The fill estimates the distinct keys (RandomKeys repeats about one in eight).
  std::set<std::string> unique;
  for (std::size_t i = 0; i < keys.size(); ++i) unique.insert(std::string(AsChars(keys[i])));
  const double estimate = (*doc)["estimated_keys"].get<double>();
  EXPECT_NEAR(estimate, static_cast<double>(unique.size()),
              0.1 * static_cast<double>(unique.size()));

  ExpectDumpRoundTrip(codec, *built);
  for (std::size_t n = 0; n <= 7; ++n) ExpectDumpRoundTrip(codec, ByteVector(n, 0x5A));
  ExpectDumpRoundTrip(codec, broken);  // dumps take what the reader refuses

  // The probe table's codec: 9 bits per key, 5 probes.
  auto table = BloomCodec(BloomProbes::kTable)->Build(keys, Bits(9));
  ASSERT_TRUE(table.ok());
  EXPECT_EQ((*table)[table->size() - 5], 5);
  EXPECT_EQ((*codec->Build(keys, Bits(9)))[table->size() - 5], 6);
}

TEST(PebbleFilterCodec, BinaryFuse) {
  const FormatCodec* codec = BinaryFuseCodec();
  EXPECT_EQ(codec->name(), "pebble-binaryfuse");
  const KeyList keys = Keys(2, 5000);
  for (std::uint32_t bits : {4U, 8U, 10U, 12U, 16U}) {
    auto built = codec->Build(keys, Bits(bits));
    ASSERT_TRUE(built.ok());
    EXPECT_EQ(*built, BuildBinaryFuse(bits, keys)->value());
    EXPECT_EQ(Streamed(codec, keys, Bits(bits), 333), *built);
    const std::size_t distinct = CollapsedBinaryFuseHashes(keys).size();
    FilterParams sizing = Bits(bits);
    sizing.expected_keys = static_cast<std::int64_t>(distinct);
    auto size = codec->Size(sizing);
    ASSERT_TRUE(size.ok());
    EXPECT_EQ(size->file_bytes, static_cast<std::int64_t>(built->size()));
    EXPECT_EQ(size->hash_count, 3);
    std::vector<std::uint8_t> answers(keys.size());
    ASSERT_TRUE(codec->Probe(*built, "f", keys, {}, answers).ok());
    for (std::uint8_t a : answers) ASSERT_EQ(a, 1);
    auto doc = codec->Inspect(*built, "f");
    ASSERT_TRUE(doc.ok());
    EXPECT_EQ((*doc)["fingerprint_bits"], bits);
    EXPECT_DOUBLE_EQ((*doc)["estimated_false_positive_rate"].get<double>(),
                     1.0 / static_cast<double>(1U << bits));
    const Document& policy = (*doc)["policy"];
    EXPECT_LE(policy["sized_for_keys_min"].get<std::uint64_t>(), distinct);
    EXPECT_GE(policy["sized_for_keys_max"].get<std::uint64_t>(), distinct);
    EXPECT_FALSE(doc->contains("payload_note"));
    ExpectDumpRoundTrip(codec, *built);
  }
  for (double bad : {0.0, 3.0, 9.0, 32.0, 8.5}) {
    EXPECT_EQ(codec->Build(keys, Bits(bad)).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(codec->Build(KeyList(), Bits(8)).status().code(), StatusCode::kRefused);
  FilterParams none = Bits(8);
  none.expected_keys = 0;
  EXPECT_EQ(codec->Size(none)->writes_filter_file, false);
  std::string line;
  ASSERT_TRUE(codec->Hash(AsBytes("hello"), line).ok());
  EXPECT_EQ(line, std::to_string(XXH3_64bits("hello", 5)));
  for (std::size_t n = 0; n <= 16; ++n) ExpectDumpRoundTrip(codec, ByteVector(n, 0xC3));
  std::vector<std::uint8_t> answers(keys.size());
  ByteVector bad_bits = codec->Build(keys, Bits(8)).value();
  bad_bits.back() = 9;
  EXPECT_EQ(codec->Probe(bad_bits, "f", keys, {}, answers).code(), StatusCode::kCorrupt);
  EXPECT_EQ(codec->Inspect(bad_bits, "f").status().code(), StatusCode::kCorrupt);
}

}  // namespace
}  // namespace bloomcodec::pebble

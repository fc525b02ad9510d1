// The three FormatCodecs as the command line uses them, and the strict Filter.db reader.
#include <gtest/gtest.h>

#include <vector>

#include "bloomcodec/cassandra/buckets.h"
#include "bloomcodec/cassandra/legacy_filter.h"
#include "bloomcodec/cassandra/row_filter.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "formats/cassandra/family.h"

namespace bloomcodec::cassandra {
namespace {

const FormatCodec& Codec(std::string_view name) {
  for (const FormatCodec* f : Formats()) {
    if (f->name() == name) return *f;
  }
  throw std::logic_error("no format");
}

TEST(CassandraCodecs, OrderAndClaims) {
  auto all = Formats();
  ASSERT_EQ(all.size(), 7u);
  EXPECT_EQ(all[0]->name(), "cassandra-1.0");
  EXPECT_EQ(all[1]->name(), "cassandra-legacy");
  EXPECT_EQ(all[2]->name(), "cassandra-0.6");
  EXPECT_EQ(all[3]->name(), "cassandra-1.0-row");
  EXPECT_EQ(all[4]->name(), "cassandra-1.2");
  EXPECT_EQ(all[5]->name(), "cassandra-3.0");
  EXPECT_EQ(all[6]->name(), "cassandra-4.0");
  EXPECT_TRUE(all[4]->Claims("Standard1-ia-5-Filter.db", {}));
  EXPECT_TRUE(all[0]->Claims("Keyspace1-Standard1-hc-12-Filter.db", {}));
  EXPECT_FALSE(all[1]->Claims("Keyspace1-Standard1-hc-12-Filter.db", {}));
  EXPECT_TRUE(all[1]->Claims("data/ks/Standard1-e-5-Filter.db", {}));
  EXPECT_FALSE(all[0]->Claims("Standard1-e-5-Filter.db", {}));
  EXPECT_FALSE(all[0]->Claims("Standard1-hc-5-Data.db", {}));
  EXPECT_FALSE(all[0]->Claims("Standard1-ia-5-Filter.db", {}));
  // Versions before c (no version letters: a) are the 0.6 filter's.
  EXPECT_FALSE(all[0]->Claims("Standard1-5-Filter.db", {}));
  EXPECT_FALSE(all[1]->Claims("Standard1-5-Filter.db", {}));
  EXPECT_TRUE(all[2]->Claims("Standard1-5-Filter.db", {}));
  EXPECT_TRUE(all[2]->Claims("Keyspace1-Standard1-b-0-Filter.db", {}));
  EXPECT_FALSE(all[2]->Claims("Keyspace1-Standard1-c-0-Filter.db", {}));
  EXPECT_FALSE(all[3]->Claims("Standard1-hc-5-Data.db", {}));
}

TEST(CassandraCodecs, BuildParameters) {
  KeyList keys;
  keys.Add("a");
  FilterParams none;
  EXPECT_EQ(Codec("cassandra-1.0").Build(keys, none).status().code(), StatusCode::kInvalidArgument);
  FilterParams both;
  both.fp_chance = 0.01;
  both.buckets_per_element = 15;
  EXPECT_EQ(Codec("cassandra-1.0").Build(keys, both).status().code(), StatusCode::kInvalidArgument);
  FilterParams bits;
  bits.bits_per_key = 10;
  EXPECT_EQ(Codec("cassandra-legacy").Build(keys, bits).status().code(),
            StatusCode::kInvalidArgument);
  FilterParams b15;
  b15.buckets_per_element = 15;
  EXPECT_EQ(Codec("cassandra-1.0-row").Build(keys, b15).status().code(),
            StatusCode::kInvalidArgument);
  FilterParams tiny;
  tiny.fp_chance = 1e-5;
  auto refused = Codec("cassandra-1.0").Build(keys, tiny);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kRefused);
  EXPECT_EQ(refused.status().message(),
            "UnsupportedOperationException: Unable to satisfy 1.0E-5 with 20 buckets per element");
  // n = 2^40 keys: Java's int truncation would give a 1-word filter; we refuse instead.
  FilterParams absurd;
  absurd.buckets_per_element = 15;
  absurd.expected_keys = std::int64_t{1} << 40;
  EXPECT_EQ(Codec("cassandra-1.0").Build(keys, absurd).status().code(), StatusCode::kRefused);
  auto size = Codec("cassandra-1.0").Size(absurd);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(size->words, 1);
  EXPECT_FALSE(size->warnings.empty());
}

TEST(CassandraCodecs, HashLines) {
  std::string line;
  ASSERT_TRUE(Codec("cassandra-1.0").Hash({}, line).ok());
  EXPECT_EQ(line, "0\t0");
  const ByteVector key = {0x61, 0x62, 0x63, 0xff};
  ASSERT_TRUE(Codec("cassandra-1.0").Hash(key, line).ok());
  const KeyHashes64 h = HashKey64(key);
  EXPECT_EQ(line, std::to_string(h.h1) + "\t" + std::to_string(h.h2));
  ASSERT_TRUE(Codec("cassandra-legacy").Hash(key, line).ok());
  const KeyHashes32 h32 = HashKey32(key);
  EXPECT_EQ(line, std::to_string(h32.h1) + "\t" + std::to_string(h32.h2));
}

TEST(CassandraFilterDb, StrictReader) {
  // W = 2^31 - 1 in a 100-byte file: refused from the header, before any allocation.
  ByteVector f(100, 0);
  f[3] = 10;
  f[4] = 0x7f;
  f[5] = 0xff;
  f[6] = 0xff;
  f[7] = 0xff;
  auto r = V10Filter::Parse(f, "Filter.db");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(r.status().offset(), 8u);
  // W = 0 and W < 0
  ByteVector zero = {0, 0, 0, 10, 0, 0, 0, 0};
  r = V10Filter::Parse(zero, "Filter.db");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().offset(), 4u);
  ByteVector neg = {0, 0, 0, 10, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_FALSE(V10Filter::Parse(neg, "Filter.db").ok());
  // K < 0
  ByteVector negk = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
  r = V10Filter::Parse(negk, "Filter.db");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().offset(), 0u);
  // Short header.
  EXPECT_FALSE(V10Filter::Parse(ByteVector{0, 0, 0}, "Filter.db").ok());
  // Trailing bytes: accepted, reported, excluded from serialized().
  ByteVector longer = {0, 0, 0, 10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xaa, 0xbb};
  auto t = V10Filter::Parse(longer, "Filter.db");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->trailing_bytes(), 2u);
  EXPECT_EQ(t->serialized().size(), 16u);
  EXPECT_EQ(t->bits_set(), 1u);
}

TEST(CassandraFilterDb, DocumentedExampleAndEmptyFilter) {
  // One key hashing only to bucket 0 sets the lowest bit of the last byte of word 0.
  auto f = V10Filter::Create(10, 1);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(ToHex(f->serialized()), "0000000a000000010000000000000000");
  V10Filter empty = V10Filter::Empty();
  EXPECT_EQ(ToHex(empty.serialized()), "00000000000000010000000000000000");
  EXPECT_TRUE(empty.MayContain(AsBytes("anything")));  // K = 0 answers present
  EXPECT_FALSE(V10Filter::Create(3, 0).ok());
  EXPECT_FALSE(V10Filter::Create(3, -5).ok());
}

TEST(CassandraRowFilter, LengthPrefixChecks) {
  KeyList names;
  names.Add("col000001");
  auto bytes = BuildRowFilter(names, 1);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->size(), 20u);
  ByteVector row = *bytes;
  row.push_back(0x12);  // the row continues after the filter
  auto ok = RowFilter::Parse(row, "Data.db", false, 1000);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->consumed_bytes(), 20u);
  EXPECT_TRUE(ok->filter().MayContain(AsBytes("col000001")));
  ByteVector zero = row;
  zero[3] = 0;
  auto r = RowFilter::Parse(zero, "Data.db", false, 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().offset(), 1000u);
  ByteVector big = row;
  big[3] = 0x40;
  EXPECT_FALSE(RowFilter::Parse(big, "Data.db").ok());
  ByteVector neg = row;
  neg[0] = 0x80;
  EXPECT_FALSE(RowFilter::Parse(neg, "Data.db").ok());
}

}  // namespace
}  // namespace bloomcodec::cassandra

#include <gtest/gtest.h>

#include "cassandra/descriptor.h"

namespace bloomcodec::cassandra {
namespace {

TEST(CassandraDescriptor, V10Naming) {
  auto d = ParseDescriptor("/var/lib/cassandra/data/Keyspace1/Standard1-hc-12-Filter.db");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->column_family, "Standard1");
  EXPECT_EQ(d->keyspace, "");
  EXPECT_EQ(d->version, "hc");
  EXPECT_EQ(d->generation, 12);
  EXPECT_EQ(d->component, "Filter.db");
  EXPECT_FALSE(d->temporary);
  EXPECT_EQ(d->era(), Era::kV10);
}

TEST(CassandraDescriptor, KeyspacePrefixTemporaryAndLegacy) {
  auto a = ParseDescriptor("Keyspace1-Standard1-hc-12-Filter.db");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->keyspace, "Keyspace1");
  EXPECT_EQ(a->column_family, "Standard1");
  EXPECT_EQ(a->era(), Era::kV10);

  auto t = ParseDescriptor("Standard1-tmp-e-5-Filter.db");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->temporary);
  EXPECT_EQ(t->version, "e");
  EXPECT_EQ(t->era(), Era::kLegacy);

  // No version: the 0.6 naming, version "a", whose filter hashes keys as Java Strings.
  auto old = ParseDescriptor("Standard1-7-Filter.db");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->version, "a");
  EXPECT_EQ(old->era(), Era::kV06);
  EXPECT_EQ(Facts(old->era()).name, "cassandra-0.6");
  auto old_tmp = ParseDescriptor("Standard1-tmp-7-Data.db");
  ASSERT_TRUE(old_tmp.ok());
  EXPECT_TRUE(old_tmp->temporary);
  EXPECT_EQ(old_tmp->version, "a");
}

TEST(CassandraDescriptor, VersionTable) {
  EXPECT_EQ(EraForVersion("a"), Era::kV06);
  EXPECT_EQ(EraForVersion("b"), Era::kV06);
  EXPECT_EQ(EraForVersion("c"), Era::kLegacy);
  EXPECT_EQ(EraForVersion("d"), Era::kLegacy);
  EXPECT_EQ(EraForVersion("e"), Era::kLegacy);
  for (const char* v : {"f", "g", "h", "hb", "hc", "hd", "he", "hf"}) {
    EXPECT_EQ(EraForVersion(v), Era::kV10) << v;
  }
  // ia and later: the Murmur3 filters of 1.2 - 5.0 (tests/cassandra_murmur3).
  for (const char* v : {"ia", "ib", "ja", "ka", "la"}) {
    EXPECT_EQ(EraForVersion(v), Era::kV12) << v;
  }
  EXPECT_EQ(EraForVersion("ma"), Era::kV30);
  EXPECT_EQ(EraForVersion("na"), Era::kV40);
}

TEST(CassandraDescriptor, RejectsNonSSTableNames) {
  EXPECT_FALSE(ParseDescriptor("Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("Standard1-hc-x-Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("Standard1-hc-99999999999-Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("a-b-c-d-hc-1-Filter.db").ok());
}

}  // namespace
}  // namespace bloomcodec::cassandra

#include <gtest/gtest.h>

#include "cassandra/descriptor.h"

namespace bloomcodec::cassandra {
namespace {

FilterFormat Murmur3(Murmur3Layout layout) { return {FilterKind::kMurmur3, layout}; }

TEST(CassandraDescriptor, V10Naming) {
  auto d = ParseDescriptor("/var/lib/cassandra/data/Keyspace1/Standard1-hc-12-Filter.db");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->column_family, "Standard1");
  EXPECT_EQ(d->keyspace, "");
  EXPECT_EQ(d->version, "hc");
  EXPECT_EQ(d->generation, 12);
  EXPECT_EQ(d->component, "Filter.db");
  EXPECT_FALSE(d->temporary);
  EXPECT_EQ(d->filter_kind(), FilterKind::kV10);
}

TEST(CassandraDescriptor, KeyspacePrefixTemporaryAndLegacy) {
  auto a = ParseDescriptor("Keyspace1-Standard1-hc-12-Filter.db");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->keyspace, "Keyspace1");
  EXPECT_EQ(a->column_family, "Standard1");
  EXPECT_EQ(a->filter_kind(), FilterKind::kV10);

  auto t = ParseDescriptor("Standard1-tmp-e-5-Filter.db");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->temporary);
  EXPECT_EQ(t->version, "e");
  EXPECT_EQ(t->filter_kind(), FilterKind::kLegacy);

  // No version: the 0.6 naming, version "a", whose filter hashes keys as Java Strings.
  auto old = ParseDescriptor("Standard1-7-Filter.db");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->version, "a");
  EXPECT_EQ(old->filter_kind(), FilterKind::kJavaStrings);
  EXPECT_EQ(FilterFormatName(old->filter_format()), "cassandra-0.6");
  auto old_tmp = ParseDescriptor("Standard1-tmp-7-Data.db");
  ASSERT_TRUE(old_tmp.ok());
  EXPECT_TRUE(old_tmp->temporary);
  EXPECT_EQ(old_tmp->version, "a");
}

TEST(CassandraDescriptor, VersionTable) {
  EXPECT_EQ(FilterKindForVersion("a"), FilterKind::kJavaStrings);
  EXPECT_EQ(FilterKindForVersion("b"), FilterKind::kJavaStrings);
  EXPECT_EQ(FilterKindForVersion("c"), FilterKind::kLegacy);
  EXPECT_EQ(FilterKindForVersion("d"), FilterKind::kLegacy);
  EXPECT_EQ(FilterKindForVersion("e"), FilterKind::kLegacy);
  for (const char* v : {"f", "g", "h", "hb", "hc", "hd", "he", "hf"}) {
    EXPECT_EQ(FilterKindForVersion(v), FilterKind::kV10) << v;
  }
  // ia and later: the Murmur3 filters of 1.2 - 5.0 (tests/cassandra_murmur3).
  for (const char* v : {"ia", "ib", "ja", "ka", "la"}) {
    EXPECT_EQ(FilterFormatForVersion(v), Murmur3(Murmur3Layout::kOldOrderLongs)) << v;
  }
  EXPECT_EQ(FilterFormatForVersion("ma"), Murmur3(Murmur3Layout::kNewOrderLongs));
  EXPECT_EQ(FilterFormatForVersion("na"), Murmur3(Murmur3Layout::kRawBytes));
}

TEST(CassandraDescriptor, RejectsNonSSTableNames) {
  EXPECT_FALSE(ParseDescriptor("Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("Standard1-hc-x-Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("Standard1-hc-99999999999-Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("a-b-c-d-hc-1-Filter.db").ok());
}

}  // namespace
}  // namespace bloomcodec::cassandra

// Version letters of 1.2 - 5.0 file names (old and BIG/BTI naming) and the format they select.
#include "bloomcodec/cassandra/descriptor.h"

#include <gtest/gtest.h>

#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {
namespace {

TEST(CassandraMurmur3Descriptor, OldNamingOf12To21) {
  auto a = ParseDescriptor("/data/ks/cf/ks-cf-ic-12-Filter.db");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->keyspace, "ks");
  EXPECT_EQ(a->column_family, "cf");
  EXPECT_EQ(a->version, "ic");
  EXPECT_EQ(a->generation, 12);
  EXPECT_EQ(a->generation_id, "12");
  EXPECT_EQ(a->sstable_format, "");
  EXPECT_EQ(a->filter_kind(), FilterKind::kMurmur3OldOrder);
  auto b = ParseDescriptor("ks-cf-jb-3-Filter.db");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->filter_kind(), FilterKind::kMurmur3OldOrder);
  auto t = ParseDescriptor("ks-cf-tmp-ka-3-Filter.db");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->temporary);
  EXPECT_EQ(t->version, "ka");
  auto link = ParseDescriptor("ks-cf-tmplink-ka-4-Index.db");
  ASSERT_TRUE(link.ok()) << link.status().ToString();
  EXPECT_TRUE(link->temporary);
  EXPECT_EQ(link->column_family, "cf");
}

TEST(CassandraMurmur3Descriptor, BigAndBtiNaming) {
  auto nb = ParseDescriptor("/data/ks/tbl-0123456789abcdef0123456789abcdef/nb-1-big-Filter.db");
  ASSERT_TRUE(nb.ok()) << nb.status().ToString();
  EXPECT_EQ(nb->version, "nb");
  EXPECT_EQ(nb->generation, 1);
  EXPECT_EQ(nb->sstable_format, "big");
  EXPECT_EQ(nb->component, "Filter.db");
  EXPECT_EQ(nb->keyspace, "");
  EXPECT_EQ(nb->filter_kind(), FilterKind::kMurmur3RawBytes);

  auto da = ParseDescriptor("da-1-bti-Filter.db");
  ASSERT_TRUE(da.ok());
  EXPECT_EQ(da->sstable_format, "bti");
  // "da" < "ia" as a string: only the BTI format name makes it a 5.0 filter.
  EXPECT_EQ(da->filter_kind(), FilterKind::kMurmur3RawBytes);

  auto uuid = ParseDescriptor("nb-3g7k_0ft4_2x1kg2nfkfl0htlkmc-big-Filter.db");
  ASSERT_TRUE(uuid.ok()) << uuid.status().ToString();
  EXPECT_EQ(uuid->generation_id, "3g7k_0ft4_2x1kg2nfkfl0htlkmc");
  EXPECT_EQ(uuid->generation, 0);
  EXPECT_EQ(uuid->filter_kind(), FilterKind::kMurmur3RawBytes);

  auto la = ParseDescriptor("la-7-big-Index.db");
  ASSERT_TRUE(la.ok());
  EXPECT_EQ(la->filter_kind(), FilterKind::kMurmur3OldOrder);
  auto ma = ParseDescriptor("tmp-ma-5-big-Filter.db");
  ASSERT_TRUE(ma.ok());
  EXPECT_TRUE(ma->temporary);
  EXPECT_EQ(ma->filter_kind(), FilterKind::kMurmur3NewOrderLongs);

  EXPECT_FALSE(ParseDescriptor("nb-x!-big-Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("n1-1-big-Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("a-b-nb-1-big-Filter.db").ok());
}

TEST(CassandraMurmur3Descriptor, VersionTableOfTheSpec) {
  for (const char* v : {"ia", "ib", "ic", "ja", "jb", "ka", "la", "lb"}) {
    EXPECT_EQ(FilterKindForVersion(v), FilterKind::kMurmur3OldOrder) << v;
    EXPECT_EQ(FilterKindForVersion(v, "big"), FilterKind::kMurmur3OldOrder) << v;
  }
  for (const char* v : {"ma", "mb", "mc", "md", "me"}) {
    EXPECT_EQ(FilterKindForVersion(v, "big"), FilterKind::kMurmur3NewOrderLongs) << v;
  }
  for (const char* v : {"na", "nb", "nc", "oa"}) {
    EXPECT_EQ(FilterKindForVersion(v, "big"), FilterKind::kMurmur3RawBytes) << v;
  }
  EXPECT_EQ(FilterKindForVersion("da", "bti"), FilterKind::kMurmur3RawBytes);
  // BtiFormat's rule for versions Apache never wrote: below "b" (with "ab" read as "b") old.
  EXPECT_EQ(FilterKindForVersion("aa", "bti"), FilterKind::kMurmur3NewOrderLongs);
  EXPECT_EQ(FilterKindForVersion("ab", "bti"), FilterKind::kMurmur3RawBytes);
  EXPECT_EQ(FilterKindForVersion("hf"), FilterKind::kV10);
}

TEST(CassandraMurmur3Descriptor, DetectFormatPicksTheVersionsFormat) {
  const ByteVector none;
  EXPECT_EQ(DetectFormat("ks-cf-ic-12-Filter.db", none)->name(), "cassandra-1.2");
  EXPECT_EQ(DetectFormat("la-1-big-Filter.db", none)->name(), "cassandra-1.2");
  EXPECT_EQ(DetectFormat("me-2-big-Filter.db", none)->name(), "cassandra-3.0");
  EXPECT_EQ(DetectFormat("nb-1-big-Filter.db", none)->name(), "cassandra-4.0");
  EXPECT_EQ(DetectFormat("oa-1-big-Filter.db", none)->name(), "cassandra-4.0");
  EXPECT_EQ(DetectFormat("da-1-bti-Filter.db", none)->name(), "cassandra-4.0");
  EXPECT_EQ(DetectFormat("nb-3g7k_0ft4_2x1kg2nfkfl0htlkmc-big-Filter.db", none)->name(),
            "cassandra-4.0");
  EXPECT_EQ(DetectFormat("Standard1-hc-1-Filter.db", none)->name(), "cassandra-1.0");
  EXPECT_EQ(DetectFormat("nb-1-big-Index.db", none), nullptr);
}

}  // namespace
}  // namespace bloomcodec::cassandra

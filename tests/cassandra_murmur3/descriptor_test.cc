// Version letters of 1.2 - 5.0 file names (old and BIG/BTI naming) and the format they select.
#include "cassandra/descriptor.h"

#include <gtest/gtest.h>

#include "bloomcodec/format.h"

namespace bloomcodec::cassandra {
namespace {

FilterFormat Murmur3(Murmur3Layout layout) { return {FilterKind::kMurmur3, layout}; }

TEST(CassandraMurmur3Descriptor, OldNamingOf12To21) {
  auto a = ParseDescriptor("/data/ks/cf/ks-cf-ic-12-Filter.db");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->keyspace, "ks");
  EXPECT_EQ(a->column_family, "cf");
  EXPECT_EQ(a->version, "ic");
  EXPECT_EQ(a->generation, 12);
  EXPECT_EQ(a->generation_id, "12");
  EXPECT_EQ(a->sstable_format, "");
  EXPECT_EQ(a->filter_format(), Murmur3(Murmur3Layout::kOldOrderLongs));
  auto b = ParseDescriptor("ks-cf-jb-3-Filter.db");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->filter_format(), Murmur3(Murmur3Layout::kOldOrderLongs));
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
  EXPECT_EQ(nb->filter_format(), Murmur3(Murmur3Layout::kRawBytes));

  auto da = ParseDescriptor("da-1-bti-Filter.db");
  ASSERT_TRUE(da.ok());
  EXPECT_EQ(da->sstable_format, "bti");
  // "da" < "ia" as a string: only the BTI format name makes it a 5.0 filter.
  EXPECT_EQ(da->filter_format(), Murmur3(Murmur3Layout::kRawBytes));

  auto uuid = ParseDescriptor("nb-3g7k_0ft4_2x1kg2nfkfl0htlkmc-big-Filter.db");
  ASSERT_TRUE(uuid.ok()) << uuid.status().ToString();
  EXPECT_EQ(uuid->generation_id, "3g7k_0ft4_2x1kg2nfkfl0htlkmc");
  EXPECT_EQ(uuid->generation, 0);
  EXPECT_EQ(uuid->filter_format(), Murmur3(Murmur3Layout::kRawBytes));

  auto la = ParseDescriptor("la-7-big-Index.db");
  ASSERT_TRUE(la.ok());
  EXPECT_EQ(la->filter_format(), Murmur3(Murmur3Layout::kOldOrderLongs));
  auto ma = ParseDescriptor("tmp-ma-5-big-Filter.db");
  ASSERT_TRUE(ma.ok());
  EXPECT_TRUE(ma->temporary);
  EXPECT_EQ(ma->filter_format(), Murmur3(Murmur3Layout::kNewOrderLongs));

  EXPECT_FALSE(ParseDescriptor("nb-x!-big-Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("n1-1-big-Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("a-b-nb-1-big-Filter.db").ok());
}

TEST(CassandraMurmur3Descriptor, VersionTableOfTheSpec) {
  for (const char* v : {"ia", "ib", "ic", "ja", "jb", "ka", "la", "lb"}) {
    EXPECT_EQ(FilterFormatForVersion(v), Murmur3(Murmur3Layout::kOldOrderLongs)) << v;
    EXPECT_EQ(FilterFormatForVersion(v, "big"), Murmur3(Murmur3Layout::kOldOrderLongs)) << v;
  }
  for (const char* v : {"ma", "mb", "mc", "md", "me"}) {
    EXPECT_EQ(FilterFormatForVersion(v, "big"), Murmur3(Murmur3Layout::kNewOrderLongs)) << v;
  }
  for (const char* v : {"na", "nb", "nc", "oa"}) {
    EXPECT_EQ(FilterFormatForVersion(v, "big"), Murmur3(Murmur3Layout::kRawBytes)) << v;
  }
  EXPECT_EQ(FilterFormatForVersion("da", "bti"), Murmur3(Murmur3Layout::kRawBytes));
  // BtiFormat's rule for versions Apache never wrote: below "b" (with "ab" read as "b") old.
  EXPECT_EQ(FilterFormatForVersion("aa", "bti"), Murmur3(Murmur3Layout::kNewOrderLongs));
  EXPECT_EQ(FilterFormatForVersion("ab", "bti"), Murmur3(Murmur3Layout::kRawBytes));
  EXPECT_EQ(FilterKindForVersion("hf"), FilterKind::kV10);
}

// One table names the layouts; every Cassandra Filter.db format name maps back to its reading.
TEST(CassandraMurmur3Descriptor, LayoutAndFormatNamesAreInverses) {
  for (Murmur3Layout layout :
       {Murmur3Layout::kOldOrderLongs, Murmur3Layout::kNewOrderLongs, Murmur3Layout::kRawBytes}) {
    EXPECT_EQ(LayoutForFormatName(LayoutFormatName(layout)), layout);
    EXPECT_EQ(FilterFormatForName(LayoutFormatName(layout)), Murmur3(layout));
    EXPECT_EQ(FilterFormatName(Murmur3(layout)), LayoutFormatName(layout));
  }
  EXPECT_EQ(LayoutFormatName(Murmur3Layout::kOldOrderLongs), "cassandra-1.2");
  EXPECT_EQ(LayoutFormatName(Murmur3Layout::kNewOrderLongs), "cassandra-3.0");
  EXPECT_EQ(LayoutFormatName(Murmur3Layout::kRawBytes), "cassandra-4.0");
  EXPECT_EQ(LayoutForFormatName("cassandra-1.0"), std::nullopt);
  EXPECT_EQ(FilterFormatForName("cassandra-1.0"), (FilterFormat{FilterKind::kV10, std::nullopt}));
  EXPECT_EQ(FilterFormatForName("cassandra-legacy"),
            (FilterFormat{FilterKind::kLegacy, std::nullopt}));
  EXPECT_EQ(FilterFormatForName("leveldb-bloom"), std::nullopt);
  EXPECT_EQ(FilterFormatName(FilterFormatForVersion("hc")), "cassandra-1.0");
  EXPECT_EQ(FilterFormatName(FilterFormatForVersion("e")), "cassandra-legacy");
  EXPECT_EQ(FilterFormatName(FilterFormatForVersion("b")), "cassandra-0.6");
  EXPECT_EQ(FilterFormatForName("cassandra-0.6"),
            (FilterFormat{FilterKind::kJavaStrings, std::nullopt}));
  EXPECT_EQ(Murmur3LayoutForVersion("hf"), std::nullopt);
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

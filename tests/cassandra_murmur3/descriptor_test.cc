// Version letters of 1.2 - 5.0 file names (old and BIG/BTI naming) and the era they select.
#include "cassandra/descriptor.h"

#include <gtest/gtest.h>

#include "bloomcodec/cassandra/murmur3_filter.h"
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
  EXPECT_EQ(a->era(), Era::kV12);
  auto b = ParseDescriptor("ks-cf-jb-3-Filter.db");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->era(), Era::kV12);
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
  EXPECT_EQ(nb->era(), Era::kV40);

  auto da = ParseDescriptor("da-1-bti-Filter.db");
  ASSERT_TRUE(da.ok());
  EXPECT_EQ(da->sstable_format, "bti");
  // "da" < "ia" as a string: only the BTI format name makes it a 5.0 filter.
  EXPECT_EQ(da->era(), Era::kV40);

  auto uuid = ParseDescriptor("nb-3g7k_0ft4_2x1kg2nfkfl0htlkmc-big-Filter.db");
  ASSERT_TRUE(uuid.ok()) << uuid.status().ToString();
  EXPECT_EQ(uuid->generation_id, "3g7k_0ft4_2x1kg2nfkfl0htlkmc");
  EXPECT_EQ(uuid->generation, 0);
  EXPECT_EQ(uuid->era(), Era::kV40);

  auto la = ParseDescriptor("la-7-big-Index.db");
  ASSERT_TRUE(la.ok());
  EXPECT_EQ(la->era(), Era::kV12);
  auto ma = ParseDescriptor("tmp-ma-5-big-Filter.db");
  ASSERT_TRUE(ma.ok());
  EXPECT_TRUE(ma->temporary);
  EXPECT_EQ(ma->era(), Era::kV30);

  EXPECT_FALSE(ParseDescriptor("nb-x!-big-Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("n1-1-big-Filter.db").ok());
  EXPECT_FALSE(ParseDescriptor("a-b-nb-1-big-Filter.db").ok());
}

TEST(CassandraMurmur3Descriptor, VersionTableOfTheSpec) {
  for (const char* v : {"ia", "ib", "ic", "ja", "jb", "ka", "la", "lb"}) {
    EXPECT_EQ(EraForVersion(v), Era::kV12) << v;
    EXPECT_EQ(EraForVersion(v, "big"), Era::kV12) << v;
  }
  for (const char* v : {"ma", "mb", "mc", "md", "me", "ms", "mt"}) {
    EXPECT_EQ(EraForVersion(v, "big"), Era::kV30) << v;
  }
  for (const char* v : {"na", "nb", "nc", "oa"}) {
    EXPECT_EQ(EraForVersion(v, "big"), Era::kV40) << v;
  }
  EXPECT_EQ(EraForVersion("da", "bti"), Era::kV40);
  // BtiFormat's rule for versions Apache never wrote: below "b" (with "ab" read as "b") old.
  EXPECT_EQ(EraForVersion("aa", "bti"), Era::kV30);
  EXPECT_EQ(EraForVersion("ab", "bti"), Era::kV40);
  EXPECT_EQ(EraForVersion("hf"), Era::kV10);
}

// The era table: each era's codec carries its name, and the facts are the specification's.
TEST(CassandraMurmur3Descriptor, EraTable) {
  for (const EraFacts& e : kEras) {
    ASSERT_NE(Codec(e.era), nullptr) << e.name;
    EXPECT_EQ(Codec(e.era)->name(), e.name);
    EXPECT_EQ(Codec(e.era)->summary(), e.summary);
    EXPECT_EQ(EraOf(Codec(e.era)), e.era) << e.name;
    EXPECT_EQ(FindFormat(e.name), Codec(e.era)) << e.name;
    EXPECT_LE(e.first_version, e.last_version) << e.name;
    if (e.component == "Filter.db") {
      EXPECT_EQ(EraForVersion(e.first_version), e.era) << e.name;
      EXPECT_EQ(EraForVersion(e.last_version, "big"), e.era) << e.name;
    }
  }
  EXPECT_EQ(Formats().size(), kEraCount);
  EXPECT_EQ(EraOf(FindFormat("leveldb-bloom")), std::nullopt);
  EXPECT_EQ(Facts(Era::kV12).name, "cassandra-1.2");
  EXPECT_EQ(Facts(Era::kV30).name, "cassandra-3.0");
  EXPECT_EQ(Facts(Era::kV40).name, "cassandra-4.0");
  // 3.0 changed the index order (hasOldBfHashOrder: < ma), 4.0 the serialization (hasOldBfFormat:
  // < na): the 3.x and 4.x filters are one bit set, 1.2's another.
  EXPECT_EQ(Facts(Era::kV12).order, IndexOrder::kOld);
  EXPECT_EQ(Facts(Era::kV30).order, IndexOrder::kNew);
  EXPECT_EQ(Facts(Era::kV40).order, IndexOrder::kNew);
  EXPECT_EQ(Facts(Era::kV30).word_order, WordOrder::kBigEndian);
  EXPECT_EQ(Facts(Era::kV40).word_order, WordOrder::kLittleEndian);
  EXPECT_EQ(Facts(Era::kV10Row).component, "Data.db");
  for (const char* v : {"a", "c", "f", "hc", "ia", "ma", "na", "oa"}) {
    EXPECT_NE(EraForVersion(v), Era::kV10Row) << v;
  }
}

// Murmur3Filter reads the Murmur3 eras only: any other era is refused, never read as one.
TEST(CassandraMurmur3Descriptor, Murmur3FilterTakesOnlyTheMurmur3Eras) {
  const ByteVector file = *BuildMurmur3Filter(KeyList(), 3, 2, Era::kV30);
  for (Era era : {Era::kV10, Era::kLegacy, Era::kV06, Era::kV10Row}) {
    Result<Murmur3Filter> parsed = Murmur3Filter::Parse(file, "Filter.db", era);
    ASSERT_FALSE(parsed.ok()) << Facts(era).name;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().ToString().find(Facts(era).name), std::string::npos);
    EXPECT_FALSE(Murmur3Filter::Create(3, 2, era).ok()) << Facts(era).name;
    EXPECT_FALSE(SwapMurmur3Serialization(file, "Filter.db", Era::kV30, era).ok());
  }
  for (Era era : {Era::kV12, Era::kV30, Era::kV40}) {
    Result<Murmur3Filter> parsed = Murmur3Filter::Parse(file, "Filter.db", era);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->era(), era);
  }
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

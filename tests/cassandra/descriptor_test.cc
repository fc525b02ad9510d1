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

TEST(CassandraDescriptor, OnlyVersionsAWriterUsesAndKnownComponentsAreSstableComponents) {
  const auto kind = [](std::string_view name) {
    Result<Descriptor> d = ParseDescriptor(name);
    EXPECT_TRUE(d.ok()) << name;
    return d.ok() ? ClassifyName(*d) : NameKind::kOther;
  };
  for (const char* name :
       {"Standard1-7-Filter.db", "Standard1-b-1-Index.db", "Keyspace1-Standard1-hc-12-Filter.db",
        "ks-cf-jb-3-Summary.db", "ks-counter_test-ka-5-Scylla.db", "la-1-big-Digest.adler32",
        "ms-5-big-Partitions.db", "mt-5-big-Rows.db", "oa-1-big-TOC.txt", "aa-1-bti-Filter.db",
        "ab-1-bti-Data.db", "cc-3-bti-Statistics.db", "da-1-bti-Filter.db.gz", "nb-1-big-SI_idx.db",
        "oa-2-big-SAI+aa+GroupComplete.db", "Standard1-hb-1-Compacted"}) {
    EXPECT_EQ(kind(name), NameKind::kComponent) << name;
  }
  // One part away from a component: said why it is skipped.
  for (const char* name : {"pa-1-big-Data.db", "nb-1-big-Notes.txt", "Standard1-zz-3-Filter.db",
                           "la-1-bti-Filter.db", "Standard1-la-1-Filter.db"}) {
    EXPECT_EQ(kind(name), NameKind::kLookalike) << name;
  }
  Result<Descriptor> pa = ParseDescriptor("pa-1-big-Data.db");
  EXPECT_EQ(LookalikeReason(*pa),
            "version 'pa' is none that Cassandra, ScyllaDB or DataStax writes in big names");
  Result<Descriptor> notes = ParseDescriptor("nb-1-big-Notes.txt");
  EXPECT_EQ(LookalikeReason(*notes),
            "'Notes.txt' is no component Cassandra, ScyllaDB or DataStax writes");
  // Only the grammar fits: not an sstable at all.
  for (const char* name :
       {"/etc/ld.so.conf.d/zz-cuda-13-0.conf", "CommitLog-7-1234.log", "greek_iso-8859-7.vim"}) {
    EXPECT_EQ(kind(name), NameKind::kOther) << name;
  }
  Result<Descriptor> cuda = ParseDescriptor("zz-cuda-13-0.conf");
  EXPECT_EQ(cuda->version, "cuda");
  EXPECT_TRUE(cuda->version_in_name);
  EXPECT_FALSE(ParseDescriptor("CommitLog-7-1234.log")->version_in_name);
}

}  // namespace
}  // namespace bloomcodec::cassandra

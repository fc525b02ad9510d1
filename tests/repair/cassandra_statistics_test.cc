// Statistics.db's fp chance found and rewritten in every layout that records one (2.0's record,
// the 2.1+ table of contents, the 4.0+ CRC32s), the rest of the file byte for byte; damage
// refused at its offset.
#include <gtest/gtest.h>

#include <cstring>

#include "cassandra/repair/statistics.h"
#include "cassandra/statistics_db.h"
#include "repair/cassandra_sstables.h"

namespace bloomcodec::cassandra {
namespace {

std::uint64_t Bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

TEST(CassandraRepairStatistics, RewritesTheChanceAndItsChecksumOnly) {
  struct Case {
    const char* version;
    const char* format;
    std::size_t changed_bytes;  // the f64, and the VALIDATION CRC32 from na
  };
  const Case cases[] = {{"ja", "", 8},     {"jb", "", 8},     {"ka", "", 8},     {"la", "big", 8},
                        {"ma", "big", 8},  {"me", "big", 8},  {"ms", "big", 8},  {"mt", "big", 8},
                        {"na", "big", 12}, {"nb", "big", 12}, {"oa", "big", 12}, {"da", "bti", 12}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.version);
    const ByteVector before = testing::StatisticsFile(c.version, c.format, 0.01);
    Result<RecordedFpChance> at = FindRecordedFpChance(before, "s", c.version, c.format);
    ASSERT_TRUE(at.ok()) << at.status().ToString();
    EXPECT_EQ(at->fp_chance, 0.01);
    EXPECT_EQ(at->crc_offset.has_value(), c.changed_bytes == 12);
    Result<ByteVector> after = WithFpChance(before, "s", c.version, c.format, 0.0001);
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    // The test's own writer, given the new chance, writes exactly these bytes.
    EXPECT_EQ(*after, testing::StatisticsFile(c.version, c.format, 0.0001));
    ASSERT_EQ(after->size(), before.size());
    std::size_t changed = 0;
    for (std::size_t i = 0; i < before.size(); ++i) {
      if ((*after)[i] == before[i]) continue;
      const bool in_fp = i >= at->offset && i < at->offset + 8;
      const bool in_crc = at->crc_offset && i >= *at->crc_offset && i < *at->crc_offset + 4;
      EXPECT_TRUE(in_fp || in_crc) << "byte " << i;
      ++changed;
    }
    EXPECT_LE(changed, c.changed_bytes);
    EXPECT_GE(changed, c.changed_bytes - 4);  // a byte of either may happen to stay the same
    if (HasMetadataToc(c.version, c.format)) {
      Result<ValidationMetadata> v = ReadValidationMetadata(*after, "s", c.version, c.format);
      ASSERT_TRUE(v.ok()) << v.status().ToString();
      EXPECT_EQ(Bits(v->fp_chance), Bits(0.0001));
    }
  }
}

TEST(CassandraRepairStatistics, VersionsBeforeJaRecordNoChance) {
  for (const char* v : {"ia", "ib", "ic", "hf"}) {
    EXPECT_FALSE(RecordsFpChance(v, ""));
    auto r = FindRecordedFpChance(testing::StatisticsFile("jb", "", 0.01), "s", v, "");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  }
  EXPECT_TRUE(RecordsFpChance("ja", ""));
  EXPECT_TRUE(RecordsFpChance("da", "bti"));
}

TEST(CassandraRepairStatistics, DamageRefusedAtItsOffset) {
  // 2.0's record: a histogram claiming more buckets than the file holds, a file cut before the
  // fp chance, a partitioner name that is not modified UTF-8.
  ByteVector legacy = testing::StatisticsFile("jb", "", 0.01);
  ByteVector huge = legacy;
  huge[0] = 0x7f;
  auto r = FindRecordedFpChance(huge, "s", "jb", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(r.status().offset(), 0u);
  Result<RecordedFpChance> at = FindRecordedFpChance(legacy, "s", "jb", "");
  ASSERT_TRUE(at.ok());
  ByteVector cut(legacy.begin(), legacy.begin() + static_cast<std::ptrdiff_t>(at->offset + 3));
  r = FindRecordedFpChance(cut, "s", "jb", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
  ByteVector bad_name = legacy;
  bad_name[at->offset + 16 + 2] = 0xff;  // after the fp chance, the ratio and the name's length
  r = FindRecordedFpChance(bad_name, "s", "jb", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().offset(), at->offset + 18);
  // A VALIDATION offset inside the table of contents (the reader follows it; a rewrite in place
  // would change the table itself).
  ByteVector overlap = testing::StatisticsFile("me", "big", 0.01);
  overlap[8] = overlap[9] = overlap[10] = overlap[11] = 0;  // entry 0: VALIDATION at byte 0
  r = FindRecordedFpChance(overlap, "s", "me", "big");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(r.status().offset(), 0u);
  // 4.0+: any CRC32 that fails is refused before anything is rewritten.
  const ByteVector nb = testing::StatisticsFile("nb", "big", 0.01);
  for (std::size_t i : {std::size_t{5}, nb.size() - 1}) {
    ByteVector damaged = nb;
    damaged[i] ^= 0x10;
    EXPECT_FALSE(WithFpChance(damaged, "s", "nb", "big", 0.1).ok()) << i;
  }
}

}  // namespace
}  // namespace bloomcodec::cassandra

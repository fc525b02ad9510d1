// Statistics.db's VALIDATION component (partitioner, bloom_filter_fp_chance), from files written
// here as MetadataSerializer writes them (with the 4.0+ checksums and without), and every damage
// refused at its offset.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/key_list.h"
#include "cassandra/statistics_db.h"
#include "codec/byte_writer.h"

namespace bloomcodec::cassandra {
namespace {

std::uint32_t Crc(ByteSpan a, ByteSpan b = {}) {
  uLong c = crc32(0L, Z_NULL, 0);
  c = crc32(c, a.data(), static_cast<uInt>(a.size()));
  if (!b.empty()) c = crc32(c, b.data(), static_cast<uInt>(b.size()));
  return static_cast<std::uint32_t>(c);
}

// VALIDATION (type 0) and a 6-byte stand-in for COMPACTION (type 1).
ByteVector Statistics(bool checksums, const std::string& partitioner, double fp) {
  ByteVector validation;
  ByteWriter v(validation);
  v.PutBigU16(static_cast<std::uint16_t>(partitioner.size()));
  v.PutBytes(AsBytes(std::string_view(partitioner)));
  std::uint64_t bits;
  std::memcpy(&bits, &fp, sizeof bits);
  v.PutBigU64(bits);
  const ByteVector compaction = {1, 2, 3, 4, 5, 6};
  const std::size_t extra = checksums ? 4 : 0;
  const std::size_t toc_end = 4 + extra + 16 + extra;
  ByteVector out;
  ByteWriter w(out);
  w.PutBigI32(2);
  if (checksums) w.PutBigU32(Crc(ByteSpan(out).first(4)));
  const std::size_t entries_at = out.size();
  w.PutBigI32(0);
  w.PutBigI32(static_cast<std::int32_t>(toc_end));
  w.PutBigI32(1);
  w.PutBigI32(static_cast<std::int32_t>(toc_end + validation.size() + extra));
  if (checksums) w.PutBigU32(Crc(ByteSpan(out).first(4), ByteSpan(out).subspan(entries_at)));
  w.PutBytes(validation);
  if (checksums) w.PutBigU32(Crc(validation));
  w.PutBytes(compaction);
  if (checksums) w.PutBigU32(Crc(compaction));
  return out;
}

constexpr const char* kMurmur3 = "org.apache.cassandra.dht.Murmur3Partitioner";

TEST(StatisticsDb, ReadsTheValidationComponent) {
  for (bool checksums : {false, true}) {
    const std::string version = checksums ? "nb" : "me";
    ByteVector file = Statistics(checksums, kMurmur3, 0.01);
    auto v = ReadValidationMetadata(file, "x-Statistics.db", version, "big");
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->partitioner, kMurmur3);
    EXPECT_EQ(v->fp_chance, 0.01);
    EXPECT_EQ(v->checksummed, checksums);
    EXPECT_EQ(v->offset, checksums ? 28u : 20u);
  }
  // BTI is checksummed whatever its version letters; before ka the layout is another one.
  EXPECT_TRUE(ReadValidationMetadata(Statistics(true, kMurmur3, 0.1), "s", "da", "bti").ok());
  auto old = ReadValidationMetadata(Statistics(false, kMurmur3, 0.1), "s", "jb", "");
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().code(), StatusCode::kUnsupported);
}

struct Damage {
  const char* what;
  bool checksums;
  std::size_t at;      // byte changed (or the new length when truncating)
  std::uint8_t value;  // XORed into it
  bool truncate;
  std::uint64_t offset;  // where the error must be
};

TEST(StatisticsDb, DamageIsRefusedAtItsOffset) {
  const ByteVector good_plain = Statistics(false, kMurmur3, 0.01);
  const ByteVector good_sums = Statistics(true, kMurmur3, 0.01);
  const Damage cases[] = {
      {"count negative", false, 0, 0x80, false, 0},
      {"count CRC", true, 5, 0x01, false, 4},
      {"unknown type", false, 7, 0x09, false, 4},
      {"offset beyond the file", false, 10, 0x7f, false, 8},
      {"TOC CRC", true, 25, 0x01, false, 24},
      {"type 0 changed: no VALIDATION", false, 7, 0x02, false, 0},
      // Cut short: the COMPACTION entry (offset field at 16) then points past the end.
      {"name cut short", false, 30, 0, true, 16},
      {"fp chance cut short", false, 70, 0, true, 16},
      {"VALIDATION CRC", true, 30, 0x20, false, 81},
      {"empty file", false, 0, 0, true, 0},
  };
  for (const Damage& d : cases) {
    SCOPED_TRACE(d.what);
    ByteVector file = d.checksums ? good_sums : good_plain;
    if (d.truncate) {
      file.resize(d.at);
    } else {
      file[d.at] ^= d.value;
    }
    auto v = ReadValidationMetadata(file, "t-Statistics.db", d.checksums ? "nb" : "me", "big");
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.status().ToString().find("t-Statistics.db"), std::string::npos);
    if (std::string(d.what).starts_with("type 0")) {
      EXPECT_NE(v.status().message().find("no VALIDATION"), std::string::npos);
    } else {
      ASSERT_TRUE(v.status().offset().has_value()) << v.status().ToString();
      EXPECT_EQ(*v.status().offset(), d.offset) << v.status().ToString();
    }
  }
}

TEST(StatisticsDb, EveryTruncationAndEveryFlipUpToValidationIsCaught) {
  const ByteVector good = Statistics(true, kMurmur3, 0.01);
  const std::size_t validation_end = 28 + 2 + 43 + 8 + 4;  // the component and its CRC32
  for (std::size_t n = 0; n < good.size(); ++n) {
    const ByteVector cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    auto v = ReadValidationMetadata(cut, "t", "nb", "big");
    if (n >= validation_end) {
      // Only COMPACTION is cut: its TOC offset still lies inside, VALIDATION reads whole.
      if (v.ok()) continue;
    }
    ASSERT_FALSE(v.ok()) << n;
    if (v.status().offset()) {
      EXPECT_LE(*v.status().offset(), n) << v.status().ToString();
    }
  }
  for (std::size_t i = 0; i < validation_end; ++i) {
    for (std::uint8_t bit : {0x01, 0x80}) {
      ByteVector flipped = good;
      flipped[i] ^= bit;
      auto v = ReadValidationMetadata(flipped, "t", "nb", "big");
      EXPECT_FALSE(v.ok()) << "byte " << i << " bit " << int(bit);
    }
  }
}

// The estimated partition size histogram: i32 bucket count, then (i64 offset, i64 count) pairs.
ByteVector Histogram(const std::vector<std::int64_t>& counts) {
  ByteVector out;
  ByteWriter w(out);
  w.PutBigI32(static_cast<std::int32_t>(counts.size()));
  for (std::size_t i = 0; i < counts.size(); ++i) {
    w.PutBigU64(i + 1);
    w.PutBigU64(static_cast<std::uint64_t>(counts[i]));
  }
  return out;
}

TEST(StatisticsDb, RecordedPartitionCountSumsThePartitionSizeHistogram) {
  // Before ka the histogram is the file's first field from hb on (0.7's e wrote an empty one for
  // 900 keys: nothing before hb counts).
  ByteVector legacy = Histogram({300, 0, 600, 0});
  EXPECT_EQ(RecordedPartitionCount(legacy, "ic", ""), 900u);
  EXPECT_EQ(RecordedPartitionCount(legacy, "hb", ""), 900u);
  EXPECT_FALSE(RecordedPartitionCount(legacy, "e", "").has_value());
  EXPECT_EQ(RecordedPartitionCount(legacy, "hf", ""), 900u);
  EXPECT_FALSE(RecordedPartitionCount(legacy, "h", "").has_value());
  // From ka on it is the STATS component (type 2) the table of contents points at.
  ByteVector toc;
  ByteWriter w(toc);
  w.PutBigI32(1);
  w.PutBigI32(2);
  w.PutBigI32(12);
  toc.insert(toc.end(), legacy.begin(), legacy.end());
  EXPECT_EQ(RecordedPartitionCount(toc, "me", "big"), 900u);
  EXPECT_FALSE(RecordedPartitionCount(Statistics(false, kMurmur3, 0.1), "me", "big").has_value());
  // Bytes that hold no sane histogram give no count: never a verdict from them.
  EXPECT_FALSE(RecordedPartitionCount(Histogram({5, -1}), "ic", "").has_value());
  EXPECT_FALSE(RecordedPartitionCount(Histogram({}), "ic", "").has_value());
  ByteVector cut = Histogram({1, 2, 3});
  cut.resize(cut.size() - 1);
  EXPECT_FALSE(RecordedPartitionCount(cut, "ic", "").has_value());
  EXPECT_FALSE(RecordedPartitionCount({}, "ic", "").has_value());
}

TEST(StatisticsDb, PromisedRateIsTheSizingsAtThatKeyCount) {
  // 10000 keys at 0.01: FilterFactory picks bpe and K from BloomCalculations; the promised rate
  // is the expected fp of that filter at 10000 keys, near the chance asked.
  auto p = PromisedFpRate(10000, 0.01);
  ASSERT_TRUE(p.has_value());
  EXPECT_GT(*p, 0.005);
  EXPECT_LE(*p, 0.01);
  EXPECT_FALSE(PromisedFpRate(0, 0.01).has_value());
  EXPECT_FALSE(PromisedFpRate(100, 1.0).has_value());  // no filter at all
}

}  // namespace
}  // namespace bloomcodec::cassandra

namespace bloomcodec::cassandra {
namespace {

KeyList RandomKeys(std::size_t n, std::mt19937_64& rng) {
  KeyList keys;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t words[2] = {rng(), rng()};
    keys.Add(ByteSpan(reinterpret_cast<const std::uint8_t*>(words), sizeof words));
  }
  return keys;
}

// The fill of a 4.0 filter sized for `sized_for` keys at `chance`, holding `keys`.
FillStatistics FillOf(std::int64_t sized_for, double chance, const KeyList& keys) {
  Result<Murmur3FilterSpec> spec = SizeMurmur3Filter(sized_for, chance);
  auto f = Murmur3Filter::Create(spec->hash_count, spec->word_count, Era::kV40);
  f->AddAll(keys);
  return ComputeFillStatistics(f->bit_count(), f->bits_set(), f->hash_count());
}

TEST(FpChance, HealthyFiltersStayInsideTheBandAndAlarmAtMostAlpha) {
  // Filters sized by FilterFactory for exactly the keys they hold: never a warning at verify's
  // 1e-6, never even outside the band there; at alpha 0.05 outside at most about that often.
  // The former fixed 25% margin alone cried wolf on such filters at small counts (counted too).
  constexpr double kAlpha = 0.05;
  std::mt19937_64 rng(1128);
  int old_rule_alarms = 0;
  for (double chance : {0.1, 0.01, 0.001}) {
    for (std::int64_t n : {1, 10, 100, 400, 1500}) {
      const int trials = n >= 1500 ? 40 : 120;
      int outside = 0;
      for (int t = 0; t < trials; ++t) {
        const FillStatistics s = FillOf(n, chance, RandomKeys(static_cast<std::size_t>(n), rng));
        auto strict = JudgeFpChance(n, chance, s);
        ASSERT_TRUE(strict.has_value());
        EXPECT_FALSE(strict->outside)
            << "n=" << n << " chance " << chance << " implied " << strict->implied << " band "
            << strict->low << " .. " << strict->high;
        EXPECT_LE(strict->low, strict->promised);
        EXPECT_GE(strict->high, strict->promised);
        if (n >= 100 && std::fabs(strict->implied / strict->promised - 1) > 0.25) ++old_rule_alarms;
        if (JudgeFpChance(n, chance, s, kAlpha)->outside) ++outside;
      }
      EXPECT_LE(outside, static_cast<int>(3 * kAlpha * trials) + 2) << n << " " << chance;
    }
  }
  EXPECT_GT(old_rule_alarms, 0);  // what the band replaces: a fixed margin is noise at n = 100
}

TEST(FpChance, AFilterSizedForAnotherCountIsCaughtEitherWay) {
  std::mt19937_64 rng(29);
  for (std::int64_t n : {1000, 5000}) {
    const KeyList keys = RandomKeys(static_cast<std::size_t>(n), rng);
    // Sized for half the keys: the rate is worse than promised (estimate too low).
    auto worse = JudgeFpChance(n, 0.01, FillOf(n / 2, 0.01, keys));
    ASSERT_TRUE(worse.has_value());
    EXPECT_TRUE(worse->off) << n;
    EXPECT_GT(worse->implied, worse->high);
    // Sized for twice the keys: better than promised (estimate too high).
    auto better = JudgeFpChance(n, 0.01, FillOf(2 * n, 0.01, keys));
    EXPECT_TRUE(better->off) << n;
    EXPECT_LT(better->implied, better->low);
  }
  // A rate outside the band but within the tolerance is no warning: sized for 2% more keys.
  const KeyList keys = RandomKeys(20000, rng);
  auto near = JudgeFpChance(20000, 0.01, FillOf(20400, 0.01, keys));
  EXPECT_FALSE(near->off);
  EXPECT_FALSE(JudgeFpChance(100, 1.0, FillOf(100, 0.01, keys)).has_value());
}

}  // namespace
}  // namespace bloomcodec::cassandra

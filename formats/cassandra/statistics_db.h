// Statistics.db of Cassandra 2.1 - 5.0 (BIG versions ka and later, BTI): the ValidationMetadata
// component, which names the table's partitioner and its bloom_filter_fp_chance.
//
//   BLOOMCODEC_ASSIGN_OR_RETURN(cassandra::ValidationMetadata v,
//       cassandra::ReadValidationMetadata(in.bytes(), in.path(), "nb", "big"));
//   v.partitioner;  // "org.apache.cassandra.dht.Murmur3Partitioner"
//   v.fp_chance;    // 0.01
//
// Layout (MetadataSerializer, versions >= "k"): i32 BE component count N; from na (and BTI) the
// CRC32 of those 4 bytes; N table-of-contents entries, each i32 BE component type (the
// MetadataType ordinal: 0 VALIDATION, 1 COMPACTION, 2 STATS, 3 HEADER) and i32 BE absolute
// offset; from na the CRC32 of the count and the entries together (the count's own checksum not
// included); then the components, each followed from na by its CRC32. VALIDATION is a
// writeUTF'd partitioner class name (u16 BE length, modified UTF-8) and an f64 BE fp chance.
// Versions before ka (2.0's ja / jb and older) wrote another layout, which is not read here.
//
// Compatibility contract: the partitioner and fp chance are what Cassandra's deserializer reads.
// Stricter: a count outside 0 .. 16, a type the original does not know (>= 5), an offset outside
// the file, a failed checksum, or a component cut short is Corrupt at its offset. A file without
// a VALIDATION entry is Corrupt (Cassandra needs it to open the sstable).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomcodec/bytes.h"
#include "bloomcodec/filter_stats.h"
#include "bloomcodec/status.h"
#include "bloomcodec/verify.h"
#include "cassandra/filter_keys.h"

namespace bloomcodec::cassandra {

struct ValidationMetadata {
  std::string partitioner;  // the class name, as UTF-8
  double fp_chance = 0;
  std::uint64_t offset = 0;  // of the component in the file
  bool checksummed = false;  // na and later, BTI: the checksums were verified
};

// Whether a version's Statistics.db has the table of contents read here (>= ka, or BTI).
bool HasMetadataToc(std::string_view version, std::string_view sstable_format);

Result<ValidationMetadata> ReadValidationMetadata(ByteSpan file, std::string_view source,
                                                  std::string_view version,
                                                  std::string_view sstable_format);

// The partition count an sstable's Statistics.db records: the sum of the buckets of the
// estimated partition size histogram, which the writer adds every partition it appends to
// (EstimatedHistogram: i32 BE bucket count B, then B pairs of i64 BE offset and i64 BE count). It
// opens the STATS component (type 2 of the table of contents) from ka on and in BTI, and the
// legacy layout's first field for hb .. jb (the corpus's hb, ic and jb files hold exactly their
// Index.db's key count; 0.7's e wrote an empty histogram for 900 keys, so nothing before hb
// counts). nullopt for other versions and for bytes that hold no sane histogram (B outside
// 1 .. 1024 or past the end, a negative count, a sum past 2^62): never a finding by itself.
std::optional<std::uint64_t> RecordedPartitionCount(ByteSpan file, std::string_view version,
                                                    std::string_view sstable_format);

// verify's use of that count: read from the Statistics.db at `path` (an sstable of `version` and
// `sstable_format`) and given to `keys`, the sstable's Index.db or Partitions.db at `source`
// (FilterKeys::ExpectRecordedCount). Nothing when the file cannot be read or records no count
// (CheckStatistics reports its damage); returns whether a count was given.
bool ExpectStatisticsCount(const std::string& path, std::string_view version,
                           std::string_view sstable_format, const std::string& source,
                           FilterKeys& keys);

// The fp rate Cassandra's sizing promises for `keys` keys at `fp_chance` (FilterFactory: the
// hash count and bits it would allocate, (1 - e^(-K n / m))^K); nullopt when the chance cannot be
// sized (the original refuses it) or means no filter (1.0).
std::optional<double> PromisedFpRate(std::int64_t keys, double fp_chance);

// verify's fp-chance judgment (docs/cli.md, "Evidence standard"): is a filter of `fill` (its
// bits m, set bits X and K, as read) the filter Cassandra's sizing makes for `keys` keys at
// `fp_chance`, holding them? Under that hypothesis X lies within
//   [m(1 - (1 - D/m)^n) - 1 - t, m(1 - (1 - K/m)^n) + t],   t = K sqrt(n ln(2/alpha) / 2),
// of the sized filter's m and K, with a chance of at least 1 - alpha: McDiarmid's inequality on
// each side (one key moves X by at most K), the upper mean by concavity (as OverfillThreshold),
// the lower one with the probes of a key uniform over the bits and distinct up to D = K - K^3/m
// (Cassandra's double hashing makes two probes of a key meet with a chance below (d + 1)/m for
// probes d apart; the 1 is bit 0, which abs(x % m) hits half as often). The band of fp rates is
// that band of X as (X/m)^K. `off` needs the file's rate outside the band (false-alarm chance at
// most alpha) and more than kFpChanceTolerance from the promised rate: the writer sizes from an
// estimate (compaction's from cardinality estimators), so a rate near the promise is no finding
// however certain. nullopt when the chance cannot be sized or the filter is empty.
inline constexpr double kFpChanceFalseAlarm = 1e-6;
inline constexpr double kFpChanceTolerance = 0.25;
struct FpChanceJudgment {
  double implied = 0;   // (X/m)^K of the file's filter
  double promised = 0;  // PromisedFpRate
  double low = 0;       // the band of rates a sized filter holding the keys shows
  double high = 0;
  bool outside = false;  // the rate is outside the band (chance at most alpha when healthy)
  bool off = false;      // outside, and beyond the tolerance: the warning
};
std::optional<FpChanceJudgment> JudgeFpChance(std::int64_t keys, double fp_chance,
                                              const FillStatistics& fill,
                                              double false_alarm = kFpChanceFalseAlarm);

// verify's use of an sstable's Statistics.db (`path`; version and format of the sstable): an
// info finding "statistics" with the partitioner and fp chance (fields partitioner,
// bloom_filter_fp_chance), or an error "statistics" at the offset of the damage. With the key
// count of a complete Index.db and the filter's fill in `report`, a warning "fp-chance" when
// JudgeFpChance finds the fill off.
void CheckStatistics(const std::string& path, std::string_view version,
                     std::string_view sstable_format, std::optional<std::int64_t> keys,
                     FileReport& report);

}  // namespace bloomcodec::cassandra

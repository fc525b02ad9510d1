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

// verify's use of an sstable's Statistics.db (`path`; version and format of the sstable): an
// info finding "statistics" with the partitioner and fp chance (fields partitioner,
// bloom_filter_fp_chance), or an error "statistics" at the offset of the damage. With the key
// count of a complete Index.db (at least kMinJudgedKeys) and the filter's fill in `report`, a
// warning "fp-chance" when the fill's fp rate is off by more than 25% either way from what the
// sizing promises for that many keys at that chance.
inline constexpr std::int64_t kMinJudgedKeys = 100;
void CheckStatistics(const std::string& path, std::string_view version,
                     std::string_view sstable_format, std::optional<std::int64_t> keys,
                     FileReport& report);

}  // namespace bloomcodec::cassandra

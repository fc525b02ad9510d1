// Absent keys next to stored ones, asked of an SST's full filter (verify's `near-keys` finding).
// Internal to the library.
//
//   ReportNearKeys(sst, filter, report);  // after the scan, for a full filter of whole keys
//
// Why: a filter's fp rate from its fill assumes that keys hash independently. RocksDB's legacy
// Bloom filter (format_version < 5) hashes each key to 32 bits with LevelDB's hash, which mixes
// a key's last four bytes in one multiply: keys that differ only there (sequential integer ids,
// as MyRocks's primary keys end) get hashes that differ in a few bits, their probes fall on the
// same cache line and bits, and an absent key next to stored ones passes far more often than a
// random one (measured: 3 - 16 % against 0.4 - 1.2 % at 10 bits per key, FORMAT.md). Its fill is
// low for the same reason, so the fill's estimate is the random keys' rate and says nothing of
// this.
//
// What is measured, the same whatever splits verify's scan: up to 32 data blocks spread evenly
// over the table are read again; each two neighbouring stored user keys of a block give the key
// between them that is the lower one with one byte raised, at the first byte where they differ
// (the id plus one, for ids; up to 4096 such keys, an even share from each block); and 4096 of
// the synthetic absent keys the Ribbon fp rate is measured with (sst_filter_stats.h). Keys that
// differ early (hashes) give keys that differ early too, which hash as independently as random
// ones: only keys whose neighbours differ in their last bytes can stand out, and for them such
// keys are the absent ones reads ask (the ids between ids). The finding is a warning (the rate a
// read pays depends on which keys it asks: an assumption) given only when the near keys' rate
// stands far above the random keys' with both measured beyond doubt (see NearKeysStandOut).
#pragma once

#include <cstdint>

#include "bloomcodec/rocksdb/full_filter.h"
#include "bloomcodec/verify.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::rocksdb {

struct NearKeyRates {
  std::uint64_t near_asked = 0, near_passed = 0;
  std::uint64_t random_asked = 0, random_passed = 0;
  std::uint64_t blocks_read = 0;
};

// The rates of `filter` (the table's full filter of whole keys). A block that cannot be read
// ends the measurement where it is (verify has reported the damage).
NearKeyRates MeasureNearKeyRates(const SstReader& sst, const FullFilterReader& filter);

// Whether the near keys' rate stands out: at least 256 asked, and its lower bound (4 standard
// errors below) above 4 times the random keys' upper bound (4 above, plus one key's share) and
// 2 points beyond it.
bool NearKeysStandOut(const NearKeyRates& rates);

// Measures and, when the near keys stand out, adds the `near-keys` warning at the filter block.
void ReportNearKeys(const SstReader& sst, const FullFilterReader& filter, FileReport& report);

}  // namespace bloomcodec::rocksdb

// verify's judgment of an SST filter's fill: what RocksDB's builder added to the filter, and the
// fill statistics and findings against it (docs/cli.md, Fill; formats/rocksdb/FORMAT.md, "Which
// entries the filter holds"). Private to the library.
#pragma once

#include <cstdint>

#include "bloomcodec/verify.h"
#include "rocksdb/sst/sst_reader.h"

namespace bloomcodec::rocksdb {

// What RocksDB's builder added to the filter: the table's own count (rocksdb.num.filter_entries,
// written since RocksDB 6.21: the hashes its bits builders took, see FORMAT.md) when it records
// one; else our count of the scan, with room for the empty key that releases 6.x to 9.4 add once
// when a prefix extractor is set and whole-key filtering is off.
struct FilterEntriesAdded {
  std::uint64_t count = 0;
  bool recorded = false;  // the table's own count
  // Entries the builder may have added beyond `count` (our count, not the table's, when a
  // prefix extractor is set): the slack of the fill test.
  std::uint64_t uncounted = 0;
};
// `prefixed`: a prefix extractor applies; `counted`: the scan's count (ScanTotals::filter_entries
// with an extractor, the distinct keys without); `entries`: the data blocks' entries.
FilterEntriesAdded EntriesAddedToFilter(const SstReader& sst, bool prefixed, std::uint64_t counted,
                                        std::uint64_t entries);

// The filter's fill statistics (report.fill), and the overfilled / undersized / always-match
// findings (JudgeFill: a filter whose threshold reaches its size is not judged).
void ReportSstFill(const SstReader& sst, FilterEntriesAdded added, FileReport& report);

}  // namespace bloomcodec::rocksdb

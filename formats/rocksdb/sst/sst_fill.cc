// verify's fill judgment of an SST's filter (sst_fill.h).
#include "sst_fill.h"

#include <limits>
#include <optional>
#include <string>

#include "bloomcodec/filter_stats.h"
#include "sst_filter_stats.h"

namespace bloomcodec::rocksdb {
FilterEntriesAdded EntriesAddedToFilter(const SstReader& sst, bool prefixed, std::uint64_t counted,
                                        std::uint64_t entries) {
  if (sst.properties()) {
    if (auto n = sst.properties()->Number("rocksdb.num.filter_entries")) return {*n, true};
  }
  // Without the table's count, 6.x to 9.4 may add the second key's prefix once more after the
  // empty key (FORMAT.md): one entry our count leaves out.
  if (prefixed && !sst.whole_key_filtering() && entries > 1) return {counted + 1, false, 1};
  return {counted, false, 0};
}

void ReportSstFill(const SstReader& sst, FilterEntriesAdded added, FileReport& report) {
  const std::uint64_t filter_entries = added.count;
  Result<SstFilterStats> stats = ComputeSstFilterStats(sst);
  if (!stats.ok()) {
    report.findings.push_back(
        FindingFromStatus(Severity::kError, finding_kind::kStructure, stats.status()));
    return;
  }
  FillReport fill;
  fill.bits = stats->bits;
  fill.bits_set = stats->bits_set;
  fill.hash_count = stats->hash_count;
  fill.fill_ratio = fill.bits > 0 ? static_cast<double>(fill.bits_set) / fill.bits : 0;
  fill.fp_rate = stats->fp_rate;
  fill.sized_keys = static_cast<double>(filter_entries);
  fill.sized_keys_from = "table";
  // A Ribbon solution is about half ones whatever it holds: its fill says nothing of its keys.
  // A block-based filter is many small filters: one fill over all of them estimates no count.
  if (stats->ribbon || sst.filter()->placement == FilterPlacement::kBlockBased) {
    fill.estimated_keys = std::numeric_limits<double>::quiet_NaN();
  }
  if (!stats->ribbon && stats->filters == 1 && fill.bits > 0) {
    FillStatistics s = ComputeFillStatistics(fill.bits, fill.bits_set, fill.hash_count);
    fill.estimated_keys = s.estimated_keys;
    // A filter too small for its threshold to stay below its size is not judged (JudgeFill).
    const FillVerdict verdict = JudgeFill(
        s, static_cast<double>(filter_entries),
        added.recorded ? "added to it (rocksdb.num.filter_entries)" : "in its data blocks",
        static_cast<double>(added.uncounted));
    if (verdict) {
      report.Add(verdict.severity, verdict.kind,
                 verdict.kind == finding_kind::kOverfilled
                     ? verdict.reason + ": the filter was damaged or built for other keys"
                     : verdict.reason,
                 sst.filter()->handle.offset);
    }
  }
  if (stats->always_match) {
    report.Add(Severity::kWarning, finding_kind::kUnsupported,
               "a filter RocksDB answers \"may match\" for every key (reserved or unusable "
               "metadata): it filters nothing",
               sst.filter()->handle.offset);
  }
  report.fill = fill;
}

}  // namespace bloomcodec::rocksdb

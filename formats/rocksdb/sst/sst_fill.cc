// verify's fill judgment of an SST's filter (sst_fill.h).
#include "sst_fill.h"

#include <limits>
#include <optional>
#include <string>

#include "bloomcodec/filter_stats.h"
#include "sst_filter_stats.h"

namespace bloomcodec::rocksdb {
namespace {

// Fewer entries than this are not judged for overfill: one entry more than the count sets up to
// k more bits, which in a filter this small is several standard deviations of its fill (about
// 0.7 bits at 4 entries of a 512-bit line), so a count off by one would read as damage.
constexpr std::uint64_t kMinJudgedEntries = 16;

}  // namespace

FilterEntriesAdded EntriesAddedToFilter(const SstReader& sst, bool prefixed, std::uint64_t counted,
                                        std::uint64_t entries) {
  if (sst.properties()) {
    if (auto n = sst.properties()->Number("rocksdb.num.filter_entries")) return {*n, true};
  }
  if (prefixed && !sst.whole_key_filtering() && entries > 1) return {counted + 1, false};
  return {counted, false};
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
    // A saturated filter is reported whatever its size (OverfillReason without a count).
    const std::optional<double> judged =
        filter_entries >= kMinJudgedEntries ? std::optional<double>(filter_entries) : std::nullopt;
    const std::string reason = OverfillReason(
        s, judged,
        added.recorded ? "added to it (rocksdb.num.filter_entries)" : "in its data blocks");
    if (!reason.empty()) {
      report.Add(Severity::kError, finding_kind::kOverfilled,
                 reason + ": the filter was damaged or built for other keys",
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

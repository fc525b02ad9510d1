// Repair's tap on verify's scan of RocksDB SSTs (see rebuild_tap.h).
#include "rocksdb/sst/rebuild_tap.h"

#include <algorithm>

#include "rocksdb/sst/sst_filter_stats.h"
#include "rocksdb/sst/sst_reader.h"
#include "rocksdb/sst/sst_writer.h"

namespace bloomcodec::rocksdb {

void TableHashes::Add(std::uint64_t first_block, std::vector<std::uint64_t> hashes) {
  const std::lock_guard<std::mutex> held(lock_);
  ranges_.emplace_back(first_block, std::move(hashes));
}

std::vector<std::uint64_t> TableHashes::Merged() {
  const std::lock_guard<std::mutex> held(lock_);
  std::sort(ranges_.begin(), ranges_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t total = 0;
  for (const auto& r : ranges_) total += r.second.size();
  std::vector<std::uint64_t> out;
  out.reserve(total);
  for (auto& [first_block, hashes] : ranges_) {
    // A range's first key may repeat the last key of the range before it (a user key whose
    // versions span the cut), and equal neighbouring hashes collapse as within a range.
    const std::size_t skip =
        !hashes.empty() && !out.empty() && hashes.front() == out.back() ? 1 : 0;
    out.insert(out.end(), hashes.begin() + static_cast<std::ptrdiff_t>(skip), hashes.end());
    hashes = {};  // given back as the merge goes
  }
  ranges_.clear();
  return out;
}

std::unique_ptr<TableHashes> TapTable(RebuildTap* tap, const SstReader& sst, bool prefix_applied) {
  if (tap == nullptr || prefix_applied || !sst.whole_key_filtering() || !sst.filter() ||
      sst.filter()->placement != FilterPlacement::kFull || !sst.properties() ||
      !CheckFilterRewritable(sst).ok()) {
    return nullptr;
  }
  // The budget's estimate only (nothing is allocated from it): 8 bytes an entry, the entries
  // the properties count, no more than the file's bytes.
  const std::uint64_t size = sst.file().size();
  const std::uint64_t entries =
      std::min(sst.properties()->Number("rocksdb.num.entries").value_or(size), size);
  const std::uint64_t bytes = entries * sizeof(std::uint64_t);
  if (!tap->Reserve(bytes)) return nullptr;
  return std::make_unique<TableHashes>(tap->wanted() ? *tap->wanted() : StoredFilterEncoding(sst),
                                       *tap, bytes);
}

void KeepRebuiltFilter(RebuildTap& tap, const SstReader& sst, TableHashes& hashes,
                       std::uint64_t entries, std::uint64_t filter_entries) {
  if (!blocktable::BlocksInFileOrder(
          [&](const blocktable::IndexEntryFn& fn) { return sst.ForEachDataBlock(fn); })) {
    return;
  }
  const std::vector<std::uint64_t> merged = hashes.Merged();
  Result<ByteVector> filter =
      BuildCheckedFullFilter(sst.source(), hashes.encoding(), tap.bits_per_key(), merged);
  if (!filter.ok()) return;
  RebuiltFilter f;
  f.encoding = hashes.encoding();
  f.bits_per_key = tap.bits_per_key();
  f.file_size = sst.file().size();
  f.filter = std::move(filter).value();
  f.entries = entries;
  f.filter_entries = filter_entries;
  tap.Keep(sst.source(), std::move(f));
}

}  // namespace bloomcodec::rocksdb

// Repair's tap on verify's scan of LevelDB tables (see rebuild_tap.h).
#include "leveldb/table/rebuild_tap.h"

#include <algorithm>

#include "leveldb/table/table_reader.h"

namespace bloomcodec::leveldb {

using blocktable::BlockCompression;
using blocktable::BlockHandle;
using blocktable::kBlockTrailerSize;

void TableHashes::Add(BlockHashes range) {
  if (range.offsets.empty()) return;
  const std::lock_guard<std::mutex> held(lock_);
  ranges_.push_back(std::move(range));
}

void TableHashes::SawCompressed(std::uint64_t offset, BlockCompression compression) {
  if (offset >= compressed_at_.load(std::memory_order_relaxed)) return;
  const std::lock_guard<std::mutex> held(lock_);
  if (offset >= compressed_at_.load(std::memory_order_relaxed)) return;
  compressed_at_.store(offset, std::memory_order_relaxed);
  compression_ = compression;
}

BlockCompression TableHashes::compression() const {
  const std::lock_guard<std::mutex> held(lock_);
  return compression_;
}

BlockHashes TableHashes::Merged() {
  const std::lock_guard<std::mutex> held(lock_);
  std::sort(ranges_.begin(), ranges_.end(), [](const BlockHashes& a, const BlockHashes& b) {
    return a.offsets.front() < b.offsets.front();  // Add takes no empty range
  });
  BlockHashes out;
  std::size_t groups = 0, hashes = 0;
  for (const BlockHashes& r : ranges_) {
    groups += r.offsets.size();
    hashes += r.hashes.size();
  }
  out.offsets.reserve(groups);
  out.ends.reserve(groups);
  out.hashes.reserve(hashes);
  for (BlockHashes& r : ranges_) {
    const std::size_t base = out.hashes.size();
    out.offsets.insert(out.offsets.end(), r.offsets.begin(), r.offsets.end());
    for (const std::size_t end : r.ends) out.ends.push_back(base + end);
    out.hashes.insert(out.hashes.end(), r.hashes.begin(), r.hashes.end());
    r = {};  // given back as the merge goes
  }
  ranges_.clear();
  return out;
}

namespace {

// The policy the repair's sizing gives the table (repair/lsm_sizing.cc LevelDbPolicy) when its
// database's tables agree: by the filter's name, 1.17's name by the writer the keys show.
std::optional<BloomPolicy> TapPolicy(const TableReader& table, int bits_per_key) {
  const std::optional<TableFilter>& tf = table.filter();
  if (!tf || tf->basho || tf->variant != BloomVariant::kLevelDb ||
      table.key_kind() != KeyKind::kUser) {
    return std::nullopt;
  }
  const std::string_view name = std::string_view(tf->metaindex_key).substr(7);  // "filter."
  if (name == kCurrentPolicyName) return BloomPolicy::Current(bits_per_key);
  if (name != kLegacyPolicyName) return std::nullopt;
  if (tf->v117 && !tf->writer_ambiguous) return BloomPolicy::Legacy117(bits_per_key);
  return BloomPolicy::GoLevelDb(bits_per_key);
}

// Where the data blocks end, when the index lists them back to back from offset 0 (the ranges
// are merged by offset, and the rewrite keeps the data blocks as one prefix).
std::optional<std::uint64_t> BackToBackEnd(const TableReader& table) {
  std::uint64_t end = 0;
  const Status walked = table.ForEachDataBlock([&](ByteSpan, const BlockHandle& h) {
    if (h.offset != end) return Status::Corrupt(table.source(), h.offset, "back to back");
    end = h.offset + h.size + kBlockTrailerSize;
    return Status();
  });
  if (!walked.ok()) return std::nullopt;
  return end;
}

}  // namespace

std::unique_ptr<TableHashes> TapTable(RebuildTap* tap, const TableReader& table) {
  if (tap == nullptr) return nullptr;
  const std::optional<BloomPolicy> policy = TapPolicy(table, tap->bits_per_key());
  if (!policy) return nullptr;
  // The budget's estimate only (nothing is allocated from it): 4 bytes a key, at most one key
  // for every 4 bytes of the file.
  const std::uint64_t bytes = table.file().size();
  if (!tap->Reserve(bytes)) return nullptr;
  return std::make_unique<TableHashes>(*policy, *tap, bytes);
}

void KeepRebuiltFilter(RebuildTap& tap, const TableReader& table, TableHashes& hashes,
                       std::uint64_t entries) {
  const std::optional<std::uint64_t> data_end = BackToBackEnd(table);
  if (!data_end) return;
  const BlockHashes merged = hashes.Merged();
  Result<ByteVector> block =
      BuildCheckedFilterBlock(table.source(), hashes.policy(), merged, *data_end);
  if (!block.ok()) return;
  RebuiltFilterBlock f;
  f.policy = hashes.policy();
  f.file_size = table.file().size();
  f.filter = std::move(block).value();
  f.entries = entries;
  f.data_end = *data_end;
  f.compression = hashes.compression();
  tap.Keep(table.source(), std::move(f));
}

}  // namespace bloomcodec::leveldb

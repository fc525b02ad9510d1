// Where a repair's tap on verify's scan (rocksdb/sst/rebuild_tap.h, leveldb/table/rebuild_tap.h)
// keeps the new filters it built, and the budget its hashes and filters live within. Internal to
// the library.
//
//   struct MyFilter { std::uint64_t file_size; ByteVector filter; };
//   blocktable::RebuiltFilters<MyFilter> kept(64 << 20, 64 << 20);
//   if (kept.Reserve(estimate)) { ...hash the table...; kept.Release(estimate); }
//   kept.Keep(path, MyFilter{size, std::move(bytes)});
//   const MyFilter* f = kept.FindFile(path, size);  // after the verify returned
//
// Filters are kept by file name (a database's table names are unique and never reused) and
// taken only for a file of the size they were built from. Both budgets hold whatever the
// database's size: a table whose hashes do not fit beside those of the tables being scanned is
// not tapped, and a filter that does not fit beside those kept is not kept (either way the
// rewrite's own pass rebuilds it). Thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "blocktable/index_block.h"
#include "bloomcodec/status.h"

namespace bloomcodec::blocktable {

// `Filter` has `std::uint64_t file_size` (of the table it was built from) and a `filter` of
// bytes (what the filter budget counts).
template <typename Filter>
class RebuiltFilters {
 public:
  // What the hashes of the tables being scanned at once may take, and the new filters kept.
  static constexpr std::uint64_t kHashBudget = std::uint64_t{64} << 20;
  static constexpr std::uint64_t kFilterBudget = std::uint64_t{64} << 20;

  RebuiltFilters(std::uint64_t hash_budget, std::uint64_t filter_budget)
      : budget_(hash_budget), filter_budget_(filter_budget) {}

  // Kept under the table's file name, when it fits the filter budget and none is kept yet.
  void Keep(const std::string& path, Filter filter) {
    const std::lock_guard<std::mutex> held(lock_);
    const std::string name = FileName(path);
    if (kept_.count(name) > 0 || filter.filter.size() > filter_budget_ - kept_bytes_) return;
    kept_bytes_ += filter.filter.size();
    kept_[name] = std::move(filter);
  }
  // The filter kept for the file at `path` when it was built from a file of this size.
  const Filter* FindFile(const std::string& path, std::uint64_t file_size) const {
    const std::lock_guard<std::mutex> held(lock_);
    const auto it = kept_.find(FileName(path));
    if (it == kept_.end() || it->second.file_size != file_size) return nullptr;
    return &it->second;
  }

  // Takes `bytes` of the hash budget (false: they do not fit beside the tables being tapped),
  // and gives them back.
  bool Reserve(std::uint64_t bytes) {
    const std::lock_guard<std::mutex> held(lock_);
    if (bytes > budget_ - reserved_) return false;
    reserved_ += bytes;
    return true;
  }
  void Release(std::uint64_t bytes) {
    const std::lock_guard<std::mutex> held(lock_);
    reserved_ -= std::min(bytes, reserved_);
  }

 private:
  static std::string FileName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
  }

  const std::uint64_t budget_;
  const std::uint64_t filter_budget_;
  mutable std::mutex lock_;
  std::uint64_t reserved_ = 0;
  std::uint64_t kept_bytes_ = 0;
  std::map<std::string, Filter> kept_;  // by file name
};

// Whether `for_each_data_block(fn)` (a table reader's walk of its index, fn(key, handle) for
// each data block) names the data blocks in file order, as every writer lays them out: a tap
// merges its ranges by the offset of their first block, which is the scan's order only then.
inline bool BlocksInFileOrder(
    const std::function<Status(const IndexEntryFn&)>& for_each_data_block) {
  std::uint64_t previous = 0;
  bool first = true, ordered = true;
  const Status walked = for_each_data_block([&](ByteSpan, const BlockHandle& h) {
    ordered = ordered && (first || h.offset > previous);
    first = false;
    previous = h.offset;
    return Status();
  });
  return walked.ok() && ordered;
}

}  // namespace bloomcodec::blocktable

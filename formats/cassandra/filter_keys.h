// Internal: the keys a Cassandra filter is checked against, read in bounded chunks.
//
//   IndexDbKeys keys(std::move(index_file), key_form, entry_form, java_strings, report);
//   keys.Check(&filter, report);     // every key probed once; Index.db damage reported
//   if (keys.complete(report)) judge the fill against keys.count();
//
// Why streaming: a large table's Index.db is tens of GB. IndexDbKeys reads it a window at a time
// (StreamLimits::window_bytes): the window's entries are checked for structure, split into
// ranges of about range_bytes probed on idle workers of the run (codec/parallel.h) through the
// filter's batch path in chunks of chunk_keys, and the window's pages are given back before the
// next. Peak memory is a constant plus the filter, whatever the file's size; the false
// negatives, counts, findings and their order are those of reading the whole file at once
// (ranges are merged in file order; tests/cassandra/streaming_verify_test.cc proves it).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bloomcodec/filter.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/key_list.h"
#include "bloomcodec/key_stream.h"
#include "bloomcodec/verify.h"
#include "cassandra/index_db.h"

namespace bloomcodec::cassandra {

// How much a streamed check holds at once. The defaults suit files of any size; tests make them
// tiny to cross every boundary.
//
// The window is small on purpose: its keys are probed while they are still in the L2 cache, and
// a window larger than L2 pushes out the keys and the filter before the probe reaches them
// (bench/verify_e2e big:1e7, 1 MiB against 8 MiB windows: 26 against 34 ns of CPU per key,
// peak RSS 16 against 55 MiB).
struct StreamLimits {
  std::uint64_t window_bytes = std::uint64_t{1} << 20;
  std::uint64_t range_bytes = std::uint64_t{128} << 10;
  std::size_t chunk_keys = 2048;
};

// Which findings of the report make a source's key count only a lower bound of the filter's keys
// (the source stopped at damage): no fill judgement from it then.
enum class CountIsLowerBound {
  kNever,                // keys given by the user
  kOnAnyError,           // a trie-indexed sstable's keys given alone (any error stopped a reader)
  kOnIndex,              // an Index.db given with --index
  kOnIndexOrUnsupported  // an sstable of a directory
};

class FilterKeys {
 public:
  explicit FilterKeys(CountIsLowerBound lower_bound) : lower_bound_(lower_bound) {}
  virtual ~FilterKeys() = default;
  // Reads every key once, in order; with a filter, probes each (false negatives and
  // keys_checked into `report`). The source's own findings (damage) land where it was opened.
  // Called once; `filter` null only reads (the findings and the count without a filter).
  virtual void Check(const Filter* filter, FileReport& report) = 0;
  // Check without a filter, unless Check already ran: the keys' count and the source's own
  // findings when no filter could be asked (none on disk, or unreadable).
  void CheckWithoutFilter(FileReport& report) {
    if (!checked_) Check(nullptr, report);
  }
  // After Check: the keys read (before any damage).
  virtual std::uint64_t count() const = 0;
  // After Check: false when the source could not be opened at all (there are no keys to count,
  // not zero keys).
  virtual bool has_keys() const { return true; }
  // After Check: whether every key of the filter is among them (no damage cut the source short),
  // judged from the report's findings when Check ended.
  bool complete() const { return complete_; }
  // After Check: whether `filter` answers every key "may contain" (stops at the first that is
  // not).
  virtual bool AllPresent(const Filter& filter) const = 0;
  // Before Check: the partition count the sstable's own metadata records (`recorded_by`, its
  // Statistics.db) for the keys of `source` (its Index.db or Partitions.db). A source that reads
  // whole but holds fewer keys lost them (emptied, or cut at an entry's end): Check adds an
  // "index" error saying so, and the count is only a lower bound (no fill judgement from it).
  // `about`: the record gives the count only to within a range whose least is `recorded`
  // (Summary.db's sampling, summary_db.h); the message then says "about" that many.
  void ExpectRecordedCount(std::uint64_t recorded, std::string source, std::string recorded_by,
                           std::uint64_t about = 0);

 protected:
  // Ends Check: judges completeness from the findings so far (`cut_short`: incomplete anyway)
  // and the recorded count.
  void Finish(FileReport& report, bool cut_short = false);

 private:
  struct Recorded {
    std::uint64_t count = 0;
    std::string source;
    std::string recorded_by;
    std::uint64_t about = 0;  // 0: `count` is exact
  };
  std::optional<Recorded> recorded_;
  CountIsLowerBound lower_bound_;
  bool checked_ = false;
  bool complete_ = false;
};

// Keys of a key file (--keys), streamed: its chunks are copied into ranges of about
// 16 * chunk_keys keys, several ranges probed at once on idle workers, merged in file order.
class KeyStreamKeys : public FilterKeys {
 public:
  KeyStreamKeys(const KeyStream* keys, CountIsLowerBound lower_bound, StreamLimits limits = {})
      : FilterKeys(lower_bound), keys_(keys), limits_(limits) {}
  void Check(const Filter* filter, FileReport& report) override;
  std::uint64_t count() const override { return count_; }
  bool AllPresent(const Filter& filter) const override;

 private:
  const KeyStream* keys_;
  StreamLimits limits_;
  std::uint64_t count_ = 0;
};

// An Index.db, streamed (see the top of this file).
class IndexDbKeys : public FilterKeys {
 public:
  // `java_strings`: the 0.6 filter, which hashed each entry's String as getBytes("UTF-16").
  // Findings go to report.findings at its current end.
  IndexDbKeys(std::unique_ptr<InputFile> file, IndexKeyForm key_form, IndexEntryForm entry_form,
              bool java_strings, const FileReport& report, CountIsLowerBound lower_bound,
              StreamLimits limits = {});
  void Check(const Filter* filter, FileReport& report) override;
  std::uint64_t count() const override { return count_; }
  bool AllPresent(const Filter& filter) const override;

 private:
  std::unique_ptr<InputFile> file_;
  IndexKeyForm key_form_;
  IndexEntryForm entry_form_;
  bool java_strings_;
  StreamLimits limits_;
  std::size_t findings_at_;
  std::uint64_t count_ = 0;
  std::uint64_t sound_end_ = 0;  // the end of the last entry whose key is counted
};

// A trie-indexed sstable's keys (BTI, ScyllaDB ms / mt), streamed from Partitions.db and Data.db
// or Rows.db (bti/verify_keys.h); each chunk is probed through the batch path as it comes.
class PartitionsDbKeys : public FilterKeys {
 public:
  // `prefix`: the sstable's component prefix ("<dir>/da-1-bti-"). Findings go to
  // report.findings at its current end.
  PartitionsDbKeys(std::string prefix, std::string version, std::string sstable_format,
                   const FileReport& report, CountIsLowerBound lower_bound,
                   StreamLimits limits = {});
  void Check(const Filter* filter, FileReport& report) override;
  std::uint64_t count() const override { return count_; }
  bool AllPresent(const Filter& filter) const override;
  bool has_keys() const override { return opened_; }

 private:
  std::string prefix_;
  std::string version_;
  std::string sstable_format_;
  StreamLimits limits_;
  std::size_t findings_at_;
  std::uint64_t count_ = 0;
  bool opened_ = false;
};

}  // namespace bloomcodec::cassandra

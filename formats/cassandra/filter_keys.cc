#include "cassandra/filter_keys.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "bloomcodec/cassandra/java_string.h"
#include "bloomcodec/cassandra/murmur3_filter.h"
#include "cassandra/bti/verify_keys.h"
#include "codec/parallel.h"

namespace bloomcodec::cassandra {

namespace {

// What one range of keys gave; merged in file order into the report.
struct RangeResult {
  std::uint64_t keys = 0;
  std::uint64_t false_negatives = 0;
  std::vector<ByteVector> listed;  // the range's first kMaxListedFalseNegatives
  Status stop;                     // a key that cannot be asked: the range ends before it
};

// A window's keys and their hashes (about 1.4 MB for 1 MiB of small entries), kept by each
// thread from one Index.db to the next. Allocated afresh for every file, the vectors grew by
// doubling through mmap'd blocks that were unmapped at the end of the file and faulted in again
// by the next one: 14% of the CPU of a 4-sstable verify of 10^6 keys (2,000 of its 3,100 page
// faults). Used only between a window's scan and its probes, never across a call that could
// run another file's Check on the same thread (ParallelFor's caller runs only its own items).
struct WindowScratch {
  std::vector<ByteSpan> spans;
  std::vector<Murmur3Hash> hashes;
};

WindowScratch& ThisThreadsWindowScratch() {
  thread_local WindowScratch scratch;
  scratch.spans.clear();
  scratch.hashes.clear();
  return scratch;
}

// Counts the chunk's keys and its false negatives: answer(out) fills one answer per key.
// `chunk`: a KeyList, or keys in place (std::span<const ByteSpan>).
template <typename Chunk, typename Answer>
void TallyChunk(const Chunk& chunk, Answer&& answer, RangeResult& r) {
  thread_local std::vector<std::uint8_t> answers;
  answers.resize(chunk.size());
  answer(std::span<std::uint8_t>(answers));
  r.keys += chunk.size();
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    if (answers[i] != 0) continue;
    ++r.false_negatives;
    if (r.listed.size() < kMaxListedFalseNegatives) {
      r.listed.emplace_back(chunk[i].begin(), chunk[i].end());
    }
  }
}

template <typename Chunk>
void ProbeChunk(const Filter& filter, const Chunk& chunk, RangeResult& r) {
  TallyChunk(
      chunk, [&](std::span<std::uint8_t> answers) { filter.MayContainBatch(chunk, answers); }, r);
}

// The same for keys hashed already: hashes[i] is keys[i]'s CassandraMurmur3.
template <typename Chunk>
void ProbeHashedChunk(const Murmur3Filter& filter, const Chunk& chunk,
                      std::span<const Murmur3Hash> hashes, RangeResult& r) {
  TallyChunk(
      chunk,
      [&](std::span<std::uint8_t> answers) { filter.MayContainHashedBatch(hashes, answers); }, r);
}

// Whether `filter` answers every key of `chunk` "may contain" (the other-layout hint).
template <typename Chunk>
bool AllAnswered(const Filter& filter, const Chunk& chunk) {
  thread_local std::vector<std::uint8_t> answers;
  answers.resize(chunk.size());
  filter.MayContainBatch(chunk, answers);
  return std::all_of(answers.begin(), answers.end(), [](std::uint8_t a) { return a != 0; });
}

// Adds the ranges' results in order, as one pass over the keys would; stops after a range that
// stopped and returns its Status.
Status Merge(std::vector<RangeResult>& results, FileReport& report) {
  for (RangeResult& r : results) {
    report.keys_checked += r.keys;
    for (const ByteVector& key : r.listed) report.AddFalseNegative(key);
    report.false_negative_count += r.false_negatives - r.listed.size();
    if (!r.stop.ok()) return r.stop;
  }
  return Status();
}

// The keys of a KeyList in chunks of views (no key is copied), for the batch path.
template <typename Fn>
void ForEachListChunk(const KeyList& keys, std::size_t chunk_keys, Fn&& fn) {
  thread_local std::vector<ByteSpan> chunk;
  for (std::size_t at = 0; at < keys.size();) {
    chunk.clear();
    const std::size_t stop = std::min(keys.size(), at + chunk_keys);
    for (; at < stop; ++at) chunk.push_back(keys[at]);
    fn(std::span<const ByteSpan>(chunk));
  }
}

}  // namespace

void KeyStreamKeys::Check(const Filter* filter, FileReport& report) {
  count_ = 0;
  const std::size_t chunk = std::max<std::size_t>(limits_.chunk_keys, 1);
  const std::size_t per_range = chunk * 16;
  // Ranges filled from the stream, probed together once kRangesAtOnce are full: the stream's
  // chunks live only during its call, and a range's keys must outlive it to reach a worker.
  constexpr std::size_t kRangesAtOnce = 8;
  std::vector<KeyList> ranges(kRangesAtOnce);
  std::size_t filled = 0;  // ranges[0 .. filled] hold keys; ranges[filled] is being filled
  std::vector<RangeResult> results;
  auto probe = [&](std::size_t count) {
    results.assign(count, RangeResult());
    ParallelFor(count, [&](std::size_t r) {
      ForEachListChunk(ranges[r], chunk,
                       [&](std::span<const ByteSpan> c) { ProbeChunk(*filter, c, results[r]); });
    });
    (void)Merge(results, report);
    for (std::size_t r = 0; r < count; ++r) ranges[r].Clear();
  };
  const Status read = keys_->ForEachChunk([&](std::span<const ByteSpan> keys) {
    count_ += keys.size();
    if (filter == nullptr) return Status();
    for (const ByteSpan& k : keys) {
      if (ranges[filled].size() == per_range && ++filled == kRangesAtOnce) {
        probe(kRangesAtOnce);
        filled = 0;
      }
      ranges[filled].Add(k);
    }
    return Status();
  });
  if (filter != nullptr && !ranges[0].empty()) probe(filled + 1);
  if (!read.ok()) {
    // The key file was checked whole before verify began; it changed or vanished since.
    report.findings.push_back(FindingFromStatus(Severity::kError, finding_kind::kUnreadable, read));
  }
  Finish(report, !read.ok());
}

bool KeyStreamKeys::AllPresent(const Filter& filter) const {
  const Status s = keys_->ForEachChunk([&](std::span<const ByteSpan> keys) {
    return AllAnswered(filter, keys) ? Status() : Status::Refused("a key answered absent");
  });
  return s.ok();
}

void FilterKeys::ExpectRecordedCount(std::uint64_t recorded, std::string source,
                                     std::string recorded_by, std::uint64_t about) {
  recorded_ = Recorded{recorded, std::move(source), std::move(recorded_by), about};
}

namespace {

// 293000 as "293,000": the counts of a large sstable, read by people.
std::string Grouped(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

void FilterKeys::Finish(FileReport& report, bool cut_short) {
  checked_ = true;
  complete_ = !cut_short &&
              std::none_of(report.findings.begin(), report.findings.end(), [&](const Finding& f) {
                switch (lower_bound_) {
                  case CountIsLowerBound::kNever: return false;
                  case CountIsLowerBound::kOnAnyError: return f.severity == Severity::kError;
                  case CountIsLowerBound::kOnIndex: return f.kind == finding_kind::kIndex;
                  case CountIsLowerBound::kOnIndexOrUnsupported:
                    return f.kind == finding_kind::kIndex || f.kind == finding_kind::kUnsupported;
                }
                return false;
              });
  // A whole source with fewer keys than the writer recorded: the index lost keys, which no read
  // finds; the filter was sized for the recorded count, not for what is left.
  if (complete_ && recorded_ && count() < recorded_->count) {
    complete_ = false;
    report.Add(Severity::kError, finding_kind::kIndex,
               recorded_->source + " holds " + Grouped(count()) +
                   (recorded_->about == 0
                        ? " of the " + Grouped(recorded_->count) + " partitions "
                        : " of about " + Grouped(recorded_->about) + " partitions (at least " +
                              Grouped(recorded_->count) + ") ") +
                   recorded_->recorded_by +
                   " records: the index lost keys (emptied, or cut at an entry's end), and reads "
                   "of the others find nothing; the filter's fill is judged by its size and K "
                   "alone");
  }
}

IndexDbKeys::IndexDbKeys(std::unique_ptr<InputFile> file, IndexKeyForm key_form,
                         IndexEntryForm entry_form, bool java_strings, const FileReport& report,
                         CountIsLowerBound lower_bound, StreamLimits limits)
    : FilterKeys(lower_bound),
      file_(std::move(file)),
      key_form_(key_form),
      entry_form_(entry_form),
      java_strings_(java_strings),
      limits_(limits),
      findings_at_(report.findings.size()) {
  limits_.window_bytes = std::max<std::uint64_t>(limits_.window_bytes, 1);
  limits_.range_bytes = std::max<std::uint64_t>(limits_.range_bytes, 1);
  limits_.chunk_keys = std::max<std::size_t>(limits_.chunk_keys, 1);
}

namespace {

// The keys of `spans` (entry numbers from `first_number`) in chunks: in place, or for the 0.6
// filter made UTF-16 Strings; fn(chunk) returning false stops. A key that cannot be made a String
// stops with its Status (the chunk's keys before it are given to fn first).
template <typename Fn>
Status ForEachSpanChunk(ByteSpan bytes, const std::string& path, bool java_strings,
                        std::span<const ByteSpan> spans, std::uint64_t first_number,
                        std::size_t chunk_keys, Fn&& fn) {
  thread_local KeyList raw;
  thread_local KeyList strings;
  std::uint64_t number = first_number;
  for (std::size_t at = 0; at < spans.size();) {
    const std::size_t n = std::min(chunk_keys, spans.size() - at);
    const std::span<const ByteSpan> chunk = spans.subspan(at, n);
    if (java_strings) {
      raw.Clear();
      for (const ByteSpan& key : chunk) raw.Add(key);
      strings.Clear();
      // Before c an entry is the u16 length, the key and an i64: it starts 2 bytes before its key.
      const std::uint64_t entry =
          static_cast<std::uint64_t>(chunk.front().data() - bytes.data()) - 2;
      Status text = JavaStringKeysFromIndex(raw, path, strings, entry, number);
      if (!strings.empty() && !fn(strings)) return Status();
      if (!text.ok()) return text;
    } else if (!fn(chunk)) {
      return Status();
    }
    number += n;
    at += n;
  }
  return Status();
}

}  // namespace

void IndexDbKeys::Check(const Filter* filter, FileReport& report) {
  const ByteSpan bytes = file_->bytes();
  const std::string& path = file_->path();
  file_->AdviseSequential();
  IndexScan scan;
  Status damage;
  Status text;  // the first key the 0.6 filter's String cannot be made of
  bool probing = filter != nullptr;
  std::uint64_t released = 0;
  WindowScratch& scratch = ThisThreadsWindowScratch();
  std::vector<ByteSpan>& spans = scratch.spans;  // the window's keys, found by the scan
  // A Murmur3 filter's keys are hashed by the scan itself (ScanIndexEntries says why).
  const auto* murmur3 = java_strings_ ? nullptr : dynamic_cast<const Murmur3Filter*>(filter);
  std::vector<Murmur3Hash>& hashes = scratch.hashes;  // hashes[i]: spans[i]'s, for `murmur3`
  std::vector<std::size_t> bounds;                    // the window's ranges, as indexes into spans
  std::vector<RangeResult> results;
  // The probes go to the report; without a filter (the 0.6 keys only made Strings) the counts
  // go nowhere.
  FileReport unprobed;
  FileReport& tally = filter != nullptr ? report : unprobed;
  const std::uint64_t checked_before = tally.keys_checked;
  const bool read_keys = probing || java_strings_;
  while (scan.offset < bytes.size() && damage.ok()) {
    const std::uint64_t window_end =
        scan.offset + std::min(limits_.window_bytes, bytes.size() - scan.offset);
    const std::uint64_t first_number = scan.entries;
    spans.clear();
    hashes.clear();
    bounds.assign(1, 0);
    // Without a filter the 0.6 keys are still made Strings: a key that cannot be is a finding.
    const bool keys_wanted = read_keys && text.ok();
    while (scan.offset < window_end) {
      const std::uint64_t until =
          scan.offset + std::min(limits_.range_bytes, window_end - scan.offset);
      damage = ScanIndexEntries(bytes, path, key_form_, entry_form_, until, scan,
                                keys_wanted ? &spans : nullptr,
                                keys_wanted && probing && murmur3 ? &hashes : nullptr);
      if (keys_wanted && spans.size() != bounds.back()) bounds.push_back(spans.size());
      if (!damage.ok()) break;
    }
    if (keys_wanted) {
      const std::size_t ranges = bounds.size() - 1;
      results.assign(ranges, RangeResult{});
      ParallelFor(ranges, [&](std::size_t r) {
        RangeResult& out = results[r];
        const std::span<const ByteSpan> range(spans.data() + bounds[r], bounds[r + 1] - bounds[r]);
        if (probing && murmur3 != nullptr) {
          const std::span<const Murmur3Hash> range_hashes(hashes.data() + bounds[r], range.size());
          for (std::size_t at = 0; at < range.size(); at += limits_.chunk_keys) {
            const std::size_t n = std::min(limits_.chunk_keys, range.size() - at);
            ProbeHashedChunk(*murmur3, range.subspan(at, n), range_hashes.subspan(at, n), out);
          }
          return;
        }
        out.stop = ForEachSpanChunk(bytes, path, java_strings_, range, first_number + bounds[r],
                                    limits_.chunk_keys, [&](const auto& chunk) {
                                      if (probing) {
                                        ProbeChunk(*filter, chunk, out);
                                      } else {
                                        out.keys += chunk.size();
                                      }
                                      return true;
                                    });
      });
      text = Merge(results, tally);
      if (!text.ok()) {
        probing = false;  // the keys after a refused one are not asked, as a whole read does
        count_ = tally.keys_checked - checked_before;
      }
    }
    if (text.ok()) {
      count_ = scan.entries;
      sound_end_ = scan.offset;
    }
    file_->DropPages(released, scan.offset);
    released = scan.offset;
  }
  std::vector<Finding> found;
  if (!damage.ok()) {
    Finding f = FindingFromStatus(Severity::kError, finding_kind::kIndex, damage);
    f.message = path + ": " + f.message + " (the " + std::to_string(scan.entries) +
                " keys before it are checked)";
    found.push_back(std::move(f));
  }
  if (!text.ok()) {
    Finding f = FindingFromStatus(Severity::kError, finding_kind::kIndex, text);
    f.message = path + ": " + f.message + " (the " + std::to_string(count_) +
                " keys before it are checked)";
    found.push_back(std::move(f));
  }
  report.findings.insert(report.findings.begin() + static_cast<std::ptrdiff_t>(findings_at_),
                         found.begin(), found.end());
  Finish(report);
}

bool IndexDbKeys::AllPresent(const Filter& filter) const {
  const ByteSpan bytes = file_->bytes();
  std::vector<ByteSpan>& spans = ThisThreadsWindowScratch().spans;
  IndexScan scan;
  bool all = true;
  while (all && scan.offset < sound_end_) {
    const std::uint64_t first_number = scan.entries;
    spans.clear();
    const Status s = ScanIndexEntries(
        bytes, file_->path(), key_form_, entry_form_,
        scan.offset + std::min(limits_.window_bytes, sound_end_ - scan.offset), scan, &spans);
    (void)ForEachSpanChunk(bytes, file_->path(), java_strings_, spans, first_number,
                           limits_.chunk_keys,
                           [&](const auto& chunk) { return all = AllAnswered(filter, chunk); });
    if (!s.ok()) break;  // cannot happen below sound_end_
  }
  file_->DropPages(0, sound_end_);
  return all;
}

PartitionsDbKeys::PartitionsDbKeys(std::string prefix, std::string version,
                                   std::string sstable_format, const FileReport& report,
                                   CountIsLowerBound lower_bound, StreamLimits limits)
    : FilterKeys(lower_bound),
      prefix_(std::move(prefix)),
      version_(std::move(version)),
      sstable_format_(std::move(sstable_format)),
      limits_(limits),
      findings_at_(report.findings.size()) {}

void PartitionsDbKeys::Check(const Filter* filter, FileReport& report) {
  // The stream's findings belong where the sstable's keys were named, before the filter's own.
  FileReport stream;
  stream.path = report.path;
  bti::TrieStreamLimits trie_limits;
  trie_limits.chunk_keys = limits_.chunk_keys;
  RangeResult probed;
  // The stream hashes every key to check its payload's hash byte: a Murmur3 filter probes with
  // those hashes.
  const auto* murmur3 = dynamic_cast<const Murmur3Filter*>(filter);
  const bti::TrieStreamResult r = bti::StreamTrieIndexKeysWithHashes(
      prefix_, version_, sstable_format_, trie_limits, stream,
      [&](const KeyList& chunk, std::span<const Murmur3Hash> hashes) {
        if (murmur3 != nullptr) {
          ProbeHashedChunk(*murmur3, chunk, hashes, probed);
        } else if (filter != nullptr) {
          ProbeChunk(*filter, chunk, probed);
        } else {
          probed.keys += chunk.size();
        }
      });
  opened_ = r.opened;
  count_ = r.keys;
  report.findings.insert(report.findings.begin() + static_cast<std::ptrdiff_t>(findings_at_),
                         stream.findings.begin(), stream.findings.end());
  // Damage in the trie means no keys: the chunks probed before it was found are dropped.
  if (filter != nullptr && r.trie_read) {
    std::vector<RangeResult> one(1, std::move(probed));
    (void)Merge(one, report);
  }
  Finish(report, !r.opened);
}

bool PartitionsDbKeys::AllPresent(const Filter& filter) const {
  FileReport scratch;
  bool all = true;
  bti::TrieStreamLimits trie_limits;
  trie_limits.chunk_keys = limits_.chunk_keys;
  const bti::TrieStreamResult r = bti::StreamTrieIndexKeys(
      prefix_, version_, sstable_format_, trie_limits, scratch,
      [&](const KeyList& chunk) { all = all && AllAnswered(filter, chunk); });
  return all || !r.trie_read;  // a damaged trie has no keys (its chunks are dropped)
}

}  // namespace bloomcodec::cassandra

// For the tests of streamed, parallel verify of tables: the limits of blocktable/stream.h for the
// plain path (one pass, one chunk, one range) and for splits, and the check that every split
// reports what the plain path reports.
#pragma once

#include <cstdint>

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "blocktable/stream.h"
#include "bloomcodec/verify.h"
#include "codec/parallel.h"
#include "support/report_equal.h"

namespace bloomcodec::testing {

// One pass, one chunk, one range: the plain path the others must equal.
inline blocktable::StreamLimits WholeTable() {
  blocktable::StreamLimits l;
  l.chunk_keys = std::size_t{1} << 40;
  l.min_range_bytes = std::uint64_t{1} << 62;
  l.max_ranges = 1;
  l.drop_window = std::uint64_t{1} << 62;
  return l;
}

// Chunks of `chunk_keys`, ranges from `range_bytes`, pages dropped as soon as passed.
inline blocktable::StreamLimits Split(std::size_t chunk_keys, std::uint64_t range_bytes) {
  blocktable::StreamLimits l;
  l.chunk_keys = chunk_keys;
  l.min_range_bytes = range_bytes;
  l.max_ranges = 1u << 20;
  l.drop_window = 1;
  return l;
}

// `verify` run with `limits` in force: alone (threads <= 1) or inside a WorkPool of `threads`,
// where ParallelFor hands the ranges to the idle workers.
inline FileReport VerifyWithLimits(const std::function<FileReport()>& verify,
                                   const blocktable::StreamLimits& limits, unsigned threads) {
  blocktable::ScopedStreamLimits scoped(limits);
  FileReport report;
  if (threads <= 1) {
    report = verify();
  } else {
    WorkPool(threads).Run(1, [&](std::size_t) { report = verify(); });
  }
  return report;
}

// `fn(limits, threads, what)` for each split of the repair taps' tests (a range per block, chunks
// of one key, ..., the whole table) with 1 and 4 threads; `what` names the split after `path`.
inline void ForEachSplit(
    const std::string& path,
    const std::function<void(const blocktable::StreamLimits&, unsigned, const std::string&)>& fn) {
  const std::vector<std::pair<std::size_t, std::uint64_t>> splits = {
      {1, 1}, {3, 1}, {7, 700}, {64, 3000}, {1u << 20, 1u << 30}};
  for (const auto& [chunk, range] : splits) {
    for (unsigned threads : {1u, 4u}) {
      fn(Split(chunk, range), threads,
         path + ": chunks of " + std::to_string(chunk) + ", ranges of " + std::to_string(range) +
             " bytes, " + std::to_string(threads) + " threads");
    }
  }
}

// Every split (a range per block, chunks of one key, ...) with 1 and 4 threads reports what the
// whole-table pass reports; returns that report. `what` names the table in failures.
inline FileReport ExpectSameUnderEverySplit(const std::function<FileReport()>& verify,
                                            const std::string& what) {
  const FileReport whole = VerifyWithLimits(verify, WholeTable(), 1);
  const std::vector<std::pair<std::size_t, std::uint64_t>> splits = {
      {1, 1}, {3, 1}, {7, 700}, {64, 3000}, {4096, 20000}};
  for (const auto& [chunk, range] : splits) {
    for (unsigned threads : {1u, 4u}) {
      const FileReport r = VerifyWithLimits(verify, Split(chunk, range), threads);
      EXPECT_EQ(ReportDifference(whole, r), "")
          << what << ": chunks of " << chunk << " keys, ranges of " << range << " bytes, "
          << threads << " threads";
    }
  }
  return whole;
}

}  // namespace bloomcodec::testing

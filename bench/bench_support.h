// Shared pieces of the benchmarks: the key stream (identical to the JVM program's), a heap
// allocation counter, peak-RSS probes and the dataset cache.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bloomcodec/key_list.h"

namespace bloomcodec::bench {

// splitmix64; CassandraBench.java computes the same stream with Java longs.
inline std::uint64_t SplitMix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// `n` keys of `length` bytes; set 0 holds the stored keys, set 1 keys that were never added.
KeyList MakeKeys(std::size_t n, std::size_t length, int set);

// Keys to build from and to probe with, shared by consecutive benchmarks of one size (building a
// 1 GB key set for every benchmark would dominate the run).
struct Dataset {
  std::size_t length = 0;
  std::size_t count = 0;
  KeyList present;         // `count` keys
  KeyList absent;          // ProbeCount(count) keys, none of them in `present`
  KeyList present_sample;  // the first ProbeCount(count) of `present`, when that is fewer

  // The stored keys a query benchmark asks for (hits).
  const KeyList& hits() const { return present_sample.empty() ? present : present_sample; }
};
// Probes per query benchmark: every key up to 2^20, then a 2^20-key sample.
inline std::size_t ProbeCount(std::size_t n) { return n < (1u << 20) ? n : (1u << 20); }
const Dataset& GetDataset(std::size_t count, std::size_t length);
void DropDataset();

// Heap allocations (operator new calls) since the start of the process.
std::uint64_t AllocationCount();

// Reports per-key time and allocations. Call after the timing loop.
void ReportPerKey(benchmark::State& state, std::size_t keys_per_iteration,
                  std::uint64_t allocations);

// Times membership queries of the first `count` probes, key at a time (MayContain) or through
// the batch path (MayContainBatch), after an untimed check that both paths give the same answer
// for every probe; `hits` says every probe is stored (a 0 answer is then an error). Reports per
// key, with the allocations of the timed loop.
template <typename FilterT>
void TimeQueries(benchmark::State& state, const FilterT& f, const KeyList& probes,
                 std::size_t count, bool hits, bool batch) {
  std::vector<std::uint8_t> answers(probes.size());
  f.MayContainBatch(probes, answers);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    if ((answers[i] == 1) != f.MayContain(probes[i])) {
      state.SkipWithError("batch and single answers differ");
      return;
    }
  }
  std::size_t found = 0;
  const std::uint64_t allocs = AllocationCount();
  for (auto _ : state) {
    found = 0;
    if (!batch) {
      for (std::size_t i = 0; i < count; ++i) found += f.MayContain(probes[i]) ? 1 : 0;
    } else {
      f.MayContainBatch(probes, answers);
      found = static_cast<std::size_t>(std::count(answers.begin(), answers.begin() + count, 1));
    }
    benchmark::DoNotOptimize(found);
  }
  const std::uint64_t used = AllocationCount() - allocs;
  if (hits && found != count) state.SkipWithError("a stored key was answered absent");
  state.counters["answered_present"] = static_cast<double>(found) / static_cast<double>(count);
  // For bench/run's note on the rows that wait on memory (the filter's size against the caches).
  state.counters["filter_bytes"] = static_cast<double>(f.bit_count() / 8);
  state.counters["probes"] = static_cast<double>(f.hash_count());
  ReportPerKey(state, count, used);
}

// Resets the kernel's peak-RSS mark (VmHWM) and reads it / the current RSS, in bytes.
bool ResetPeakRss();
std::uint64_t PeakRssBytes();
std::uint64_t CurrentRssBytes();

// Where the benchmarks write their files (BLOOMCODEC_BENCH_DIR or /tmp).
std::string ScratchDir();

void RegisterLevelDbBenchmarks();
void RegisterCassandraBenchmarks();
void RegisterCassandraMurmur3Benchmarks();
void RegisterRocksDbBenchmarks();
void RegisterLoadBenchmarks();
void RegisterMemoryBenchmarks();

}  // namespace bloomcodec::bench

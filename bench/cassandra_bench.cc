// Cassandra 1.0 Filter.db: build, query, load and verify. The original's side is the JVM
// (java/bloomcodec/bench/CassandraBench.java, run by bench_main after these benchmarks); the
// 1 GiB load is compared with a plain memcpy of the same bytes.
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bench_support.h"
#include "bloomcodec/cassandra/sizing.h"
#include "bloomcodec/cassandra/v10_filter.h"
#include "bloomcodec/input_file.h"
#include "bloomcodec/output_file.h"

namespace bloomcodec::bench {
namespace {

using cassandra::V10Filter;

// Cassandra's keys here are 16 bytes (the JVM program uses the same stream).
constexpr std::size_t kKeyLength = 16;

cassandra::FilterSpec SpecFor(std::size_t n) {
  return cassandra::SizeForBucketsPerElement(static_cast<std::int64_t>(n),
                                             cassandra::kDefaultBucketsPerElement)
      .value();
}

void Build(benchmark::State& state, std::size_t n) {
  const Dataset& d = GetDataset(n, kKeyLength);
  const cassandra::FilterSpec spec = SpecFor(n);
  std::uint64_t bits_set = 0;
  std::uint64_t allocs = 0, setup_allocs = 0;
  for (auto _ : state) {
    // Create allocates the filter once (not per key); counted apart from AddAll.
    const std::uint64_t a0 = AllocationCount();
    V10Filter f = V10Filter::Create(spec).value();
    const std::uint64_t a1 = AllocationCount();
    f.AddAll(d.present);
    allocs += AllocationCount() - a1;
    setup_allocs += a1 - a0;
    benchmark::DoNotOptimize(f.serialized().data());
    state.PauseTiming();
    bits_set = f.bits_set();
    state.ResumeTiming();
  }
  state.counters["bits_set"] = static_cast<double>(bits_set);
  state.counters["allocs_per_filter"] = static_cast<double>(setup_allocs) / state.iterations();
  ReportPerKey(state, n, allocs);
}

enum class Mode { kOurs, kOursBatch };

void Query(benchmark::State& state, std::size_t n, bool hits, Mode mode) {
  const Dataset& d = GetDataset(n, kKeyLength);
  const KeyList& probes = hits ? d.hits() : d.absent;
  const std::size_t count = ProbeCount(n);
  V10Filter f = V10Filter::Create(SpecFor(n)).value();
  f.AddAll(d.present);
  // The batch path is reached at these filter sizes only; both paths are checked against
  // each other first.
  TimeQueries(state, f, probes, count, hits, mode == Mode::kOursBatch);
}

std::string FilterPath(const std::string& tag) {
  return ScratchDir() + "/bloomcodec-bench-" + tag + "-Filter.db";
}

// "load" on our side: map the file (InputFile::Open), parse the header (V10Filter::Parse, no
// copy), and popcount every word so that every page is actually read; then unmap. The JVM's
// load is BloomFilterSerializer.deserialize (readInt, readInt, W x readLong into a long[]) over a
// buffered FileInputStream, plus the same popcount. The file is in the page cache on both sides.
void Load(benchmark::State& state, std::size_t n) {
  const std::string path = FilterPath("keys-" + std::to_string(n));
  {
    const Dataset& d = GetDataset(n, kKeyLength);
    V10Filter f = V10Filter::Create(SpecFor(n)).value();
    f.AddAll(d.present);
    if (!WriteFileAtomically(path, f.serialized()).ok()) {
      state.SkipWithError("cannot write Filter.db");
      return;
    }
  }
  std::uint64_t bits = 0;
  for (auto _ : state) {
    InputFile in = InputFile::Open(path).value();
    V10Filter f = V10Filter::Parse(in.bytes(), path).value();
    bits = f.bits_set();
    benchmark::DoNotOptimize(bits);
  }
  state.counters["bits_set"] = static_cast<double>(bits);
  ReportPerKey(state, n, 0);
  std::remove(path.c_str());
}

// verify: Filter.db against the keys it was built from: map + parse + MayContainBatch over
// every key, all must answer present.
void Verify(benchmark::State& state, std::size_t n) {
  const Dataset& d = GetDataset(n, kKeyLength);
  const std::string path = FilterPath("verify");
  {
    V10Filter f = V10Filter::Create(SpecFor(n)).value();
    f.AddAll(d.present);
    if (!WriteFileAtomically(path, f.serialized()).ok()) {
      state.SkipWithError("cannot write Filter.db");
      return;
    }
  }
  std::vector<std::uint8_t> answers(n);
  bool all_present = true;
  for (auto _ : state) {
    InputFile in = InputFile::Open(path).value();
    V10Filter f = V10Filter::Parse(in.bytes(), path).value();
    f.MayContainBatch(d.present, answers);
    all_present =
        std::all_of(answers.begin(), answers.end(), [](std::uint8_t a) { return a == 1; });
    benchmark::DoNotOptimize(all_present);
  }
  if (!all_present) state.SkipWithError("verify found a false negative");
  ReportPerKey(state, n, 0);
  std::remove(path.c_str());
}

// --- 1 GiB Filter.db against memory bandwidth -----------------------------------------------

constexpr std::int32_t kBigWords = (1 << 27) - 1;  // 8 + 8W bytes = exactly 1 GiB
constexpr std::size_t kBigBytes = 8 + std::size_t{8} * kBigWords;

const std::string& BigFilterPath() {
  static const std::string path = [] {
    const std::string p = FilterPath("1GiB");
    V10Filter f = V10Filter::Create(12, kBigWords).value();
    ByteVector bytes = std::move(f).TakeSerialized();
    for (std::size_t i = 8; i + 8 <= bytes.size(); i += 8) {
      const std::uint64_t v = SplitMix64(i);
      std::memcpy(bytes.data() + i, &v, 8);
    }
    (void)WriteFileAtomically(p, bytes);
    return p;
  }();
  return path;
}

void LoadBigOurs(benchmark::State& state) {
  const std::string& path = BigFilterPath();
  DropDataset();
  // Warm the page cache once, so both sides read memory, not the disk.
  {
    InputFile in = InputFile::Open(path).value();
    benchmark::DoNotOptimize(V10Filter::Parse(in.bytes(), path).value().bits_set());
  }
  const std::uint64_t rss_before = CurrentRssBytes();
  ResetPeakRss();
  std::uint64_t bits = 0;
  const std::uint64_t allocs = AllocationCount();
  for (auto _ : state) {
    InputFile in = InputFile::Open(path).value();
    V10Filter f = V10Filter::Parse(in.bytes(), path).value();
    bits = f.bits_set();
    benchmark::DoNotOptimize(bits);
  }
  const std::uint64_t peak = PeakRssBytes();
  state.counters["allocs_per_load"] =
      static_cast<double>(AllocationCount() - allocs) / state.iterations();
  state.counters["file_bytes"] = static_cast<double>(kBigBytes);
  state.counters["peak_rss_growth_bytes"] =
      static_cast<double>(peak > rss_before ? peak - rss_before : 0);
  state.counters["peak_rss_bytes"] = static_cast<double>(peak);
  state.counters["GB_per_s"] = benchmark::Counter(static_cast<double>(kBigBytes) * 1e-9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

void LoadBigMemcpy(benchmark::State& state) {
  const std::string& path = BigFilterPath();
  DropDataset();
  std::vector<std::uint8_t> src(kBigBytes), dst(kBigBytes);  // both fully faulted in
  {
    InputFile in = InputFile::Open(path).value();
    std::memcpy(src.data(), in.bytes().data(), kBigBytes);
  }
  std::memset(dst.data(), 1, kBigBytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kBigBytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.counters["GB_per_s"] = benchmark::Counter(static_cast<double>(kBigBytes) * 1e-9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

void RegisterCassandraBenchmarks() {
  for (std::size_t n : {1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u}) {
    const std::string k = "/keys:" + std::to_string(n) + "/";
    benchmark::RegisterBenchmark(("cassandra/build" + k + "ours").c_str(), Build, n);
    for (bool hits : {true, false}) {
      const std::string op = hits ? "cassandra/query_hit" : "cassandra/query_miss";
      benchmark::RegisterBenchmark((op + k + "ours").c_str(), Query, n, hits, Mode::kOurs);
      benchmark::RegisterBenchmark((op + k + "ours_batch").c_str(), Query, n, hits,
                                   Mode::kOursBatch);
    }
    benchmark::RegisterBenchmark(("cassandra/load" + k + "ours").c_str(), Load, n);
    if (n == 10000000u) {
      benchmark::RegisterBenchmark(("cassandra/verify" + k + "ours").c_str(), Verify, n);
    }
  }
}

void RegisterLoadBenchmarks() {
  benchmark::RegisterBenchmark("load/v10_filter_1GiB_vs_memcpy/ours", LoadBigOurs);
  benchmark::RegisterBenchmark("load/v10_filter_1GiB_vs_memcpy/original", LoadBigMemcpy);
}

}  // namespace bloomcodec::bench

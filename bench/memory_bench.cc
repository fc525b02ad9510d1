// Memory latency of this machine, measured beside the filter benchmarks so that the rows whose
// single-key lookups wait on DRAM can be read against it: a pointer chase over one 64-byte line
// per pointer, in a random cyclic order (Sattolo's shuffle), so every load depends on the one
// before it and neither the hardware prefetchers nor out-of-order execution can overlap them.
//
// "memory/chase/bytes:N/latency" reports ns per dependent load (as items: one load an item). The buffer
// is ordinary heap memory with 4 KiB pages, like the filters of the query benchmarks, so a
// buffer larger than the TLB's reach pays the page walk too, as they do.
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "bench_support.h"

namespace bloomcodec::bench {
namespace {

constexpr std::size_t kLine = 64;

void Chase(benchmark::State& state, std::size_t bytes) {
  const std::size_t lines = bytes / kLine;
  // One pointer at the start of each line; the rest of the line is never touched.
  std::unique_ptr<std::uint8_t[]> buffer(new std::uint8_t[bytes]);
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  // Sattolo: a single cycle through every line.
  std::uint64_t seed = 0x2545f4914f6cdd1dULL;
  for (std::size_t i = lines - 1; i > 0; --i) {
    seed = SplitMix64(seed);
    const std::size_t j = static_cast<std::size_t>(seed % i);
    std::swap(order[i], order[j]);
  }
  for (std::size_t i = 0; i < lines; ++i) {
    void* next = buffer.get() + std::size_t{order[i]} * kLine;
    std::memcpy(buffer.get() + i * kLine, &next, sizeof next);
  }
  order.clear();
  order.shrink_to_fit();
  constexpr std::size_t kSteps = 1 << 20;
  void* p = buffer.get();
  // One lap untimed, so that the pages are faulted in and the caches hold what they can.
  for (std::size_t i = 0; i < lines; ++i) p = *static_cast<void**>(p);
  for (auto _ : state) {
    for (std::size_t i = 0; i < kSteps; ++i) p = *static_cast<void**>(p);
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kSteps));
  state.counters["buffer_bytes"] = static_cast<double>(bytes);
}

}  // namespace

void RegisterMemoryBenchmarks() {
  // L2 (1 MiB); the 10^6-key filters (1.2 - 2.5 MB, beyond L2); the 10^7-key filters (12 - 25 MB,
  // within the 32 MiB L3 shared by the VM); DRAM well beyond L3.
  for (std::size_t mib : {1u, 4u, 16u, 256u}) {
    const std::size_t bytes = std::size_t{mib} << 20;
    benchmark::RegisterBenchmark(
        ("memory/chase/bytes:" + std::to_string(bytes) + "/latency").c_str(), Chase, bytes)
        ->Unit(benchmark::kNanosecond);
  }
}

}  // namespace bloomcodec::bench

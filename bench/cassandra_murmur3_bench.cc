// Cassandra 3.0 - 5.0 Filter.db (Murmur3, new index order; the 4.0+ raw-bytes layout): build and
// query. The original's side is the JVM (CassandraBench.java's Murmur3Filter, "cassandra4/" rows),
// sized as the SSTable writer sizes it, getFilter(N, 0.01).
#include <algorithm>
#include <string>
#include <vector>

#include "bench_support.h"
#include "bloomcodec/cassandra/filter_factory.h"
#include "bloomcodec/cassandra/murmur3_filter.h"

namespace bloomcodec::bench {
namespace {

using cassandra::Era;
using cassandra::Murmur3Filter;

constexpr std::size_t kKeyLength = 16;  // as the JVM program's keys

cassandra::Murmur3FilterSpec SpecFor(std::size_t n) {
  return cassandra::SizeMurmur3Filter(static_cast<std::int64_t>(n), 0.01).value();
}

Murmur3Filter Empty(std::size_t n) {
  const cassandra::Murmur3FilterSpec spec = SpecFor(n);
  return Murmur3Filter::Create(spec.hash_count, spec.word_count, Era::kV40).value();
}

void Build(benchmark::State& state, std::size_t n) {
  const Dataset& d = GetDataset(n, kKeyLength);
  std::uint64_t bits_set = 0, allocs = 0;
  for (auto _ : state) {
    Murmur3Filter f = Empty(n);  // one allocation per filter, not per key
    const std::uint64_t a = AllocationCount();
    f.AddAll(d.present);
    allocs += AllocationCount() - a;
    benchmark::DoNotOptimize(f.serialized().data());
    state.PauseTiming();
    bits_set = f.bits_set();
    state.ResumeTiming();
  }
  state.counters["bits_set"] = static_cast<double>(bits_set);
  ReportPerKey(state, n, allocs);
}

void Query(benchmark::State& state, std::size_t n, bool hits, bool batch) {
  const Dataset& d = GetDataset(n, kKeyLength);
  const KeyList& probes = hits ? d.hits() : d.absent;
  Murmur3Filter f = Empty(n);
  f.AddAll(d.present);
  TimeQueries(state, f, probes, ProbeCount(n), hits, batch);
}

}  // namespace

void RegisterCassandraMurmur3Benchmarks() {
  for (std::size_t n : {1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u}) {
    const std::string k = "/keys:" + std::to_string(n) + "/";
    benchmark::RegisterBenchmark(("cassandra4/build" + k + "ours").c_str(), Build, n);
    for (bool hits : {true, false}) {
      const std::string op = hits ? "cassandra4/query_hit" : "cassandra4/query_miss";
      benchmark::RegisterBenchmark((op + k + "ours").c_str(), Query, n, hits, false);
      benchmark::RegisterBenchmark((op + k + "ours_batch").c_str(), Query, n, hits, true);
    }
  }
}

}  // namespace bloomcodec::bench

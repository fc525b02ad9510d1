// RocksDB full filters: our builders and batch reader against librocksdb 7.8.3's (linked here
// only), for the three encodings. Names end in /ours, /ours_batch or /original as bench/run
// expects; times are per key. Before timing, each benchmark checks that both sides produce the
// same bytes (build) or the same answers (query).
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.h"
#include "bloomcodec/rocksdb/full_filter.h"
#include "rocksdb/rocksdb_internal.h"

namespace bloomcodec::bench {
namespace {

using bloomcodec::rocksdb::BuildFullFilter;
using bloomcodec::rocksdb::FilterEncoding;
using bloomcodec::rocksdb::FullFilterReader;

struct RocksCase {
  FilterEncoding encoding;
  std::size_t count;
  double bits_per_key;
};

const char* EncodingName(FilterEncoding e) {
  switch (e) {
    case FilterEncoding::kLegacyBloom: return "legacy_bloom";
    case FilterEncoding::kFastLocalBloom: return "fast_local_bloom";
    case FilterEncoding::kRibbon: return "ribbon";
  }
  return "?";
}

std::unique_ptr<const ::rocksdb::FilterPolicy> Policy(const RocksCase& c) {
  return std::unique_ptr<const ::rocksdb::FilterPolicy>(
      c.encoding == FilterEncoding::kRibbon ? ::rocksdb::NewRibbonFilterPolicy(c.bits_per_key)
                                            : ::rocksdb::NewBloomFilterPolicy(c.bits_per_key));
}

std::unique_ptr<::rocksdb::FilterBitsBuilder> Builder(const ::rocksdb::FilterPolicy& policy,
                                                      const RocksCase& c) {
  ::rocksdb::BlockBasedTableOptions options;
  options.format_version = c.encoding == FilterEncoding::kLegacyBloom ? 4 : 5;
  return std::unique_ptr<::rocksdb::FilterBitsBuilder>(
      policy.GetBuilderWithContext(::rocksdb::FilterBuildingContext(options)));
}

::rocksdb::Slice SliceOf(ByteSpan b) {
  return ::rocksdb::Slice(reinterpret_cast<const char*>(b.data()), b.size());
}

std::string OriginalFilter(const RocksCase& c, const KeyList& keys) {
  const auto policy = Policy(c);
  auto builder = Builder(*policy, c);
  for (std::size_t i = 0; i < keys.size(); ++i) builder->AddKey(SliceOf(keys[i]));
  std::unique_ptr<const char[]> owner;
  return builder->Finish(&owner).ToString();
}

void BuildOurs(benchmark::State& state, RocksCase c) {
  const Dataset& d = GetDataset(c.count, 16);
  const std::uint64_t allocs = AllocationCount();
  for (auto _ : state) {
    auto filter = BuildFullFilter(c.encoding, c.bits_per_key, d.present);
    benchmark::DoNotOptimize(filter.value().data());
  }
  ReportPerKey(state, c.count, AllocationCount() - allocs);
}

void BuildOriginal(benchmark::State& state, RocksCase c) {
  const Dataset& d = GetDataset(c.count, 16);
  const std::string theirs = OriginalFilter(c, d.present);
  const ByteVector ours = BuildFullFilter(c.encoding, c.bits_per_key, d.present).value();
  if (std::string(ours.begin(), ours.end()) != theirs) {
    state.SkipWithError("filters differ");
    return;
  }
  const auto policy = Policy(c);
  const std::uint64_t allocs = AllocationCount();
  for (auto _ : state) {
    auto builder = Builder(*policy, c);
    for (std::size_t i = 0; i < c.count; ++i) builder->AddKey(SliceOf(d.present[i]));
    std::unique_ptr<const char[]> owner;
    benchmark::DoNotOptimize(builder->Finish(&owner).data());
  }
  ReportPerKey(state, c.count, AllocationCount() - allocs);
}

void Query(benchmark::State& state, RocksCase c, bool hits, bool original) {
  const Dataset& d = GetDataset(c.count, 16);
  const KeyList& probes = hits ? d.hits() : d.absent;
  const std::size_t n = ProbeCount(c.count);
  const ByteVector filter = BuildFullFilter(c.encoding, c.bits_per_key, d.present).value();
  const FullFilterReader ours = FullFilterReader::Parse(filter, "bench").value();
  const auto policy = Policy(c);
  std::unique_ptr<::rocksdb::FilterBitsReader> theirs(policy->GetFilterBitsReader(SliceOf(filter)));
  std::vector<std::uint8_t> answers(probes.size());
  ours.MayContainBatch(probes, answers);
  for (std::size_t i = 0; i < n; ++i) {
    if ((answers[i] == 1) != theirs->MayMatch(SliceOf(probes[i]))) {
      state.SkipWithError("our answers differ from librocksdb's");
      return;
    }
  }
  std::size_t found = 0;
  const std::uint64_t allocs = AllocationCount();
  if (original) {
    std::vector<::rocksdb::Slice> keys;
    for (std::size_t i = 0; i < n; ++i) keys.push_back(SliceOf(probes[i]));
    for (auto _ : state) {
      found = 0;
      for (std::size_t i = 0; i < n; ++i) found += theirs->MayMatch(keys[i]) ? 1 : 0;
      benchmark::DoNotOptimize(found);
    }
  } else {
    for (auto _ : state) {
      ours.MayContainBatch(probes, answers);
      found = static_cast<std::size_t>(std::count(answers.begin(), answers.begin() + n, 1));
      benchmark::DoNotOptimize(found);
    }
  }
  if (hits && found != n) state.SkipWithError("a stored key was answered absent");
  state.counters["answered_present"] = static_cast<double>(found) / static_cast<double>(n);
  ReportPerKey(state, n, AllocationCount() - allocs);
}

std::string Name(const char* op, const RocksCase& c, const char* side) {
  return std::string("rocksdb/") + op + "/" + EncodingName(c.encoding) +
         "/keys:" + std::to_string(c.count) + "/bpk:10/" + side;
}

}  // namespace

void RegisterRocksDbBenchmarks() {
  for (std::size_t count : {1000u, 100000u, 1000000u}) {
    for (FilterEncoding e :
         {FilterEncoding::kLegacyBloom, FilterEncoding::kFastLocalBloom, FilterEncoding::kRibbon}) {
      const RocksCase c{e, count, 10.0};
      benchmark::RegisterBenchmark(Name("build", c, "ours").c_str(), BuildOurs, c);
      benchmark::RegisterBenchmark(Name("build", c, "original").c_str(), BuildOriginal, c);
      for (bool hits : {true, false}) {
        const char* op = hits ? "query_hit" : "query_miss";
        benchmark::RegisterBenchmark(Name(op, c, "ours_batch").c_str(), Query, c, hits, false);
        benchmark::RegisterBenchmark(Name(op, c, "original").c_str(), Query, c, hits, true);
      }
    }
  }
}

}  // namespace bloomcodec::bench

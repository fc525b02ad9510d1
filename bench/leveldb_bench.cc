// LevelDB: our bloom policy and table reader against libleveldb 1.23 (linked here only).
//
// Every benchmark name ends in /ours, /ours_batch or /original; bench/run pairs each "ours*"
// with the "original" of the same prefix. Times are per key.
#include <leveldb/comparator.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>
#include <leveldb/slice.h>
#include <leveldb/status.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "bench_support.h"
#include "bloomcodec/leveldb/bloom.h"
#include "leveldb/table/table_reader.h"

namespace leveldb {
// Table::InternalGet (what TableCache::Get runs for DB::Get) is private and befriends
// TableCache; this benchmark-only class of that name forwards to it. It defines no symbol of
// LevelDB's own TableCache (an inline static member of a class the library never sees).
class TableCache {
 public:
  static Status BenchInternalGet(Table* table, const ReadOptions& options, const Slice& key,
                                 void* arg, void (*handle)(void*, const Slice&, const Slice&)) {
    return table->InternalGet(options, key, arg, handle);
  }
};
}  // namespace leveldb

namespace bloomcodec::bench {
namespace {

using bloomcodec::leveldb::BloomPolicy;
using bloomcodec::leveldb::HashFlavor;

std::vector<::leveldb::Slice> Slices(const KeyList& keys, std::size_t n) {
  std::vector<::leveldb::Slice> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.emplace_back(reinterpret_cast<const char*>(keys[i].data()), keys[i].size());
  }
  return out;
}

struct BloomCase {
  std::size_t length;
  std::size_t count;
  int bits_per_key;
};

void BuildOurs(benchmark::State& state, BloomCase c) {
  const Dataset& d = GetDataset(c.count, c.length);
  const BloomPolicy policy = BloomPolicy::Current(c.bits_per_key);
  ByteVector filter;
  AppendBloomFilter(policy, d.present, filter);  // sizes the buffer once, as the original's string
  const std::uint64_t allocs = AllocationCount();
  for (auto _ : state) {
    filter.clear();
    AppendBloomFilter(policy, d.present, filter);
    benchmark::DoNotOptimize(filter.data());
  }
  ReportPerKey(state, c.count, AllocationCount() - allocs);
}

void BuildOriginal(benchmark::State& state, BloomCase c) {
  const Dataset& d = GetDataset(c.count, c.length);
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(
      ::leveldb::NewBloomFilterPolicy(c.bits_per_key));
  const std::vector<::leveldb::Slice> keys = Slices(d.present, c.count);
  std::string filter;
  policy->CreateFilter(keys.data(), static_cast<int>(keys.size()), &filter);
  // Same bytes or the comparison means nothing.
  ByteVector ours;
  AppendBloomFilter(BloomPolicy::Current(c.bits_per_key), d.present, ours);
  if (std::string(ours.begin(), ours.end()) != filter) state.SkipWithError("filters differ");
  const std::uint64_t allocs = AllocationCount();
  for (auto _ : state) {
    filter.clear();
    policy->CreateFilter(keys.data(), static_cast<int>(keys.size()), &filter);
    benchmark::DoNotOptimize(filter.data());
  }
  ReportPerKey(state, c.count, AllocationCount() - allocs);
}

enum class Mode { kOurs, kOursBatch, kOriginal };

// Untimed: the single and batch answers equal the original's for every probe (the batch path's
// large-filter rounds are only reached by filters this size).
bool SameAnswers(const ByteVector& filter, const KeyList& probes, int bits_per_key) {
  std::unique_ptr<const ::leveldb::FilterPolicy> policy(
      ::leveldb::NewBloomFilterPolicy(bits_per_key));
  const ::leveldb::Slice f(reinterpret_cast<const char*>(filter.data()), filter.size());
  std::vector<std::uint8_t> batch(probes.size());
  bloomcodec::leveldb::BloomKeyMayMatchBatch(HashFlavor::kUnsignedTail, probes, filter, batch);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const bool theirs = policy->KeyMayMatch(
        ::leveldb::Slice(reinterpret_cast<const char*>(probes[i].data()), probes[i].size()), f);
    if (theirs != (batch[i] == 1)) return false;
    if (theirs !=
        bloomcodec::leveldb::BloomKeyMayMatch(HashFlavor::kUnsignedTail, probes[i], filter)) {
      return false;
    }
  }
  return true;
}

void Query(benchmark::State& state, BloomCase c, bool hits, Mode mode) {
  const Dataset& d = GetDataset(c.count, c.length);
  const KeyList& probes = hits ? d.hits() : d.absent;
  const std::size_t n = ProbeCount(c.count);
  ByteVector filter;
  AppendBloomFilter(BloomPolicy::Current(c.bits_per_key), d.present, filter);
  std::vector<std::uint8_t> answers(probes.size());
  if (mode == Mode::kOursBatch && !SameAnswers(filter, probes, c.bits_per_key)) {
    state.SkipWithError("our answers differ from libleveldb's");
    return;
  }
  std::size_t found = 0;
  std::uint64_t allocs = 0;
  if (mode == Mode::kOriginal) {
    std::unique_ptr<const ::leveldb::FilterPolicy> policy(
        ::leveldb::NewBloomFilterPolicy(c.bits_per_key));
    const std::vector<::leveldb::Slice> keys = Slices(probes, n);
    const ::leveldb::Slice f(reinterpret_cast<const char*>(filter.data()), filter.size());
    allocs = AllocationCount();
    for (auto _ : state) {
      found = 0;
      for (std::size_t i = 0; i < n; ++i) found += policy->KeyMayMatch(keys[i], f) ? 1 : 0;
      benchmark::DoNotOptimize(found);
    }
  } else if (mode == Mode::kOurs) {
    allocs = AllocationCount();
    for (auto _ : state) {
      found = 0;
      for (std::size_t i = 0; i < n; ++i) {
        found += bloomcodec::leveldb::BloomKeyMayMatch(HashFlavor::kUnsignedTail, probes[i], filter)
                     ? 1
                     : 0;
      }
      benchmark::DoNotOptimize(found);
    }
  } else {
    allocs = AllocationCount();
    for (auto _ : state) {
      bloomcodec::leveldb::BloomKeyMayMatchBatch(HashFlavor::kUnsignedTail, probes, filter,
                                                 answers);
      found = static_cast<std::size_t>(std::count(answers.begin(), answers.begin() + n, 1));
      benchmark::DoNotOptimize(found);
    }
  }
  allocs = AllocationCount() - allocs;
  if (hits && found != n) state.SkipWithError("a stored key was answered absent");
  state.counters["answered_present"] = static_cast<double>(found) / static_cast<double>(n);
  // For bench/run's note on the rows that wait on memory (the filter's size against the caches).
  state.counters["filter_bytes"] = static_cast<double>(filter.size());
  state.counters["probes"] = static_cast<double>(filter.back());
  ReportPerKey(state, n, allocs);
}

// --- Whole tables -------------------------------------------------------------------------

class StringSink final : public ::leveldb::WritableFile {
 public:
  ::leveldb::Status Append(const ::leveldb::Slice& data) override {
    contents.append(data.data(), data.size());
    return ::leveldb::Status::OK();
  }
  ::leveldb::Status Close() override { return ::leveldb::Status::OK(); }
  ::leveldb::Status Flush() override { return ::leveldb::Status::OK(); }
  ::leveldb::Status Sync() override { return ::leveldb::Status::OK(); }
  std::string contents;
};

class StringSource final : public ::leveldb::RandomAccessFile {
 public:
  explicit StringSource(const std::string& contents) : contents_(contents) {}
  ::leveldb::Status Read(std::uint64_t offset, std::size_t n, ::leveldb::Slice* result,
                         char*) const override {
    if (offset > contents_.size()) return ::leveldb::Status::InvalidArgument("read past end");
    n = std::min(n, contents_.size() - static_cast<std::size_t>(offset));
    *result = ::leveldb::Slice(contents_.data() + offset, n);  // zero-copy, like an mmap'd file
    return ::leveldb::Status::OK();
  }

 private:
  const std::string& contents_;
};

// A table of `count` 16-byte keys (16-byte values, bloom 10, no compression) written by
// libleveldb's TableBuilder; ours reads the same bytes.
const std::string& TableBytes(std::size_t count, const ::leveldb::FilterPolicy* policy) {
  static std::size_t cached_count = 0;
  static std::string* cached = nullptr;
  if (cached != nullptr && cached_count == count) return *cached;
  delete cached;
  const Dataset& d = GetDataset(count, 16);
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(d.present[a].begin(), d.present[a].end(),
                                        d.present[b].begin(), d.present[b].end());
  });
  ::leveldb::Options options;
  options.filter_policy = policy;
  options.compression = ::leveldb::kNoCompression;
  StringSink sink;
  ::leveldb::TableBuilder builder(options, &sink);
  for (std::size_t i : order) {
    const ::leveldb::Slice k(reinterpret_cast<const char*>(d.present[i].data()), 16);
    builder.Add(k, k);
  }
  builder.Finish();
  cached = new std::string(std::move(sink.contents));
  cached_count = count;
  return *cached;
}

void TableLookup(benchmark::State& state, std::size_t count, bool hits, Mode mode) {
  static const ::leveldb::FilterPolicy* policy = ::leveldb::NewBloomFilterPolicy(10);
  const std::string& bytes = TableBytes(count, policy);
  const Dataset& d = GetDataset(count, 16);
  const KeyList& probes = hits ? d.hits() : d.absent;
  const std::size_t n = ProbeCount(count);
  std::size_t found = 0;
  std::uint64_t allocs = 0;
  if (mode == Mode::kOriginal) {
    ::leveldb::Options options;
    options.filter_policy = policy;
    StringSource source(bytes);
    ::leveldb::Table* raw = nullptr;
    ::leveldb::Status s = ::leveldb::Table::Open(options, &source, bytes.size(), &raw);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    std::unique_ptr<::leveldb::Table> table(raw);
    const std::vector<::leveldb::Slice> keys = Slices(probes, n);
    ::leveldb::ReadOptions read;
    read.fill_cache = false;
    auto handle = [](void* arg, const ::leveldb::Slice&, const ::leveldb::Slice&) {
      ++*static_cast<std::size_t*>(arg);
    };
    allocs = AllocationCount();
    for (auto _ : state) {
      found = 0;
      for (std::size_t i = 0; i < n; ++i) {
        ::leveldb::TableCache::BenchInternalGet(table.get(), read, keys[i], &found, handle);
      }
      benchmark::DoNotOptimize(found);
    }
  } else {
    const ByteSpan file(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    bloomcodec::leveldb::TableOpenOptions options;
    options.key_kind = KeyKind::kPlain;
    auto table = bloomcodec::leveldb::TableReader::Open(file, "bench.ldb", options);
    if (!table.ok()) {
      state.SkipWithError(table.status().ToString().c_str());
      return;
    }
    std::vector<std::uint8_t> answers(probes.size());
    allocs = AllocationCount();
    for (auto _ : state) {
      found = 0;
      if (mode == Mode::kOurs) {
        for (std::size_t i = 0; i < n; ++i) found += table->MayContain(probes[i]).value() ? 1 : 0;
      } else {
        (void)table->MayContainBatch(probes, answers);
        found = static_cast<std::size_t>(std::count(answers.begin(), answers.begin() + n, 1));
      }
      benchmark::DoNotOptimize(found);
    }
  }
  allocs = AllocationCount() - allocs;
  if (hits && found != n) state.SkipWithError("a stored key was not found");
  state.counters["answered_present"] = static_cast<double>(found) / static_cast<double>(n);
  ReportPerKey(state, n, allocs);
}

std::string Name(const char* op, const BloomCase& c, const char* side) {
  return std::string("leveldb/") + op + "/len:" + std::to_string(c.length) +
         "/keys:" + std::to_string(c.count) + "/bpk:" + std::to_string(c.bits_per_key) + "/" + side;
}

}  // namespace

void RegisterLevelDbBenchmarks() {
  for (std::size_t count : {1000u, 10000u, 100000u, 1000000u, 10000000u}) {
    for (std::size_t length : {16u, 100u}) {
      for (int bpk : {10, 20}) {
        const BloomCase c{length, count, bpk};
        benchmark::RegisterBenchmark(Name("build", c, "ours").c_str(), BuildOurs, c);
        benchmark::RegisterBenchmark(Name("build", c, "original").c_str(), BuildOriginal, c);
        for (bool hits : {true, false}) {
          const char* op = hits ? "query_hit" : "query_miss";
          benchmark::RegisterBenchmark(Name(op, c, "ours").c_str(), Query, c, hits, Mode::kOurs);
          benchmark::RegisterBenchmark(Name(op, c, "ours_batch").c_str(), Query, c, hits,
                                       Mode::kOursBatch);
          benchmark::RegisterBenchmark(Name(op, c, "original").c_str(), Query, c, hits,
                                       Mode::kOriginal);
        }
      }
    }
    if (count == 10000u || count == 1000000u) {
      for (bool hits : {true, false}) {
        const std::string base = std::string("leveldb/table_") + (hits ? "hit" : "miss") +
                                 "/len:16/keys:" + std::to_string(count) + "/bpk:10/";
        benchmark::RegisterBenchmark((base + "ours").c_str(), TableLookup, count, hits,
                                     Mode::kOurs);
        benchmark::RegisterBenchmark((base + "ours_batch").c_str(), TableLookup, count, hits,
                                     Mode::kOursBatch);
        benchmark::RegisterBenchmark((base + "original").c_str(), TableLookup, count, hits,
                                     Mode::kOriginal);
      }
    }
  }
}

}  // namespace bloomcodec::bench

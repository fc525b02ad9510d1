#include "bench_support.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>

namespace {
// Counting operator new: every heap allocation of the process goes through here, so a
// benchmark can show that its timed loop allocates nothing per key.
std::atomic<std::uint64_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, std::align_val_t align) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return ::operator new(size, align);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace bloomcodec::bench {

KeyList MakeKeys(std::size_t n, std::size_t length, int set) {
  KeyList keys;
  keys.Reserve(n, n * length);
  std::vector<std::uint8_t> key(length);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t base = (std::uint64_t(set) << 48) ^ (std::uint64_t(i) << 8);
    for (std::size_t w = 0; w * 8 < length; ++w) {
      const std::uint64_t v = SplitMix64(base + w);
      for (std::size_t b = 0; b < 8 && w * 8 + b < length; ++b) {
        key[w * 8 + b] = static_cast<std::uint8_t>(v >> (8 * b));
      }
    }
    keys.Add(ByteSpan(key));
  }
  return keys;
}

namespace {
Dataset* g_dataset = nullptr;
}

const Dataset& GetDataset(std::size_t count, std::size_t length) {
  if (g_dataset != nullptr && g_dataset->count == count && g_dataset->length == length) {
    return *g_dataset;
  }
  DropDataset();
  g_dataset = new Dataset;
  g_dataset->length = length;
  g_dataset->count = count;
  g_dataset->present = MakeKeys(count, length, 0);
  g_dataset->absent = MakeKeys(ProbeCount(count), length, 1);
  if (ProbeCount(count) < count) g_dataset->present_sample = MakeKeys(ProbeCount(count), length, 0);
  return *g_dataset;
}

void DropDataset() {
  delete g_dataset;
  g_dataset = nullptr;
}

std::uint64_t AllocationCount() { return g_allocations.load(std::memory_order_relaxed); }

void ReportPerKey(benchmark::State& state, std::size_t keys_per_iteration,
                  std::uint64_t allocations) {
  const double keys =
      static_cast<double>(state.iterations()) * static_cast<double>(keys_per_iteration);
  state.SetItemsProcessed(static_cast<std::int64_t>(keys));
  state.counters["allocs_per_key"] = static_cast<double>(allocations) / keys;
  state.counters["keys"] = static_cast<double>(keys_per_iteration);
}

bool ResetPeakRss() {
  // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  return static_cast<bool>(f);
}

namespace {
std::uint64_t StatusKb(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::size_t len = std::strlen(field);
  while (std::getline(f, line)) {
    if (line.compare(0, len, field) == 0) return std::strtoull(line.c_str() + len, nullptr, 10);
  }
  return 0;
}
}  // namespace

std::uint64_t PeakRssBytes() { return StatusKb("VmHWM:") * 1024; }
std::uint64_t CurrentRssBytes() { return StatusKb("VmRSS:") * 1024; }

std::string ScratchDir() {
  const char* dir = std::getenv("BLOOMCODEC_BENCH_DIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

}  // namespace bloomcodec::bench

#include "codec/parallel.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace bloomcodec {

namespace {
thread_local WorkPool* current_pool = nullptr;

// One ParallelFor call, kept alive by every helper job that may still start after the call
// returned (such a job finds no item left and touches nothing of the caller's).
struct ForState {
  std::atomic<std::size_t> next{0};
  std::size_t n = 0;
  const std::function<void(std::size_t)>* fn = nullptr;
  std::mutex mutex;
  std::condition_variable finished_cv;
  std::size_t finished = 0;

  void Claim() {
    std::size_t done = 0;
    for (std::size_t i = next++; i < n; i = next++) {
      (*fn)(i);
      ++done;
    }
    if (done == 0) return;
    std::lock_guard<std::mutex> lock(mutex);
    finished += done;
    if (finished == n) finished_cv.notify_all();
  }
};
}  // namespace

WorkPool* CurrentWorkPool() { return current_pool; }

unsigned DefaultThreads() {
  // The cores this process may run on (taskset, a container's cpuset), not every core of the
  // machine: two workers time-sliced on one core evict each other's filter from the caches
  // (bench/verify_e2e big:1e8 under taskset -c 0: 6.0 CPU-s with two workers, 3.0 with one).
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return static_cast<unsigned>(count);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

WorkPool::WorkPool(unsigned threads) : threads_(threads == 0 ? DefaultThreads() : threads) {}

void WorkPool::Post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    helpers_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void WorkPool::Work() {
  WorkPool* outer = current_pool;
  current_pool = this;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (!helpers_.empty()) {
      std::function<void()> job = std::move(helpers_.front());
      helpers_.pop_front();
      ++running_;
      lock.unlock();
      job();
      lock.lock();
      --running_;
    } else if (next_task_ < tasks_) {
      const std::size_t i = next_task_++;
      ++running_;
      lock.unlock();
      (*task_fn_)(i);
      lock.lock();
      --running_;
    } else if (running_ == 0) {
      break;  // nothing queued and nobody left who could queue a helper
    } else {
      wake_.wait(lock);
      continue;
    }
    if (running_ == 0 && helpers_.empty() && next_task_ >= tasks_) wake_.notify_all();
  }
  wake_.notify_all();
  current_pool = outer;
}

void WorkPool::Run(std::size_t n, const std::function<void(std::size_t)>& fn) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_fn_ = &fn;
    tasks_ = n;
    next_task_ = 0;
  }
  std::vector<std::thread> workers;
  // With fewer tasks than threads the spare workers still start: they serve ParallelFor.
  const unsigned extra = n == 0 ? 0 : threads_ - 1;
  for (unsigned t = 0; t < extra; ++t) workers.emplace_back([this] { Work(); });
  if (n > 0) Work();
  for (std::thread& t : workers) t.join();
}

void ParallelFor(std::size_t n, const std::function<void(std::size_t)>& fn) {
  WorkPool* pool = current_pool;
  if (pool == nullptr || pool->threads() <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  auto state = std::make_shared<ForState>();
  state->n = n;
  state->fn = &fn;
  const std::size_t helpers = std::min<std::size_t>(pool->threads() - 1, n - 1);
  for (std::size_t h = 0; h < helpers; ++h) pool->Post([state] { state->Claim(); });
  state->Claim();
  std::unique_lock<std::mutex> lock(state->mutex);
  state->finished_cv.wait(lock, [&] { return state->finished == n; });
}

}  // namespace bloomcodec

// Internal: the workers of one run, shared by whole-file tasks and the ranges of one large file.
//
//   WorkPool pool(threads);
//   pool.Run(tasks.size(), [&](std::size_t i) {         // every task once, on `threads` workers
//     reports[i] = tasks[i]();                           // a task may call ParallelFor:
//   });
//   ...inside a task:
//   ParallelFor(ranges.size(), [&](std::size_t r) { results[r] = Check(ranges[r]); });
//
// ParallelFor runs its items on the calling thread and on whichever workers of the pool the
// caller runs on are idle (a directory with one large file and many small ones keeps every core
// busy to the end); outside a pool, or with one worker, it is a plain loop. Items are claimed in
// index order, each exactly once; ParallelFor returns when every item has returned, so `fn` and
// what it captures may live on the caller's stack. Results go to per-item slots: the order of
// any output never depends on scheduling. Items must not throw.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace bloomcodec {

class WorkPool {
 public:
  explicit WorkPool(unsigned threads);  // 0: DefaultThreads()
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  unsigned threads() const { return threads_; }
  // Calls fn(i) for every i in [0, n) on the workers (the calling thread is one of them) and
  // returns when all have returned and no helper job is left.
  void Run(std::size_t n, const std::function<void(std::size_t)>& fn);

 private:
  friend void ParallelFor(std::size_t, const std::function<void(std::size_t)>&);
  void Post(std::function<void()> job);  // a helper job, run before the remaining tasks
  void Work();

  unsigned threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> helpers_;
  std::size_t next_task_ = 0;
  std::size_t tasks_ = 0;
  std::size_t running_ = 0;
  const std::function<void(std::size_t)>* task_fn_ = nullptr;
};

// The cores this process may run on (its CPU affinity); hardware_concurrency when unknown.
unsigned DefaultThreads();

// The pool the calling thread works for, or null.
WorkPool* CurrentWorkPool();

void ParallelFor(std::size_t n, const std::function<void(std::size_t)>& fn);

}  // namespace bloomcodec

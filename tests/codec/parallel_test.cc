#include "codec/parallel.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace bloomcodec {
namespace {

TEST(ParallelFor, OutsideAPoolIsAPlainLoopInOrder) {
  std::vector<std::size_t> seen;
  ParallelFor(5, [&](std::size_t i) { seen.push_back(i); });
  EXPECT_EQ(seen, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(CurrentWorkPool(), nullptr);
}

TEST(WorkPool, RunsEveryTaskOnceAndNestedItemsOnIdleWorkers) {
  WorkPool pool(4);
  std::vector<int> task_runs(3, 0);
  std::vector<std::atomic<int>> item_runs(3 * 200);
  std::mutex m;
  std::set<std::thread::id> item_threads;
  pool.Run(3, [&](std::size_t t) {
    ++task_runs[t];
    EXPECT_EQ(CurrentWorkPool(), &pool);
    // Only task 0 is large: its items must also run on the workers the other tasks left idle.
    const std::size_t n = t == 0 ? 200 : 2;
    ParallelFor(n, [&](std::size_t i) {
      ++item_runs[t * 200 + i];
      if (t == 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        std::lock_guard<std::mutex> lock(m);
        item_threads.insert(std::this_thread::get_id());
      }
    });
  });
  EXPECT_EQ(task_runs, (std::vector<int>{1, 1, 1}));
  for (std::size_t t = 0; t < 3; ++t) {
    for (std::size_t i = 0; i < 200; ++i) {
      EXPECT_EQ(item_runs[t * 200 + i].load(), (t == 0 || i < 2) ? 1 : 0) << t << " " << i;
    }
  }
  EXPECT_GT(item_threads.size(), 1u);
}

// As many workers as cores the process may run on: a thread limited to one core (as taskset
// -c 0 limits a process) gets one worker, an unrestricted one as many as its affinity allows.
TEST(WorkPool, DefaultWorkersFollowTheCpuAffinity) {
  cpu_set_t all;
  CPU_ZERO(&all);
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  EXPECT_EQ(DefaultThreads(), static_cast<unsigned>(CPU_COUNT(&all)));
  EXPECT_EQ(WorkPool(0).threads(), static_cast<unsigned>(CPU_COUNT(&all)));
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  unsigned limited = 0, pool = 0;
  std::thread t([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) return;  // affinity is per thread
    limited = DefaultThreads();
    pool = WorkPool(0).threads();
  });
  t.join();
  EXPECT_EQ(limited, 1u);
  EXPECT_EQ(pool, 1u);
}

TEST(WorkPool, ZeroTasksAndOneThread) {
  WorkPool none(3);
  int calls = 0;
  none.Run(0, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  WorkPool one(1);
  std::vector<std::size_t> order;
  one.Run(2, [&](std::size_t t) {
    ParallelFor(3, [&](std::size_t i) { order.push_back(t * 10 + i); });
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 10, 11, 12}));
}

}  // namespace
}  // namespace bloomcodec

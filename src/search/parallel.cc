#include "search/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace podsim::search {

void for_each_index(size_t n, unsigned jobs, const std::function<void(size_t)>& fn) {
  if (jobs <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i)
      fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;  // guards the two below
  size_t failed_index = n;
  std::exception_ptr error;
  const auto work = [&] {
    for (;;) {
      if (failed.load())
        return;
      const size_t i = next.fetch_add(1);
      if (i >= n)
        return;
      try {
        fn(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (i < failed_index) {
          failed_index = i;
          error = std::current_exception();
        }
        failed.store(true);
      }
    }
  };
  const size_t threads = std::min<size_t>(jobs, n);
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread& t : pool)
    t.join();
  if (error)
    std::rethrow_exception(error);
}

}  // namespace podsim::search

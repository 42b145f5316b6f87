// Runs a share of a sweep's points on worker threads and hands their results
// back in index order, holding at most a bounded window of finished results,
// so memory stays flat however many points there are.
//
// Each point is computed by `work(index)` on one worker thread; `work` must
// be safe to call concurrently on different indices (podsim's evaluation
// builds its own simulation per point and shares nothing mutable). Results
// are strings (the point's rows, already formatted), so the order of the
// output never depends on which thread finished first.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace podsim::sweep {

// The points one process computes: first, first + stride, ... below `count`.
// One process: {0, 1, n}; rank r of N MPI ranks: {r, N, n}.
struct Share {
  uint64_t first = 0;
  uint64_t stride = 1;
  uint64_t count = 0;  // all points of the sweep

  // How many points this share holds.
  uint64_t size() const;
  // The k-th index of the share, k < size().
  uint64_t at(uint64_t k) const { return first + k * stride; }
};

class OrderedRunner {
 public:
  using Work = std::function<std::string(uint64_t index)>;

  // Starts `jobs` (>= 1) worker threads. At most `window` results (default
  // 4 per job) are computed ahead of the one next() returns next.
  OrderedRunner(Share share, unsigned jobs, Work work, uint64_t window = 0);
  // Stops the workers (after the points they are computing).
  ~OrderedRunner();
  OrderedRunner(const OrderedRunner&) = delete;
  OrderedRunner& operator=(const OrderedRunner&) = delete;

  // The next result of the share, in index order; blocks until it is done.
  // Called from one thread (the writer).
  // Rethrows what `work` threw for it. Precondition: fewer than
  // share.size() calls so far.
  std::string next();
  // Waits at most `timeout` for the result next() returns next (or its
  // error); true once it is there, so next() will not block. Lets the
  // calling thread do other work while it waits (an MPI rank's heartbeat).
  bool wait_next_for(std::chrono::milliseconds timeout);

 private:
  void worker();

  const Share share_;
  const Work work_;
  const uint64_t window_;
  std::mutex mu_;
  std::condition_variable ready_;     // a result was stored
  std::condition_variable has_room_;  // next() consumed one
  uint64_t handed_out_ = 0;           // share positions given to workers
  uint64_t consumed_ = 0;             // share positions returned by next()
  bool stopping_ = false;
  std::map<uint64_t, std::string> done_;  // share position -> result
  std::map<uint64_t, std::exception_ptr> failed_;
  std::vector<std::thread> threads_;
};

}  // namespace podsim::sweep

#include "sweep/ordered_runner.h"

#include <algorithm>
#include <stdexcept>

namespace podsim::sweep {

uint64_t Share::size() const {
  return first >= count ? 0 : (count - first - 1) / stride + 1;
}

OrderedRunner::OrderedRunner(Share share, unsigned jobs, Work work, uint64_t window)
    : share_(share),
      work_(std::move(work)),
      window_(window > 0 ? window : 4 * static_cast<uint64_t>(std::max(jobs, 1U))) {
  if (share_.stride == 0)
    throw std::invalid_argument("OrderedRunner: stride must be >= 1");
  const uint64_t threads = std::min<uint64_t>(std::max(jobs, 1U), share_.size());
  threads_.reserve(threads);
  for (uint64_t i = 0; i < threads; ++i)
    threads_.emplace_back([this] { worker(); });
}

OrderedRunner::~OrderedRunner() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  has_room_.notify_all();
  for (std::thread& t : threads_)
    t.join();
}

void OrderedRunner::worker() {
  for (;;) {
    uint64_t k = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      has_room_.wait(lock, [this] {
        return stopping_ || handed_out_ >= share_.size() || handed_out_ < consumed_ + window_;
      });
      if (stopping_ || handed_out_ >= share_.size())
        return;
      k = handed_out_++;
    }
    std::string result;
    std::exception_ptr error;
    try {
      result = work_(share_.at(k));
    } catch (...) {
      error = std::current_exception();
    }
    bool awaited = false;  // next() waits for this one
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (error) {
        failed_.emplace(k, error);
      } else {
        done_.emplace(k, std::move(result));
      }
      awaited = k == consumed_;
    }
    // next() waits only for the result at consumed_: waking it for a later
    // one would only put it back to sleep.
    if (awaited)
      ready_.notify_one();
  }
}

bool OrderedRunner::wait_next_for(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (consumed_ >= share_.size())
    throw std::logic_error("OrderedRunner::wait_next_for: every result was already returned");
  const uint64_t k = consumed_;
  return ready_.wait_for(lock, timeout,
                         [&] { return done_.count(k) != 0 || failed_.count(k) != 0; });
}

std::string OrderedRunner::next() {
  std::unique_lock<std::mutex> lock(mu_);
  if (consumed_ >= share_.size())
    throw std::logic_error("OrderedRunner::next: every result was already returned");
  const uint64_t k = consumed_;
  ready_.wait(lock, [&] { return done_.count(k) != 0 || failed_.count(k) != 0; });
  if (const auto f = failed_.find(k); f != failed_.end())
    std::rethrow_exception(f->second);
  std::string result = std::move(done_.at(k));
  done_.erase(k);
  ++consumed_;
  lock.unlock();
  has_room_.notify_all();
  return result;
}

}  // namespace podsim::sweep

#include "sweep/bounded_call.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace podsim::sweep {

void call_within(double seconds, const std::string& message, const std::function<void()>& call) {
  if (!(seconds > 0) || !std::isfinite(seconds)) {
    call();
    return;
  }
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(m);
    if (cv.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return done; }))
      return;
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, message.data(), message.size());
    ::_exit(1);
  });
  // The watchdog is joined however the call ends.
  const auto stop = [&] {
    {
      const std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    cv.notify_one();
    watchdog.join();
  };
  try {
    call();
  } catch (...) {
    stop();
    throw;
  }
  stop();
}

}  // namespace podsim::sweep

#include "report/interrupt_cleanup.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

namespace podsim::report {
namespace {

constexpr size_t kSlots = 64;        // open outputs at once: a run writes two or three
constexpr size_t kPathBytes = 4096;  // PATH_MAX on Linux

struct Slot {
  std::atomic<bool> live{false};
  char path[kPathBytes] = {};
};

std::array<Slot, kSlots>& slots() {
  static std::array<Slot, kSlots> table;
  return table;
}

// Set while outputs are put in place; a signal then only notes itself.
std::atomic<bool> g_holding{false};
std::atomic<int> g_held_signal{0};

extern "C" void remove_temporaries(int sig) {
  if (g_holding.load(std::memory_order_acquire)) {
    int none = 0;
    g_held_signal.compare_exchange_strong(none, sig);
    return;
  }
  for (Slot& s : slots()) {
    if (s.live.load(std::memory_order_acquire))
      ::unlink(s.path);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    // SIGUSR1, SIGUSR2 and SIGALRM too: mpirun forwards them to its ranks
    // (Open MPI's ess_base_forward_signals), and by default each ends the
    // process as SIGTERM does.
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM}) {
      struct sigaction action {};
      action.sa_handler = remove_temporaries;
      sigemptyset(&action.sa_mask);
      struct sigaction previous {};
      // Keep a handler someone else installed, or an ignored signal ignored.
      if (::sigaction(sig, nullptr, &previous) == 0 && previous.sa_handler == SIG_DFL)
        ::sigaction(sig, &action, nullptr);
    }
  });
}

std::mutex& claim_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

InterruptCleanup::InterruptCleanup(const std::filesystem::path& path) {
  const std::string text = std::filesystem::absolute(path).string();
  if (text.size() >= kPathBytes)
    return;
  install_once();
  const std::lock_guard<std::mutex> lock(claim_mutex());
  for (size_t i = 0; i < kSlots; ++i) {
    Slot& s = slots()[i];
    if (!s.live.load(std::memory_order_relaxed)) {
      std::memcpy(s.path, text.c_str(), text.size() + 1);
      s.live.store(true, std::memory_order_release);
      slot_ = static_cast<int>(i);
      return;
    }
  }
}

HeldInterrupts::HeldInterrupts() {
  install_once();
  g_holding.store(true, std::memory_order_release);
}

HeldInterrupts::~HeldInterrupts() {
  g_holding.store(false, std::memory_order_release);
  const int sig = g_held_signal.exchange(0);
  if (sig != 0)
    remove_temporaries(sig);
}

InterruptCleanup::~InterruptCleanup() {
  if (slot_ >= 0)
    slots()[static_cast<size_t>(slot_)].live.store(false, std::memory_order_release);
}

}  // namespace podsim::report

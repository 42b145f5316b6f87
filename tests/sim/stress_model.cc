#include "stress_model.h"

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include "sim/fingerprint.h"

namespace podsim::sim::testing {
namespace {

// What one executed event does. Drawn from a stream seeded by (seed, label)
// only, so it does not depend on which kernel runs the event.
struct Child {
  int64_t delay_ps = 0;
  int priority = 0;
  bool as_callable = false;
  bool cancellable = false;  // scheduled with schedule_cancellable_*
};
struct Decision {
  std::vector<Child> children;
  std::optional<uint64_t> cancel_label;  // a label scheduled earlier, in any state
};

Child random_child(std::mt19937_64& rng) {
  Child c;
  const uint64_t kind = rng() % 10;
  c.delay_ps = kind < 4   ? 0                                             // now: FIFO path
               : kind < 6 ? static_cast<int64_t>(rng() % 3)               // near ties
               : kind < 9 ? static_cast<int64_t>(rng() % 10'000)          // spread
                          : static_cast<int64_t>(rng() % 1'000'000'000);  // far
  const uint64_t p = rng() % 8;
  c.priority = p < 5 ? 0 : p == 5 ? -1 : p == 6 ? 1 : -7;
  c.as_callable = rng() % 8 == 0;
  c.cancellable = rng() % 4 != 0;
  return c;
}

Decision decide(const StressConfig& config, uint64_t label) {
  std::mt19937_64 rng(config.seed * 0x9E3779B97F4A7C15ull + label);
  Decision d;
  const int children = static_cast<int>(rng() % 3) + (rng() % 4 == 0 ? 1 : 0);  // mean ~1.25
  for (int i = 0; i < children; ++i) {
    d.children.push_back(random_child(rng));
  }
  if (rng() % 5 == 0 && label > 0) {
    d.cancel_label = rng() % (label + 1);  // may be itself: already running
  }
  return d;
}

Child initial_event(const StressConfig& config, int i) {
  std::mt19937_64 rng(config.seed + 0x51ED * static_cast<uint64_t>(i));
  Child c = random_child(rng);
  c.delay_ps %= 1'000;  // start within the first nanosecond, many at zero
  return c;
}

// The kernel under test, driven by the workload.
class SimulationDriver final : public EventHandler {
 public:
  SimulationDriver(const StressConfig& config, Simulation::Options options)
      : config_(config), sim_(options) {}

  StressResult run() {
    for (int i = 0; i < config_.initial_events; ++i) {
      schedule(initial_event(config_, i));
    }
    sim_.run();
    result_.fingerprint = sim_.fingerprint();
    result_.pending_at_end = sim_.pending();
    return result_;
  }

  void handle(Simulation& sim, uint64_t label) override { on_event(sim, label); }

 private:
  void on_event(Simulation& sim, uint64_t label) {
    if (sim.now() == last_time_) {
      ++result_.same_time_events;
    }
    last_time_ = sim.now();
    result_.executed.push_back({sim.now().count_ps(), priorities_[label], label});
    const Decision d = decide(config_, label);
    for (const Child& c : d.children) {
      schedule(c);
    }
    if (d.cancel_label) {
      const bool ok = sim.cancel(ids_[*d.cancel_label]);
      result_.cancel_results.push_back(ok);
      result_.successful_cancels += ok ? 1 : 0;
    }
  }

  void schedule(const Child& c) {
    if (static_cast<int>(ids_.size()) >= config_.max_events) {
      return;
    }
    const uint64_t label = ids_.size();
    const Time delay = Time::ps(c.delay_ps);
    priorities_.push_back(c.priority);
    // A plain event gets no id: cancelling it is cancelling EventId{}.
    const auto fn = [this, label](Simulation& sim) { on_event(sim, label); };
    if (c.cancellable) {
      ids_.push_back(c.as_callable ? sim_.schedule_cancellable_in(delay, fn, c.priority)
                                   : sim_.schedule_cancellable_in(delay, *this, label, c.priority));
    } else {
      ids_.emplace_back();
      if (c.as_callable) {
        sim_.schedule_in(delay, fn, c.priority);
      } else {
        sim_.schedule_in(delay, *this, label, c.priority);
      }
    }
  }

  const StressConfig& config_;
  Simulation sim_;
  std::vector<EventId> ids_;  // by label
  std::vector<int> priorities_;
  Time last_time_ = Time::ps(-1);
  StressResult result_;
};

// The reference: an ordered map from the full key to the label. Nothing shared
// with the kernel but Time arithmetic and the fingerprint fold.
class ReferenceDriver {
 public:
  explicit ReferenceDriver(const StressConfig& config) : config_(config) {}

  StressResult run() {
    for (int i = 0; i < config_.initial_events; ++i) {
      schedule(initial_event(config_, i));
    }
    EventFingerprint fingerprint;
    while (!pending_.empty()) {
      const auto first = pending_.begin();
      const auto [time_ps, priority, label] = first->first;
      pending_.erase(first);
      state_[label] = State::kRun;
      now_ps_ = time_ps;
      fingerprint.add(Time::ps(time_ps), priority, label);
      result_.executed.push_back({time_ps, priority, label});
      const Decision d = decide(config_, label);
      for (const Child& c : d.children) {
        schedule(c);
      }
      if (d.cancel_label) {
        const uint64_t victim = *d.cancel_label;
        const bool ok = state_[victim] == State::kPending && cancellable_[victim];
        if (ok) {
          pending_.erase(keys_[victim]);
          state_[victim] = State::kCancelled;
        }
        result_.cancel_results.push_back(ok);
      }
    }
    result_.fingerprint = fingerprint.value();
    return result_;
  }

 private:
  enum class State { kPending, kRun, kCancelled };
  using Key = std::tuple<int64_t, int, uint64_t>;

  void schedule(const Child& c) {
    if (static_cast<int>(keys_.size()) >= config_.max_events) {
      return;
    }
    const uint64_t label = keys_.size();
    const Key key{now_ps_ + c.delay_ps, c.priority, label};
    keys_.push_back(key);
    cancellable_.push_back(c.cancellable);
    state_.push_back(State::kPending);
    pending_.emplace(key, label);
  }

  const StressConfig& config_;
  int64_t now_ps_ = 0;
  std::map<Key, uint64_t> pending_;
  std::vector<Key> keys_;  // by label
  std::vector<State> state_;
  std::vector<bool> cancellable_;  // by label
  StressResult result_;
};

}  // namespace

StressResult run_on_simulation(const StressConfig& config, Simulation::Options options) {
  return SimulationDriver(config, options).run();
}

StressResult run_on_reference(const StressConfig& config) {
  return ReferenceDriver(config).run();
}

}  // namespace podsim::sim::testing

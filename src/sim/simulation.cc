#include "sim/simulation.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <stdexcept>
#include <utility>

namespace podsim::sim {

Simulation::Simulation(Options options)
    : queue_(EventQueue::Options{.same_time_fifo = options.same_time_fast_path}),
      budget_(options.budget) {}

template <typename Push>
auto Simulation::push_callback(Time t, Callback fn, Push push) {
  check_not_past(t);  // before storing fn, so a rejected event leaves no trace
  const uint64_t slot = callbacks_.add(std::move(fn));
  try {
    return push(EventTarget{&callbacks_, slot});
  } catch (...) {  // e.g. a priority out of range: do not leak the stored callable
    callbacks_.release(slot);
    throw;
  }
}

void Simulation::schedule_at(Time t, Callback fn, int priority) {
  push_callback(t, std::move(fn), [&](EventTarget target) { queue_.push(t, priority, target); });
}

void Simulation::schedule_in(Time delay, Callback fn, int priority) {
  schedule_at(now() + delay, std::move(fn), priority);
}

EventId Simulation::schedule_cancellable_at(Time t, Callback fn, int priority) {
  return push_callback(t, std::move(fn), [&](EventTarget target) {
    return queue_.push_cancellable(t, priority, target);
  });
}

EventId Simulation::schedule_cancellable_in(Time delay, Callback fn, int priority) {
  return schedule_cancellable_at(now() + delay, std::move(fn), priority);
}

bool Simulation::cancel(EventId id) {
  const std::optional<EventTarget> target = queue_.cancel(id);
  if (!target) {
    return false;
  }
  if (target->handler == &callbacks_) {
    callbacks_.release(target->payload);  // destroy its captures now, not at pop
  }
  return true;
}

void Simulation::run() {
  execute_until(Time::max());
}

void Simulation::run_until(Time limit) {
  check_not_past(limit);
  if (!execute_until(limit)) {
    queue_.advance_to(limit);
  }
}

bool Simulation::execute_until(Time limit) {
  if (running_) {
    throw std::logic_error("podsim::sim::Simulation: run() called from inside an event");
  }
  // Resets the run state however the loop ends, including by an exception.
  struct RunScope {
    Simulation& sim;
    explicit RunScope(Simulation& s) : sim(s) { sim.running_ = true; }
    ~RunScope() {
      sim.running_ = false;
      sim.stop_requested_ = false;
    }
    RunScope(const RunScope&) = delete;
    RunScope& operator=(const RunScope&) = delete;
  } scope(*this);
  // Charges the events not yet charged when the run ends normally (an
  // exception, the budget's own included, skips it).
  struct ChargeRest {
    Simulation& sim;
    void operator()() const {
      if (sim.budget_ != nullptr && sim.executed_ != sim.charged_) {
        sim.budget_->charge(sim.executed_ - sim.charged_);
        sim.charged_ = sim.executed_;
      }
    }
  } charge_rest{*this};

  HintWindow hints{0, queue_.entries_taken(), queue_.pushes_ahead()};
  while (!stop_requested_) {
    const std::optional<Event> event = queue_.pop(limit);
    if (!event) {
      charge_rest();
      return false;
    }
    assert(event->time == now());
    give_hints(hints);
    fingerprint_.add(event->time, event->priority, event->seq);
    ++executed_;
    if ((executed_ & (kChargeInterval - 1)) == 0 && budget_ != nullptr) {
      budget_->charge(executed_ - charged_);
      charged_ = executed_;
    }
    event->target.handler->handle(*this, event->target.payload);
  }
  charge_rest();
  return true;
}

void Simulation::give_hints(HintWindow& w) {
  // Overlap the coming events' cache misses with this event's handler.
  // Peeking costs nothing extra: the next pop() would do the same work.
  // Each event gets its first hint kFirstHintAhead events before it runs,
  // and its second kSecondHintAhead before, when what the first loaded has
  // had time to arrive (EventHandler). Where the queue has no events that
  // far ahead at hand, the next one gets its first hint now and no second:
  // reading what is still loading would stall here instead of under the
  // handler. The window of hinted events moves by the entries the queue has
  // taken since the last event (this one, and cancelled ones it dropped),
  // and starts again when a push may have gone ahead of it: a second hint
  // must never read what no first hint has started loading.
  std::size_t& hinted = w.hinted;
  const uint64_t taken = queue_.entries_taken();
  if (queue_.pushes_ahead() != w.pushes_ahead) {
    w.pushes_ahead = queue_.pushes_ahead();
    hinted = 0;
  } else {
    hinted -= static_cast<std::size_t>(std::min<uint64_t>(hinted, taken - w.taken));
  }
  w.taken = taken;
  const EventTarget* next = queue_.next_target();
  if (next == nullptr) {
    hinted = 0;
    return;
  }
  constexpr std::size_t kSecond = kSecondHintAhead - 1;  // places after the next
  if (hinted > kSecond) {  // its first hint came at least one event ago
    if (const EventTarget* t = kSecond == 0 ? next : queue_.target_ahead(kSecond)) {
      t->handler->prefetch_indirect(t->payload);
    }
  }
  for (; hinted < kFirstHintAhead; ++hinted) {
    const EventTarget* t = hinted == 0 ? next : queue_.target_ahead(hinted);
    if (t == nullptr) {
      break;
    }
    t->handler->prefetch(t->payload);
  }
}

void Simulation::check_not_past(Time t) const {
  if (t < now()) {
    throw std::logic_error("podsim::sim::Simulation: time " + t.to_string() +
                           " is before the current time " + now().to_string());
  }
}

}  // namespace podsim::sim

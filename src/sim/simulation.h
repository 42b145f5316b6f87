// One discrete-event simulation: it owns its event queue, its clock and the
// storage of callable events, and nothing else. There is no global or static
// state, so independent simulations can run side by side, in one thread or in
// several (one simulation per thread; a Simulation itself is not thread-safe).
//
// Components implement EventHandler and schedule (handler, payload) events; that
// path does not allocate per event (storage grows only when the number of
// pending events reaches a new peak). Callables are accepted too, for tests and
// glue; they are slower (kernel_benchmark: BM_HoldCallback).
// Every executed event is folded into a fingerprint (see fingerprint.h).
//
// Events run in the total order (time, priority, insertion sequence); handlers
// receive the Simulation explicitly and may schedule, cancel (the events
// scheduled as cancellable) and stop.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/callback_slab.h"
#include "sim/event.h"
#include "sim/event_queue.h"
#include "sim/fingerprint.h"
#include "sim/time.h"
#include "sim/work_budget.h"

namespace podsim::sim {

class Simulation {
 public:
  using Callback = CallbackSlab::Callback;

  struct Options {
    // See EventQueue::Options::same_time_fifo: changes speed, never order.
    bool same_time_fast_path = true;
    // Charged every kChargeInterval events (and with the rest when a run
    // ends); its WorkLimitExceeded ends the run like a handler's exception.
    // Not owned; optional.
    WorkBudget* budget = nullptr;

    // The defaults, charging `budget`.
    static Options charging(WorkBudget* budget) {
      Options o;
      o.budget = budget;
      return o;
    }
  };

  // Events between two charges of the budget: a power of two (a mask).
  static constexpr uint64_t kChargeInterval = 1 << 16;
  // How many events ahead of the one running the kernel gives an event its
  // first and its second prefetch hint (EventHandler). Measured on the full
  // 1 GiB all-reduce on 32x32x32, where a flow record's first read was the
  // largest stall: (2, 1) left a fifth of the time in the second hint's
  // read; see src/sim/README.md.
  static constexpr std::size_t kFirstHintAhead = 4;
  static constexpr std::size_t kSecondHintAhead = 2;

  Simulation() : Simulation(Options{}) {}
  explicit Simulation(Options options);
  // Queued events point into this object (the callback slab), and handlers hold
  // references to it, so it neither copies nor moves.
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // The current simulated time: that of the event being executed, or of the
  // last one, or the limit of the last completed run_until().
  Time now() const { return queue_.now(); }

  // Schedules handler.handle(*this, payload) at time t (or now() + delay).
  // Lower priority runs first among events at the same time; equal keys run in
  // scheduling order. Throws std::logic_error if the time is before now(),
  // TimeOverflow if now() + delay does not fit in Time, and
  // std::invalid_argument if the priority is outside [kMinPriority,
  // kMaxPriority]. O(1) amortised. The event cannot be cancelled.
  void schedule_at(Time t, EventHandler& handler, uint64_t payload = 0, int priority = 0);
  void schedule_in(Time delay, EventHandler& handler, uint64_t payload = 0, int priority = 0);
  // The same for an event that cancel() can remove. It costs more (a slot is
  // written at schedule and read at run: kernel_benchmark's
  // BM_HoldCancellable): use it only for events that may be cancelled.
  EventId schedule_cancellable_at(Time t, EventHandler& handler, uint64_t payload = 0,
                                  int priority = 0);
  EventId schedule_cancellable_in(Time delay, EventHandler& handler, uint64_t payload = 0,
                                  int priority = 0);

  // The same for a callable (stored until it runs or is cancelled).
  void schedule_at(Time t, Callback fn, int priority = 0);
  void schedule_in(Time delay, Callback fn, int priority = 0);
  EventId schedule_cancellable_at(Time t, Callback fn, int priority = 0);
  EventId schedule_cancellable_in(Time delay, Callback fn, int priority = 0);

  // Cancels a pending cancellable event in O(1). Returns false, and does
  // nothing, if it has already run or been cancelled (or the id is
  // default-constructed).
  bool cancel(EventId id);
  bool is_pending(EventId id) const { return queue_.is_pending(id); }

  // Executes events in order until none is left or stop() is called.
  // Throws std::logic_error if called from inside an event. An exception from a
  // handler propagates out; the event that threw counts as executed.
  void run();

  // Executes every event with time <= limit (unless stopped first), then sets
  // the clock to limit, so a later schedule_in() is relative to limit. If
  // stopped, the clock stays at the last executed event. Throws
  // std::logic_error if limit < now() or if called from inside an event.
  void run_until(Time limit);

  // Makes the current run()/run_until() return once the executing handler
  // returns. Called outside a run, makes the next run return before executing
  // any event. Pending events stay queued; a later run resumes them.
  void stop() { stop_requested_ = true; }

  // Events executed since construction (cancelled events are not counted).
  uint64_t events_executed() const { return executed_; }
  // Scheduled events that have neither run nor been cancelled.
  std::size_t pending() const { return queue_.size(); }
  // The fingerprint of every event executed so far (time, priority, sequence).
  uint64_t fingerprint() const { return fingerprint_.value(); }

 private:
  // Runs events up to limit; returns true if stop() ended the run.
  bool execute_until(Time limit);
  // The prefetch hints given while an event runs (simulation.cc).
  struct HintWindow {
    std::size_t hinted = 0;     // upcoming events, from the next on, given their first hint
    uint64_t taken = 0;         // the queue's entries_taken() when last looked at
    uint64_t pushes_ahead = 0;  // its pushes_ahead() then
  };
  void give_hints(HintWindow& w);
  void check_not_past(Time t) const;
  // Stores fn and pushes its event with push(target); releases fn if that throws.
  template <typename Push>
  auto push_callback(Time t, Callback fn, Push push);

  EventQueue queue_;
  CallbackSlab callbacks_;
  EventFingerprint fingerprint_;
  uint64_t executed_ = 0;
  WorkBudget* budget_ = nullptr;
  uint64_t charged_ = 0;  // events charged to budget_ so far
  bool stop_requested_ = false;
  bool running_ = false;
};

// Inline: the per-event path of components.
inline void Simulation::schedule_at(Time t, EventHandler& handler, uint64_t payload, int priority) {
  queue_.push(t, priority, EventTarget{&handler, payload});
}

inline void Simulation::schedule_in(Time delay, EventHandler& handler, uint64_t payload,
                                    int priority) {
  schedule_at(now() + delay, handler, payload, priority);
}

inline EventId Simulation::schedule_cancellable_at(Time t, EventHandler& handler, uint64_t payload,
                                                   int priority) {
  return queue_.push_cancellable(t, priority, EventTarget{&handler, payload});
}

inline EventId Simulation::schedule_cancellable_in(Time delay, EventHandler& handler,
                                                   uint64_t payload, int priority) {
  return schedule_cancellable_at(now() + delay, handler, payload, priority);
}

}  // namespace podsim::sim

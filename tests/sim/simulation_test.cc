#include "sim/simulation.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace podsim::sim {
namespace {

// Records (label, time) of each event it receives; the payload is the label.
class Recorder final : public EventHandler {
 public:
  struct Record {
    uint64_t label;
    int64_t time_ps;
    friend bool operator==(const Record&, const Record&) = default;
  };

  void handle(Simulation& sim, uint64_t payload) override {
    records.push_back({payload, sim.now().count_ps()});
  }

  std::vector<uint64_t> labels() const {
    std::vector<uint64_t> out;
    for (const Record& r : records) {
      out.push_back(r.label);
    }
    return out;
  }

  std::vector<Record> records;
};

TEST(SimulationTest, RunsEventsInTimeOrderAndAdvancesTheClock) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ns(30), rec, 3);
  sim.schedule_at(Time::ns(10), rec, 1);
  sim.schedule_at(Time::ns(20), rec, 2);
  EXPECT_EQ(sim.pending(), 3u);
  sim.run();
  EXPECT_EQ(rec.records, (std::vector<Recorder::Record>{{1, 10'000}, {2, 20'000}, {3, 30'000}}));
  EXPECT_EQ(sim.now(), Time::ns(30));
  EXPECT_EQ(sim.events_executed(), 3u);
  EXPECT_EQ(sim.pending(), 0u);
}

TEST(SimulationTest, TiesBreakByPriorityThenSchedulingOrder) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ps(5), rec, 0, 1);
  sim.schedule_at(Time::ps(5), rec, 1, 0);
  sim.schedule_at(Time::ps(5), rec, 2, -1);
  sim.schedule_at(Time::ps(5), rec, 3, 0);
  sim.schedule_at(Time::ps(5), rec, 4, 1);
  sim.schedule_at(Time::ps(4), rec, 5, 9);  // earlier time beats any priority
  sim.run();
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{5, 2, 1, 3, 0, 4}));
}

TEST(SimulationTest, CallablesAndHandlersShareOneOrder) {
  Simulation sim;
  std::vector<std::string> order;
  Recorder rec;
  sim.schedule_at(Time::ps(1), [&](Simulation&) { order.push_back("a"); });
  sim.schedule_at(Time::ps(1), rec, 7);
  sim.schedule_at(Time::ps(1), [&](Simulation& s) {
    order.push_back("c:" + std::to_string(s.now().count_ps()) + ":" +
                    std::to_string(rec.records.size()));
  });
  sim.run();
  EXPECT_EQ(order, (std::vector<std::string>{"a", "c:1:1"}));
}

TEST(SimulationTest, ScheduleInZeroFromAHandlerRunsAfterQueuedSameTimeEvents) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ps(5), [&](Simulation& s) {
    rec.handle(s, 0);
    s.schedule_in(Time::zero(), rec, 10);      // FIFO path: after 1 and 2
    s.schedule_in(Time::zero(), rec, 11, -1);  // higher priority: before 1 and 2
    s.schedule_in(Time::zero(), rec, 12);      // after 10
  });
  sim.schedule_at(Time::ps(5), rec, 1);
  sim.schedule_at(Time::ps(5), rec, 2);
  sim.schedule_at(Time::ps(6), rec, 3);
  sim.run();
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{0, 11, 1, 2, 10, 12, 3}));
}

TEST(SimulationTest, CancelBeforeRun) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ps(1), rec, 1);
  const EventId b = sim.schedule_cancellable_at(Time::ps(2), rec, 2);
  sim.schedule_at(Time::ps(3), rec, 3);
  EXPECT_TRUE(sim.is_pending(b));
  EXPECT_TRUE(sim.cancel(b));
  EXPECT_FALSE(sim.is_pending(b));
  EXPECT_FALSE(sim.cancel(b));  // twice is a no-op
  EXPECT_EQ(sim.pending(), 2u);
  sim.run();
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{1, 3}));
  EXPECT_EQ(sim.events_executed(), 2u);  // the cancelled event is not counted
}

TEST(SimulationTest, CancelFromInsideAHandler) {
  Simulation sim;
  Recorder rec;
  EventId later;
  sim.schedule_at(Time::ps(1), [&](Simulation& s) { EXPECT_TRUE(s.cancel(later)); });
  later = sim.schedule_cancellable_at(Time::ps(2), rec, 2);
  sim.schedule_at(Time::ps(3), rec, 3);
  sim.run();
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{3}));
}

TEST(SimulationTest, CancellingAnEventThatRanOrIsRunningIsANoOp) {
  Simulation sim;
  Recorder rec;
  EventId self;
  bool cancelled_self = true;
  self = sim.schedule_cancellable_at(Time::ps(1),
                                     [&](Simulation& s) { cancelled_self = s.cancel(self); });
  const EventId ran = sim.schedule_cancellable_at(Time::ps(2), rec, 2);
  sim.run();
  EXPECT_FALSE(cancelled_self);
  EXPECT_FALSE(sim.cancel(ran));
  EXPECT_FALSE(sim.cancel(EventId{}));
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{2}));
}

TEST(SimulationTest, CancelAFastPathEvent) {
  Simulation sim;
  Recorder rec;
  // At time zero with priority 0: queued through the same-time FIFO.
  const EventId at_start = sim.schedule_cancellable_at(Time::zero(), rec, 0);
  EXPECT_TRUE(sim.cancel(at_start));
  sim.schedule_at(Time::ps(4), [&](Simulation& s) {
    const EventId now_event = s.schedule_cancellable_in(Time::zero(), rec, 1);  // FIFO path
    s.schedule_in(Time::zero(), rec, 2);
    EXPECT_TRUE(s.cancel(now_event));
  });
  sim.run();
  EXPECT_EQ(rec.records, (std::vector<Recorder::Record>{{2, 4}}));
}

TEST(SimulationTest, CancellingACallableReleasesItsCaptures) {
  Simulation sim;
  auto resource = std::make_shared<int>(0);
  const EventId id =
      sim.schedule_cancellable_at(Time::ps(1), [resource](Simulation&) { ++*resource; });
  EXPECT_EQ(resource.use_count(), 2);
  EXPECT_TRUE(sim.cancel(id));
  EXPECT_EQ(resource.use_count(), 1);
  sim.run();
  EXPECT_EQ(*resource, 0);
}

TEST(SimulationTest, SchedulingInThePastThrows) {
  Simulation sim;
  Recorder rec;
  sim.run_until(Time::ps(10));
  EXPECT_THROW(sim.schedule_at(Time::ps(9), rec), std::logic_error);
  EXPECT_THROW(sim.schedule_at(Time::ps(9), [](Simulation&) {}), std::logic_error);
  EXPECT_THROW(sim.schedule_in(Time::ps(-1), rec), std::logic_error);
  EXPECT_THROW(sim.schedule_in(Time::ps(-1), [](Simulation&) {}), std::logic_error);
  EXPECT_EQ(sim.pending(), 0u);  // nothing half-scheduled
  bool threw = false;
  sim.schedule_in(Time::ps(5), [&](Simulation& s) {
    try {
      s.schedule_at(Time::ps(14), rec);
    } catch (const std::logic_error&) {
      threw = true;
    }
  });
  sim.run();
  EXPECT_TRUE(threw);
  EXPECT_TRUE(rec.records.empty());
}

TEST(SimulationTest, TimesOutsideTheRangeThrow) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ps(1), rec);
  sim.run();
  EXPECT_THROW(sim.schedule_in(Time::max(), rec), TimeOverflow);
  EXPECT_THROW(sim.schedule_at(Time::ps(1), Simulation::Callback{}), std::invalid_argument);
  // The end of time itself is a valid event time.
  sim.schedule_at(Time::max(), rec, 1);
  sim.schedule_at(Time::max() - Time::ps(1), rec, 2);
  sim.run();
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{0, 2, 1}));
  EXPECT_EQ(sim.now(), Time::max());
}

TEST(SimulationTest, RunUntilIncludesTheLimitAndMovesTheClockThere) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ps(5), rec, 5);
  sim.schedule_at(Time::ps(10), rec, 10);
  sim.schedule_at(Time::ps(15), rec, 15);
  sim.run_until(Time::ps(10));
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{5, 10}));
  EXPECT_EQ(sim.now(), Time::ps(10));
  EXPECT_EQ(sim.pending(), 1u);
  sim.run_until(Time::ps(12));
  EXPECT_EQ(sim.now(), Time::ps(12));
  EXPECT_EQ(rec.records.size(), 2u);
  sim.schedule_in(Time::ps(1), rec, 13);  // relative to the new clock: at 13
  sim.run();
  EXPECT_EQ(rec.records, (std::vector<Recorder::Record>{{5, 5}, {10, 10}, {13, 13}, {15, 15}}));
  EXPECT_THROW(sim.run_until(Time::ps(14)), std::logic_error);
}

TEST(SimulationTest, RunUntilOnAnEmptySimulationMovesTheClock) {
  Simulation sim;
  sim.run_until(Time::us(3));
  EXPECT_EQ(sim.now(), Time::us(3));
  EXPECT_EQ(sim.events_executed(), 0u);
}

TEST(SimulationTest, StopEndsTheRunAfterTheCurrentEvent) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ps(1), rec, 1);
  sim.schedule_at(Time::ps(2), [&](Simulation& s) {
    s.stop();
    s.schedule_in(Time::zero(), rec, 3);  // still queued after the stop
  });
  sim.schedule_at(Time::ps(4), rec, 4);
  sim.run();
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{1}));
  EXPECT_EQ(sim.now(), Time::ps(2));
  EXPECT_EQ(sim.events_executed(), 2u);
  EXPECT_EQ(sim.pending(), 2u);
  sim.run();  // resumes where it stopped
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{1, 3, 4}));
}

TEST(SimulationTest, StopDuringRunUntilLeavesTheClockAtTheStoppingEvent) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ps(3), [](Simulation& s) { s.stop(); });
  sim.schedule_at(Time::ps(5), rec, 5);
  sim.run_until(Time::ps(100));
  EXPECT_EQ(sim.now(), Time::ps(3));
  EXPECT_EQ(sim.pending(), 1u);
  sim.run_until(Time::ps(100));
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{5}));
  EXPECT_EQ(sim.now(), Time::ps(100));
}

TEST(SimulationTest, StopBeforeRunSkipsOneRun) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ps(1), rec, 1);
  sim.stop();
  sim.run();
  EXPECT_TRUE(rec.records.empty());
  sim.run();
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{1}));
}

TEST(SimulationTest, RunFromInsideAnEventThrows) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ps(1), [](Simulation& s) { s.run(); });
  sim.schedule_at(Time::ps(2), rec, 2);
  EXPECT_THROW(sim.run(), std::logic_error);
  sim.run();  // the simulation is still usable
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{2}));
}

TEST(SimulationTest, AHandlerExceptionPropagatesAndTheRunCanResume) {
  Simulation sim;
  Recorder rec;
  sim.schedule_at(Time::ps(1), [](Simulation&) { throw std::runtime_error("boom"); });
  sim.schedule_at(Time::ps(2), rec, 2);
  EXPECT_THROW(sim.run(), std::runtime_error);
  EXPECT_EQ(sim.events_executed(), 1u);
  EXPECT_EQ(sim.now(), Time::ps(1));
  sim.run();
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{2}));
}

// Counts the prefetch hints it is given, by payload.
class PrefetchCounter final : public EventHandler {
 public:
  void handle(Simulation&, uint64_t) override {}
  void prefetch(uint64_t payload) const override { hinted.push_back(payload); }
  mutable std::vector<uint64_t> hinted;
};

TEST(SimulationTest, PrefetchHintsTheNextPendingEventOnly) {
  // While an event runs, the kernel hints the next one, never a cancelled
  // one (whose handler may already be gone).
  Simulation sim;
  PrefetchCounter first;
  PrefetchCounter second;
  sim.schedule_at(Time::ns(1), first, 1);
  sim.schedule_at(Time::ns(2), second, 2);
  const EventId cancelled = sim.schedule_cancellable_at(Time::ns(3), second, 3);
  sim.schedule_at(Time::ns(4), first, 4);
  ASSERT_TRUE(sim.cancel(cancelled));
  sim.run();
  EXPECT_EQ(second.hinted, (std::vector<uint64_t>{2}));  // while event 1 ran
  EXPECT_TRUE(first.hinted.empty());                     // event 4 came after the cancelled 3
}

// Records both hints, by payload.
class TwoHintRecorder final : public EventHandler {
 public:
  void handle(Simulation&, uint64_t) override {}
  void prefetch(uint64_t payload) const override { hinted.push_back(payload); }
  void prefetch_indirect(uint64_t payload) const override { indirect.push_back(payload); }
  mutable std::vector<uint64_t> hinted;
  mutable std::vector<uint64_t> indirect;
};

TEST(SimulationTest, HintsComeAheadOfTheirEvents) {
  // Ten events at one instant, in the same-time FIFO, event 7 cancelled.
  // While event 0 runs, events 1 to kFirstHintAhead get their first hint;
  // then while event k runs, event k + kFirstHintAhead gets its first and
  // event k + kSecondHintAhead its second. Event 7 gets neither, and the
  // window stops at it until it has gone; event 9 then gets its first hint
  // as the next event.
  static_assert(Simulation::kFirstHintAhead == 4 && Simulation::kSecondHintAhead == 2);
  Simulation sim;
  TwoHintRecorder h;
  std::vector<EventId> ids;
  for (uint64_t i = 0; i < 10; ++i) {
    ids.push_back(sim.schedule_cancellable_at(Time::zero(), h, i));
  }
  ASSERT_TRUE(sim.cancel(ids[7]));
  sim.run();
  EXPECT_EQ(h.hinted, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 9}));
  EXPECT_EQ(h.indirect, (std::vector<uint64_t>{3, 4, 5, 6}));
}

// Random scheduling, at the current instant and later, with priorities and
// cancellations, checked against what the hints promise: each names an
// event still to run, and an event's second hint comes in a later event
// than a first hint for it.
class HintAuditor final : public EventHandler {
 public:
  explicit HintAuditor(std::mt19937_64& rng) : rng_(rng) {}
  void handle(Simulation& sim, uint64_t payload) override {
    ++ran_;
    done_.insert(payload);
    for (int i = 0, n = static_cast<int>(rng_() % 3); i < n && next_ < 20'000; ++i) {
      const uint64_t kind = rng_() % 4;
      const Time delay = kind == 0 ? Time::zero() : Time::ps(static_cast<int64_t>(rng_() % 50));
      const int priority = rng_() % 5 == 0 ? static_cast<int>(rng_() % 3) - 1 : 0;
      const uint64_t id = next_++;
      if (rng_() % 3 == 0) {
        pending_.push_back(
            {id, sim.schedule_cancellable_at(sim.now() + delay, *this, id, priority)});
      } else {
        sim.schedule_at(sim.now() + delay, *this, id, priority);
      }
    }
    if (!pending_.empty() && rng_() % 4 == 0) {
      const auto [id, event] = pending_[rng_() % pending_.size()];
      if (sim.cancel(event)) {
        done_.insert(id);  // never runs: no hint may name it from now on
      }
    }
  }
  void prefetch(uint64_t payload) const override {
    EXPECT_FALSE(done_.contains(payload)) << payload;
    first_.emplace(payload, ran_);
  }
  void prefetch_indirect(uint64_t payload) const override {
    EXPECT_FALSE(done_.contains(payload)) << payload;
    const auto first = first_.find(payload);
    ASSERT_NE(first, first_.end()) << "second hint before any first for " << payload;
    EXPECT_LT(first->second, ran_) << "first and second hint in one event for " << payload;
    ++seconds;
  }
  uint64_t next_ = 0;
  mutable uint64_t seconds = 0;

 private:
  std::mt19937_64& rng_;
  uint64_t ran_ = 0;
  std::set<uint64_t> done_;
  mutable std::map<uint64_t, uint64_t> first_;  // payload -> events run at its first hint
  std::vector<std::pair<uint64_t, EventId>> pending_;
};

TEST(SimulationTest, HintsKeepTheirPromisesUnderRandomScheduling) {
  std::mt19937_64 rng(7);
  Simulation sim;
  HintAuditor auditor(rng);
  for (; auditor.next_ < 300; ++auditor.next_) {
    sim.schedule_at(Time::ps(static_cast<int64_t>(auditor.next_ % 7)), auditor, auditor.next_);
  }
  sim.run();
  EXPECT_GT(auditor.seconds, 100u);  // second hints were given
}

TEST(SimulationTest, PrioritiesOutsideTheRangeThrowAndLeaveNoTrace) {
  Simulation sim;
  Recorder rec;
  EXPECT_THROW(sim.schedule_at(Time::ps(1), rec, 1, kMaxPriority + 1), std::invalid_argument);
  EXPECT_THROW(sim.schedule_cancellable_at(Time::ps(1), rec, 1, kMinPriority - 1),
               std::invalid_argument);
  auto resource = std::make_shared<int>(0);
  EXPECT_THROW(sim.schedule_at(
                   Time::ps(1), [resource](Simulation&) { ++*resource; }, kMaxPriority + 1),
               std::invalid_argument);
  EXPECT_EQ(resource.use_count(), 1);  // the rejected callable was released
  EXPECT_EQ(sim.pending(), 0u);
  sim.schedule_at(Time::ps(1), rec, 2, kLastPriority);
  sim.schedule_at(Time::ps(1), rec, 1, kMinPriority);
  sim.run();
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{1, 2}));
}

TEST(SimulationTest, HandlersReceiveTheirPayloads) {
  Simulation sim;
  Recorder rec;
  const uint64_t big = 0xFFFF'FFFF'FFFF'FFFFull;
  sim.schedule_in(Time::ns(1), rec, big);
  sim.schedule_in(Time::ns(2), rec);
  sim.run();
  EXPECT_EQ(rec.labels(), (std::vector<uint64_t>{big, 0}));
}

TEST(SimulationTest, ManyCallablesSchedulingCallables) {
  // Each callable schedules two more until 2^12 - 1 have run: exercises the
  // callback slab growing while a callable is running.
  Simulation sim;
  int ran = 0;
  std::function<void(Simulation&, int)> spawn = [&](Simulation& s, int depth) {
    ++ran;
    if (depth < 11) {
      for (int i = 0; i < 2; ++i) {
        s.schedule_in(Time::ps(i), [&spawn, depth](Simulation& s2) { spawn(s2, depth + 1); });
      }
    }
  };
  sim.schedule_at(Time::zero(), [&](Simulation& s) { spawn(s, 0); });
  sim.run();
  EXPECT_EQ(ran, (1 << 12) - 1);
}

}  // namespace
}  // namespace podsim::sim

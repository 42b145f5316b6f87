// Throughput of the event kernel, in executed events per second
// (items_per_second). Run, for the median of five runs per configuration:
//   kernel_benchmark --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// BM_HoldHandler   the classic "hold model": P events pending; every executed
//                  event schedules one new event at now + a pseudo-random delay
//                  (uniform on [1, 2) us, fixed seed), until N events have run.
//                  Handler targets: the path components use. Target: 25e6/s.
//                  Pending from 10^3 to 10^7 (issue 13: 20e6/s at 10^6;
//                  issue 33: 25e6/s; figures in README.md).
// BM_HoldCharged   BM_HoldHandler with a WorkBudget charged every 2^16
//                  events (no limit reached): what --max-events and its
//                  siblings cost a run.
// BM_HoldCancellable  BM_HoldHandler with every event scheduled as
//                  cancellable (none is cancelled): what a slot costs.
// BM_HoldCallback  the same with callable targets (std::function in a slab).
// BM_SameTimeBurst every hold event also fans out B-1 events at the current
//                  time (what a collective does), with the FIFO fast path on/off.
// BM_SmallSimulation  a simulation built, run with 64 events and destroyed, per
//                  item: the fixed cost a short run pays (coll::estimate builds
//                  one per collective and algorithm it compares).
// BM_QueueHold     the bare priority queue of QueueEntry in the same hold model,
//                  for choosing EventQueue's: binary, 4-ary, 8-ary heap, radix heap.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

#include "sim/dary_heap.h"
#include "sim/queue_entry.h"
#include "sim/radix_heap.h"
#include "sim/simulation.h"

namespace podsim::sim {
namespace {

constexpr int64_t kMinDelayPs = 1'000'000;  // 1 us
constexpr uint64_t kSeed = 0x5EED;

// splitmix64: tiny, fast and deterministic; good enough to scatter delays.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform on [kMinDelayPs, 2 * kMinDelayPs), by multiply-shift (no division).
  Time delay() {
    __extension__ using u128 = unsigned __int128;
    const auto offset = static_cast<uint64_t>((static_cast<u128>(next()) * kMinDelayPs) >> 64);
    return Time::ps(kMinDelayPs + static_cast<int64_t>(offset));
  }

 private:
  uint64_t state_;
};

// Reschedules itself with a random delay; stops the run after `limit` events.
// Payload 0 is a hold event; payload 1 a same-time leaf that does nothing.
class HoldModel final : public EventHandler {
 public:
  HoldModel(int64_t limit, int64_t fan_out, bool cancellable = false)
      : limit_(limit), fan_out_(fan_out), cancellable_(cancellable) {}

  void handle(Simulation& sim, uint64_t payload) override {
    if (++executed_ == limit_) {
      sim.stop();
    }
    if (payload == 0) {
      if (cancellable_) {
        benchmark::DoNotOptimize(sim.schedule_cancellable_in(rng_.delay(), *this, 0));
      } else {
        sim.schedule_in(rng_.delay(), *this, 0);
      }
      for (int64_t i = 1; i < fan_out_; ++i) {
        sim.schedule_in(Time::zero(), *this, 1);
      }
    }
  }
  Time delay() { return rng_.delay(); }

 private:
  Rng rng_{kSeed};
  int64_t executed_ = 0;
  int64_t limit_;
  int64_t fan_out_;
  bool cancellable_;
};

// One timed run of `events` events over `pending` initially scheduled ones.
template <typename Fill>
void run_hold(benchmark::State& state, Simulation::Options options, int64_t events, Fill fill) {
  for (auto _ : state) {
    state.PauseTiming();
    auto sim = std::make_unique<Simulation>(options);
    auto model = fill(*sim);
    state.ResumeTiming();
    sim->run();
    state.PauseTiming();
    benchmark::DoNotOptimize(sim->fingerprint());
    sim.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * events);
}

void BM_HoldHandler(benchmark::State& state) {
  const int64_t pending = state.range(0);
  const int64_t events = state.range(1);
  run_hold(state, {}, events, [&](Simulation& sim) {
    auto model = std::make_unique<HoldModel>(events, 1);
    for (int64_t i = 0; i < pending; ++i) {
      sim.schedule_at(model->delay(), *model, 0);
    }
    return model;
  });
}

void BM_HoldCharged(benchmark::State& state) {
  const int64_t pending = state.range(0);
  const int64_t events = state.range(1);
  WorkBudget budget(kDefaultWorkLimits);
  run_hold(state, Simulation::Options::charging(&budget), events, [&](Simulation& sim) {
    auto model = std::make_unique<HoldModel>(events, 1);
    for (int64_t i = 0; i < pending; ++i) {
      sim.schedule_at(model->delay(), *model, 0);
    }
    return model;
  });
}

void BM_HoldCancellable(benchmark::State& state) {
  const int64_t pending = state.range(0);
  const int64_t events = state.range(1);
  run_hold(state, {}, events, [&](Simulation& sim) {
    auto model = std::make_unique<HoldModel>(events, 1, true);
    for (int64_t i = 0; i < pending; ++i) {
      benchmark::DoNotOptimize(sim.schedule_cancellable_at(model->delay(), *model, 0));
    }
    return model;
  });
}

// Same hold model, every event a std::function (8 bytes of captures: no allocation).
struct CallbackHold {
  Rng rng{kSeed};
  int64_t executed = 0;
  int64_t limit = 0;
  void fire(Simulation& sim) {
    if (++executed == limit) {
      sim.stop();
    }
    sim.schedule_in(rng.delay(), [this](Simulation& s) { fire(s); });
  }
};

void BM_HoldCallback(benchmark::State& state) {
  const int64_t pending = state.range(0);
  const int64_t events = state.range(1);
  run_hold(state, {}, events, [&](Simulation& sim) {
    auto model = std::make_unique<CallbackHold>();
    model->limit = events;
    CallbackHold* m = model.get();
    for (int64_t i = 0; i < pending; ++i) {
      sim.schedule_at(m->rng.delay(), [m](Simulation& s) { m->fire(s); });
    }
    return model;
  });
}

void BM_SameTimeBurst(benchmark::State& state) {
  constexpr int64_t kPending = 10'000;
  constexpr int64_t kEvents = 1'000'000;
  const int64_t fan_out = state.range(0);
  const Simulation::Options options{.same_time_fast_path = state.range(1) != 0};
  run_hold(state, options, kEvents, [&](Simulation& sim) {
    auto model = std::make_unique<HoldModel>(kEvents, fan_out);
    for (int64_t i = 0; i < kPending; ++i) {
      sim.schedule_at(model->delay(), *model, 0);
    }
    return model;
  });
}

void BM_SmallSimulation(benchmark::State& state) {
  constexpr int64_t kEvents = 64;
  for (auto _ : state) {
    Simulation sim;
    HoldModel model(kEvents, 1);
    for (int64_t i = 0; i < 8; ++i) {
      sim.schedule_at(model.delay(), model, 0);
    }
    sim.run();
    benchmark::DoNotOptimize(sim.fingerprint());
  }
  state.SetItemsProcessed(state.iterations());
}

template <typename Queue>
void BM_QueueHold(benchmark::State& state) {
  const int64_t pending = state.range(0);
  const int64_t events = state.range(1);
  for (auto _ : state) {
    state.PauseTiming();
    auto heap = std::make_unique<Queue>();
    Rng rng(kSeed);
    uint64_t seq = 0;
    for (int64_t i = 0; i < pending; ++i) {
      heap->push(QueueEntry::make(rng.delay(), 0, seq++, {}));
    }
    state.ResumeTiming();
    for (int64_t i = 0; i < events; ++i) {
      const QueueEntry e = heap->pop();
      heap->push(QueueEntry::make(e.time + rng.delay(), 0, seq++, e.target));
    }
    benchmark::DoNotOptimize(heap->top());
    state.PauseTiming();
    heap.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * events);
}

void hold_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"pending", "events"});
  for (int64_t events : {1'000'000, 10'000'000}) {
    for (int64_t pending : {1'000, 10'000, 100'000, 1'000'000}) {
      b->Args({pending, events});
    }
  }
  b->Unit(benchmark::kMillisecond);
}

void heap_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"pending", "events"});
  for (int64_t pending : {1'000, 10'000, 100'000, 1'000'000}) {
    b->Args({pending, 1'000'000});
  }
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_HoldHandler)->Apply(hold_args)->Args({10'000'000, 10'000'000});
BENCHMARK(BM_HoldCharged)
    ->ArgNames({"pending", "events"})
    ->Args({1'000'000, 10'000'000})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HoldCancellable)->Apply(hold_args);
BENCHMARK(BM_HoldCallback)->Apply(hold_args);
BENCHMARK(BM_SameTimeBurst)
    ->ArgNames({"fan_out", "fast_path"})
    ->ArgsProduct({{4, 16, 64}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SmallSimulation);
template <std::size_t Arity>
using Heap = DaryHeap<QueueEntry, Arity, QueueEntryLess>;
BENCHMARK(BM_QueueHold<Heap<2>>)->Apply(heap_args);
BENCHMARK(BM_QueueHold<Heap<4>>)->Apply(heap_args);
BENCHMARK(BM_QueueHold<Heap<8>>)->Apply(heap_args);
BENCHMARK(BM_QueueHold<RadixHeap>)->Apply(heap_args);

}  // namespace
}  // namespace podsim::sim

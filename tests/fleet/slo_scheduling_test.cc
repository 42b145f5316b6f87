// SLO-aware scheduling (docs/serving.md, "SLO-aware scheduling"): the
// deadline order of the waiting queue, admission control, decode
// protection, SLO classes, and goodput under overload on the shipped Azure
// slice above first-come first-served.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "config/serve_loader.h"
#include "fleet/replica_state.h"
#include "fleet/serve.h"
#include "fleet/slo_classes.h"
#include "fleet_fixture.h"

namespace podsim::fleet {
namespace slo_scheduling_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

struct Quiet final : ReplicaListener {
  void admitted(uint32_t) override {}
  void preempted(uint32_t) override {}
  void rejected(uint32_t r) override { rejected_ids.push_back(r); }
  void shed(uint32_t r) override { shed_ids.push_back(r); }
  std::vector<uint32_t> rejected_ids;
  std::vector<uint32_t> shed_ids;
};

std::vector<uint32_t> waiting_requests(const ReplicaState& s) {
  std::vector<uint32_t> out;
  for (const uint32_t slot : s.waiting())
    out.push_back(s.seq(slot).request);
  return out;
}

TEST(DeadlineOrder, NewRequestsWaitByDeadlineBehindResumedOnesAheadOfDeferredOnes) {
  Quiet q;
  ReplicaState s(1000, 16, q);
  s.order_by_deadline(true);
  s.enqueue(0, 10, 10, PrefixChains::kRoot, sim::Time::ms(500));
  s.enqueue(1, 10, 10, PrefixChains::kRoot, sim::Time::ms(300));
  s.enqueue(2, 10, 10, PrefixChains::kRoot, sim::Time::ms(400));
  s.enqueue(3, 10, 10);                                           // no objective: last
  s.enqueue(4, 10, 10, PrefixChains::kRoot, sim::Time::ms(300));  // ties keep arrival order
  EXPECT_EQ(waiting_requests(s), (std::vector<uint32_t>{1, 4, 2, 0, 3}));
  s.defer_front();  // 1 goes behind everything
  s.enqueue(5, 10, 10, PrefixChains::kRoot, sim::Time::ms(900));
  EXPECT_EQ(waiting_requests(s), (std::vector<uint32_t>{4, 2, 0, 5, 3, 1}));
  // A preempted sequence resumes first, whatever its deadline.
  ASSERT_TRUE(s.reserve(s.waiting().front(), 10));
  s.admit_front();
  s.preempt_last();
  s.enqueue(6, 10, 10, PrefixChains::kRoot, sim::Time::ms(1));
  EXPECT_EQ(waiting_requests(s), (std::vector<uint32_t>{4, 6, 2, 0, 5, 3, 1}));
}

TEST(DeadlineOrder, OffKeepsArrivalOrder) {
  Quiet q;
  ReplicaState s(1000, 16, q);
  s.enqueue(0, 10, 10, PrefixChains::kRoot, sim::Time::ms(500));
  s.enqueue(1, 10, 10, PrefixChains::kRoot, sim::Time::ms(300));
  EXPECT_EQ(waiting_requests(s), (std::vector<uint32_t>{0, 1}));
}

// A burst that one replica cannot prefill in time: 40 requests of 2,000
// tokens at once, each step of 2,048 tokens taking about 41 ms
// (LinearTimer), TTFT objective 200 ms: about four prompts make it.
FleetRun burst(config::SchedulerKind kind, config::AdmissionKind admission) {
  static testing::LinearTimer timer;
  FleetSetup setup;
  ReplicaSetup r = testing::replica(timer, kind, 64, 2048, 100000);
  r.admission = admission;
  setup.replicas.push_back(r);
  std::vector<testing::TestRequest> reqs(40, testing::TestRequest{0, 2000, 20});
  setup.arrivals = make_arrival_process(testing::trace_of(reqs), 1);
  setup.slo_by_class = {config::SloSpec{200, 0, 0}};
  return simulate(std::move(setup));
}

uint64_t met(const FleetRun& run, double ttft_ms) {
  uint64_t n = 0;
  for (const RequestRecord& r : run.requests)
    n += !r.rejected && r.done && (r.first_token - r.arrival).to_s() * 1e3 <= ttft_ms;
  return n;
}

TEST(Admission, RejectLateShedsOnlyWhatCannotMakeItAndServesTheRestInTime) {
  const FleetRun fcfs =
      burst(config::SchedulerKind::kChunkedPrefill, config::AdmissionKind::kAdmitAll);
  const FleetRun shed = burst(config::SchedulerKind::kDeadline, config::AdmissionKind::kRejectLate);
  const FleetRun defer = burst(config::SchedulerKind::kDeadline, config::AdmissionKind::kDeferLate);
  uint64_t shed_count = 0;
  for (const RequestRecord& r : shed.requests)
    shed_count += r.shed;
  EXPECT_GT(shed_count, 0u);
  // Every request served meets its deadline, and as many as under FCFS do.
  EXPECT_EQ(met(shed, 200), 40u - shed_count);
  EXPECT_GE(met(shed, 200), met(fcfs, 200));
  // Deferred requests are served after the others, late.
  uint64_t deferred = 0;
  for (const RequestRecord& r : defer.requests) {
    deferred += r.deferred;
    EXPECT_TRUE(r.done && !r.rejected);
  }
  EXPECT_EQ(deferred, shed_count);
  EXPECT_EQ(met(defer, 200), met(shed, 200));
}

TEST(DecodeProtection, PrefillChunksShrinkSoStepsWithDecodesMeetTheTpotObjective) {
  testing::LinearTimer timer;
  timer.record = true;
  FleetSetup setup;
  ReplicaSetup r = testing::replica(timer, config::SchedulerKind::kDeadline, 64, 8192, 100000);
  setup.replicas.push_back(r);
  std::vector<testing::TestRequest> reqs;
  for (int i = 0; i < 30; ++i)
    reqs.push_back({0.02 * i, 4000, 50});
  setup.arrivals = make_arrival_process(testing::trace_of(reqs), 1);
  // 60 ms: a step of 2,048 prefill tokens (41 ms) and its decodes fits; one
  // of 4,096 (83 ms) does not.
  setup.slo_by_class = {config::SloSpec{0, 60, 0}};
  setup.record_steps = true;
  const FleetRun run = simulate(std::move(setup));
  uint64_t with_decodes = 0;
  for (const StepRecord& s : run.steps[0]) {
    if (s.shape.decode_sequences == 0)
      continue;
    ++with_decodes;
    EXPECT_LE((s.end - s.start).to_s(), 0.060) << s.shape.prefill_tokens << " prefill tokens";
  }
  EXPECT_GT(with_decodes, 50u);
  for (const RequestRecord& q : run.requests)
    EXPECT_TRUE(q.done && !q.rejected);
}

TEST(SloClasses, SharesDrawClassesWithoutMovingArrivals) {
  config::ArrivalSpec a;
  a.kind = config::ArrivalKind::kPoisson;
  a.rate_per_s = 100;
  a.prompt = config::LengthSpec{config::LengthKind::kFixed, 10, 10, 10};
  a.output = a.prompt;
  std::vector<config::SloClassSpec> classes = {{"chat", {200, 50}, 0.3}, {"batch", {0, 0}, 0.5}};
  auto plain = make_arrival_process(a, 9);
  auto drawn = with_drawn_classes(make_arrival_process(a, 9), classes, 9);
  std::map<uint32_t, int> count;
  constexpr int kN = 20000;
  for (int i = 0; i < kN; ++i) {
    const auto x = plain->next();
    const auto y = drawn->next();
    ASSERT_EQ(x->time, y->time);
    ASSERT_EQ(x->prompt_tokens, y->prompt_tokens);
    ++count[y->slo_class];
  }
  EXPECT_NEAR(count[1] / double(kN), 0.3, 0.015);
  EXPECT_NEAR(count[2] / double(kN), 0.5, 0.015);
  EXPECT_NEAR(count[0] / double(kN), 0.2, 0.015);
}

config::ServeSpec azure() {
  return config::load_serve_file(source_dir() /
                                 "workloads/serve/llama3-70b-azure-conv.serve.textproto");
}

// Acceptance 4 of issue 31: under overload (the trace 4x faster than it
// came), earliest-deadline-first with shedding serves more requests within
// their SLOs than first-come first-served.
TEST(SloServe, DeadlineSchedulingBeatsFcfsGoodputUnderOverloadOnTheAzureSlice) {
  config::ServeSpec spec = azure();
  for (config::TraceRequest& t : spec.arrivals.trace)
    t.arrival = sim::Time::ps(t.arrival.count_ps() / 4);
  const ServeSummary fcfs = serve(spec).summary;
  spec.replicas[0].scheduler = config::SchedulerKind::kDeadline;
  spec.replicas[0].admission = config::AdmissionKind::kRejectLate;
  const ServeSummary edf = serve(spec).summary;
  EXPECT_GT(edf.shed, 0u);
  EXPECT_GT(edf.goodput_requests_per_s, 1.1 * fcfs.goodput_requests_per_s)
      << "FCFS " << fcfs.slo_met << " met, EDF " << edf.slo_met << " met, " << edf.shed << " shed";
  EXPECT_GT(edf.slo_met, fcfs.slo_met);
}

TEST(SloServe, ClassesAreEachHeldToTheirOwnObjectives) {
  config::ServeSpec spec =
      config::load_serve_file(source_dir() / "workloads/serve/llama3-8b-poisson.serve.textproto");
  spec.duration = sim::Time::s(20);
  spec.slo_classes = {{"tight", {1, 1}, 0.5}, {"loose", {0, 0}, 0.5}};
  const ServeSummary s = serve(spec).summary;
  ASSERT_EQ(s.slo_classes.size(), 2u) << "no request is of no class";
  EXPECT_EQ(s.slo_classes[0].name, "tight");
  EXPECT_EQ(s.slo_classes[0].slo_met, 0u) << "1 ms TTFT is out of reach";
  EXPECT_EQ(s.slo_classes[1].slo_met, s.slo_classes[1].completed);
  EXPECT_EQ(s.slo_met, s.slo_classes[1].slo_met);
  EXPECT_EQ(s.slo_classes[0].requests + s.slo_classes[1].requests, s.requests);
}

}  // namespace slo_scheduling_test
}  // namespace podsim::fleet

// Queueing checks that can fail (issue 14 point 6), on step-time formulas:
// latency with no queue is the sum of the request's own steps; Little's law
// on a long run; an M/D/1 queue against the Pollaczek-Khinchine formula.
#include <gtest/gtest.h>

#include <cmath>

#include "fleet/summary.h"
#include "fleet_fixture.h"

namespace podsim::fleet {
namespace queueing_test {

using testing::LinearTimer;

TEST(NoQueue, EveryLatencyIsTheSumOfItsOwnSteps) {
  for (auto kind : {config::SchedulerKind::kStatic, config::SchedulerKind::kContinuous,
                    config::SchedulerKind::kChunkedPrefill}) {
    LinearTimer timer;
    std::vector<testing::TestRequest> reqs;
    for (int i = 0; i < 50; ++i)  // 100 s apart: each ends long before the next
      reqs.push_back({100.0 * i, static_cast<uint32_t>(1 + 37 * i % 900),
                      static_cast<uint32_t>(1 + 13 * i % 250)});
    FleetSetup setup;
    setup.replicas.push_back(testing::replica(timer, kind, 8, 1024, 100000));
    setup.arrivals = make_arrival_process(testing::trace_of(reqs), 0);
    const FleetRun r = simulate(std::move(setup));
    LinearTimer formula;
    for (size_t i = 0; i < reqs.size(); ++i) {
      const RequestRecord& q = r.requests[i];
      // Prefill in chunks of the token budget (chunked prefill) or whole.
      sim::Time prefill;
      const uint32_t chunk =
          kind == config::SchedulerKind::kChunkedPrefill ? 1024 : q.prompt_tokens;
      for (uint32_t done = 0; done < q.prompt_tokens; done += chunk) {
        const uint32_t n = std::min(chunk, q.prompt_tokens - done);
        prefill += formula.step_time(StepShape{1, n, done, 0, 0});
      }
      sim::Time decode;
      for (uint32_t k = 0; k + 1 < q.output_tokens; ++k)
        decode += formula.step_time(StepShape{0, 0, 0, 1, q.prompt_tokens + k});
      EXPECT_EQ(q.admitted, q.arrival) << i;
      EXPECT_EQ(q.first_token - q.arrival, prefill) << i;
      EXPECT_EQ(q.finish - q.arrival, prefill + decode) << i;
    }
  }
}

config::ArrivalSpec poisson(double rate, config::LengthSpec prompt, config::LengthSpec output) {
  config::ArrivalSpec s;
  s.kind = config::ArrivalKind::kPoisson;
  s.rate_per_s = rate;
  s.prompt = prompt;
  s.output = output;
  return s;
}

config::LengthSpec fixed(uint32_t n) {
  config::LengthSpec l;
  l.min = l.max = n;
  l.mean = n;
  return l;
}

TEST(LittlesLaw, MeanInSystemIsRateTimesMeanTimeInSystem) {
  LinearTimer timer;
  FleetSetup setup;
  setup.replicas.push_back(
      testing::replica(timer, config::SchedulerKind::kContinuous, 32, 2048, 100000));
  config::LengthSpec prompt;
  prompt.kind = config::LengthKind::kUniform;
  prompt.min = 1;
  prompt.max = 400;
  config::LengthSpec output;
  output.kind = config::LengthKind::kExponential;
  output.mean = 40;
  output.max = 400;
  const double rate = 60;
  setup.arrivals = make_arrival_process(poisson(rate, prompt, output), 21);
  setup.max_requests = 100000;
  const FleetRun r = simulate(std::move(setup));
  const ServeSummary s =
      summarize(r, {testing::replica(timer, config::SchedulerKind::kContinuous, 32, 2048, 100000)},
                config::SloSpec{});
  ASSERT_EQ(s.completed, 100000u);
  const double l = s.mean_requests_in_system;
  const double w = s.e2e_s.mean;
  EXPECT_GT(l, 1.0) << "a queue worth the name";
  // The arrival rate as configured, not as measured: the run's own rate
  // would make the check an identity.
  EXPECT_NEAR(l, rate * w, 0.01 * l);
  RecordProperty("relative_error", std::to_string(l / (rate * w) - 1));
}

TEST(MD1, MeanWaitIsPollaczekKhinchine) {
  // Identical requests of one prefill step each (one output token), batch 1:
  // deterministic service D, Poisson arrivals at load rho. Wq = rho D / (2 (1 - rho)).
  LinearTimer timer;
  const StepShape one{1, 200, 0, 0, 0};
  const double d = timer.step_time(one).to_s();
  const double rho = 0.5;
  const double rate = rho / d;
  FleetSetup setup;
  setup.replicas.push_back(
      testing::replica(timer, config::SchedulerKind::kContinuous, 1, 4096, 100000));
  setup.arrivals = make_arrival_process(poisson(rate, fixed(200), fixed(1)), 5);
  setup.max_requests = 1000000;
  const FleetRun r = simulate(std::move(setup));
  double wait = 0;
  for (const RequestRecord& q : r.requests) {
    ASSERT_EQ((q.finish - q.admitted).to_s(), d);
    wait += (q.admitted - q.arrival).to_s();
  }
  wait /= static_cast<double>(r.requests.size());
  const double pk = rho * d / (2 * (1 - rho));
  EXPECT_NEAR(wait, pk, 0.03 * pk);
  RecordProperty("relative_error", std::to_string(wait / pk - 1));
}

}  // namespace queueing_test
}  // namespace podsim::fleet

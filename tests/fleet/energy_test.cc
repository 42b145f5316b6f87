// Energy and cost of a fleet run (issue 30; docs/serving.md, "Energy and
// cost"): every step's energy from the step timer, idle and host power while
// no step runs, each step's energy shared among its requests by tokens, the
// time series' power columns, the KV caches' transfer energy, and `podsim
// serve --pricing`.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "cli/context.h"
#include "config/serve_loader.h"
#include "fleet/serve.h"
#include "fleet/serve_output.h"
#include "fleet/step_memo.h"
#include "fleet_fixture.h"

namespace podsim::fleet {
namespace energy_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

// Every step takes `time` and draws `joules` (the slice's, idle and host
// included), whatever its shape; keeps the sum of what it handed out.
class ConstantTimer final : public StepTimer {
 public:
  ConstantTimer(sim::Time time, double joules) : time_(time), joules_(joules) {}
  sim::Time step_time(const StepShape&) override { return time_; }
  StepCost cost(const StepShape&) override {
    given_j += joules_;
    ++steps;
    return StepCost(time_, 0, joules_, true);
  }
  double given_j = 0;
  uint64_t steps = 0;

 private:
  sim::Time time_;
  double joules_;
};

// A LinearTimer's time with an energy per token on top of a static power:
// steps of different shapes draw different energies.
class LinearEnergyTimer final : public StepTimer {
 public:
  explicit LinearEnergyTimer(double static_watts) : static_watts_(static_watts) {}
  sim::Time step_time(const StepShape& s) override { return time_.step_time(s); }
  StepCost cost(const StepShape& s) override {
    const sim::Time t = time_.step_time(s);
    const double j = static_watts_ * t.to_s() + 0.002 * static_cast<double>(s.prefill_tokens) +
                     0.05 * s.decode_sequences;
    given_j += j;
    return StepCost(t, 0, j, true);
  }
  double given_j = 0;

 private:
  testing::LinearTimer time_;
  double static_watts_;
};

ReplicaSetup powered(StepTimer& timer, double static_watts) {
  ReplicaSetup r = testing::replica(timer, config::SchedulerKind::kContinuous, 8, 4096, 10000);
  r.static_watts = static_watts;
  r.power_modelled = true;
  return r;
}

ServeOutput run_fleet(FleetSetup setup) {
  ServeOutput out;
  out.setups = setup.replicas;
  out.run = simulate(std::move(setup));
  out.summary = summarize(out.run, out.setups, config::SloSpec{});
  return out;
}

double sum_request_energy(const ServeOutput& out) {
  double sum = 0;
  for (const RequestRecord& r : out.run.requests)
    sum += r.energy_j;
  return sum;
}

TEST(ServeEnergy, TheMemoCarriesEachBucketsEnergyAsItsTime) {
  // The simulated step of a bucket draws 1 mJ per sequence per token of
  // context; prefill and decode parts of a mixed step add up.
  uint64_t calls = 0;
  StepMemo memo(
      [&](const config::ScenarioSpec& s) {
        ++calls;
        const double j = 1e-3 * s.batch * (1.0 + s.prompt_len + s.context_len);
        return StepCost(sim::Time::us(100 + s.batch), 0.5, j, true);
      },
      MemoOptions{8, 8, 1, false, false, 0.01});
  StepShape mixed;
  mixed.prefill_sequences = 2;
  mixed.prefill_tokens = 200;  // 100 each
  mixed.decode_sequences = 3;
  mixed.decode_context_tokens = 3 * 17;  // 17 each: bucketed up to 18
  const StepCost c = memo.cost(mixed);
  EXPECT_TRUE(c.energy_modelled);
  EXPECT_EQ(c.time, sim::Time::us(102 + 103));
  // Prefill: batch 2, prompt 100 (a bucket edge at 8 steps per octave: 96,
  // 104, ...: 104); decode: batch 3, context 18.
  EXPECT_DOUBLE_EQ(c.energy_j, 1e-3 * 2 * (1 + 104) + 1e-3 * 3 * (1 + 18));
  const uint64_t before = calls;
  EXPECT_EQ(memo.cost(mixed).energy_j, c.energy_j) << "from the memo, bit for bit";
  EXPECT_EQ(calls, before);
  // An oracle without a power model: no energy for the step.
  StepMemo plain([](const config::ScenarioSpec&) { return sim::Time::us(10); }, MemoOptions{});
  EXPECT_FALSE(plain.cost(mixed).energy_modelled);
  EXPECT_EQ(plain.cost(mixed).energy_j, 0);
}

TEST(ServeEnergy, ConstantStepsShareTheirEnergyByTokensAsComputedByHand) {
  // Steps of 10 ms drawing 5 J each; the replica draws 100 W between steps.
  ConstantTimer timer(sim::Time::ms(10), 5.0);
  FleetSetup setup;
  setup.replicas.push_back(powered(timer, 100));
  // r0 (100 prompt tokens, 3 output) and r1 (300, 2) at 0, r2 (50, 1) at 125 ms.
  setup.arrivals =
      make_arrival_process(testing::trace_of({{0, 100, 3}, {0, 300, 2}, {0.125, 50, 1}}), 0);
  setup.sample_interval = sim::Time::ms(8);
  const ServeOutput out = run_fleet(std::move(setup));
  ASSERT_EQ(out.run.requests.size(), 3u);
  // Step 1 (0-10 ms) prefills r0, alone in the queue when the replica starts.
  // Step 2 (10-20 ms) decodes r0 (1 token) and prefills r1 (300 tokens).
  // Step 3 (20-30 ms) decodes both: 1 token each; both end.
  // Step 4 (125-135 ms) prefills r2.
  EXPECT_EQ(timer.steps, 4u);
  EXPECT_NEAR(out.run.requests[0].energy_j, 5.0 + 5.0 * 1 / 301 + 2.5, 1e-12);
  EXPECT_NEAR(out.run.requests[1].energy_j, 5.0 * 300 / 301 + 2.5, 1e-12);
  EXPECT_NEAR(out.run.requests[2].energy_j, 5.0, 1e-12);
  const ServeSummary& s = out.summary;
  ASSERT_TRUE(s.energy_modelled);
  EXPECT_DOUBLE_EQ(s.duration_s, 0.135);
  EXPECT_NEAR(s.busy_energy_j, 20.0, 1e-12) << "four steps of 5 J";
  EXPECT_NEAR(s.idle_energy_j, 100 * (0.135 - 0.04), 1e-12) << "100 W for 95 ms without a step";
  EXPECT_NEAR(s.energy_j, 29.5, 1e-12);
  EXPECT_NEAR(s.mean_power_w, 29.5 / 0.135, 1e-9);
  EXPECT_NEAR(s.j_per_output_token, 29.5 / 6, 1e-12) << "3 + 2 + 1 output tokens";
  EXPECT_EQ(s.energy_per_request_j.count, 3u);
  EXPECT_NEAR(s.energy_per_request_j.mean, 20.0 / 3, 1e-12);
  EXPECT_NEAR(s.energy_per_request_j.max, 7.5 + 5.0 / 301, 1e-12);
  EXPECT_NEAR(s.energy_per_request_j.p50, 2.5 + 1500.0 / 301, 1e-12);
  // A step draws 5 J / 10 ms = 500 W; the replica 100 W between steps.
  EXPECT_DOUBLE_EQ(s.peak_power_w, 500);
  const std::string csv = timeseries_csv(out);
  std::istringstream ts(csv);
  std::string line;
  std::getline(ts, line);
  EXPECT_EQ(line,
            "time_s,replica,waiting,running,kv_blocks_used,kv_utilisation,power_w,fleet_power_w");
  std::getline(ts, line);
  EXPECT_EQ(line, "0,r,0,1,7,7e-04,500,500") << "r0's prefill (7 blocks) runs at 0";
  EXPECT_NE(csv.find("\n0.064,r,0,0,0,0,100,100\n"), std::string::npos)
      << "at 64 ms no step runs: 100 W\n"
      << csv;
  // The per-request CSV carries each request's energy.
  EXPECT_NE(requests_csv(out).find(",ok,0,0.135,0.135,0.01,,0.01,0,r,0,5,0,,0\n"),
            std::string::npos)
      << requests_csv(out);
}

TEST(ServeEnergy, TheFleetsEnergyIsItsStepsPlusItsIdlePowerAndRequestsShareTheSteps) {
  LinearEnergyTimer timer(300);
  FleetSetup setup;
  for (int i = 0; i < 3; ++i)
    setup.replicas.push_back(powered(timer, 300));
  config::ArrivalSpec a;
  a.kind = config::ArrivalKind::kPoisson;
  a.rate_per_s = 40;
  a.prompt.kind = config::LengthKind::kUniform;
  a.prompt.min = 10;
  a.prompt.max = 2000;
  a.output.kind = config::LengthKind::kUniform;
  a.output.min = 1;
  a.output.max = 300;
  setup.arrivals = make_arrival_process(a, 11);
  setup.max_requests = 400;
  setup.sample_interval = sim::Time::ms(50);
  const ServeOutput out = run_fleet(std::move(setup));
  const ServeSummary& s = out.summary;
  ASSERT_TRUE(s.energy_modelled);
  ASSERT_EQ(s.completed, 400u);
  // Each replica: its steps' energy plus 300 W over the time it ran none.
  double replicas_j = 0;
  double busy_j = 0;
  for (size_t i = 0; i < 3; ++i) {
    const ReplicaSummary& r = s.replicas[i];
    const double idle_s = s.duration_s - out.run.replicas[i].busy.to_s();
    EXPECT_GT(idle_s, 0) << i;
    EXPECT_DOUBLE_EQ(r.idle_energy_j, 300 * idle_s) << i;
    EXPECT_DOUBLE_EQ(r.energy_j, r.busy_energy_j + r.idle_energy_j) << i;
    replicas_j += r.energy_j;
    busy_j += r.busy_energy_j;
  }
  // Sums of doubles in another order: equal to rounding (1e-12 relative).
  EXPECT_NEAR(busy_j, timer.given_j, 1e-12 * timer.given_j) << "every step's energy, counted once";
  EXPECT_NEAR(s.energy_j, replicas_j, 1e-12 * s.energy_j);
  EXPECT_NEAR(s.energy_j, s.busy_energy_j + s.idle_energy_j, 1e-12 * s.energy_j);
  // Each step's energy shared among its requests: the shares add up to it.
  EXPECT_NEAR(sum_request_energy(out), s.busy_energy_j, 1e-9 * s.busy_energy_j);
  EXPECT_NEAR(s.energy_per_request_j.mean * 400, s.busy_energy_j, 1e-9 * s.busy_energy_j);
  // The time series' fleet power: the replicas' powers summed; its highest
  // value is the peak.
  std::istringstream ts(timeseries_csv(out));
  std::string line;
  std::getline(ts, line);
  double peak = 0;
  for (; std::getline(ts, line);)
    peak = std::max(peak, std::stod(line.substr(line.rfind(',') + 1)));
  EXPECT_EQ(peak, s.peak_power_w);
  EXPECT_GE(s.peak_power_w, 900) << "three replicas' static power at least";
}

TEST(ServeEnergy, AReplicaThatGetsNoRequestDrawsItsStaticPowerForTheWholeRun) {
  ConstantTimer timer(sim::Time::ms(10), 5.0);
  FleetSetup setup;
  setup.replicas.push_back(powered(timer, 100));
  setup.replicas.push_back(powered(timer, 250));
  // Least outstanding tokens with every request alone in the system: ties
  // go to the first replica, so the second gets none.
  setup.router = config::RouterKind::kLeastOutstandingTokens;
  setup.arrivals = make_arrival_process(testing::trace_of({{0, 10, 2}, {1, 10, 2}, {2, 10, 2}}), 0);
  const ServeOutput out = run_fleet(std::move(setup));
  const ServeSummary& s = out.summary;
  ASSERT_EQ(s.replicas[1].requests, 0u);
  EXPECT_EQ(s.replicas[1].steps, 0u);
  EXPECT_DOUBLE_EQ(s.duration_s, 2.02);
  EXPECT_EQ(s.replicas[1].busy_energy_j, 0);
  EXPECT_DOUBLE_EQ(s.replicas[1].energy_j, 250 * 2.02) << "chips x (idle + host) x duration";
  EXPECT_DOUBLE_EQ(s.replicas[0].busy_energy_j, 6 * 5.0);
  EXPECT_NEAR(s.replicas[0].idle_energy_j, 100 * (2.02 - 0.06), 1e-9);
  EXPECT_NEAR(s.energy_j, 30 + 100 * 1.96 + 250 * 2.02, 1e-9);
  EXPECT_NEAR(s.idle_energy_j, 100 * 1.96 + 250 * 2.02, 1e-9);
}

TEST(ServeEnergy, AFormulaWithoutPowerReportsNoEnergy) {
  testing::LinearTimer timer;
  FleetSetup setup;
  setup.replicas.push_back(
      testing::replica(timer, config::SchedulerKind::kContinuous, 4, 1024, 100));
  setup.arrivals = make_arrival_process(testing::trace_of({{0, 100, 3}}), 0);
  const ServeOutput out = run_fleet(std::move(setup));
  EXPECT_FALSE(out.summary.energy_modelled);
  EXPECT_EQ(out.summary.energy_j, 0);
  EXPECT_EQ(out.summary.j_per_output_token, 0);
  EXPECT_EQ(out.summary.energy_per_request_j.count, 0u);
}

TEST(ServeEnergy, OnAShippedExampleEveryFigureAddsUp) {
  config::ServeSpec spec =
      config::load_serve_file(source_dir() / "workloads/serve/llama3-8b-poisson.serve.textproto");
  spec.duration = sim::Time::s(10);
  const ServeOutput out = serve(spec);
  const ServeSummary& s = out.summary;
  ASSERT_TRUE(s.energy_modelled);
  ASSERT_EQ(out.setups.size(), 2u);
  // v5e: 4 chips x (55 W idle + 51 W host) per 2x2 replica.
  EXPECT_DOUBLE_EQ(out.setups[0].static_watts, 4 * (55.0 + 51.0));
  double replicas_j = 0;
  for (size_t i = 0; i < 2; ++i) {
    const ReplicaSummary& r = s.replicas[i];
    EXPECT_DOUBLE_EQ(r.idle_energy_j,
                     4 * (55.0 + 51.0) * (s.duration_s - out.run.replicas[i].busy.to_s()));
    EXPECT_GT(r.busy_energy_j, 4 * (55.0 + 51.0) * out.run.replicas[i].busy.to_s())
        << "a step draws its idle and host power and its dynamic energy";
    replicas_j += r.energy_j;
  }
  EXPECT_NEAR(s.energy_j, replicas_j, 1e-12 * s.energy_j);
  EXPECT_EQ(s.kv_transfer_energy_j, 0);
  EXPECT_NEAR(sum_request_energy(out), s.busy_energy_j, 1e-9 * s.busy_energy_j);
  EXPECT_GT(s.peak_power_w, s.mean_power_w * 0.99);
  EXPECT_NEAR(s.j_per_output_token * static_cast<double>(s.output_tokens), s.energy_j,
              1e-12 * s.energy_j);
  const podsim::output::ServeReport report = make_report(spec, out);
  EXPECT_TRUE(report.energy_modelled());
  EXPECT_EQ(report.energy_j(), s.energy_j);
  EXPECT_EQ(report.replicas(1).idle_energy_j(), s.replicas[1].idle_energy_j);
  EXPECT_FALSE(report.priced());
}

TEST(ServeEnergy, KvCachesPayTheirBytesOverTheDcn) {
  const config::ServeSpec spec = config::load_serve_file(
      source_dir() / "workloads/serve/llama3-70b-disaggregated.serve.textproto");
  const ServeOutput out = serve(spec);
  // Each cache: ceil(prompt x KV bytes per token per chip) from each of the
  // prefill slice's 16 chips, one DCN hop at v5e's 160 pJ per byte.
  const double per_token = out.replicas[0].kv.kv_bytes_per_token;
  uint64_t bytes = 0;
  for (const RequestRecord& q : out.run.requests)
    bytes += 16 * static_cast<uint64_t>(std::ceil(q.prompt_tokens * per_token));
  EXPECT_EQ(out.run.kv_transfer_bytes, bytes);
  EXPECT_NEAR(out.summary.kv_transfer_energy_j, static_cast<double>(bytes) * 160e-12, 1e-9);
  const ServeSummary& s = out.summary;
  EXPECT_NEAR(s.energy_j, s.busy_energy_j + s.idle_energy_j + s.kv_transfer_energy_j,
              1e-12 * s.energy_j);
  EXPECT_NEAR(sum_request_energy(out), s.busy_energy_j, 1e-9 * s.busy_energy_j)
      << "requests share their prefill and decode steps, on both pools";
}

TEST(ServeCommand, PrintsEnergyAndWithAPricingFileCost) {
  const std::string file =
      (source_dir() / "workloads/serve/llama3-8b-poisson.serve.textproto").string();
  const std::string pricing =
      (source_dir() / "topologies/pricing/google-cloud-2026.textproto").string();
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(cli::run_cli({"serve", file, "--pricing", pricing}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("\nenergy "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("J per output token"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("W peak"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("per million output tokens, $9.60 per hour"), std::string::npos)
      << "8 v5e chips at $1.20 an hour: " << out.str();

  std::ostringstream json;
  ASSERT_EQ(cli::run_cli({"serve", file, "--pricing", pricing, "--format", "json"}, json, err), 0)
      << err.str();
  for (const char* field :
       {"\"energy_modelled\": true", "\"energy_j\"", "\"idle_energy_j\"", "\"mean_power_w\"",
        "\"peak_power_w\"", "\"j_per_output_token\"", "\"energy_per_request_j\"",
        "\"priced\": true", "\"usd_per_m_output_tokens\"", "\"gco2e_per_m_output_tokens\"",
        "\"usd_per_hour\": 9.6"})
    EXPECT_NE(json.str().find(field), std::string::npos) << field << "\n" << json.str();

  std::ostringstream csv;
  ASSERT_EQ(cli::run_cli({"serve", file, "--format", "csv"}, csv, err), 0) << err.str();
  const std::string header = csv.str().substr(0, csv.str().find('\n'));
  EXPECT_NE(header.find(",energy_j,idle_energy_j,kv_transfer_energy_j,mean_power_w,peak_power_w,"
                        "j_per_output_token,energy_per_request_j.mean,"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find(",priced,pricing,commitment,usd_per_m_output_tokens"), std::string::npos)
      << header;
}

TEST(ServeCommand, APricingFileWithoutTheChipsPriceExitsTwoBeforeTheRun) {
  const std::string file =
      (source_dir() / "workloads/serve/llama3-8b-poisson.serve.textproto").string();
  const std::string pricing =
      (source_dir() / "topologies/pricing/google-cloud-2026.textproto").string();
  // The file prices v5e on demand only.
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(cli::run_cli({"serve", file, "--pricing", pricing, "--commitment", "1-year"}, out, err),
            2);
  EXPECT_NE(err.str().find("TPU v5e"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("commitment"), std::string::npos) << err.str();
  EXPECT_TRUE(out.str().empty());
  // A file that prices another chip only.
  const auto other = std::filesystem::temp_directory_path() / "podsim_energy_test_v6e.textproto";
  std::ofstream(other) << "name: \"v6e-only\"\ndate: \"2026-12-06\"\n"
                          "prices { chip: \"TPU v6e\" commitment: COMMITMENT_ON_DEMAND "
                          "usd_per_chip_hour: 2.7 source: \"test\" }\n"
                          "chip_price_includes_electricity: true\n";
  std::ostringstream out2;
  std::ostringstream err2;
  EXPECT_EQ(cli::run_cli({"serve", file, "--pricing", other.string()}, out2, err2), 2);
  EXPECT_NE(err2.str().find("TPU v5e"), std::string::npos) << err2.str();
  EXPECT_NE(err2.str().find("prices"), std::string::npos) << err2.str();
  EXPECT_TRUE(out2.str().empty());
  std::ostringstream out3;
  EXPECT_EQ(cli::run_cli({"serve", file, "--commitment", "spot"}, out3, err2), 2)
      << "--commitment needs --pricing";
  std::filesystem::remove(other);
}

}  // namespace energy_test
}  // namespace podsim::fleet

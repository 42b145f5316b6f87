// The capacity search over many probes at once (fleet/capacity_lookahead.h)
// and over threads (fleet/capacity_across.h): the same runs and answer as
// the sequential bisection, whatever the width or the number of threads.
// The byte-compare under mpirun is tests/fleet/mpi_capacity_test.sh.
#include "fleet/capacity_across.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cli/context.h"
#include "config/serve_loader.h"
#include "fleet/capacity.h"
#include "fleet/capacity_lookahead.h"
#include "fleet/capacity_replicas.h"
#include "fleet/engine_oracle.h"

namespace podsim::fleet {
namespace capacity_across_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

// Meets the objective below `knee`, except in a band of rates (latency not
// monotone in the rate, as one seed's can be).
bool meets_at(double rate, double knee) {
  return rate <= knee && !(rate > 0.61 * knee && rate < 0.64 * knee);
}

CapacityRun fake_run(double rate, double knee) {
  CapacityRun r;
  r.rate_per_s = rate;
  r.ttft_s = rate / knee;
  r.tpot_s = 0.01;
  r.completed = 100;
  r.ok = meets_at(rate, knee);
  return r;
}

struct Counted {
  size_t batches = 0;
  size_t probes = 0;
};

CapacityResult batched(double start, double knee, const CapacityOptions& o, size_t width,
                       Counted& counted) {
  return search_capacity_batched(
      start,
      [&](const std::vector<double>& rates) {
        EXPECT_LE(rates.size(), width);
        ++counted.batches;
        counted.probes += rates.size();
        std::vector<Probe> probes;
        for (double r : rates)
          probes.push_back(Probe{fake_run(r, knee), Probe::Error::kNone, ""});
        return probes;
      },
      o, width);
}

void expect_same(const CapacityResult& a, const CapacityResult& b, const std::string& what) {
  EXPECT_EQ(a.rate_per_s, b.rate_per_s) << what;
  EXPECT_EQ(a.bracketed, b.bracketed) << what;
  ASSERT_EQ(a.runs.size(), b.runs.size()) << what;
  for (size_t k = 0; k < a.runs.size(); ++k) {
    EXPECT_EQ(a.runs[k].rate_per_s, b.runs[k].rate_per_s) << what << " run " << k;
    EXPECT_EQ(a.runs[k].ok, b.runs[k].ok) << what << " run " << k;
    EXPECT_EQ(a.runs[k].ttft_s, b.runs[k].ttft_s) << what << " run " << k;
  }
}

TEST(CapacityLookahead, TheSameRunsAndAnswerForAnyWidth) {
  for (double knee : {7.3, 0.02, 5000.0}) {
    for (double start : {0.01, 1.0, 4.5, 7.3, 1000.0}) {
      for (uint32_t max_runs : {3U, 40U}) {
        CapacityOptions o;
        o.ttft_ms = 1000;
        o.max_runs = max_runs;
        Counted one;
        const CapacityResult sequential = batched(start, knee, o, 1, one);
        EXPECT_EQ(one.batches, sequential.runs.size());
        for (size_t width : {2U, 3U, 7U, 16U}) {
          Counted many;
          const std::string what = "knee " + std::to_string(knee) + " start " +
                                   std::to_string(start) + " width " + std::to_string(width);
          expect_same(sequential, batched(start, knee, o, width, many), what);
          if (sequential.runs.size() > 4 && width >= 7) {
            EXPECT_LT(many.batches * 2, sequential.runs.size() + 2) << what << ": rounds saved";
          }
        }
      }
    }
  }
}

TEST(CapacityLookahead, AnErrorOffThePathIsIgnoredAndOnItThrown) {
  CapacityOptions o;
  o.ttft_ms = 1000;
  auto with_error_at = [&](double bad, size_t width) {
    return search_capacity_batched(
        1.0,
        [&](const std::vector<double>& rates) {
          std::vector<Probe> probes;
          for (double r : rates) {
            Probe p{fake_run(r, 7.3), Probe::Error::kNone, ""};
            if (r == bad) {
              p.error = Probe::Error::kStep;
              p.message = "no such step";
            }
            probes.push_back(p);
          }
          return probes;
        },
        o, width);
  };
  // From 1: 1, 2, 4, 8 (fails), then 6 ...; 0.5 is never on the path.
  Counted c;
  expect_same(batched(1.0, 7.3, o, 1, c), with_error_at(0.5, 1), "sequential");
  expect_same(batched(1.0, 7.3, o, 1, c), with_error_at(0.5, 16), "an off-path error");
  EXPECT_THROW(with_error_at(8.0, 16), StepError);
  EXPECT_THROW(with_error_at(8.0, 1), StepError);
}

TEST(CapacityLookahead, AProbeRoundTripsExactly) {
  Probe p{fake_run(1.0 / 3, 7.3), Probe::Error::kInvalidArgument, "a message, with bytes \x01"};
  p.run.rejected = 12345678901234ULL;
  const Probe q = decode_probe(encode_probe(p));
  EXPECT_EQ(q.run.rate_per_s, p.run.rate_per_s);
  EXPECT_EQ(q.run.ttft_s, p.run.ttft_s);
  EXPECT_EQ(q.run.tpot_s, p.run.tpot_s);
  EXPECT_EQ(q.run.completed, p.run.completed);
  EXPECT_EQ(q.run.rejected, p.run.rejected);
  EXPECT_EQ(q.run.ok, p.run.ok);
  EXPECT_EQ(q.error, p.error);
  EXPECT_EQ(q.message, p.message);
  EXPECT_THROW(decode_probe("\x01"), std::runtime_error);
}

TEST(CapacityAcross, ThreadsGiveTheOneThreadOutput) {
  const std::string file =
      (source_dir() / "workloads/serve/llama3-70b-azure-conv.serve.textproto").string();
  const config::ServeSpec spec = config::load_serve_file(file);
  CapacityOptions o;
  o.ttft_ms = spec.slo.ttft_ms;
  o.tpot_ms = spec.slo.tpot_ms;
  sweep::LocalTransport local;
  std::ostringstream out1;
  std::ostringstream out3;
  std::ostringstream err;
  ASSERT_EQ(cli::run_cli({"capacity", file, "--jobs", "1"}, out1, err), 0) << err.str();
  ASSERT_EQ(cli::run_cli({"capacity", file, "--jobs", "3"}, out3, err), 0) << err.str();
  EXPECT_EQ(out1.str(), out3.str());

  std::vector<config::ServeSpec> specs{
      config::load_serve_file(source_dir() /
                              "workloads/serve/llama3-70b-disaggregated.serve.textproto"),
      spec};
  o.ttft_ms = 1000;
  o.tpot_ms = 100;
  const FewestChips seq = fewest_chips(specs, 2, o);
  const FewestChips par = fewest_chips_across(specs, 2, o, local, 2);
  EXPECT_EQ(seq.best, par.best);
  ASSERT_EQ(seq.configs.size(), par.configs.size());
  for (size_t k = 0; k < seq.configs.size(); ++k) {
    EXPECT_EQ(seq.configs[k].chips, par.configs[k].chips);
    EXPECT_EQ(seq.configs[k].run.ttft_s, par.configs[k].run.ttft_s);
    EXPECT_EQ(seq.configs[k].run.ok, par.configs[k].run.ok);
  }
}

TEST(CapacityReplicas, TheFewestCopiesWhateverRanWithIt) {
  const config::ServeSpec spec = config::load_serve_file(
      source_dir() / "workloads/serve/llama3-70b-azure-conv.serve.textproto");
  CapacityOptions o;
  o.ttft_ms = spec.slo.ttft_ms;
  o.tpot_ms = spec.slo.tpot_ms;
  sweep::LocalTransport local;
  const FewestReplicas one = fewest_replicas(spec, 8, o, 16, local, 1);
  ASSERT_GE(one.best, 1) << "one copy does not meet them at 8 requests/s (its capacity is ~3)";
  ASSERT_EQ(one.tried.size(), static_cast<size_t>(one.best) + 1) << "nothing past the answer";
  for (size_t k = 0; k < one.tried.size(); ++k) {
    EXPECT_EQ(one.tried[k].copies, k + 1);
    EXPECT_EQ(one.tried[k].chips, 16 * (k + 1));
    EXPECT_EQ(one.tried[k].run.ok, static_cast<int>(k) == one.best);
  }
  const FewestReplicas four = fewest_replicas(spec, 8, o, 16, local, 4);
  EXPECT_EQ(four.best, one.best);
  ASSERT_EQ(four.tried.size(), one.tried.size());
  for (size_t k = 0; k < one.tried.size(); ++k)
    EXPECT_EQ(four.tried[k].run.ttft_s, one.tried[k].run.ttft_s);
  const FewestReplicas capped = fewest_replicas(spec, 8, o, 1, local, 2);
  EXPECT_EQ(capped.best, -1);
  EXPECT_EQ(capped.tried.size(), 1u);

  const config::ServeSpec two = config::load_serve_file(
      source_dir() / "workloads/serve/llama3-70b-disaggregated.serve.textproto");
  EXPECT_THROW(fewest_replicas(two, 8, o, 4, local, 1), std::invalid_argument);
}

}  // namespace capacity_across_test
}  // namespace podsim::fleet

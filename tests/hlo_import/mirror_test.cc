// Issue 34's acceptance point: an HLO module written to mirror one of
// podsim's own lowered decode steps (workloads/hlo/llama3-8b-decode-v5e-2x2.hlo, whose
// header says what differs) gives the same step time within 2%, on each of
// the three network models.
#include <gtest/gtest.h>

#include <cmath>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "import_support.h"
#include "study/evaluate.h"

namespace podsim::hlo_import::testing {
namespace {

TEST(HloMirrorTest, DecodeStepMatchesPodsimsOwnLowering) {
  const config::Overrides overrides = {{"workload.scenario.batch", "8"},
                                       {"workload.scenario.context_len", "1024"}};
  const config::PodSpec spec =
      config::load_topology_file(source_dir() / "topologies" / "v5e-2x2.textproto", {});
  const topo::Pod pod(spec);
  const config::WorkloadSpec own = config::load_workload_file(
      source_dir() / "workloads" / "llama3-8b-decode-v5e.textproto", spec, overrides);
  const Imported mirror = load_hlo_workload(
      source_dir() / "workloads" / "hlo" / "llama3-8b-decode-v5e-2x2.hlo", pod, {});
  EXPECT_TRUE(mirror.warnings.empty());
  ASSERT_EQ(mirror.workload.loops.size(), 1u);
  EXPECT_EQ(mirror.workload.loops[0].iterations, 32u);
  for (const net::Model model : {net::Model::kAnalytical, net::Model::kFlow, net::Model::kPacket}) {
    study::RunOptions options;
    options.network.model = model;
    const podsim::Result lowered = study::evaluate(pod, own, options);
    const podsim::Result hlo = study::evaluate(pod, mirror.workload, options);
    ASSERT_EQ(lowered.status(), podsim::Result::ok) << lowered.reason();
    ASSERT_EQ(hlo.status(), podsim::Result::ok) << hlo.reason();
    const double step = lowered.serving().step_time_us();
    const double makespan = hlo.op_list().makespan_us();
    // Flow model, measured: 5723.21 us against 5723.20 us.
    EXPECT_LT(std::abs(makespan - step) / step, 0.02)
        << net::to_string(model) << ": " << makespan << " us against " << step << " us";
    EXPECT_GT(step, 5000.0);
  }
}

}  // namespace
}  // namespace podsim::hlo_import::testing

// Faulty hardware end to end (issue 12 point 5): a straggler slows the step
// and is its critical chip, a degraded link slows a collective, --vs-healthy
// reports the slowdown against the repaired pod, and the table compute
// model refuses stragglers.
#include "study/faults.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "result_support.h"

namespace podsim::study {
namespace {

using testing::root;

config::PodSpec v5e_4x4() {
  return config::load_topology_file(root() / "topologies" / "v5e-4x4.textproto");
}

Evaluation evaluate_on(const config::PodSpec& spec, const std::string& workload,
                       RunOptions options = testing::analytical()) {
  const topo::Pod pod(spec);
  const config::WorkloadSpec w = config::load_workload_file(root() / "workloads" / workload, spec);
  return evaluate_in_detail(pod, w, options);
}

TEST(Faults, SlowedChipScalesItsPeaksClockAndHbm) {
  const config::ChipSpec chip = v5e_4x4().chip;
  const config::ChipSpec slow = slowed_chip(chip, {0, {}, 0.5, 0.25});
  EXPECT_DOUBLE_EQ(slow.peak_bf16_flops, chip.peak_bf16_flops / 2);
  EXPECT_DOUBLE_EQ(slow.peak_int8_ops, chip.peak_int8_ops / 2);
  EXPECT_DOUBLE_EQ(slow.mxu_clock_hz, chip.mxu_clock_hz / 2);
  EXPECT_NEAR(static_cast<double>(slow.hbm_bandwidth.bytes_per_s()),
              static_cast<double>(chip.hbm_bandwidth.bytes_per_s()) / 4, 1.0);
  EXPECT_EQ(slow.hbm_bytes, chip.hbm_bytes);
}

TEST(Faults, AStragglerSlowsTheStepAndIsItsCriticalChip) {
  const config::PodSpec healthy = v5e_4x4();
  config::PodSpec faulty = healthy;
  faulty.stragglers.push_back({0, {2, 1}, 1.0, 0.5});  // HBM at half: decode is memory-bound
  const topo::Pod pod(faulty);
  const topo::ChipId slow = pod.chip_at(0, std::vector<uint32_t>{2, 1});
  RunOptions options = testing::analytical();
  options.vs_healthy = true;
  const Evaluation f = evaluate_on(faulty, "llama3-8b-decode-v5e.textproto", options);
  const Evaluation h = evaluate_on(healthy, "llama3-8b-decode-v5e.textproto");
  ASSERT_EQ(f.result.status(), podsim::Result::ok) << f.result.reason();
  const double faulty_us = f.result.serving().step_time_us();
  const double healthy_us = h.result.serving().step_time_us();
  EXPECT_GT(faulty_us, 1.3 * healthy_us);  // half the HBM on a memory-bound chip
  EXPECT_LT(faulty_us, 2.01 * healthy_us);
  EXPECT_EQ(f.result.serving().critical_chip(), slow);
  // --vs-healthy: the repaired pod's step, and the ratio.
  EXPECT_EQ(f.result.serving().healthy_step_time_us(), healthy_us);
  EXPECT_DOUBLE_EQ(f.result.serving().fault_slowdown(), faulty_us / healthy_us);
  // The others wait for it at every collective: more exposed time than it.
  const engine::StepResult& step = f.serving->step;
  ASSERT_EQ(step.chips.size(), 16U);  // nothing folded on a pod with faults
  const auto at = [&](topo::ChipId c) {
    return step.chip_breakdowns[static_cast<size_t>(
        std::find(step.chips.begin(), step.chips.end(), c) - step.chips.begin())];
  };
  const topo::ChipId other = pod.chip_at(0, std::vector<uint32_t>{0, 3});
  EXPECT_GT(at(slow).memory, at(other).memory);
  EXPECT_GT(at(other).collective_exposed + at(other).idle,
            at(slow).collective_exposed + at(slow).idle);
  // Without faults --vs-healthy adds nothing.
  RunOptions plain = testing::analytical();
  plain.vs_healthy = true;
  EXPECT_EQ(evaluate_on(healthy, "llama3-8b-decode-v5e.textproto", plain)
                .result.serving()
                .fault_slowdown(),
            0.0);
}

TEST(Faults, ADegradedLinkSlowsACollective) {
  const config::PodSpec healthy = v5e_4x4();
  config::PodSpec faulty = healthy;
  faulty.degraded_links.push_back({0, {1, 1}, 0, +1, 0.1, sim::Time::zero()});
  RunOptions options;  // flow: links share bandwidth
  options.vs_healthy = true;
  const Evaluation f = evaluate_on(faulty, "matmul-allreduce-v5e-4x4.textproto", options);
  ASSERT_EQ(f.result.status(), podsim::Result::ok) << f.result.reason();
  const podsim::OpListResult& o = f.result.op_list();
  EXPECT_GT(o.healthy_makespan_us(), 0);
  EXPECT_GT(o.fault_slowdown(), 1.01);
  EXPECT_DOUBLE_EQ(o.fault_slowdown(), o.makespan_us() / o.healthy_makespan_us());
}

TEST(Faults, AnOperationListRunsAtTheSlowestChip) {
  const config::PodSpec healthy = v5e_4x4();
  config::PodSpec faulty = healthy;
  faulty.stragglers.push_back({0, {3, 3}, 0.5, 1.0});  // compute at half
  const Evaluation f = evaluate_on(faulty, "matmuls-v5e-4x4.textproto");
  const Evaluation h = evaluate_on(healthy, "matmuls-v5e-4x4.textproto");
  ASSERT_EQ(f.result.status(), podsim::Result::ok) << f.result.reason();
  EXPECT_GT(f.result.op_list().makespan_us(), 1.5 * h.result.op_list().makespan_us());
}

TEST(Faults, TheTableModelRefusesStragglers) {
  config::PodSpec faulty = v5e_4x4();
  faulty.stragglers.push_back({0, {0, 0}, 0.5, 1.0});
  RunOptions options = testing::analytical();
  options.compute = chip::ComputeModelKind::kTable;
  options.op_table = config::OpTableSpec{};
  const Evaluation f = evaluate_on(faulty, "matmuls-v5e-4x4.textproto", options);
  EXPECT_EQ(f.result.status(), podsim::Result::invalid);
  EXPECT_NE(f.result.reason().find("stragglers: the table compute model"), std::string::npos)
      << f.result.reason();
}

}  // namespace
}  // namespace podsim::study

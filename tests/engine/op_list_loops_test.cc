// Loops in the operation-list engine (engine/op_list_loops.h): a range of
// operations played N times, each iteration after the previous one.
#include "engine/op_list_loops.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "chip/compute_model.h"
#include "engine/op_list.h"
#include "specs.h"
#include "topo/pod.h"

namespace podsim::engine {
namespace {

// A 4x4 torus of v5e-like chips (wraparound on both axes).
config::PodSpec torus_4x4() {
  return podsim::testing::v5e_torus({{"x", 4, true}, {"y", 4, true}});
}

config::OperationSpec loop_op(std::string name, config::ComputeOp c, std::vector<size_t> after) {
  return config::OperationSpec{std::move(name), std::move(after), 1, std::move(c)};
}

config::OperationSpec loop_all_reduce(std::string name, uint64_t bytes, std::vector<size_t> after) {
  config::CollectiveSpec c;
  c.kind = config::CollectiveKind::kAllReduce;
  c.bytes = bytes;
  c.axes = {"x", "y"};
  return config::OperationSpec{std::move(name), std::move(after), 1, c};
}

config::Matmul loop_matmul(uint64_t m, uint64_t k, uint64_t n) {
  return config::Matmul{.m = m, .k = k, .n = n};
}

// One step: a matmul, an all-reduce of its output beside a second matmul,
// and a third matmul after both (offsets from `base`).
std::vector<config::OperationSpec> step(size_t base) {
  return {loop_op("proj", loop_matmul(1024, 1024, 4096), {}),
          loop_all_reduce("reduce", 8u << 20, {base}),
          loop_op("other", loop_matmul(512, 1024, 1024), {base}),
          loop_op("out", loop_matmul(1024, 4096, 1024), {base + 1, base + 2})};
}

class OpListLoopsTest : public ::testing::Test {
 protected:
  OpListResult run(const config::WorkloadSpec& w) const {
    return run_op_list(pod, w, network_options(pod, net::Model::kFlow), *model);
  }
  config::WorkloadSpec workload(std::vector<config::OperationSpec> ops,
                                std::vector<config::LoopSpec> loops) const {
    config::WorkloadSpec w;
    w.name = "w";
    w.mesh = {{"x", {0}}, {"y", {1}}};
    w.operations = std::move(ops);
    w.loops = std::move(loops);
    return w;
  }

  const topo::Pod pod{torus_4x4()};
  const std::unique_ptr<chip::ComputeModel> model =
      chip::make_compute_model(chip::ComputeModelKind::kRoofline, pod.spec().chip, {});
};

TEST_F(OpListLoopsTest, NIterationsTakeNTimesOne) {
  auto ops = step(0);
  const OpListResult one = run(workload(ops, {}));
  ASSERT_GT(one.makespan, sim::Time());
  // The step overlaps the all-reduce with "other": the loop must not lose it.
  const sim::Time serial =
      one.operations[0].per_run + one.operations[1].per_run + one.operations[3].per_run;
  EXPECT_LE(one.makespan, serial);
  for (const uint32_t n : {1u, 2u, 7u}) {
    const OpListResult r = run(workload(ops, {config::LoopSpec{"body", 0, 4, n}}));
    EXPECT_EQ(r.makespan.count_ps(), one.makespan.count_ps() * n) << n;
    for (size_t i = 0; i < r.operations.size(); ++i) {
      EXPECT_EQ(r.operations[i].repeat, n) << i;
      EXPECT_EQ(r.operations[i].runs.size(), n) << i;
      EXPECT_EQ(r.operations[i].per_run, one.operations[i].per_run) << i;
    }
    // Iteration k starts exactly when iteration k - 1 ended.
    for (uint32_t k = 1; k < n; ++k) {
      EXPECT_EQ(r.operations[0].runs[k].start, r.operations[3].runs[k - 1].end);
    }
  }
}

TEST_F(OpListLoopsTest, OperationsAroundALoopWaitOnceAndForTheLast) {
  std::vector<config::OperationSpec> ops = {loop_op("pre", loop_matmul(256, 256, 256), {})};
  for (const config::OperationSpec& o : step(1)) {
    ops.push_back(o);
  }
  ops[1].after = {0};
  ops.push_back(loop_op("post", loop_matmul(256, 256, 256), {4}));
  const OpListResult r = run(workload(ops, {config::LoopSpec{"body", 1, 5, 3}}));
  const OpListResult body = run(workload(step(0), {}));
  const sim::Time small = r.operations[0].per_run;
  EXPECT_EQ(r.makespan.count_ps(), 2 * small.count_ps() + 3 * body.makespan.count_ps());
  EXPECT_EQ(r.operations[5].runs.size(), 1u);
  EXPECT_EQ(r.operations[5].start.count_ps(), small.count_ps() + 3 * body.makespan.count_ps());
}

TEST_F(OpListLoopsTest, NestedLoopsMultiply) {
  // Outer loop of 2 around "pre" and an inner loop of 3 over the step.
  std::vector<config::OperationSpec> ops = {loop_op("pre", loop_matmul(256, 256, 256), {})};
  for (const config::OperationSpec& o : step(1)) {
    ops.push_back(o);
  }
  ops[1].after = {0};
  const OpListResult r =
      run(workload(ops, {config::LoopSpec{"outer", 0, 5, 2}, config::LoopSpec{"inner", 1, 5, 3}}));
  const OpListResult body = run(workload(step(0), {}));
  EXPECT_EQ(r.operations[0].runs.size(), 2u);
  EXPECT_EQ(r.operations[4].runs.size(), 6u);
  EXPECT_EQ(r.makespan.count_ps(),
            2 * (r.operations[0].per_run.count_ps() + 3 * body.makespan.count_ps()));
}

TEST_F(OpListLoopsTest, BadLoopsAreRefused) {
  const auto ops = step(0);
  EXPECT_THROW(OpListLoops(workload(ops, {config::LoopSpec{"empty", 2, 2, 1}})),
               std::invalid_argument);
  EXPECT_THROW(OpListLoops(workload(ops, {config::LoopSpec{"past", 0, 9, 1}})),
               std::invalid_argument);
  EXPECT_THROW(OpListLoops(workload(ops, {config::LoopSpec{"zero", 0, 4, 0}})),
               std::invalid_argument);
  EXPECT_THROW(
      OpListLoops(workload(ops, {config::LoopSpec{"a", 0, 3, 2}, config::LoopSpec{"b", 2, 4, 2}})),
      std::invalid_argument);
}

}  // namespace
}  // namespace podsim::engine

// The step-time lower bound the search prunes with (search/step_bound.h):
// by hand on a two-stage program (compute in program order, collectives and
// stage transfers taking no time, or their floors: search/comm_floor.h, by
// hand on a 4x4 slice), zero for a program the engine would find stuck, and never above a simulated
// step (tests/search/search_test.cc checks it against every configuration of two small searches on
// both network models).
#include "search/step_bound.h"

#include <gtest/gtest.h>

#include "config/topology_loader.h"
#include "search/comm_floor.h"
#include "shipped.h"
#include "topo/mesh.h"
#include "topo/pod.h"

namespace podsim::search {
namespace {

using workload::Instruction;

chip::Op matmul(uint64_t m, uint64_t k, uint64_t n) {
  config::Matmul mm;
  mm.m = m;
  mm.k = k;
  mm.n = n;
  return mm;
}

Instruction compute(const chip::Op& op, std::vector<uint32_t> deps, int32_t recv_from = -1) {
  Instruction ins;
  ins.name = "mm";
  ins.op_class = workload::OpClass::kFfn;
  ins.body = op;
  ins.deps = std::move(deps);
  ins.recv_from = recv_from;
  return ins;
}

Instruction all_reduce(std::vector<uint32_t> deps) {
  Instruction ins;
  ins.name = "ar";
  ins.op_class = workload::OpClass::kCollective;
  config::CollectiveSpec c;
  c.bytes = 1 << 20;
  c.axes = {"tensor"};
  ins.body = c;
  ins.deps = std::move(deps);
  return ins;
}

Instruction transfer(std::vector<uint32_t> deps) {
  Instruction ins;
  ins.name = "send";
  ins.op_class = workload::OpClass::kStageTransfer;
  ins.body = workload::StageTransfer{.direction = +1, .bytes = 1 << 20};
  ins.deps = std::move(deps);
  return ins;
}

class StepBound : public ::testing::Test {
 protected:
  void SetUp() override {
    const config::PodSpec pod =
        config::load_topology_file(testing::source_dir() / "topologies/v5e-2x2.textproto");
    model_ = chip::make_compute_model(chip::ComputeModelKind::kRoofline, pod.chip,
                                      chip::efficiency_of(pod.calibration), nullptr);
  }
  sim::Time time(const chip::Op& op) const { return model_->time(op).time; }

  std::unique_ptr<chip::ComputeModel> model_;
};

TEST_F(StepBound, CriticalPathOfComputeWithFreeCommunication) {
  const chip::Op a = matmul(256, 8192, 8192);
  const chip::Op b = matmul(256, 8192, 2048);
  const chip::Op c = matmul(64, 1024, 1024);
  const chip::Op d = matmul(512, 8192, 8192);
  workload::Program p;
  p.stages.resize(2);
  // Stage 0: a; an all-reduce of a's output; b after it; c (independent,
  // but after b on the one compute unit); b's output to stage 1.
  p.stages[0].instructions = {compute(a, {}), all_reduce({0}), compute(b, {1}), compute(c, {}),
                              transfer({2})};
  // Stage 1: d on what stage 0's transfer (its instruction 4) delivers.
  p.stages[1].instructions = {compute(d, {}, 4)};

  const sim::Time stage0 = time(a) + time(b) + time(c);
  const sim::Time stage1 = time(a) + time(b) + time(d);  // d starts when b's output is sent
  ASSERT_NE(stage0, stage1);
  EXPECT_EQ(step_time_lower_bound(p, *model_), std::max(stage0, stage1));
}

TEST_F(StepBound, ComputeRunsInProgramOrderEvenWhenReadyEarlier) {
  const chip::Op big = matmul(1024, 8192, 8192);
  const chip::Op small = matmul(8, 128, 128);
  workload::Program p;
  p.stages.resize(1);
  // The small op needs nothing, but waits for the big one before it.
  p.stages[0].instructions = {compute(big, {}), compute(small, {})};
  EXPECT_EQ(step_time_lower_bound(p, *model_), time(big) + time(small));
}

TEST_F(StepBound, CommunicationTakesItsFloor) {
  const config::PodSpec spec =
      config::load_topology_file(testing::source_dir() / "topologies/v5e-4x4.textproto");
  const topo::Pod pod(spec);
  const topo::DeviceMesh mesh(pod, {{"tensor", {0}}, {"data", {1}}});
  const CommFloor comm(pod, mesh);
  const chip::Op a = matmul(256, 8192, 8192);
  const chip::Op b = matmul(256, 8192, 2048);
  workload::Program p;
  p.stages.resize(1);
  p.stages[0].instructions = {compute(a, {}), all_reduce({0}), compute(b, {1})};
  // The all-reduce of 1 MiB over 4 chips: each receives at least 3/4 of it,
  // 786432 bytes, at most 4 x 50 GB/s (an inner chip of the 4x4 line
  // torus): 3.93216 us.
  EXPECT_EQ(comm.of(p.stages[0].instructions[1]), sim::Time::ps(3'932'160));
  EXPECT_EQ(step_time_lower_bound(p, *model_, &comm), time(a) + sim::Time::ps(3'932'160) + time(b));
  EXPECT_EQ(step_time_lower_bound(p, *model_), time(a) + time(b));
}

TEST(CommFloor, WhatEachMemberMustReceiveOverTheFastestChipsLinks) {
  const config::PodSpec spec =
      config::load_topology_file(testing::source_dir() / "topologies/v5e-4x4.textproto");
  const topo::Pod pod(spec);
  const topo::DeviceMesh mesh(pod, {{"tensor", {0}}, {"data", {1}}});
  const CommFloor comm(pod, mesh);
  const auto of = [&](config::CollectiveKind kind, std::vector<std::string> axes,
                      uint64_t bytes = 4'000'000) {
    Instruction ins;
    config::CollectiveSpec c;
    c.kind = kind;
    c.bytes = bytes;
    c.axes = std::move(axes);
    ins.body = c;
    return comm.of(ins);
  };
  // 200 GB/s into a chip: 3 MB in 15 us, 0.75 MB in 3.75 us.
  EXPECT_EQ(of(config::CollectiveKind::kAllGather, {"tensor"}), sim::Time::ns(15'000));
  EXPECT_EQ(of(config::CollectiveKind::kAllReduce, {"tensor"}), sim::Time::ns(15'000));
  EXPECT_EQ(of(config::CollectiveKind::kReduceScatter, {"tensor"}), sim::Time::ns(3'750));
  EXPECT_EQ(of(config::CollectiveKind::kAllToAll, {"tensor"}), sim::Time::ns(3'750));
  // Some member receives nothing: no floor.
  EXPECT_EQ(of(config::CollectiveKind::kBroadcast, {"tensor"}), sim::Time::zero());
  EXPECT_EQ(of(config::CollectiveKind::kPermute, {"tensor"}), sim::Time::zero());
  // A small collective waits for the farthest member's data: 3 hops along
  // the 4-chip line of x, 1 us each; 6 over x and y.
  EXPECT_EQ(of(config::CollectiveKind::kAllGather, {"tensor"}, 1000), sim::Time::ns(3'000));
  EXPECT_EQ(of(config::CollectiveKind::kAllToAll, {"tensor", "data"}, 1000), sim::Time::ns(6'000));
  // A stage transfer: its bytes at the receiver, 2 MB in 10 us; a small one
  // at least one hop.
  Instruction send = transfer({});
  send.body = workload::StageTransfer{.direction = +1, .bytes = 2'000'000};
  EXPECT_EQ(comm.of(send), sim::Time::ns(10'000));
  send.body = workload::StageTransfer{.direction = +1, .bytes = 10};
  EXPECT_EQ(comm.of(send), sim::Time::ns(1'000));
  // Compute takes no floor (its own time is the compute model's).
  EXPECT_EQ(comm.of(compute(matmul(8, 128, 128), {})), sim::Time::zero());
}

TEST_F(StepBound, ACycleBoundsNothing) {
  workload::Program p;
  p.stages.resize(1);
  p.stages[0].instructions = {compute(matmul(8, 128, 128), {1}), all_reduce({0})};
  EXPECT_EQ(step_time_lower_bound(p, *model_), sim::Time::zero());
}

}  // namespace
}  // namespace podsim::search

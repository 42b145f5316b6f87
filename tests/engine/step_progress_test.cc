// The progress callback of run_step(): called every kProgressInterval
// completed instructions and once at the end with done == total, counting
// every simulated chip; and watching progress changes nothing in the result.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "chip/compute_model.h"
#include "engine/step.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::engine {
namespace {

config::PodSpec ring_of_4() {
  config::PodSpec s;
  s.name = "ring";
  s.chip.name = "v5e-like";
  s.chip.peak_bf16_flops = 1.97e14;
  s.chip.hbm_bytes = 16'000'000'000;
  s.chip.hbm_bandwidth = sim::Bandwidth::from_gbps(819);
  s.chip.mxu_count = 4;
  s.chip.mxu_rows = 128;
  s.chip.mxu_columns = 128;
  s.chip.mxu_clock_hz = 1.5e9;
  s.chip.ici_ports = 2;
  config::DimensionSpec d;
  d.name = "x";
  d.size = 4;
  d.wraparound = true;
  d.link_bandwidth = sim::Bandwidth::from_gbps(50);
  d.hop_latency = sim::Time::us(1);
  s.torus.dims.push_back(d);
  return s;
}

// n small matmuls in a chain, with an all-reduce over x every 100 (so no
// chip can be folded away: the ring spans the whole pod).
workload::Program chain(uint32_t n) {
  workload::Program p;
  p.stages.resize(1);
  auto& ins = p.stages[0].instructions;
  for (uint32_t k = 0; k < n; ++k) {
    workload::Instruction i;
    i.name = "op" + std::to_string(k);
    if (k % 100 == 99) {
      config::CollectiveSpec c;
      c.kind = config::CollectiveKind::kAllReduce;
      c.bytes = 1 << 20;
      c.axes = {"x"};
      i.op_class = workload::OpClass::kCollective;
      i.body = c;
    } else {
      i.op_class = workload::OpClass::kFfn;
      i.body = chip::Op{chip::Matmul{1, 8, 512, 512}};
    }
    if (k > 0) {
      i.deps = {k - 1};
    }
    ins.push_back(std::move(i));
  }
  return p;
}

TEST(StepProgress, ReportsEveryIntervalAndAtTheEnd) {
  const topo::Pod pod(ring_of_4());
  const topo::DeviceMesh mesh(pod, {{"x", {0}}});
  const auto model =
      chip::make_compute_model(chip::ComputeModelKind::kRoofline, pod.spec().chip, {});
  const uint32_t n = 3000;  // 4 chips x 3000 = 12000 instructions
  const workload::Program program = chain(n);

  std::vector<std::pair<uint64_t, uint64_t>> calls;
  StepOptions watched;
  watched.progress = [&calls](uint64_t done, uint64_t total) { calls.emplace_back(done, total); };
  const StepResult with = run_step(pod, mesh, program, *model, watched);
  const StepResult without = run_step(pod, mesh, program, *model, StepOptions{});

  const uint64_t total = 4 * n;
  ASSERT_EQ(calls.size(), total / kProgressInterval + 1);
  for (size_t i = 0; i + 1 < calls.size(); ++i) {
    EXPECT_EQ(calls[i].first, (i + 1) * kProgressInterval);
    EXPECT_EQ(calls[i].second, total);
  }
  EXPECT_EQ(calls.back(), std::make_pair(total, total));

  EXPECT_EQ(with.step_time, without.step_time);
  EXPECT_EQ(with.events, without.events);
  EXPECT_EQ(with.fingerprint, without.fingerprint);
}

}  // namespace
}  // namespace podsim::engine

// Collectives replayed on the analytical network (coll/replay.h) against the
// same collectives played transfer by transfer: every shipped serving
// workload on its topology, and the default one (LLaMA-3-70B decode on a v5e
// 16x16 slice), run both ways: every chip's spans and breakdown, the step
// time and the links' bytes and busy time agree to the picosecond (where
// traffic disturbs a replayed collective the engine plays the step again).
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "chip/compute_model.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "engine/step.h"
#include "engine/workload_mesh.h"
#include "shipped.h"
#include "workload/program.h"

namespace podsim::engine {
namespace {

struct Case {
  std::string label;
  config::PodSpec pod;
  config::WorkloadSpec workload;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.label;
}

std::vector<Case> shipped_serving() {
  std::vector<Case> out;
  {
    config::PodSpec pod = config::default_topology();
    config::WorkloadSpec w = config::default_workload(pod);
    out.push_back({"default", std::move(pod), std::move(w)});
  }
  for (const auto& file : testing::textprotos("workloads")) {
    const auto topology = testing::topology_header(file);
    if (!topology) {
      continue;
    }
    config::PodSpec pod = config::load_topology_file(testing::source_dir() / *topology);
    config::WorkloadSpec w = config::load_workload_file(file, pod);
    if (w.serving) {
      std::string label = file.stem().string();
      std::replace(label.begin(), label.end(), '-', '_');
      out.push_back({label, std::move(pod), std::move(w)});
    }
  }
  return out;
}

StepResult simulate(const Case& c, bool replay) {
  const topo::Pod pod(c.pod);
  const topo::DeviceMesh mesh = workload_mesh(pod, c.workload);
  const workload::Program program = workload::lower(*c.workload.serving, mesh_axes(mesh));
  const auto compute =
      chip::make_compute_model(chip::ComputeModelKind::kRoofline, c.pod.chip, chip::Efficiency{});
  StepOptions options;
  options.network.model = net::Model::kAnalytical;
  options.replay_collectives = replay;
  return run_step(pod, mesh, program, *compute, options);
}

bool same_breakdown(const ChipBreakdown& a, const ChipBreakdown& b) {
  return a.end == b.end && a.compute == b.compute && a.memory == b.memory &&
         a.collective_exposed == b.collective_exposed && a.idle == b.idle &&
         a.collective_overlapped == b.collective_overlapped;
}

class ReplayAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(ReplayAgreement, ReplayedMatchesPlayed) {
  const Case& c = GetParam();
  const StepResult played = simulate(c, false);
  const StepResult replayed = simulate(c, true);
  ASSERT_EQ(played.chips, replayed.chips);
  bool exact = played.step_time == replayed.step_time && played.spans == replayed.spans;
  for (size_t i = 0; exact && i < played.chip_breakdowns.size(); ++i) {
    exact = same_breakdown(played.chip_breakdowns[i], replayed.chip_breakdowns[i]);
  }
  exact = exact && played.link_stats.bytes == replayed.link_stats.bytes &&
          played.link_stats.busy == replayed.link_stats.busy;
  EXPECT_TRUE(exact) << c.label << ": played " << played.step_time.to_us() << " us, replayed "
                     << replayed.step_time.to_us() << " us";
  EXPECT_LE(replayed.events, played.events);
}

INSTANTIATE_TEST_SUITE_P(Shipped, ReplayAgreement, ::testing::ValuesIn(shipped_serving()),
                         [](const auto& p) { return p.param.label; });

}  // namespace
}  // namespace podsim::engine

// The run's shortcuts against the full run on random inputs, bit for bit:
//  - symmetric operation lists: seeded random pods (1 to 3 dimensions,
//    wrapped or lines, sometimes several slices joined by the DCN), random
//    meshes (an axis per dimension, or x and y as one axis), and a few
//    random collectives (every kind, any size the loader takes, shifts of
//    either sign, forced algorithms, dependencies, repeats);
//  - symmetric serving steps: small random models (dense or experts,
//    parallel blocks, decode or prefill) with each mesh axis given a role
//    (tensor, data, expert, pipeline or none), folded or not;
//  - folded serving steps on one-slice pods with a failed or degraded link
//    (engine/fold.h; the stand-in replica played one chip per class).
// Each on the flow and the analytical models: every result, each link's
// bytes and busy time included, must be the full run's, and where one run
// refuses a configuration the other must refuse it too. symmetry_test.cc
// and fold_test.cc cover the shapes and kinds one by one; these look for
// the combinations nobody wrote down. They found two: a permute by two
// along a ring, whose class route crosses one link class twice, and an
// all-to-all beside a broadcast, where the max-min solver's rounding of
// tied links depended on their numbering (net/maxmin.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "chip/compute_model.h"
#include "engine/op_list.h"
#include "engine/step.h"
#include "engine/workload_mesh.h"
#include "random_workloads.h"
#include "specs.h"
#include "step_compare.h"
#include "topo/link.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::engine {
namespace {

using testing::coin;
using testing::Outcome;
using testing::pick;
using testing::random_case;
using testing::random_pod;
using testing::RandomCase;
using testing::RandomPod;

TEST(SymmetricOpList, RandomListsGiveTheFullRunsResultsBitForBit) {
  constexpr uint64_t kCases = 1000;
  uint32_t symmetric = 0;
  uint32_t refused = 0;
  for (uint64_t seed = 1; seed <= kCases; ++seed) {
    const RandomCase c = random_case(seed);
    for (const net::Model model : {net::Model::kFlow, net::Model::kAnalytical}) {
      SCOPED_TRACE(c.description + " on " + std::string(net::to_string(model)));
      const Outcome sym = play(c, true, model);
      const Outcome full = play(c, false, model);
      ASSERT_EQ(sym.result.has_value(), full.result.has_value())
          << "symmetric: " << sym.error << " / full: " << full.error;
      if (!sym.result) {
        EXPECT_EQ(sym.error, full.error);
        ++refused;
        continue;
      }
      EXPECT_FALSE(full.result->symmetric);
      if (sym.result->symmetric) {
        ++symmetric;
        EXPECT_LT(sym.result->played_chips, full.result->played_chips);
      }
      testing::expect_same(*sym.result, *full.result);
      if (HasFailure())
        return;  // one case's differences are enough to read
    }
  }
  // Not vacuous: most random lists are played symmetrically, few refused.
  EXPECT_GT(symmetric, kCases) << "of " << 2 * kCases << " runs";
  EXPECT_LT(refused, kCases / 10) << "of " << 2 * kCases << " runs";
}

// ---- serving steps ----

struct RandomStep {
  config::PodSpec pod;
  config::WorkloadSpec workload;  // serving, with its mesh
  bool fold = true;
  std::string description;
};

// A small model (a few layers, so that a step plays in milliseconds),
// dense or with experts, decode or prefill, with each mesh axis given a
// role at random: tensor (up to two), data, expert, pipeline or none.
RandomStep random_step(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::ostringstream what;
  what << "seed " << seed << ":";
  const RandomPod r = random_pod(rng, what);
  RandomStep c;
  c.pod = r.pod;
  c.workload.name = "random-step";
  c.workload.mesh = r.mesh;
  c.fold = coin(rng, 0.5);

  config::ServingSpec s;
  const bool moe = coin(rng, 0.3);
  // Roles first, then sizes that divide over them, as the lowering asks.
  uint32_t tensor = 1;
  uint32_t data = 1;
  uint32_t experts = 1;
  uint32_t stages = 1;
  for (size_t a = 0; a < r.axes.size(); ++a) {
    const std::string& axis = r.axes[a];
    switch (pick(rng, 0, 4)) {
      case 0:
      case 1:
        if (s.sharding.tensor_axes.size() < 2) {
          s.sharding.tensor_axes.push_back(axis);
          tensor *= r.sizes[a];
        }
        break;
      case 2:
        s.sharding.data_axes.push_back(axis);
        data *= r.sizes[a];
        break;
      case 3:
        if (moe) {
          s.sharding.expert_axes.push_back(axis);
          experts *= r.sizes[a];
        } else if (s.sharding.pipeline_axis.empty() && r.sizes[a] <= 4) {
          s.sharding.pipeline_axis = axis;
          stages = r.sizes[a];
        }
        break;
      default:
        break;  // replicated
    }
  }
  config::ModelSpec& m = s.model;
  m.name = "tiny";
  m.layers = stages * pick(rng, 1, 2);
  m.d_model = 128 * tensor * pick(rng, 1, 2);
  m.heads = coin(rng, 0.5) ? 8 : 16;
  static constexpr uint32_t kKvHeads[] = {1, 2, 8};
  m.kv_heads = kKvHeads[pick(rng, 0, 2)];
  m.head_dim = 128;
  m.ffn_dim = 256 * tensor * pick(rng, 1, 3);
  m.vocab = 512 * tensor * pick(rng, 1, 3);
  if (moe) {
    config::MoeSpec spec;
    spec.experts = std::max(2u, experts) * pick(rng, 1, 2);
    spec.experts_per_token = 2;
    spec.shared_experts = pick(rng, 0, 1);
    spec.expert_ffn_dim = 256 * tensor;
    spec.first_dense_layers = pick(rng, 0, 1);
    m.moe = spec;
  } else {
    m.parallel_block = coin(rng, 0.2);
  }
  s.scenario.phase = coin(rng, 0.7) ? config::Phase::kDecode : config::Phase::kPrefill;
  s.scenario.micro_batches = stages > 1 ? pick(rng, 1, 2) : 1;
  s.scenario.batch = data * s.scenario.micro_batches * tensor * experts * pick(rng, 1, 4);
  s.scenario.context_len = 256 * pick(rng, 1, 8);
  if (s.scenario.phase == config::Phase::kPrefill)
    s.scenario.prompt_len = 64 * pick(rng, 1, 4);
  s.sharding.pad_heads = true;
  s.sharding.overlap_collectives = coin(rng, 0.7);
  s.sharding.tensor_collective = coin(rng, 0.7) ? config::TensorCollective::kAllReduce
                                                : config::TensorCollective::kReduceScatterAllGather;
  s.sharding.kv_layout = coin(rng, 0.7) ? config::KvLayout::kByHeads : config::KvLayout::kByBatch;
  s.sharding.collective_matmul =
      coin(rng, 0.8) ? config::CollectiveMatmul::kOff : config::CollectiveMatmul::kOn;
  what << "; " << (moe ? "moe" : "dense") << " layers " << m.layers << " d_model " << m.d_model
       << " heads " << m.heads << "/" << m.kv_heads << (m.parallel_block ? " parallel" : "")
       << (s.scenario.phase == config::Phase::kDecode ? " decode" : " prefill") << " batch "
       << s.scenario.batch << " context " << s.scenario.context_len << " prompt "
       << s.scenario.prompt_len << " micro " << s.scenario.micro_batches << " tensor";
  for (const std::string& a : s.sharding.tensor_axes)
    what << " " << a;
  what << " data";
  for (const std::string& a : s.sharding.data_axes)
    what << " " << a;
  what << " expert";
  for (const std::string& a : s.sharding.expert_axes)
    what << " " << a;
  what << " pipeline '" << s.sharding.pipeline_axis << "' collective "
       << static_cast<int>(s.sharding.tensor_collective) << " overlap "
       << s.sharding.overlap_collectives << " kv " << static_cast<int>(s.sharding.kv_layout)
       << " cm " << static_cast<int>(s.sharding.collective_matmul) << " fold " << c.fold;
  c.workload.serving = s;
  c.description = what.str();
  return c;
}

struct StepOutcome {
  std::optional<StepResult> result;
  std::string error;
};

StepOutcome play(const RandomStep& c, bool fold, bool symmetry, net::Model model) {
  try {
    const topo::Pod pod(c.pod);
    const topo::DeviceMesh mesh = workload_mesh(pod, c.workload);
    const workload::Program program = workload::lower(*c.workload.serving, mesh_axes(mesh));
    const auto compute = chip::make_compute_model(chip::ComputeModelKind::kRoofline,
                                                  pod.spec().chip, chip::Efficiency{});
    StepOptions options;
    options.network = network_options(pod, model);
    options.fold_replicas = fold;
    options.symmetry = symmetry;
    return {run_step(pod, mesh, program, *compute, options), {}};
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

TEST(SymmetricStep, RandomStepsGiveTheFullRunsResultsBitForBit) {
  constexpr uint64_t kCases = 500;
  uint32_t symmetric = 0;
  uint32_t refused = 0;
  for (uint64_t seed = 1; seed <= kCases; ++seed) {
    const RandomStep c = random_step(seed);
    for (const net::Model model : {net::Model::kFlow, net::Model::kAnalytical}) {
      SCOPED_TRACE(c.description + " on " + std::string(net::to_string(model)));
      const StepOutcome sym = play(c, c.fold, true, model);
      const StepOutcome full = play(c, c.fold, false, model);
      ASSERT_EQ(sym.result.has_value(), full.result.has_value())
          << "symmetric: " << sym.error << " / full: " << full.error;
      if (!sym.result) {
        EXPECT_EQ(sym.error, full.error);
        ++refused;
        continue;
      }
      EXPECT_FALSE(full.result->symmetric);
      symmetric += sym.result->symmetric ? 1 : 0;
      testing::expect_same(*sym.result, *full.result);
      if (HasFailure())
        return;  // one case's differences are enough to read
    }
  }
  EXPECT_GT(symmetric, kCases / 2) << "of " << 2 * kCases << " runs";
  EXPECT_LT(refused, kCases / 2) << "of " << 2 * kCases << " runs";
}

// One fault on a random one-slice pod: a failed link, or a degraded one (a
// quarter of the bandwidth, 2 us more latency). Folding the replicas the
// fault leaves alone, and playing the stand-in one chip per class, must give
// the full run's results bit for bit (engine/fold.h).
TEST(FoldedStep, RandomFaultyStepsGiveTheFullRunsResultsBitForBit) {
  constexpr uint64_t kCases = 300;
  uint32_t shortcut = 0;
  uint32_t refused = 0;
  for (uint64_t seed = 1; seed <= kCases; ++seed) {
    RandomStep c = random_step(seed + 100'000);
    if (c.pod.slices > 1)
      continue;  // folding a faulty pod takes one slice
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> coords;
    for (const config::DimensionSpec& d : c.pod.torus.dims)
      coords.push_back(pick(rng, 0, d.size - 1));
    const auto dim = pick(rng, 0, static_cast<uint32_t>(coords.size()) - 1);
    const config::DimensionSpec& along = c.pod.torus.dims[dim];
    int32_t direction = coin(rng, 0.5) ? +1 : -1;
    if (!along.wraparound) {  // a line's ends have no link outward
      if (along.size < 2)
        continue;
      direction = coords[dim] == 0 ? +1 : coords[dim] == along.size - 1 ? -1 : direction;
    }
    std::ostringstream fault;
    if (coin(rng, 0.5)) {
      c.pod.failed_links.push_back({0, coords, dim, direction});
      fault << " failed";
    } else {
      config::DegradedLinkSpec degraded;
      degraded.coords = coords;
      degraded.dim = dim;
      degraded.direction = direction;
      degraded.bandwidth_factor = 0.25;
      degraded.extra_latency = sim::Time::us(2);
      c.pod.degraded_links.push_back(degraded);
      fault << " degraded";
    }
    fault << " link at";
    for (const uint32_t x : coords)
      fault << " " << x;
    fault << " dim " << dim << " direction " << direction;
    for (const net::Model model : {net::Model::kFlow, net::Model::kAnalytical}) {
      SCOPED_TRACE(c.description + fault.str() + " on " + std::string(net::to_string(model)));
      const StepOutcome fast = play(c, true, true, model);
      const StepOutcome full = play(c, false, false, model);
      ASSERT_EQ(fast.result.has_value(), full.result.has_value())
          << "folded: " << fast.error << " / full: " << full.error;
      if (!fast.result) {
        EXPECT_EQ(fast.error, full.error);
        ++refused;
        continue;
      }
      shortcut += fast.result->played_chips < full.result->played_chips ? 1 : 0;
      testing::expect_same_unfolded(topo::Pod(c.pod), *fast.result, *full.result);
      if (HasFailure())
        return;
    }
  }
  EXPECT_GT(shortcut, kCases / 4) << "runs that played fewer chips";
  EXPECT_LT(refused, kCases / 4);
}

}  // namespace
}  // namespace podsim::engine

#include "random_workloads.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <numeric>

#include "chip/compute_model.h"
#include "engine/workload_mesh.h"
#include "specs.h"
#include "topo/link.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::engine::testing {

using podsim::testing::TorusDim;

uint32_t pick(std::mt19937_64& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

bool coin(std::mt19937_64& rng, double p) {
  return std::bernoulli_distribution(p)(rng);
}

RandomPod random_pod(std::mt19937_64& rng, std::ostringstream& what) {
  static constexpr uint32_t kSizes[] = {2, 3, 4, 5, 6, 8};
  static constexpr const char* kNames[] = {"x", "y", "z"};
  const uint32_t dims = pick(rng, 1, 3);
  std::vector<TorusDim> torus;
  for (uint32_t d = 0; d < dims; ++d) {
    const uint32_t size = kSizes[pick(rng, 0, dims == 3 ? 3 : 5)];
    const bool wrapped = size >= 3 && coin(rng, 0.75);  // a ring needs 3 chips
    torus.push_back({kNames[d], size, wrapped});
    what << " " << kNames[d] << size << (wrapped ? "w" : "l");
  }
  RandomPod r;
  r.pod = podsim::testing::v5e_torus(torus);
  if (coin(rng, 0.2)) {
    r.pod.slices = pick(rng, 2, 3);
    r.pod.dcn = config::DcnSpec{sim::Bandwidth::from_gbps(25), sim::Time::us(10)};
    what << " x" << r.pod.slices << " slices";
  }
  uint32_t first = 0;
  if (dims >= 2 && coin(rng, 0.25)) {
    r.mesh.push_back({"xy", {0, 1}});
    r.axes.push_back("xy");
    r.sizes.push_back(torus[0].size * torus[1].size);
    first = 2;
  }
  for (uint32_t d = first; d < dims; ++d) {
    r.mesh.push_back({kNames[d], {d}});
    r.axes.push_back(kNames[d]);
    r.sizes.push_back(torus[d].size);
  }
  if (r.pod.slices > 1) {
    r.mesh.push_back({"dcn", {topo::kSliceDim}});
    r.axes.push_back("dcn");
    r.sizes.push_back(r.pod.slices);
  }
  what << " mesh";
  for (const std::string& a : r.axes) {
    what << " " << a;
  }
  return r;
}

RandomCase random_case(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::ostringstream what;
  what << "seed " << seed << ":";
  const RandomPod r = random_pod(rng, what);
  RandomCase c;
  c.pod = r.pod;
  c.workload.mesh = r.mesh;
  const std::vector<std::string>& axes = r.axes;
  const std::vector<uint32_t>& sizes = r.sizes;
  const uint32_t operations = pick(rng, 1, 3);
  for (uint32_t i = 0; i < operations; ++i) {
    config::CollectiveSpec op;
    op.kind = static_cast<config::CollectiveKind>(pick(rng, 0, 5));  // every kind but kSend
    op.bytes = pick(rng, 1, 6'000'000);
    // A random non-empty subset of the axes, in a random order (one axis
    // for a permute).
    std::vector<uint32_t> order(axes.size());
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    order.resize(op.kind == config::CollectiveKind::kPermute
                     ? 1
                     : pick(rng, 1, static_cast<uint32_t>(order.size())));
    uint32_t group = 1;
    for (const uint32_t a : order) {
      op.axes.push_back(axes[a]);
      group *= sizes[a];
    }
    switch (op.kind) {
      case config::CollectiveKind::kPermute:
        op.shift = static_cast<int32_t>(pick(rng, 1, 7)) * (coin(rng, 0.3) ? -1 : 1);
        break;
      case config::CollectiveKind::kBroadcast:
        op.root = pick(rng, 0, group - 1);
        break;
      case config::CollectiveKind::kAllToAll:
        if (coin(rng, 0.3))
          op.algorithm = config::CollectiveAlgorithm::kDirect;
        break;
      default: {
        static constexpr config::CollectiveAlgorithm kRings[] = {
            config::CollectiveAlgorithm::kAuto, config::CollectiveAlgorithm::kBidirectionalRing,
            config::CollectiveAlgorithm::kUnidirectionalRing,
            config::CollectiveAlgorithm::kSequentialAxes};
        op.algorithm = kRings[pick(rng, 0, 3)];
        break;
      }
    }
    // Sizes the loader takes (config/internal/collective_validator.cc):
    // whole bf16 elements in every piece, one per chip of the group, or one
    // per pair for an all-to-all; a broadcast or permute moves it whole.
    uint64_t pieces = 1;
    if (op.kind == config::CollectiveKind::kAllToAll) {
      pieces = uint64_t{group} * group;
    } else if (op.kind != config::CollectiveKind::kBroadcast &&
               op.kind != config::CollectiveKind::kPermute) {
      pieces = group;
    }
    op.bytes = std::max<uint64_t>(1, op.bytes / (2 * pieces)) * 2 * pieces;
    config::OperationSpec spec;
    spec.name = "op" + std::to_string(i);
    for (size_t before = 0; before < i; ++before) {
      if (coin(rng, 0.5))
        spec.after.push_back(before);
    }
    spec.repeat = coin(rng, 0.2) ? 2 : 1;
    what << "; " << spec.name << " kind " << static_cast<int>(op.kind) << " bytes " << op.bytes
         << " algorithm " << static_cast<int>(op.algorithm) << " shift " << op.shift << " root "
         << op.root << " axes";
    for (const std::string& a : op.axes) {
      what << " " << a;
    }
    spec.op = op;
    c.workload.operations.push_back(spec);
  }
  c.workload.name = "random";
  c.description = what.str();
  return c;
}

Outcome play(const RandomCase& c, bool symmetry, net::Model model) {
  try {
    const topo::Pod pod(c.pod);
    const auto compute = chip::make_compute_model(chip::ComputeModelKind::kRoofline,
                                                  pod.spec().chip, chip::Efficiency{});
    OpListOptions options;
    options.symmetry = symmetry;
    return {run_op_list(pod, c.workload, network_options(pod, model), *compute, options), {}};
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

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
    // The pod's stragglers run at half the MXU and HBM rates.
    chip::Efficiency half;
    half.mxu = 0.5;
    half.hbm = 0.5;
    const auto slow =
        chip::make_compute_model(chip::ComputeModelKind::kRoofline, pod.spec().chip, half);
    for (const config::StragglerSpec& s : c.pod.stragglers)
      options.stragglers.emplace_back(pod.chip_at(s.slice, s.coords), slow.get());
    return {run_step(pod, mesh, program, *compute, options), {}};
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

}  // namespace podsim::engine::testing

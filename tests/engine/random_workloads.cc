#include "random_workloads.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <numeric>

#include "chip/compute_model.h"
#include "specs.h"
#include "topo/link.h"
#include "topo/pod.h"

namespace podsim::engine::testing {

using podsim::testing::TorusDim;

// A uniform integer in [lo, hi].
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

}  // namespace podsim::engine::testing

// Symmetric runs against full runs on random operation lists: seeded random
// pods (1 to 3 dimensions, wrapped or not, sometimes several slices joined
// by the DCN), random meshes (an axis over one dimension or two), and a few
// random collectives each (every kind, any size the loader takes, any shift,
// forced algorithms, dependencies, repeats), on the flow and the analytical
// models. Wherever the symmetric run engages, every result, each link's
// bytes and busy time included, must equal the full run's bit for bit; where
// a configuration is refused, both runs must refuse it. symmetry_test.cc
// covers the shapes and kinds one by one; this one looks for the
// combinations nobody wrote down. It found two: a permute by two along a
// ring, whose class route crosses one link class twice, and an all-to-all
// beside a broadcast, where the max-min solver's rounding of tied links
// depended on their numbering (net/maxmin.h).
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
#include "specs.h"
#include "step_compare.h"
#include "topo/link.h"
#include "topo/pod.h"

namespace podsim::engine {
namespace {

using podsim::testing::TorusDim;

struct RandomCase {
  config::PodSpec pod;
  config::WorkloadSpec workload;
  std::string description;  // for failure messages
};

// A uniform integer in [lo, hi].
uint32_t pick(std::mt19937_64& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

bool coin(std::mt19937_64& rng, double p) {
  return std::bernoulli_distribution(p)(rng);
}

RandomCase random_case(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::ostringstream what;
  what << "seed " << seed << ":";
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
  RandomCase c;
  c.pod = podsim::testing::v5e_torus(torus);
  if (coin(rng, 0.2)) {
    c.pod.slices = pick(rng, 2, 3);
    c.pod.dcn = config::DcnSpec{sim::Bandwidth::from_gbps(25), sim::Time::us(10)};
    what << " x" << c.pod.slices << " slices";
  }

  // Mesh axes (with their sizes): one per dimension, or the first two
  // dimensions as one axis.
  std::vector<std::string> axes;
  std::vector<uint32_t> sizes;
  uint32_t first = 0;
  if (dims >= 2 && coin(rng, 0.25)) {
    c.workload.mesh.push_back({"xy", {0, 1}});
    axes.push_back("xy");
    sizes.push_back(torus[0].size * torus[1].size);
    first = 2;
  }
  for (uint32_t d = first; d < dims; ++d) {
    c.workload.mesh.push_back({kNames[d], {d}});
    axes.push_back(kNames[d]);
    sizes.push_back(torus[d].size);
  }
  if (c.pod.slices > 1) {
    c.workload.mesh.push_back({"dcn", {topo::kSliceDim}});
    axes.push_back("dcn");
    sizes.push_back(c.pod.slices);
  }
  what << " mesh";
  for (const std::string& a : axes) {
    what << " " << a;
  }

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

// The run's result, or its error message.
struct Outcome {
  std::optional<OpListResult> result;
  std::string error;
};

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

}  // namespace
}  // namespace podsim::engine

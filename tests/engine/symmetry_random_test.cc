// The run's shortcuts against the full run on random inputs, bit for bit:
//  - symmetric operation lists: seeded random pods (1 to 3 dimensions,
//    wrapped or lines, sometimes several slices joined by the DCN), random
//    meshes (an axis per dimension, or x and y as one axis), and a few
//    random collectives (every kind, any size the loader takes, shifts of
//    either sign, forced algorithms, dependencies, repeats);
//  - symmetric serving steps: small random models (dense or experts,
//    parallel blocks, decode or prefill) with each mesh axis given a role
//    (tensor, data, expert, pipeline or none), folded or not;
//  - folded serving steps on one-slice pods, healthy or with a failed or
//    degraded link or a straggler (engine/fold.h; the stand-in replica
//    played one chip per class).
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
using testing::random_step;
using testing::RandomCase;
using testing::RandomStep;
using testing::StepOutcome;

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

// One fault on a random one-slice pod: a failed link, a degraded one (a
// quarter of the bandwidth, 2 us more latency), a straggler chip (half the
// MXU and HBM rates), or none. Folding the replicas the fault leaves alone,
// and playing the stand-in one chip per class, must give the full run's
// results bit for bit (engine/fold.h).
TEST(FoldedStep, RandomFaultyStepsGiveTheFullRunsResultsBitForBit) {
  constexpr uint64_t kCases = 400;
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
    const uint32_t kind = pick(rng, 0, 3);  // 3: healthy
    if (kind == 0) {
      c.pod.failed_links.push_back({0, coords, dim, direction});
      fault << " failed link";
    } else if (kind == 1) {
      config::DegradedLinkSpec degraded;
      degraded.coords = coords;
      degraded.dim = dim;
      degraded.direction = direction;
      degraded.bandwidth_factor = 0.25;
      degraded.extra_latency = sim::Time::us(2);
      c.pod.degraded_links.push_back(degraded);
      fault << " degraded link";
    } else if (kind == 2) {
      c.pod.stragglers.push_back({0, coords, 0.5, 0.5});
      fault << " straggler";
    } else {
      fault << " healthy";
    }
    if (kind != 3) {
      fault << " at";
      for (const uint32_t x : coords)
        fault << " " << x;
    }
    if (kind < 2)
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

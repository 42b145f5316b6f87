// The analytical network model against the flow model on random single
// collectives (random_workloads.h: 1 to 3 dimensions, wrapped or lines,
// sometimes slices over the DCN; every kind, forced algorithms), each alone
// on a healthy pod.
//
// In step: a collective whose transfers that meet on a link start at one
// instant: every all-to-all and permute, and every ring, line or tree
// collective over one dimension or over dimensions alike (the same size,
// all wrapped or all lines). The analytical model shares such a link as
// max-min does, and the two agree (measured: to the last digit printed, on
// all of them); the bound is the documented 5%.
//
// Out of step: a ring, line or tree collective over dimensions that differ
// (sizes, a line beside a ring, the DCN beside the ICI). Its shares run
// their phases in rotated order, and phases of unequal length put them out
// of step: one share's transfer starts on a link another share's booked at
// an earlier instant, and the analytical model queues it where flow (and
// packet) share the link. The difference goes either way: 0.750x to 1.222x
// flow on the 586 such cases of these 2,000 seeds (1,310 in step); the
// bound is the documented 0.70x to 1.30x (docs/architecture.md, "The
// network models").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <variant>

#include "random_workloads.h"
#include "topo/link.h"

namespace podsim::engine {
namespace {

using testing::Outcome;
using testing::RandomCase;

// Whether the collective's transfers that share a link start together.
bool in_step(const RandomCase& c, const config::CollectiveSpec& op) {
  if (op.kind == config::CollectiveKind::kAllToAll || op.kind == config::CollectiveKind::kPermute)
    return true;
  std::set<std::tuple<uint32_t, bool, bool>> dims;  // size, wrapped, DCN
  for (const std::string& axis : op.axes) {
    for (const config::MeshAxisDecl& decl : c.workload.mesh) {
      if (decl.name != axis)
        continue;
      for (const uint32_t d : decl.dims) {
        if (d == topo::kSliceDim) {
          dims.insert({c.pod.slices, false, true});
        } else {
          const config::DimensionSpec& spec = c.pod.torus.dims[d];
          dims.insert({spec.size, spec.wraparound, false});
        }
      }
    }
  }
  return dims.size() == 1;
}

TEST(ModelAgreement, RandomCollectivesAgreeInStepAndStayInTheBoundOutOfStep) {
  constexpr uint64_t kCases = 2000;
  uint32_t in = 0;
  uint32_t out = 0;
  double lowest = 1;
  double highest = 1;
  for (uint64_t seed = 1; seed <= kCases; ++seed) {
    RandomCase c = testing::random_case(seed);
    c.workload.operations.resize(1);  // alone
    c.workload.operations[0].after.clear();
    c.workload.operations[0].repeat = 1;
    const auto& op = std::get<config::CollectiveSpec>(c.workload.operations[0].op);
    const Outcome analytical = testing::play(c, true, net::Model::kAnalytical);
    const Outcome flow = testing::play(c, true, net::Model::kFlow);
    ASSERT_EQ(analytical.result.has_value(), flow.result.has_value()) << c.description;
    if (!flow.result || flow.result->makespan == sim::Time::zero())
      continue;  // refused, or nothing to move (a shift by the whole group)
    const double ratio = static_cast<double>(analytical.result->makespan.count_ps()) /
                         static_cast<double>(flow.result->makespan.count_ps());
    if (in_step(c, op)) {
      ++in;
      EXPECT_NEAR(ratio, 1.0, 0.05) << c.description;
    } else {
      ++out;
      lowest = std::min(lowest, ratio);
      highest = std::max(highest, ratio);
      EXPECT_GE(ratio, 0.70) << c.description;
      EXPECT_LE(ratio, 1.30) << c.description;
    }
  }
  EXPECT_GT(in, kCases / 2);
  EXPECT_GT(out, kCases / 5);
  // The out-of-step cases do differ (else the docs overstate it).
  EXPECT_LT(lowest, 0.9);
  EXPECT_GT(highest, 1.1);
}

}  // namespace
}  // namespace podsim::engine

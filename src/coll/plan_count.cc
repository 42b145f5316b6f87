// coll::min_transfers: a lower bound on the transfers one run of a plan
// makes, from the plan alone (plan.h). Counted per pattern from the rules
// of coll/executor_roles.cc, for groups of two chips or more:
//  - kRing: every member sends Lane::steps transfers;
//  - kLineGather and kLineScatter: member q sends q + 1 (respectively
//    n - 1 - q) steps, n (n - 1) / 2 in a group;
//  - kDirect: every member sends to each other member once (twice where
//    the route has a tie, which this bound leaves out): n (n - 1);
//  - kShift: on a closed lane every member sends once unless the shift
//    brings it back to itself; on an open one the n - |shift| members whose
//    target is on the line;
//  - kChain and kSend count nothing here (a broadcast's pieces and a
//    send's pairs are bounded by the chips elsewhere); leaving them out
//    keeps the bound a bound.
// O(group sets x groups) time, no allocation.
#include "coll/plan.h"
#include "sim/saturating.h"

namespace podsim::coll {
namespace {

using sim::saturating_add;
using sim::saturating_mul;

// Transfers one lane's groups make under `pattern`.
uint64_t lane_transfers(Pattern pattern, const Lane& lane, const GroupSet& set) {
  uint64_t total = 0;
  for (const std::vector<topo::ChipId>& group : set.groups) {
    const uint64_t n = group.size();
    if (n < 2) {
      continue;
    }
    switch (pattern) {
      case Pattern::kRing:
        total = saturating_add(total, saturating_mul(n, lane.steps));
        break;
      case Pattern::kLineGather:
      case Pattern::kLineScatter:
        total = saturating_add(total, saturating_mul(n, n - 1) / 2);
        break;
      case Pattern::kDirect:
        total = saturating_add(total, saturating_mul(n, n - 1));
        break;
      case Pattern::kShift: {
        const uint64_t shift =
            lane.shift < 0 ? uint64_t{0} - static_cast<uint64_t>(lane.shift) : lane.shift;
        if (lane.wraps) {
          total = saturating_add(total, shift % n == 0 ? 0 : n);
        } else if (shift < n) {
          total = saturating_add(total, n - shift);
        }
        break;
      }
      case Pattern::kChain:
      case Pattern::kSend:
        break;
    }
  }
  return total;
}

}  // namespace

uint64_t min_transfers(const Plan& plan) {
  uint64_t total = 0;
  for (const Share& share : plan.shares) {
    for (const Phase& phase : share.phases) {
      for (const Lane& lane : phase.lanes) {
        if (lane.group_set < plan.group_sets.size()) {
          total = saturating_add(
              total, lane_transfers(phase.pattern, lane, plan.group_sets[lane.group_set]));
        }
      }
    }
  }
  return total;
}

}  // namespace podsim::coll

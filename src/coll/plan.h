// The coll layer: collectives lowered into point-to-point transfers.
//
// lower() turns one collective over named mesh axes into a Plan: the buffer is
// split into shares that run at the same time; each share walks a sequence of
// phases; a phase is one communication pattern run in one or more lanes, each
// lane over one set of chip groups in one direction. A chip enters phase p+1
// of a share only when every lane of phase p is done at that chip (the data
// of the next phase is what the previous one produced). The executor
// (coll/executor.h) plays a plan on a network. docs/collectives.md gives every
// schedule with its closed form; in short, what ALGORITHM_AUTO builds:
//  - every torus dimension under the collective's axes is a ring of its own,
//    whether the axes name it alone or an axis spans several dimensions (as
//    XLA runs a replica group over a multi-dimensional slice): one balanced
//    bidirectional ring per wraparound dimension -- every chunk reaches the
//    (N-1)/2 nearest chips each way, and on an even ring half of it goes
//    each way to the opposite chip (one short step per lane,
//    Lane::short_step), so both directions of every link carry exactly
//    (N-1)/N x V/2: bandwidth term (N-1)/N x V / (2 W1), latency floor(N/2)
//    hops, [SB]'s T = max(T_min |X| / 2, V / W) -- and a two-way pipeline (a
//    line) on a dimension without wraparound;
//  - several dimensions split the buffer into one share per dimension, share
//    j visiting the dimensions in rotated order, so every dimension's links
//    work at once (~ V / (W x dimensions));
//  - a twisted dimension (its wraparound lands shifted along others) is run
//    as a line or as a ring over its true cycle, whichever the run's own
//    network model finds faster (flow for a packet run; coll/choose.h);
//  - all-to-all: every block along its shortest dimension-ordered route (on a
//    twisted torus through the twisted links where that is shorter), modelled
//    by the routes' per-dimension segments, all at once (cut through);
//  - broadcast: a pipelined chain per dimension, each chip of one level
//    rooting the chains of the next as its pieces arrive; when every level
//    is a ring, either every piece goes whole both ways half way round, or
//    each half of the buffer goes one way all the way round (half the bytes
//    per link, twice the depth), whichever is faster;
//  - send: each pair's bytes split over the link-disjoint routes between the
//    two chips (topo/multipath.h);
//  - across slices (an axis over the "slice" dimension) the collective is
//    hierarchical: reduce-scatter inside slices, a ring over DCN between
//    counterpart chips, all-gather inside slices.
// ALGORITHM_SNAKE_RING keeps a multi-dimension axis as one ring (or chain)
// over its chips in snake order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/workload_spec.h"
#include "net/network.h"
#include "sim/time.h"
#include "sim/work_budget.h"
#include "topo/mesh.h"
#include "topo/pod.h"

namespace podsim::coll {

enum class Pattern : uint8_t {
  kRing,         // Lane::steps steps to the next member along the lane, wrapping around
  kLineGather,   // a line; member at position q sends steps 0..q (the chunks from behind)
  kLineScatter,  // a line; member at position q sends steps q..N-2 (partial sums ahead)
  kDirect,       // one step: every member sends to every other member
  kChain,        // broadcast: pieces flow from the root to the ends of the lane
  kShift,        // one step: member p sends to member p + shift
  kSend,         // explicit transfers between pairs of chips (Phase::paths)
};

// No torus dimension: routes between members are the pod's default routes.
inline constexpr int32_t kNoWalk = -1;
// Lane::short_step of a lane whose every step carries chunk_bytes.
inline constexpr uint32_t kNoShortStep = UINT32_MAX;

struct Lane {
  int direction = +1;        // along the group's order
  uint64_t chunk_bytes = 0;  // bytes of one transfer
  // kRing: the one step whose transfer carries short_bytes instead (a
  // balanced even ring moves only half of the opposite chip's chunk each
  // way); kNoShortStep: none.
  uint32_t short_step = kNoShortStep;
  uint64_t short_bytes = 0;
  uint32_t steps = 0;      // kRing: steps every member takes
  uint32_t group_set = 0;  // index into Plan::group_sets
  bool wraps = false;      // the groups close into rings (last member links to first)
  // A member's transfer to its neighbour walks this torus dimension in
  // `direction` (topo::walk_along), so a ring over a twisted dimension
  // follows its true cycle; kNoWalk: the pod's route.
  int32_t walk_dim = kNoWalk;
  int32_t shift = 0;   // kShift: member p sends to member p + shift
  uint32_t level = 0;  // kChain: index into Phase::levels
  // kChain on a ring: the chain runs all the way round in `direction`
  // (n - 1 hops), carrying the half of the buffer that goes this way, instead
  // of stopping half way (a split broadcast, lower_point.cc).
  bool whole_ring = false;
  // A receipt of this lane counts this long after the transfer is delivered:
  // an all-to-all's later route segments carry bytes that crossed the
  // earlier segments' hops first, cut through, so their last byte lands that
  // much later while their bandwidth overlaps the earlier segments'.
  sim::Time receipt_delay;
};

// kChain over several dimensions is a tree of chains: level 0 runs along the
// root's group of its group set; each chip a level reaches roots the chains
// of the next level. A lane of level j involves only chips whose coordinate
// along every later level's dimension equals the root's.
struct ChainLevel {
  uint32_t dim = topo::kSliceDim;  // torus dimension (or the slices); unused for a snake
  bool by_dim = true;              // false: one level over a snake group (no scope)
  uint32_t root = 0;               // the root's position within this level's groups
};

// One transfer of a kSend phase: `bytes` from src to dst along `route`.
struct SendPath {
  topo::ChipId src = 0;
  topo::ChipId dst = 0;
  uint64_t bytes = 0;
  std::vector<topo::LinkId> route;
};

struct Phase {
  Pattern pattern = Pattern::kRing;
  bool reduces = false;  // receipts are reduced into the chip's buffer
  std::vector<Lane> lanes;
  uint32_t pieces = 1;             // kChain: pieces the buffer is cut into
  std::vector<ChainLevel> levels;  // kChain
  std::vector<SendPath> paths;     // kSend
  // kDirect, when filled in by lower(): per chip, how many of its group's
  // other members have a route with a tie to it (their block comes as two
  // halves) and to how many it has one. Worked out once per plan, not once
  // per run; empty: the executor works them out.
  std::vector<uint32_t> direct_ties_in;
  std::vector<uint32_t> direct_ties_out;
  std::string axis;  // for reports: what this phase runs over
};

struct Share {
  std::vector<Phase> phases;
};

struct GroupSet {
  std::vector<std::vector<topo::ChipId>> groups;  // ring order
  std::vector<uint32_t> group_of;                 // chip -> index into groups
  std::vector<uint32_t> position;                 // chip -> index within its group
};

struct Plan {
  std::vector<GroupSet> group_sets;
  std::vector<Share> shares;
  uint32_t group_size = 1;  // chips in one group of the whole collective
  // What the plan does, for reports: "ring x, line y (2 shares)", "direct", ...
  std::string schedule;
};

// Lowers `c` onto the pod. Where there are several schedules to choose from
// (a twisted dimension as a line or its true cycle; a broadcast whole or
// split over both ways round its rings), each is
// timed on the model `estimate_with` names (flow for packet) with its
// efficiencies (coll/choose.h) and the fastest kept, the first on a tie; the
// choice is deterministic. Pass the run's network options. Throws
// std::invalid_argument when the collective cannot be run as asked (unknown
// axis, a root outside the group, ...); the workload loader checks these
// first, so this is a second line of defence.
// The candidates' simulations charge `budget` (optional; sim/work_budget.h),
// so a run's limits bound its schedule choices too.
Plan lower(const topo::Pod& pod, const topo::DeviceMesh& mesh, const config::CollectiveSpec& c,
           const net::Options& estimate_with = {}, sim::WorkBudget* budget = nullptr);

// Every schedule lower() chooses among for `c`, in a fixed order (a single
// one unless the choice above applies).
std::vector<Plan> candidate_plans(const topo::Pod& pod, const topo::DeviceMesh& mesh,
                                  const config::CollectiveSpec& c);

// At least how many point-to-point transfers one run of `plan` makes,
// counted from the plan before it runs (coll/plan_count.cc gives the rule per
// pattern; exact for rings, lines and direct schedules without route ties).
// Every transfer is at least one event on every network model, so callers
// bound a run's work with it (study/work_estimate.h). Saturates at
// UINT64_MAX.
uint64_t min_transfers(const Plan& plan);

// NCCL-tests' bus-bandwidth factor for a collective over n chips: the fraction
// of V each chip's links must carry, so busbw = algbw x factor is comparable
// across sizes (AG/RS/A2A: (n-1)/n, AR: 2(n-1)/n, broadcast, permute and send: 1).
double bus_bandwidth_factor(config::CollectiveKind kind, uint32_t n);

const char* to_string(config::CollectiveKind kind);

}  // namespace podsim::coll

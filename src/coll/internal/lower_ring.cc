// All-gather, reduce-scatter and all-reduce: rings and lines per unit, the
// buffer split into one share per unit so every unit's links work at once,
// and the slices (DCN) in the middle of a hierarchical collective.
#include <algorithm>

#include "coll/internal/builder.h"

namespace podsim::coll::internal {
namespace {

using config::CollectiveAlgorithm;
using config::CollectiveKind;

// One gather (or scatter) step over unit `u`, where every chip holds `bytes`
// before the phase: its contribution (gather) or its buffer (scatter).
Phase ring_phase(const Unit& u, uint64_t bytes, bool gather, bool bidirectional) {
  const uint32_t n = u.size;
  Phase ph;
  ph.axis = u.label;
  ph.reduces = !gather;
  Lane lane;
  lane.group_set = u.group_set;
  lane.wraps = u.wraps;
  lane.walk_dim = u.walk_dim;
  lane.chunk_bytes = gather ? bytes : ceil_div(bytes, n);
  if (u.wraps) {
    ph.pattern = Pattern::kRing;
    Lane plus = lane;
    // Over DCN both ways share each chip's one path to the fabric, so a
    // second direction would gain nothing: a one-way ring.
    if (!bidirectional || u.dcn) {
      plus.steps = n - 1;
      ph.lanes = {plus};
      return ph;
    }
    Lane minus = lane;
    minus.direction = -1;
    // Balanced (docs/collectives.md): every chunk reaches the (n-1)/2 chips
    // nearest each way, so on an odd ring both directions of every link
    // carry (n-1)/2 chunks. On an even ring the opposite chip is n/2 steps
    // either way: half of its chunk goes each way, so each lane takes n/2
    // steps of which one moves half a chunk -- the last of an all-gather
    // (the opposite chip receives one half from each side), the first of a
    // reduce-scatter (the opposite chip's contribution to each half of a
    // block starts the partial sums on one side only). Both directions then
    // carry (n-1)/2 chunks per link and the latency stays n/2 hops. The
    // halves add up to the chunk; a chunk of one byte cannot split (and on
    // a 2-ring the one other chip is one step away).
    if (n % 2 == 1 || n < 4 || lane.chunk_bytes < 2) {
      plus.steps = n / 2;
      minus.steps = (n - 1) / 2;
      ph.lanes = {plus, minus};
      return ph;
    }
    plus.steps = n / 2;
    minus.steps = n / 2;
    plus.short_step = gather ? n / 2 - 1 : 0;
    minus.short_step = plus.short_step;
    plus.short_bytes = lane.chunk_bytes - lane.chunk_bytes / 2;
    minus.short_bytes = lane.chunk_bytes / 2;
    ph.lanes = {plus, minus};
  } else {
    // A line: chunks (or partial sums) flow both ways, each in full.
    ph.pattern = gather ? Pattern::kLineGather : Pattern::kLineScatter;
    Lane minus = lane;
    minus.direction = -1;
    ph.lanes = {lane, minus};
  }
  return ph;
}

std::string describe(const std::vector<Unit>& ici, const std::vector<Unit>& dcn, size_t shares) {
  std::string s;
  for (const Unit& u : ici) {
    s += (s.empty() ? "" : " + ") + u.label;
  }
  if (shares > 1) {
    s += " (" + std::to_string(shares) + " shares)";
  }
  for (const Unit& u : dcn) {
    s += (s.empty() ? "" : ", then ") + u.label + " over DCN";
  }
  return s;
}

}  // namespace

void lower_ring_family(Builder& b, std::span<const TwistedAs> twisted_as) {
  const config::CollectiveSpec& c = b.collective();
  Plan& plan = b.plan();
  const bool bidirectional = c.algorithm != CollectiveAlgorithm::kUnidirectionalRing;
  const std::vector<Unit> ici =
      b.ici_units(c.algorithm == CollectiveAlgorithm::kSnakeRing, twisted_as);
  std::vector<Unit> dcn;
  if (!b.dcn_axes().empty() && b.pod().slice_count() > 1) {
    dcn.push_back(b.dim_unit(topo::kSliceDim));
  }
  if (ici.empty() && dcn.empty()) {
    plan.schedule = "nothing to do (one chip per group)";
    return;
  }
  const bool split = c.algorithm != CollectiveAlgorithm::kSequentialAxes && ici.size() > 1;
  const size_t shares = split ? ici.size() : 1;
  plan.schedule = describe(ici, dcn, shares);
  for (size_t j = 0; j < shares; ++j) {
    // The shares add up to V exactly; chunks within a share round up.
    const uint64_t share_bytes = c.bytes / shares + (j < c.bytes % shares ? 1 : 0);
    std::vector<const Unit*> order;
    for (size_t i = 0; i < ici.size(); ++i) {
      order.push_back(&ici[(i + j) % ici.size()]);
    }
    Share share;
    if (c.kind == CollectiveKind::kAllGather) {
      // Slowest network first, while each chip holds the least data.
      uint64_t held = ceil_div(share_bytes, plan.group_size);
      for (const Unit& u : dcn) {
        share.phases.push_back(ring_phase(u, held, true, bidirectional));
        held *= u.size;
      }
      for (const Unit* u : order) {
        share.phases.push_back(ring_phase(*u, held, true, bidirectional));
        held *= u->size;
      }
    } else {
      uint64_t held = share_bytes;
      std::vector<uint64_t> held_before;
      for (const Unit* u : order) {
        share.phases.push_back(ring_phase(*u, held, false, bidirectional));
        held_before.push_back(held);
        held = ceil_div(held, u->size);
      }
      for (const Unit& u : dcn) {
        share.phases.push_back(ring_phase(u, held, false, bidirectional));
        if (c.kind == CollectiveKind::kAllReduce) {
          // Inside the DCN all-reduce: scatter then gather the same block.
          share.phases.push_back(ring_phase(u, ceil_div(held, u.size), true, bidirectional));
        } else {
          held = ceil_div(held, u.size);
        }
      }
      if (c.kind == CollectiveKind::kAllReduce) {
        for (size_t i = order.size(); i-- > 0;) {
          share.phases.push_back(
              ring_phase(*order[i], ceil_div(held_before[i], order[i]->size), true, bidirectional));
        }
      }
    }
    plan.shares.push_back(std::move(share));
  }
}

}  // namespace podsim::coll::internal

// Max-min fair sharing of link bandwidth among flows, by progressive filling,
// and the conversion of a fluid rate into an event time.
//
// A MaxMinProblem lists, in local indices, the links of one component (their
// capacities in bytes/s) and the flows (each the list of links it crosses).
// MaxMinSolver::solve gives each flow its max-min fair rate: the rates of all
// unfrozen flows rise together until some link is full; the flows crossing it
// are frozen at that rate; the rest go on rising, until every flow is frozen.
// No flow can then gain without taking from a flow that has no more.
//
// The solver keeps an indexed min-heap of links keyed by fair share
// (remaining capacity / unfrozen flows), one entry per link. Freezing a flow
// at level s on a link whose share is >= s never lowers that link's share, so
// a key only rises (rounding aside): all the links whose share is the lowest
// leave the heap together, their flows are frozen as one batch, and then each
// link the batch touched is re-keyed once, or leaves the heap when no
// unfrozen flow is left on it. So the rates do not depend on how the links
// and flows are numbered, only on the problem's shape, to the last bit: a
// symmetric run's class problem and the full run's give copies of a flow the
// same rate.
// Cost: O(H + T log L) for L links, H (flow, link) incidences and T links
// re-keyed (T <= H); a single flow is O(L + H).
// Scratch vectors are reused: no allocation once they have grown.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/time.h"

namespace podsim::net {

struct MaxMinProblem {
  std::vector<double> capacity;  // bytes/s, one per local link, > 0
  std::vector<uint32_t> flow_begin{
      0};                            // flow f crosses flow_links[flow_begin[f] .. flow_begin[f+1])
  std::vector<uint32_t> flow_links;  // local link indices
  // Optionally the same incidences by link, in any order within a link:
  // link l carries link_flows[link_begin[l] .. link_begin[l+1]). A caller
  // that has them at hand (the flow model's walk reads each link's flows)
  // spares the solver transposing flow_links. Empty: the solver transposes.
  std::vector<uint32_t> link_begin;
  std::vector<uint32_t> link_flows;

  void clear();
  uint32_t add_link(double capacity_bytes_per_s);
  // Building the link side: after add_link(), push_flow() for each flow the
  // link carries (its local index), then end_link().
  void push_flow(uint32_t flow) { link_flows.push_back(flow); }
  void end_link() {
    if (link_begin.empty())
      link_begin.push_back(0);
    link_begin.push_back(static_cast<uint32_t>(link_flows.size()));
  }
  // Building a flow: push_link() for each link it crosses, then end_flow().
  void push_link(uint32_t link) { flow_links.push_back(link); }
  uint32_t end_flow();
  // Convenience for tests: one call per flow.
  uint32_t add_flow(std::span<const uint32_t> links);

  uint32_t link_count() const { return static_cast<uint32_t>(capacity.size()); }
  uint32_t flow_count() const { return static_cast<uint32_t>(flow_begin.size() - 1); }
};

class MaxMinSolver {
 public:
  // Writes each flow's rate (bytes/s) into rates, resized to flow_count().
  // Throws std::invalid_argument if a flow crosses no link.
  void solve(const MaxMinProblem& problem, std::vector<double>& rates);

 private:
  bool before(uint32_t a, uint32_t b) const {  // pops first: lower share, then index (ties
                                               // leave as one batch: the order is moot)
    return share_[a] < share_[b] || (share_[a] == share_[b] && a < b);
  }
  void put(uint32_t at, uint32_t link) {  // link goes to heap_[at]
    heap_[at] = link;
    position_[link] = at;
  }
  void sift_down(uint32_t at);
  void sift_up(uint32_t at);
  void remove(uint32_t link);

  std::vector<double> remaining_;   // capacity not yet given to frozen flows
  std::vector<uint32_t> unfrozen_;  // flows on the link not yet frozen
  std::vector<double> share_;       // the link's key: its fair share when last touched
  std::vector<uint32_t> heap_;      // links with unfrozen flows, a binary min-heap
  std::vector<uint32_t> position_;  // where each link is in heap_, or kOutOfHeap
  static constexpr uint32_t kOutOfHeap = 0xffffffffu;  // position_ of a link not in heap_
  std::vector<uint32_t> batch_;                        // the links at the level, frozen together
  std::vector<uint32_t> touched_;                      // links a level's freezes changed
  std::vector<uint32_t> touched_at_;  // per link: the level (1-based) that last touched it
  std::vector<uint32_t> link_begin_;  // transposed CSR: flows crossing each link,
  std::vector<uint32_t> link_flows_;  // when the problem brings none
  std::vector<uint32_t> cursor_;      // fill position per link while transposing
  std::vector<uint8_t> frozen_;
};

// The time `remaining_bytes` take at `rate` bytes/s, rounded up to the next
// picosecond: ceil(remaining_bytes * 1e12 / rate). When both are whole numbers
// (a flow alone on its route, or two halving an even bandwidth) this is
// sim::transfer_time, exact; otherwise the quotient is formed in double
// precision (relative error ~1e-16, far below a picosecond for any transfer
// under ~100 s) and then rounded up. remaining_bytes <= 0 gives zero. Throws
// sim::TimeOverflow when the result does not fit in Time.
sim::Time drain_time(double remaining_bytes, double rate);

}  // namespace podsim::net

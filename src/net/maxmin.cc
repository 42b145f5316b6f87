#include "net/maxmin.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace podsim::net {
namespace {

bool is_whole(double v, double limit) {
  return v >= 0 && v < limit && std::floor(v) == v;
}

}  // namespace

void MaxMinProblem::clear() {
  capacity.clear();
  flow_begin.assign(1, 0);
  flow_links.clear();
  link_begin.clear();
  link_flows.clear();
}

uint32_t MaxMinProblem::add_link(double capacity_bytes_per_s) {
  capacity.push_back(capacity_bytes_per_s);
  return link_count() - 1;
}

uint32_t MaxMinProblem::end_flow() {
  flow_begin.push_back(static_cast<uint32_t>(flow_links.size()));
  return flow_count() - 1;
}

uint32_t MaxMinProblem::add_flow(std::span<const uint32_t> links) {
  for (const uint32_t l : links)
    push_link(l);
  return end_flow();
}

void MaxMinSolver::sift_down(uint32_t at) {
  const uint32_t link = heap_[at];
  const auto size = static_cast<uint32_t>(heap_.size());
  for (;;) {
    uint32_t child = 2 * at + 1;
    if (child >= size)
      break;
    if (child + 1 < size && before(heap_[child + 1], heap_[child]))
      ++child;
    if (!before(heap_[child], link))
      break;
    put(at, heap_[child]);
    at = child;
  }
  put(at, link);
}

void MaxMinSolver::sift_up(uint32_t at) {
  const uint32_t link = heap_[at];
  while (at > 0) {
    const uint32_t parent = (at - 1) / 2;
    if (!before(link, heap_[parent]))
      break;
    put(at, heap_[parent]);
    at = parent;
  }
  put(at, link);
}

void MaxMinSolver::remove(uint32_t link) {
  const uint32_t at = position_[link];
  position_[link] = kOutOfHeap;
  const uint32_t last = heap_.back();
  heap_.pop_back();
  if (last == link)
    return;
  put(at, last);
  // The moved entry came from the bottom: it may belong above or below.
  sift_up(at);
  sift_down(position_[last]);
}

void MaxMinSolver::solve(const MaxMinProblem& p, std::vector<double>& rates) {
  const uint32_t links = p.link_count();
  const uint32_t flows = p.flow_count();
  rates.assign(flows, 0.0);
  for (uint32_t f = 0; f < flows; ++f) {
    if (p.flow_begin[f] == p.flow_begin[f + 1]) {
      throw std::invalid_argument("max-min: a flow crosses no link");
    }
  }
  if (flows == 1) {  // the common case of a ring step: the bottleneck, O(links + hops)
    // A flow that crosses a link more than once (a route over link classes)
    // loads it once per crossing, as in a larger problem.
    unfrozen_.assign(links, 0);
    for (const uint32_t l : p.flow_links)
      ++unfrozen_[l];
    double rate = std::numeric_limits<double>::infinity();
    for (const uint32_t l : p.flow_links)
      rate = std::min(rate, p.capacity[l] / unfrozen_[l]);
    rates[0] = rate;
    return;
  }

  remaining_.assign(p.capacity.begin(), p.capacity.end());
  frozen_.assign(flows, 0);
  const std::vector<uint32_t>* link_begin = &p.link_begin;
  const std::vector<uint32_t>* link_flows = &p.link_flows;
  if (p.link_begin.empty()) {
    // Transpose flow -> links into link -> flows (counting sort, stable).
    unfrozen_.assign(links, 0);
    for (const uint32_t l : p.flow_links)
      ++unfrozen_[l];
    link_begin_.assign(links + 1, 0);
    for (uint32_t l = 0; l < links; ++l)
      link_begin_[l + 1] = link_begin_[l] + unfrozen_[l];
    link_flows_.resize(p.flow_links.size());
    cursor_.assign(link_begin_.begin(), link_begin_.end() - 1);
    for (uint32_t f = 0; f < flows; ++f) {
      for (uint32_t i = p.flow_begin[f]; i < p.flow_begin[f + 1]; ++i) {
        link_flows_[cursor_[p.flow_links[i]]++] = f;
      }
    }
    link_begin = &link_begin_;
    link_flows = &link_flows_;
  } else {
    if (p.link_begin.size() != links + 1 || p.link_flows.size() != p.flow_links.size()) {
      throw std::invalid_argument("max-min: the links' flows do not match the flows' links");
    }
    unfrozen_.resize(links);
    for (uint32_t l = 0; l < links; ++l)
      unfrozen_[l] = p.link_begin[l + 1] - p.link_begin[l];
  }

  share_.resize(links);
  position_.assign(links, kOutOfHeap);
  touched_at_.assign(links, 0);
  heap_.clear();
  for (uint32_t l = 0; l < links; ++l) {
    if (unfrozen_[l] > 0) {
      share_[l] = remaining_[l] / unfrozen_[l];
      position_[l] = static_cast<uint32_t>(heap_.size());
      heap_.push_back(l);
    }
  }
  for (auto at = static_cast<uint32_t>(heap_.size() / 2); at-- > 0;)
    sift_down(at);

  uint32_t left = flows;
  for (uint32_t level_index = 1; left > 0 && !heap_.empty(); ++level_index) {
    // Every link whose share is the level leaves the heap at once, and all
    // their flows freeze before any other link is re-keyed: re-keying a tied
    // link after its neighbour's freezes would round its share a hair off
    // the level, and which of the two got the hair would depend on the order
    // of their indices. As one batch, each link touched loses the level once
    // per crossing frozen (in any order: the same value), so the rates are a
    // function of the problem's shape alone, not of how its links and flows
    // are numbered: links that a symmetry of the pod maps onto each other
    // give their flows the same rates, bit for bit.
    const double level = share_[heap_.front()];
    batch_.clear();
    while (!heap_.empty() && share_[heap_.front()] == level) {
      batch_.push_back(heap_.front());
      remove(heap_.front());
    }
    touched_.clear();
    for (const uint32_t top : batch_) {
      for (uint32_t i = (*link_begin)[top]; i < (*link_begin)[top + 1]; ++i) {
        const uint32_t f = (*link_flows)[i];
        if (frozen_[f])
          continue;
        frozen_[f] = 1;
        rates[f] = level;
        --left;
        for (uint32_t j = p.flow_begin[f]; j < p.flow_begin[f + 1]; ++j) {
          const uint32_t l = p.flow_links[j];
          remaining_[l] = std::max(0.0, remaining_[l] - level);
          --unfrozen_[l];
          if (touched_at_[l] != level_index) {
            touched_at_[l] = level_index;
            touched_.push_back(l);
          }
        }
      }
    }
    // The batch's links have no unfrozen flow left and are out of the heap;
    // the other links touched take their new share (rounding may put it a
    // hair below the level; progressive filling never goes down, so clamp),
    // or leave too.
    for (const uint32_t l : touched_) {
      if (position_[l] == kOutOfHeap) {
        continue;
      }
      if (unfrozen_[l] == 0) {
        remove(l);
      } else {
        share_[l] = std::max(level, remaining_[l] / unfrozen_[l]);
        // The share rises (rounding aside, which can lower it a hair).
        sift_up(position_[l]);
        sift_down(position_[l]);
      }
    }
  }
}

sim::Time drain_time(double remaining_bytes, double rate) {
  if (!(remaining_bytes > 0))
    return sim::Time::zero();
  constexpr double kTwo64 = 18446744073709551616.0;
  if (is_whole(remaining_bytes, kTwo64) && is_whole(rate, kTwo64) && rate > 0) {
    return sim::transfer_time(static_cast<uint64_t>(remaining_bytes),
                              sim::Bandwidth::bytes_per_s(static_cast<uint64_t>(rate)));
  }
  const double ps = std::ceil(remaining_bytes * 1e12 / rate);
  if (!(ps < 9.223372036854775808e18)) {
    throw sim::TimeOverflow("podsim::net::drain_time: " + std::to_string(remaining_bytes) +
                            " bytes at " + std::to_string(rate) + " B/s overflow 64-bit ps");
  }
  return sim::Time::ps(static_cast<int64_t>(ps));
}

}  // namespace podsim::net

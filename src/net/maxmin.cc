#include "net/maxmin.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace podsim::net {
namespace {

// Min-heap order on (share, link): std::push_heap keeps the largest on top,
// so "less" here means "pops later".
struct PopsLater {
  template <typename E>
  bool operator()(const E& a, const E& b) const {
    if (a.share != b.share)
      return a.share > b.share;
    return a.link > b.link;
  }
};

bool is_whole(double v, double limit) {
  return v >= 0 && v < limit && std::floor(v) == v;
}

}  // namespace

void MaxMinProblem::clear() {
  capacity.clear();
  flow_begin.assign(1, 0);
  flow_links.clear();
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

void MaxMinSolver::push(uint32_t link, double floor_share) {
  // Rounding may put the recomputed share a hair below the level that froze
  // its neighbours; progressive filling never goes down, so clamp.
  const double share = std::max(floor_share, remaining_[link] / unfrozen_[link]);
  heap_.push_back(HeapEntry{share, link, version_[link]});
  std::push_heap(heap_.begin(), heap_.end(), PopsLater{});
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
  if (flows == 1) {  // the common case of a ring step: the bottleneck, O(hops)
    double rate = p.capacity[p.flow_links[0]];
    for (const uint32_t l : p.flow_links)
      rate = std::min(rate, p.capacity[l]);
    rates[0] = rate;
    return;
  }

  remaining_.assign(p.capacity.begin(), p.capacity.end());
  unfrozen_.assign(links, 0);
  version_.assign(links, 0);
  frozen_.assign(flows, 0);
  for (const uint32_t l : p.flow_links)
    ++unfrozen_[l];
  // Transpose flow -> links into link -> flows (counting sort, stable).
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

  heap_.clear();
  for (uint32_t l = 0; l < links; ++l) {
    if (unfrozen_[l] > 0)
      push(l, 0.0);
  }
  uint32_t left = flows;
  while (left > 0 && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), PopsLater{});
    const HeapEntry top = heap_.back();
    heap_.pop_back();
    if (top.version != version_[top.link] || unfrozen_[top.link] == 0)
      continue;  // stale
    const double level = top.share;
    for (uint32_t i = link_begin_[top.link]; i < link_begin_[top.link + 1]; ++i) {
      const uint32_t f = link_flows_[i];
      if (frozen_[f])
        continue;
      frozen_[f] = 1;
      rates[f] = level;
      --left;
      for (uint32_t j = p.flow_begin[f]; j < p.flow_begin[f + 1]; ++j) {
        const uint32_t l = p.flow_links[j];
        remaining_[l] = std::max(0.0, remaining_[l] - level);
        --unfrozen_[l];
        ++version_[l];
        if (l != top.link && unfrozen_[l] > 0)
          push(l, level);
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

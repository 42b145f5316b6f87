#include "fleet/prefix_chains.h"

#include <algorithm>
#include <stdexcept>

namespace podsim::fleet {

PrefixChains::PrefixChains() {
  nodes_.push_back(Node{});
}

uint32_t PrefixChains::stream(std::string_view name) {
  const auto [it, added] = names_.try_emplace(std::string(name), streams_);
  if (added)
    ++streams_;
  return it->second;
}

uint32_t PrefixChains::extend(uint32_t parent, uint32_t stream, uint32_t end) {
  const Node& p = nodes_.at(parent);
  if (parent != kRoot && (p.end == kOpenEnd || end <= p.end))
    throw std::invalid_argument("a prefix segment must end after the one before it");
  const auto [it, added] = index_.try_emplace(Key{parent, stream, end}, 0);
  if (added) {
    if (nodes_.size() >= kOpenEnd)
      throw std::length_error("too many prefix chains");
    it->second = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(Node{parent, stream, end, p.depth + 1});
  }
  return it->second;
}

uint32_t PrefixChains::covered(uint32_t node, uint32_t length) const {
  if (node == kRoot)
    return 0;
  return std::min(nodes_[node].end, length);
}

void PrefixChains::path(uint32_t node, std::vector<uint32_t>& out) const {
  out.resize(nodes_[node].depth);
  for (uint32_t n = node; n != kRoot; n = nodes_[n].parent)
    out[nodes_[n].depth - 1] = n;
}

}  // namespace podsim::fleet

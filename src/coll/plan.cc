#include "coll/plan.h"

#include <stdexcept>

#include "coll/choose.h"
#include "coll/internal/builder.h"

namespace podsim::coll {
namespace {

using config::CollectiveAlgorithm;
using config::CollectiveKind;
using internal::Builder;
using internal::TwistedAs;

// Every way of running the twisted dimensions (line or true cycle), the
// all-line one first. Forced rings (BIDIRECTIONAL_RING, UNIDIRECTIONAL_RING)
// run them on their cycles only; ALGORITHM_AUTO and SEQUENTIAL_AXES try both.
std::vector<std::vector<TwistedAs>> twisted_choices(const Builder& b) {
  const size_t k = b.twisted_dims().size();
  const CollectiveAlgorithm a = b.collective().algorithm;
  if (a == CollectiveAlgorithm::kBidirectionalRing ||
      a == CollectiveAlgorithm::kUnidirectionalRing) {
    return {std::vector<TwistedAs>(k, TwistedAs::kCycle)};
  }
  std::vector<std::vector<TwistedAs>> out;
  for (uint32_t mask = 0; mask < (1U << k); ++mask) {
    std::vector<TwistedAs> choice(k);
    for (size_t i = 0; i < k; ++i) {
      choice[i] = (mask >> i) & 1 ? TwistedAs::kCycle : TwistedAs::kLine;
    }
    out.push_back(std::move(choice));
  }
  return out;
}

// The schedule variants that are not a twisted dimension's: an all-to-all's
// direct exchange, a broadcast split over both ways round its rings.
struct Variant {
  bool direct = false;
  bool split = false;
};

Plan one(const topo::Pod& pod, const topo::DeviceMesh& mesh, const config::CollectiveSpec& c,
         const std::vector<TwistedAs>& twisted_as, Variant variant = {}) {
  Builder b(pod, mesh, c);
  switch (c.kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllReduce:
      internal::lower_ring_family(b, twisted_as);
      break;
    case CollectiveKind::kAllToAll:
      internal::lower_all_to_all(b, variant.direct);
      break;
    case CollectiveKind::kBroadcast:
      internal::lower_broadcast(b, twisted_as, variant.split);
      break;
    case CollectiveKind::kPermute:
      internal::lower_permute(b);
      break;
    case CollectiveKind::kSend:
      internal::lower_send(b);
      break;
  }
  return b.take();
}

}  // namespace

std::vector<Plan> candidate_plans(const topo::Pod& pod, const topo::DeviceMesh& mesh,
                                  const config::CollectiveSpec& c) {
  if (c.kind == CollectiveKind::kSend) {
    if (!c.axes.empty()) {
      throw std::invalid_argument("a send names chip pairs, not mesh axes");
    }
    if (c.pairs.empty()) {
      throw std::invalid_argument("a send has no chip pairs");
    }
    return {one(pod, mesh, c, {})};
  }
  if (c.axes.empty()) {
    throw std::invalid_argument("collective has no mesh axes");
  }
  const Builder probe(pod, mesh, c);
  std::vector<Plan> out;
  switch (c.kind) {
    case CollectiveKind::kAllToAll:
      // Its routes are the pod's shortest ones, twisted links included.
      out.push_back(
          one(pod, mesh, c, {}, Variant{.direct = c.algorithm == CollectiveAlgorithm::kDirect}));
      break;
    case CollectiveKind::kPermute:
      out.push_back(one(pod, mesh, c, {}));
      break;
    default: {
      const auto choices = c.algorithm == CollectiveAlgorithm::kSnakeRing
                               ? std::vector<std::vector<TwistedAs>>{{}}
                               : twisted_choices(probe);
      for (const auto& choice : choices) {
        out.push_back(one(pod, mesh, c, choice));
        if (c.kind == CollectiveKind::kBroadcast) {
          // Split over both ways round its rings, where every level is one.
          Plan split = one(pod, mesh, c, choice, Variant{.split = true});
          if (split.shares.size() == 2) {
            out.push_back(std::move(split));
          }
        }
      }
      break;
    }
  }
  return out;
}

Plan lower(const topo::Pod& pod, const topo::DeviceMesh& mesh, const config::CollectiveSpec& c,
           const net::Options& estimate_with, sim::WorkBudget* budget) {
  std::vector<Plan> candidates = candidate_plans(pod, mesh, c);
  if (candidates.size() == 1) {
    return std::move(candidates.front());
  }
  size_t best = 0;
  sim::Time best_time;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const sim::Time t = estimate(pod, candidates[i], estimate_with, budget);
    if (i == 0 || t < best_time) {
      best = i;
      best_time = t;
    }
  }
  candidates[best].schedule += " [auto: fastest of " + std::to_string(candidates.size()) + "]";
  return std::move(candidates[best]);
}

double bus_bandwidth_factor(config::CollectiveKind kind, uint32_t n) {
  const double f = n == 0 ? 0.0 : static_cast<double>(n - 1) / static_cast<double>(n);
  switch (kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
      return f;
    case CollectiveKind::kAllReduce:
      return 2 * f;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kPermute:
    case CollectiveKind::kSend:
      return 1.0;
  }
  return 1.0;
}

const char* to_string(config::CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllGather:
      return "all-gather";
    case CollectiveKind::kReduceScatter:
      return "reduce-scatter";
    case CollectiveKind::kAllReduce:
      return "all-reduce";
    case CollectiveKind::kAllToAll:
      return "all-to-all";
    case CollectiveKind::kBroadcast:
      return "broadcast";
    case CollectiveKind::kPermute:
      return "collective-permute";
    case CollectiveKind::kSend:
      return "send";
  }
  return "unknown";
}

}  // namespace podsim::coll

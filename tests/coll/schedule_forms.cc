#include "schedule_forms.h"

#include <algorithm>
#include <cmath>

namespace podsim::coll::testing {
namespace {

uint32_t steps(FormDim d) {
  return d.wraps ? d.n / 2 : d.n - 1;  // ceil((n-1)/2) = floor(n/2)
}

double group_chips(const std::vector<FormDim>& dims) {
  double n = 1;
  for (const FormDim& d : dims) {
    n *= d.n;
  }
  return n;
}

// Blocks (of one peer's block) the busiest directed link of one dimension
// carries when every chip sends one block to every other along the shorter
// way, a block exactly opposite split in half; the farthest displacement
// (h), and the farthest that carries whole blocks (h': an even ring's
// opposite chip gets half a block each way, so it is not the last to land).
struct Exchange {
  double blocks = 0;
  uint32_t hops = 0;
  uint32_t whole_hops = 0;
};

Exchange exchange(FormDim d) {
  Exchange e;
  if (!d.wraps) {
    // Link (q, q+1) carries every block from {0..q} to {q+1..n-1}.
    for (uint32_t q = 0; q + 1 < d.n; ++q) {
      e.blocks = std::max(e.blocks, static_cast<double>((q + 1) * (d.n - 1 - q)));
    }
    e.hops = d.n - 1;
    e.whole_hops = d.n - 1;
    return e;
  }
  // A + link carries the blocks that go k = 1 .. (n-1)/2 steps + from each of
  // the k chips behind it, and half of those going n/2 steps (n even).
  for (uint32_t k = 1; 2 * k < d.n; ++k) {
    e.blocks += k;
  }
  if (d.n % 2 == 0) {
    e.blocks += 0.5 * (d.n / 2);
  }
  e.hops = d.n / 2;
  e.whole_hops = (d.n - 1) / 2;
  return e;
}

}  // namespace

double phase_seconds(FormDim d, double chunk, FormLink l) {
  if (d.wraps && d.n % 2 == 0 && d.n >= 4) {
    // A balanced even ring: n/2 - 1 steps carry a whole chunk on each link
    // direction, one only half of the opposite chip's.
    return (d.n / 2 - 1) * (chunk / l.w1 + l.alpha) + (chunk / 2 / l.w1 + l.alpha);
  }
  return steps(d) * (chunk / l.w1 + l.alpha);
}

double all_gather_seconds(const std::vector<FormDim>& dims, double v, FormLink l) {
  const double share = v / static_cast<double>(dims.size());
  double held = share / group_chips(dims);
  double t = 0;
  for (const FormDim& d : dims) {
    t += phase_seconds(d, held, l);
    held *= d.n;
  }
  return t;
}

double reduce_scatter_seconds(const std::vector<FormDim>& dims, double v, FormLink l) {
  double held = v / static_cast<double>(dims.size());
  double t = 0;
  for (const FormDim& d : dims) {
    held /= d.n;
    t += phase_seconds(d, held, l);
  }
  return t;
}

double all_reduce_seconds(const std::vector<FormDim>& dims, double v, FormLink l) {
  // The all-gather back retraces the reduce-scatter's phases with the same chunks.
  return 2 * reduce_scatter_seconds(dims, v, l);
}

double all_to_all_seconds(const std::vector<FormDim>& dims, double v, FormLink l) {
  // All segments at once: dimension d's last whole-block segment lands when
  // its busiest link has drained, h'_d hops later, and after the earlier
  // dimensions' farthest segments' latency (cut-through).
  const double n = group_chips(dims);
  const double block = v / (n * n);
  double worst = 0;
  double before = 0;
  for (const FormDim& d : dims) {
    const Exchange e = exchange(d);
    const double drain = n / d.n * e.blocks * block / l.w1;
    worst = std::max(worst, drain + before + e.whole_hops * l.alpha);
    before += e.hops * l.alpha;
  }
  return worst;
}

double chain_seconds(uint64_t bytes, uint32_t depth, FormLink l) {
  double best = 0;
  for (uint64_t p = 1; p <= std::min<uint64_t>(bytes, 64); ++p) {
    const double piece = static_cast<double>((bytes + p - 1) / p);
    const double t = static_cast<double>(p - 1 + depth) * (piece / l.w1 + l.alpha);
    best = p == 1 ? t : std::min(best, t);
  }
  return best;
}

double broadcast_seconds(const std::vector<FormDim>& dims, const std::vector<uint32_t>& root,
                         uint64_t v, FormLink l) {
  uint32_t whole = 0;
  uint32_t split = 0;
  bool rings = true;
  for (size_t i = 0; i < dims.size(); ++i) {
    const FormDim d = dims[i];
    rings = rings && d.wraps;
    whole += d.wraps ? d.n / 2 : std::max(root[i], d.n - 1 - root[i]);
    split += d.wraps ? d.n - 1 : std::max(root[i], d.n - 1 - root[i]);
  }
  const double t = chain_seconds(v, whole, l);
  return rings && v >= 2 ? std::min(t, chain_seconds(v - v / 2, split, l)) : t;
}

}  // namespace podsim::coll::testing

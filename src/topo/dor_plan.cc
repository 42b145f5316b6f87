#include "topo/dor_plan.h"

#include <algorithm>
#include <limits>

namespace podsim::topo::detail {
namespace {

int64_t floor_mod(int64_t a, int64_t n) {
  return ((a % n) + n) % n;
}

// Wrap crossings of a twisted dimension the plan leaves out (beyond
// kMaxJointTwisted): it goes the shorter way, + on a tie.
int32_t default_wraps(const Pod& pod, uint32_t dim, ChipId src, ChipId dst) {
  const int64_t from = pod.coord(src, dim);
  const int64_t end = from + plain_steps(pod, dim, from, pod.coord(dst, dim), TieBreak::kPlus);
  return end >= int64_t{pod.dim_size(dim)} ? 1 : end < 0 ? -1 : 0;
}

int32_t wraps_of(const Pod& pod, const DorPlan& plan, uint32_t dim, ChipId src, ChipId dst) {
  for (uint32_t i = 0; i < plan.slots; ++i) {
    if (plan.dim[i] == dim)
      return plan.wraps[i];
  }
  return default_wraps(pod, dim, src, dst);
}

int64_t total_hops(const Pod& pod, const DorPlan& plan, ChipId src, ChipId dst) {
  int64_t hops = 0;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    const int64_t s = plan_steps(pod, plan, src, dst, d);
    hops += s < 0 ? -s : s;
  }
  return hops;
}

int64_t magnitude(int64_t v) {
  return v < 0 ? -v : v;
}

// total_hops() as a function of the slots' wrap counts, set up once per route
// so that each combination costs O(slots x shifted dimensions) instead of
// O(dims x twists). Falls back to total_hops() when more than kMaxShifted
// dimensions are shifted.
class PlanCost {
 public:
  PlanCost(const Pod& pod, const DorPlan& slots, ChipId src, ChipId dst)
      : pod_(pod), src_(src), dst_(dst) {
    for (uint32_t d = 0; d < pod.dim_count(); ++d) {
      if (slot_of(slots, d) < slots.slots)
        continue;
      const int64_t from = pod.coord(src, d);
      const int64_t to = pod.coord(dst, d);
      Shifted s{d, pod.dim_size(d), from, to, pod.wraparound(d), {}};
      bool shifted = false;
      // plan_steps() lets twists move untwisted dimensions only.
      const bool twisted = pod.twisted(d);
      for (const auto& t : pod.spec().torus.twists) {
        if (twisted || t.shift_dim != d)
          continue;
        shifted = true;
        const int64_t offset = t.offset % s.n;
        const uint32_t slot = slot_of(slots, t.dim);
        if (slot < slots.slots) {
          s.per_wrap[slot] += offset;
        } else {
          s.from += int64_t{default_wraps(pod, t.dim, src, dst)} * offset;
        }
      }
      if (!shifted) {
        fixed_ += magnitude(plain_steps(pod, d, from, to, TieBreak::kPlus));
      } else if (count_ < kMaxShifted) {
        shifted_[count_++] = s;
      } else {
        fits_ = false;
      }
    }
  }

  int64_t operator()(const DorPlan& plan) const {
    if (!fits_)
      return total_hops(pod_, plan, src_, dst_);
    int64_t hops = fixed_;
    for (uint32_t i = 0; i < plan.slots; ++i)
      hops += magnitude(plan.steps[i]);
    for (uint32_t k = 0; k < count_; ++k) {
      const Shifted& s = shifted_[k];
      int64_t landed = s.from;
      for (uint32_t i = 0; i < plan.slots; ++i)
        landed += plan.wraps[i] * s.per_wrap[i];
      // Distance left on the ring (or line) from where the walks land.
      int64_t up = (s.to - landed) % s.n;
      up += up < 0 ? s.n : 0;
      if (s.wrap) {
        hops += std::min(up, s.n - up);
      } else {
        const int64_t at = s.to - up;  // landed modulo n, in [0, n)
        hops += magnitude(s.to - (at < 0 ? at + s.n : at));
      }
    }
    return hops;
  }

 private:
  static constexpr uint32_t kMaxShifted = 8;
  struct Shifted {
    uint32_t dim;
    int64_t n;
    int64_t from;  // src's coordinate plus the shifts of twisted dimensions outside the plan
    int64_t to;
    bool wrap;
    std::array<int64_t, kMaxJointTwisted> per_wrap;  // shift per wrap crossing of each slot
  };

  static uint32_t slot_of(const DorPlan& plan, uint32_t dim) {
    uint32_t i = 0;
    while (i < plan.slots && plan.dim[i] != dim)
      ++i;
    return i;
  }

  const Pod& pod_;
  ChipId src_;
  ChipId dst_;
  std::array<Shifted, kMaxShifted> shifted_;  // the first count_ are set
  uint32_t count_ = 0;
  bool fits_ = true;
  int64_t fixed_ = 0;  // hops along the dimensions no plan changes
};

}  // namespace

bool has_twist_chain(const Pod& pod) {
  for (const auto& t : pod.spec().torus.twists) {
    if (pod.twisted(t.shift_dim))
      return true;
  }
  return false;
}

std::vector<uint32_t> canonical_order(const Pod& pod) {
  std::vector<uint32_t> order;
  order.reserve(pod.dim_count());
  for (const bool twisted : {true, false}) {
    for (uint32_t d = 0; d < pod.dim_count(); ++d) {
      if (pod.twisted(d) == twisted)
        order.push_back(d);
    }
  }
  return order;
}

int64_t plan_steps(const Pod& pod, const DorPlan& plan, ChipId src, ChipId dst, uint32_t dim) {
  for (uint32_t i = 0; i < plan.slots; ++i) {
    if (plan.dim[i] == dim)
      return plan.steps[i];
  }
  const int64_t from = pod.coord(src, dim);
  const int64_t to = pod.coord(dst, dim);
  if (pod.twisted(dim))
    return plain_steps(pod, dim, from, to, TieBreak::kPlus);
  // Where the twisted walks leave this dimension: every crossing of a wrap
  // that shifts it moves it by that twist's offset, modulo its size.
  const int64_t n = pod.dim_size(dim);
  int64_t landed = from;
  bool shifted = false;
  for (const auto& t : pod.spec().torus.twists) {
    if (t.shift_dim != dim)
      continue;
    landed += int64_t{wraps_of(pod, plan, t.dim, src, dst)} * (t.offset % n);
    shifted = true;
  }
  if (shifted)
    landed = floor_mod(landed, n);
  return plain_steps(pod, dim, landed, to, plan.tie);
}

DorChoice choose_plan(const Pod& pod, ChipId src, ChipId dst) {
  DorPlan plan;
  for (uint32_t d = 0; d < pod.dim_count() && plan.slots < kMaxJointTwisted; ++d) {
    if (pod.twisted(d))
      plan.dim[plan.slots++] = d;
  }
  DorChoice choice{plan, plan};
  choice.minus.tie = TieBreak::kMinus;
  if (plan.slots == 0)
    return choice;
  // Odometer over m = 2, 1, 0, -1, -2 per slot, slot 0 most significant: the
  // canonical order. The first plan reaching the minimum is `plus`, the last
  // one equal to it `minus`.
  const PlanCost cost(pod, plan, src, dst);
  std::array<int64_t, kMaxJointTwisted> size{};
  std::array<int64_t, kMaxJointTwisted> delta{};
  for (uint32_t i = 0; i < plan.slots; ++i) {
    size[i] = pod.dim_size(plan.dim[i]);
    delta[i] = int64_t{pod.coord(dst, plan.dim[i])} - int64_t{pod.coord(src, plan.dim[i])};
  }
  std::array<uint32_t, kMaxJointTwisted> index{};
  int64_t best = std::numeric_limits<int64_t>::max();
  for (;;) {
    bool valid = true;
    for (uint32_t i = 0; i < plan.slots; ++i) {
      plan.wraps[i] = 2 - static_cast<int32_t>(index[i]);
      plan.steps[i] = delta[i] + plan.wraps[i] * size[i];
      valid = valid && plan.steps[i] < 2 * size[i] && plan.steps[i] > -2 * size[i];
    }
    if (valid) {
      plan.tie = TieBreak::kPlus;
      const int64_t hops = cost(plan);
      if (hops < best) {
        best = hops;
        choice.plus = plan;
      }
      if (hops <= best) {
        choice.minus = plan;
        choice.minus.tie = TieBreak::kMinus;
      }
    }
    int i = static_cast<int>(plan.slots) - 1;
    while (i >= 0 && ++index[i] == 5) {
      index[i] = 0;
      --i;
    }
    if (i < 0)
      break;
  }
  return choice;
}

}  // namespace podsim::topo::detail

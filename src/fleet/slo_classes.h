// Per-request SLO classes (docs/serving.md, "SLO-aware scheduling"): which
// objectives each request is held to. Class 0 is the serve file's `slo`
// (requests of no class); class i >= 1 is slo_classes[i - 1]. A trace names
// each row's class; synthetic arrivals draw one by the classes' shares, from
// a random stream of their own, so adding classes moves no arrival time or
// length.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/serve_spec.h"
#include "fleet/arrivals.h"
#include "sim/time.h"

namespace podsim::fleet {

// The objectives of every class, by index (0: `slo`).
std::vector<config::SloSpec> slo_table(const config::SloSpec& slo,
                                       const std::vector<config::SloClassSpec>& classes);

// `process` with each arrival's class drawn by `classes`' shares (the rest:
// class 0). With no share given, `process` itself.
std::unique_ptr<ArrivalProcess> with_drawn_classes(std::unique_ptr<ArrivalProcess> process,
                                                   const std::vector<config::SloClassSpec>& classes,
                                                   uint64_t seed);

// A request's TTFT deadline (arrival + objective; Time::max() without one),
// TPOT objective and TBT objective (0 without; each rounded up to the
// picosecond).
struct RequestTargets {
  sim::Time ttft_deadline = sim::Time::max();
  sim::Time tpot;
  sim::Time tbt;
};
RequestTargets targets_of(const config::SloSpec& slo, sim::Time arrival);

// Whether a completed request met its objectives: TTFT and TPOT within
// theirs, and no gap between its tokens (max_tbt, the longest) over the TBT
// objective as targets_of() rounds it (docs/serving.md, "Time between
// tokens").
bool meets(const config::SloSpec& slo, double ttft_s, double tpot_s, sim::Time max_tbt);

}  // namespace podsim::fleet

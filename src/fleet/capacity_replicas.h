// The fewest copies of one configuration that meet the objectives at a
// target rate (`podsim capacity FILE --target-rate R --fewest-replicas`,
// docs/serving.md, "Capacity"): the serve file's one replica entry served
// with 1, 2, 3, ... copies, in order, up to `max_copies`; the answer is the
// first count that meets them. A scan rather than a bisection, so the answer
// is the fewest even where latency is not monotone in the copies.
//
// Counts are measured ranks x jobs at a time (dealt round robin over the
// ranks of `transport`, on `jobs` threads each); the counts reported are
// those up to the answer, so the output does not depend on how many ran at
// once. Every rank calls it with the same arguments and gets the result.
#pragma once

#include <cstdint>
#include <vector>

#include "config/serve_spec.h"
#include "fleet/capacity.h"
#include "sweep/transport.h"

namespace podsim::fleet {

struct CopiesRun {
  uint32_t copies = 0;
  uint32_t chips = 0;
  CapacityRun run;
};

struct FewestReplicas {
  std::vector<CopiesRun> tried;  // 1, 2, ... up to the answer (or max_copies)
  int best = -1;                 // index into tried; -1: no count up to max_copies meets them
};

// Throws std::invalid_argument unless `spec` has exactly one replica entry,
// and as a serve run does (StepError, std::invalid_argument).
FewestReplicas fewest_replicas(const config::ServeSpec& spec, double rate,
                               const CapacityOptions& options, uint32_t max_copies,
                               sweep::Transport& transport, unsigned jobs);

}  // namespace podsim::fleet

// The mix of pools for a target rate (`podsim capacity FILE --target-rate R
// --choose-mix`, docs/serving.md, "Heterogeneous fleets"): the count of each
// replica entry of one serve file -- a disaggregated file's prefill and
// decode copies, or unified groups of different chips -- that meets the
// objectives at R with the fewest chips, the lowest $ per million output
// tokens or the fewest joules per output token (CapacityOptions::minimise).
//
// The search: every mix of counts 1..max_copies per entry, ordered by chips
// (then by counts, first entry first), served in that order.
//  - Fewest chips: the first mix that meets the objectives is the answer.
//    Every mix with fewer chips was served before it and failed, so it is
//    the fewest chips over the bounded set, with no assumption that latency
//    falls as copies are added (none is made: routing and batching need not
//    be monotone). Mixes after it are not served.
//  - Cost or energy: every mix is served (max_copies^entries runs) and the
//    best that meets them is chosen (ties: the fewest chips, then the first
//    in the order above). A mix that adds copies to one that meets them has
//    more chips, but not provably a higher cost per token (its run may end
//    sooner), so none is pruned.
// A disaggregated file's KV transfer pod is laid out again for each mix's
// copies (config::KvTransferSpec).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "config/serve_spec.h"
#include "fleet/capacity.h"
#include "fleet/capacity_lookahead.h"

namespace podsim::fleet {

// Mixes a search may serve at most (e.g. 2 entries x 64, or 3 x 16).
inline constexpr uint64_t kMaxMixes = 4096;

struct MixRun {
  std::vector<uint32_t> counts;  // per replica entry, in file order
  uint32_t chips = 0;
  CapacityRun run;
};

struct MixChoice {
  std::vector<MixRun> tried;  // in the order served
  int best = -1;              // index into tried; -1: no mix up to the bound meets them
  uint64_t mixes = 0;         // in the bounded set
};

// `spec` with entry i served as counts[i] copies and its KV transfer pod laid
// out for them. Throws std::invalid_argument when over ICI the slice cannot
// hold the copies, or the copies exceed the serve files' limit.
config::ServeSpec with_counts(const config::ServeSpec& spec, const std::vector<uint32_t>& counts);

// One mix served at `rate` (as fewest_replicas serves a count).
Probe run_mix(const config::ServeSpec& spec, const std::vector<uint32_t>& counts, double rate,
              const CapacityOptions& options);

// The search above, `measure` serving a round of up to `width` mixes at once
// (in the order given; results in the same order). Throws
// std::invalid_argument for a file of one entry, or a bounded set larger
// than kMaxMixes.
using MixMeasure = std::function<std::vector<Probe>(const std::vector<std::vector<uint32_t>>&)>;
MixChoice choose_mix(const config::ServeSpec& spec, const CapacityOptions& options,
                     uint32_t max_copies, uint32_t width, const MixMeasure& measure);

}  // namespace podsim::fleet

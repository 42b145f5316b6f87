// `podsim run --format table` on a whole generation (scenario phase
// GENERATION): the generation's figures, printed above the breakdown of the
// step the result's `serving` describes (its last decode step).
#pragma once

#include <ostream>

#include "config/serving_spec.h"
#include "podsim/result.pb.h"

namespace podsim::report {

// TTFT, time per output token (mean, first, last), total latency, tokens/s,
// MFU, memory at the prefill and the last context, and which decode steps
// were simulated with the midpoint error achieved.
void render_generation(const config::ScenarioSpec& generation, const podsim::GenerationResult& g,
                       uint64_t hbm_capacity_bytes, std::ostream& out);

}  // namespace podsim::report

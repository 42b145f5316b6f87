// The energy part of `podsim run`'s table (docs/energy.md): what the slice
// drew over the step, per token, by mechanism and by time class.
#pragma once

#include <cstdint>
#include <ostream>

#include "engine/serving_summary.h"
#include "podsim/result.pb.h"
#include "sim/time.h"

namespace podsim::report {

// Nothing but a line saying so when the chip has no power model.
void render_energy(const engine::ServingSummary& s, sim::Time step_time, std::ostream& out);

// A priced step's cost (--pricing; podsim.Cost): nothing when not priced.
void render_cost(const podsim::Cost& cost, std::ostream& out);

}  // namespace podsim::report

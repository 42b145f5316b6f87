// `podsim serve --trace FILE`: the run as Chrome trace-event JSON
// (proto/podsim/trace.proto, the format ui.perfetto.dev loads): one track per
// replica copy, one slice per step, named by what it ran ("prefill 2 (1536
// tokens) + decode 30"), with the step's shape in its args. Needs a run made
// with record_steps. O(steps).
#pragma once

#include <ostream>

#include "config/serve_spec.h"
#include "fleet/serve.h"

namespace podsim::fleet {

void write_serve_trace(const config::ServeSpec& spec, const ServeOutput& out, std::ostream& os);

}  // namespace podsim::fleet

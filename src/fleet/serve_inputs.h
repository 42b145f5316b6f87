// The inputs part of the fleet reports (podsim.output.ServeInputs,
// proto/podsim/serve_report.proto): everything a serve run depended on, copied
// from the validated spec, so that a serve summary (and each of `podsim
// capacity`'s answers) stands alone as a `podsim run` result does. Each
// replica group's topology and workload are recorded by the Result's own
// fillers (report/result_inputs.h).
#pragma once

#include "config/serve_spec.h"
#include "podsim/serve_report.pb.h"

namespace podsim::fleet {

// The serve file, its arrivals (a trace's nominal rate: requests over its
// span), router and SLOs, and every replica group in file order.
void fill_serve_inputs(const config::ServeSpec& spec, podsim::output::ServeInputs& out);

}  // namespace podsim::fleet

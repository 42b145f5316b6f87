// Sweeps of serve files (docs/sweeps.md, "Sweeps of serve files"): each
// point of a sweep whose `serve` names a serve file is one `podsim serve` of
// it with the point's overrides (config/serve_overrides.h: paths rooted at
// serve., topology., workload. or replicas[i].), rendered as the serve
// summary's CSV row (summary_csv, fleet/serve_output.h) followed by one more
// column, `overrides`: the point's overrides as "path=value" joined by ';'
// (as a run row's inputs.*.overrides cells), so every row says which point
// it is. `podsim sweep` deals the points over threads and MPI ranks as it
// does a run sweep's (sweep/transport.h); a point's row is deterministic
// text, the same whichever thread or rank ran it.
#pragma once

#include <vector>

#include "config/named_files.h"
#include "config/overrides.h"
#include "config/pricing_spec.h"
#include "config/sweep_spec.h"
#include "sim/work_budget.h"
#include "sweep/points.h"
#include "sweep/row_writer.h"

namespace podsim::fleet {

// The kind of a serve point's RenderedPoint (sweep/row_writer.h).
inline constexpr std::string_view kServeRowKind = "serve";

// The point's "path=value" texts as overrides. Throws InputError (file
// "--set") for one that is not PATH=VALUE.
config::Overrides point_overrides(const sweep::Point& point);

// Before any point runs: loads the serve file with every point's overrides
// (each a few file reads and the rules, no simulation) and, with `pricing`,
// checks every replica's chip has a price. Throws InputError with the
// diagnostics of the first point that fails, each naming the point; so a
// wrong path or a value that breaks a rule is exit 2 before any output.
// Returns every file the points' serve specs name (for refuse_clobbering).
// Precondition: spec.serve_file is set.
std::vector<config::NamedInputFile> check_serve_points(const config::SweepSpec& spec,
                                                       const config::PricingSpec* pricing);

// Point `point` of the sweep run to its row: status ok, kind kServeRowKind,
// header the CSV header line, events the fleet simulation's. `limits` bound
// its run (sim::WorkLimitExceeded as podsim serve). A step the pod
// simulation cannot run is an InputError naming the point. Safe to call
// from several threads at once (each point wires its own replicas).
sweep::RenderedPoint run_serve_point(const config::SweepSpec& spec, const sweep::Point& point,
                                     const sim::WorkLimits& limits,
                                     const config::PricingSpec* pricing);

}  // namespace podsim::fleet

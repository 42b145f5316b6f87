// One `podsim serve` run into its report, shared by the command
// (cli/cmd_serve.cc) and the Python module (python/serve.cc): the run, with
// --compare-no-prefix-cache the same arrivals again with prefix caching off
// on every replica (one wiring, so the second reuses the step times the
// first simulated), and the summary built from them.
#pragma once

#include <cstdint>
#include <functional>

#include "config/pricing_spec.h"
#include "config/serve_spec.h"
#include "fleet/serve.h"
#include "podsim/serve_report.pb.h"
#include "sim/work_budget.h"

namespace podsim::fleet {

struct ServeRunOptions {
  sim::WorkLimits limits = sim::kDefaultWorkLimits;
  bool compare_no_prefix_cache = false;
  bool record_steps = false;                      // for the trace (write_serve_trace)
  const config::PricingSpec* pricing = nullptr;   // require_pricing() passed
  std::function<void(uint64_t events)> progress;  // Server::set_progress
};

struct ServeRuns {
  ServeOutput out;
  ServeOutput without;  // compare_no_prefix_cache only
  podsim::output::ServeReport report;
};

// A step the pod cannot simulate (fleet::StepError) is bad input: thrown as
// config::InputError naming the serve file and the field.
ServeRuns run_and_report(const config::ServeSpec& spec, const ServeRunOptions& options);

}  // namespace podsim::fleet

// `podsim run --format table` on a serving workload: the step-time
// breakdown and serving figures for the terminal. JSON, CSV, text and binary
// print podsim.Result instead (report/result_print.h, report/result_csv.h).
#pragma once

#include <ostream>
#include <string>

#include "config/serving_spec.h"
#include "engine/serving_summary.h"
#include "engine/step.h"
#include "report/op_list_report.h"

namespace podsim::report {

struct StepInputs {
  RunInputs run;  // topology, workload, network, chips
  std::string compute_model;
  std::string mesh;  // "x=16,y=16"
  config::ServingSpec serving;
  bool allow_oom = false;
};

void render_step(const StepInputs& in, const engine::StepResult& step,
                 const engine::ServingSummary& s, std::ostream& out);

// The memory check alone, for a configuration that does not fit and is not
// simulated (exit 1 without --allow-oom).
void render_memory_only(const StepInputs& in, const engine::ServingSummary& s, std::ostream& out);

}  // namespace podsim::report

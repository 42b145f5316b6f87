// `podsim run` on a serving workload: the step-time breakdown and serving
// figures, as a terminal table, one CSV row, or JSON with everything
// (per layer, per op class, spread across chips). docs/outputs.md documents
// every key and column.
#pragma once

#include <ostream>
#include <string>

#include "config/serving_spec.h"
#include "engine/serving_summary.h"
#include "engine/step.h"
#include "report/format.h"
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
                 const engine::ServingSummary& s, Format format, std::ostream& out);

// The memory check alone, for a configuration that does not fit and is not
// simulated (exit 1 without --allow-oom).
void render_memory_only(const StepInputs& in, const engine::ServingSummary& s, Format format,
                        std::ostream& out);

}  // namespace podsim::report

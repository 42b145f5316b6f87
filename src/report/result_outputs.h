// The outputs part of podsim.Result (proto/podsim/result.proto), filled from
// what the engine returned: a serving step's breakdown and serving figures,
// an operation list's per-operation figures, and per-link statistics.
#pragma once

#include <string>

#include "engine/op_list.h"
#include "engine/serving_summary.h"
#include "engine/step.h"
#include "podsim/result.pb.h"
#include "report/link_report.h"

namespace podsim::report {

// The memory check alone, for a step that was not simulated (oom): the
// serving message with simulated = false and the memory figures.
void fill_serving_memory(const engine::ServingSummary& s, podsim::ServingResult& out);

// How a run was played (engine/symmetry.h): one chip per class or every chip.
void fill_simulation(bool symmetric, const std::string& detail, uint32_t played_chips,
                     podsim::Simulation& out);

// A simulated step: figures, memory, spread, per chip, per layer, per op class.
void fill_serving_result(const engine::StepResult& step, const engine::ServingSummary& s,
                         podsim::ServingResult& out);

// Every operation, in file order, compute and collective in one shape.
void fill_op_list_result(const engine::OpListResult& r, podsim::OpListResult& out);

// Every directed link's bytes and utilisation (--link-stats).
void fill_link_stats(const LinkReport& r, podsim::LinkStats& out);

}  // namespace podsim::report

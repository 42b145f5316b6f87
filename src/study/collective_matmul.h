// sharding.collective_matmul AUTO: whether looping the tensor-parallel
// collectives with their matmuls pays for this step. Looping hides all but
// one chunk's communication but splits each matmul into N smaller ones (a
// split along the tokens re-reads the weights N times), so the answer
// depends on the step; AUTO simulates both and keeps the faster, the plain
// collectives on a tie (docs/outputs.md, serving.collective_matmul).
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "config/serving_spec.h"
#include "engine/step.h"
#include "workload/program.h"

namespace podsim::study {

struct LoopedStep {
  std::shared_ptr<const workload::Program> program;
  engine::StepResult step;
};

// Lowers a serving spec (the caller's lowering, cached or not); throws ShapeError.
using LowerFn = std::function<std::shared_ptr<const workload::Program>(const config::ServingSpec&)>;
using SimulateFn = std::function<engine::StepResult(const workload::Program&)>;

// For an AUTO `serving` whose step was simulated as `whole` (the plain
// collectives): the step with collective matmul on when it is strictly
// faster and loops something; nullopt otherwise (not AUTO, nothing to loop,
// or no faster).
std::optional<LoopedStep> faster_with_collective_matmul(const config::ServingSpec& serving,
                                                        const engine::StepResult& whole,
                                                        const LowerFn& lower,
                                                        const SimulateFn& simulate);

}  // namespace podsim::study

#include "study/collective_matmul.h"

namespace podsim::study {

std::optional<LoopedStep> faster_with_collective_matmul(const config::ServingSpec& serving,
                                                        const engine::StepResult& whole,
                                                        const LowerFn& lower,
                                                        const SimulateFn& simulate) {
  if (serving.sharding.collective_matmul != config::CollectiveMatmul::kAuto)
    return std::nullopt;
  config::ServingSpec on = serving;
  on.sharding.collective_matmul = config::CollectiveMatmul::kOn;
  LoopedStep looped{lower(on), {}};
  if (looped.program->collective_matmul.looped == 0)
    return std::nullopt;
  looped.step = simulate(*looped.program);
  if (!(looped.step.step_time < whole.step_time))
    return std::nullopt;
  return looped;
}

}  // namespace podsim::study

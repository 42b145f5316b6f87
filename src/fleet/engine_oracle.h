// What `podsim serve` asks of the pod simulation, through the public headers
// of the layers below: step times (study::evaluate on the replica's pod and
// workload with the scenario replaced) and the replica's KV-cache capacity
// (workload::lower's memory footprint: the HBM left after weights and
// activations).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "config/serve_spec.h"
#include "fleet/step_memo.h"
#include "net/network.h"
#include "sim/work_budget.h"
#include "topo/pod.h"

namespace podsim::fleet {

// A step the engine cannot run (its shapes do not lower, its pod is cut
// apart, it outlasts the clock); names the workload file and the scenario.
// field(): the serve file's field at fault ("replicas" unless said).
class StepError : public std::runtime_error {
 public:
  explicit StepError(const std::string& what, std::string field = "replicas")
      : std::runtime_error(what), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// One replica's view of the engine: its pod (built once) and workload.
class EngineReplica {
 public:
  // Each step's pod simulation is bounded by `limits` (sim/work_budget.h).
  EngineReplica(const config::ServeReplicaSpec& spec, net::Model network,
                const sim::WorkLimits& limits = sim::kDefaultWorkLimits);

  // The step time of `scenario` on this replica (steps that do not fit in
  // HBM after bucketing are still timed: admission keeps real steps within
  // the KV capacity). Throws StepError when the step cannot be lowered.
  sim::Time step_time(const config::ScenarioSpec& scenario) const { return cost(scenario).time; }
  // With the step's model FLOP utilisation and energy (the whole slice's).
  StepCost cost(const config::ScenarioSpec& scenario) const;
  StepOracle oracle() const;

  // The batch a step must be a multiple of: data-parallel replicas times
  // micro-batches.
  uint32_t batch_quantum() const { return quantum_; }

  struct KvCapacity {
    uint64_t hbm_bytes = 0;         // per chip
    uint64_t weight_bytes = 0;      // per chip
    uint64_t activation_bytes = 0;  // per chip: the larger of a full decode and a full prefill step
    double kv_bytes_per_token = 0;  // per chip, per cached token of the whole replica
    uint64_t tokens = 0;            // the replica's KV cache, in tokens
    uint64_t blocks = 0;            // in paged blocks
  };
  // Throws StepError when the weights and activations leave no room.
  KvCapacity kv_capacity() const;

 private:
  const config::ServeReplicaSpec& spec_;
  net::Model network_;
  sim::WorkLimits limits_;
  std::shared_ptr<const topo::Pod> pod_;
  uint32_t quantum_ = 1;
};

}  // namespace podsim::fleet

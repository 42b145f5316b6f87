// `podsim serve` as a library function: a loaded ServeSpec in, the fleet
// run and its summary out. Wires each replica to the pod simulation
// (fleet/engine_oracle.h) through a step-time memo (fleet/step_memo.h)
// shared by the replica's identical copies, sizes its KV cache from the
// workload's memory footprint, and runs fleet/fleet_sim.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/serve_spec.h"
#include "fleet/engine_oracle.h"
#include "fleet/fleet_sim.h"
#include "fleet/speculative_replica.h"
#include "fleet/step_memo.h"
#include "fleet/summary.h"
#include "sim/work_budget.h"

namespace podsim::fleet {

struct ReplicaInfo {
  std::string name;
  uint32_t copies = 1;
  uint32_t chips = 0;  // per copy
  EngineReplica::KvCapacity kv;
  MemoStats memo;
};

struct ServeOutput {
  FleetRun run;
  ServeSummary summary;
  std::vector<ReplicaSetup> setups;   // one per copy (timers no longer valid)
  std::vector<ReplicaInfo> replicas;  // one per replica of the spec
};

// The replicas of a spec, wired to the pod simulation once: runs with other
// arrivals (capacity search) reuse the step-time memos. Keeps a reference to
// `spec`, which must outlive it. Not thread-safe.
class Server {
 public:
  // `limits` bound each run (sim/work_budget.h): the fleet simulation's
  // events, the process's memory and the run's wall time, checked as the
  // fleet's events go; each pod simulation of a step gets the same limits.
  explicit Server(const config::ServeSpec& spec,
                  const sim::WorkLimits& limits = sim::kDefaultWorkLimits);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // One run of `spec`'s replicas under `arrivals` (with their seed, limits,
  // SLOs and sampling from `run`, a spec with the same replicas; each
  // replica's prefix_caching is `run`'s).
  // record_steps: keep every step's span and shape (for --trace).
  ServeOutput run(const config::ServeSpec& run, bool record_steps = false);

  // How long replica entry `entry` (of the spec, in file order) takes to
  // prefill one prompt of `prompt_tokens` alone on an idle copy, by the step
  // timer its runs use: one step, or with CHUNKED_PREFILL and DEADLINE
  // chunks of max_tokens_per_step tokens (each after the ones before it in
  // the KV cache), as its scheduler would run a lone request. The lower
  // bound of a TTFT (fleet/capacity_bound.h). May throw StepError.
  sim::Time prefill_alone(size_t entry, uint32_t prompt_tokens);

  // Called during each run with the fleet's events so far, about every 65536
  // events (sim::WorkBudget's observer): a progress report's heartbeat, with
  // no effect on the run. Empty: none.
  void set_progress(std::function<void(uint64_t events)> progress) {
    progress_ = std::move(progress);
  }

 private:
  void set_up_reshard(const config::ServeSpec& spec);

  const config::ServeSpec& spec_;
  sim::WorkLimits limits_;
  std::vector<std::unique_ptr<EngineReplica>> engines_;
  std::vector<std::unique_ptr<StepMemo>> memos_;
  std::vector<std::unique_ptr<SpeculativeReplica>> speculative_;  // replicas that speculate
  std::vector<ReplicaSetup> setups_;
  std::vector<ReplicaInfo> info_;
  KvTransferSetup kv_;  // disaggregated: the slices the caches move between
  std::function<void(uint64_t)> progress_;
};

// Server(spec, limits).run(spec, record_steps).
ServeOutput serve(const config::ServeSpec& spec, bool record_steps = false,
                  const sim::WorkLimits& limits = sim::kDefaultWorkLimits);

}  // namespace podsim::fleet

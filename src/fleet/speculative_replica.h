// Wiring one replica's speculative decoding to the pod simulation
// (fleet/serve.h calls it): the draft model as an engine replica of its own
// (MTP layers or a draft workload, on the replica's chips or a slice of its
// own), a memo of its steps, a memo of the target's verification passes
// (prefills scoring every token), and the SpeculativeTimer over them and
// the replica's ordinary memo. Also sizes the KV cache both models need.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/serve_spec.h"
#include "fleet/engine_oracle.h"
#include "fleet/speculative_timer.h"
#include "fleet/step_memo.h"
#include "net/network.h"
#include "sim/work_budget.h"

namespace podsim::fleet {

class SpeculativeReplica {
 public:
  // `target` and `target_memo` must outlive this. `options`: the replica's
  // memo options (the draft's batch quantum is its own).
  SpeculativeReplica(const config::ServeReplicaSpec& replica, const EngineReplica& target,
                     StepMemo& target_memo, const MemoOptions& options, net::Model network,
                     const sim::WorkLimits& limits);
  ~SpeculativeReplica();
  SpeculativeReplica(const SpeculativeReplica&) = delete;
  SpeculativeReplica& operator=(const SpeculativeReplica&) = delete;

  StepTimer* timer() { return timer_.get(); }
  // The KV cache when both models' caches must hold every sequence: on
  // shared chips, the HBM left after both models' weights and the larger
  // activation peak, at both caches' bytes per token; on a slice of its
  // own, the smaller of the two caches in tokens. Throws StepError when
  // nothing is left.
  EngineReplica::KvCapacity kv_capacity(const EngineReplica::KvCapacity& target) const;
  // The draft's own slice: its chips and static power (0 on shared chips).
  uint32_t draft_chips() const { return draft_chips_; }
  double draft_static_watts() const { return draft_static_watts_; }
  // The draft's and the verification's memos (their simulations count in
  // the run's bucket report).
  std::vector<StepMemo*> memos() { return {verify_.get(), draft_memo_.get()}; }

 private:
  const config::ServeReplicaSpec& replica_;
  config::ServeReplicaSpec draft_spec_;  // the draft as a replica: its engine keeps a reference
  std::unique_ptr<EngineReplica> draft_;
  std::unique_ptr<StepMemo> verify_;
  std::unique_ptr<StepMemo> draft_memo_;
  std::unique_ptr<SpeculativeTimer> timer_;
  uint32_t draft_chips_ = 0;
  double draft_static_watts_ = 0;
};

// A slice's static power: its powered chips x (idle + host watts); 0 without
// a power model.
double static_watts(const config::PodSpec& pod);

}  // namespace podsim::fleet

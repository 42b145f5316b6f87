#include "fleet/speculative_replica.h"

#include <algorithm>
#include <cmath>

namespace podsim::fleet {

double static_watts(const config::PodSpec& pod) {
  const config::PowerSpec& power = pod.chip.power;
  if (!power.modelled)
    return 0;
  return static_cast<double>(pod.chip_count() - pod.dead_chips.size()) *
         (power.idle_watts + power.host_watts);
}

SpeculativeReplica::SpeculativeReplica(const config::ServeReplicaSpec& replica,
                                       const EngineReplica& target, StepMemo& target_memo,
                                       const MemoOptions& options, net::Model network,
                                       const sim::WorkLimits& limits)
    : replica_(replica), draft_spec_(replica) {
  const config::SpeculativeSpec& sp = replica.speculative;
  draft_spec_.workload = *sp.draft_workload;
  draft_spec_.speculative = config::SpeculativeSpec{};
  const bool separate = sp.draft_pod.has_value();
  if (separate) {
    draft_spec_.pod = *sp.draft_pod;
    draft_chips_ = static_cast<uint32_t>(sp.draft_pod->chip_count());
    draft_static_watts_ = static_watts(*sp.draft_pod);
  }
  draft_ = std::make_unique<EngineReplica>(draft_spec_, network, limits);
  MemoOptions draft_options = options;
  draft_options.batch_quantum = draft_->batch_quantum();
  draft_memo_ = std::make_unique<StepMemo>(draft_->oracle(), draft_options);
  verify_ = std::make_unique<StepMemo>(
      [&target](const config::ScenarioSpec& s) {
        config::ScenarioSpec v = s;
        v.score_every_token = true;
        return target.cost(v);
      },
      options);
  SpeculativeParts parts;
  parts.target = &target_memo;
  parts.verify = verify_.get();
  parts.draft = draft_memo_.get();
  parts.draft_tokens = sp.draft_tokens;
  parts.separate_draft = separate;
  parts.target_static_watts = static_watts(replica.pod);
  parts.draft_static_watts = draft_static_watts_;
  timer_ = std::make_unique<SpeculativeTimer>(parts);
}

SpeculativeReplica::~SpeculativeReplica() = default;

EngineReplica::KvCapacity SpeculativeReplica::kv_capacity(
    const EngineReplica::KvCapacity& target) const {
  const EngineReplica::KvCapacity d = draft_->kv_capacity();
  EngineReplica::KvCapacity c = target;
  if (draft_chips_ > 0) {
    c.tokens = std::min(target.tokens, d.tokens);
    c.blocks = std::min(target.blocks, d.blocks);
    return c;
  }
  c.weight_bytes = target.weight_bytes + d.weight_bytes;
  c.activation_bytes = std::max(target.activation_bytes, d.activation_bytes);
  c.kv_bytes_per_token = target.kv_bytes_per_token + d.kv_bytes_per_token;
  const double free_bytes = (static_cast<double>(c.hbm_bytes) -
                             static_cast<double>(c.weight_bytes + c.activation_bytes)) *
                            replica_.kv_memory_fraction;
  c.tokens =
      free_bytes > 0 ? static_cast<uint64_t>(std::floor(free_bytes / c.kv_bytes_per_token)) : 0;
  c.blocks = c.tokens / replica_.kv_block_tokens;
  if (c.blocks == 0)
    throw StepError(replica_.workload.source_file + ": replica '" + replica_.name +
                        "': with its speculative draft's weights (" +
                        std::to_string(d.weight_bytes) +
                        " bytes per chip) the KV cache holds less than one block of " +
                        std::to_string(replica_.kv_block_tokens) + " tokens",
                    "replicas");
  return c;
}

}  // namespace podsim::fleet

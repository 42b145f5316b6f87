// Internal to the workload layer: the HBM one chip of a stage holds.
//
//  - weights: every matrix's shard on this chip (README.md gives the shapes),
//    two norm scales per layer, the embedding table (vocab x d / T) on the
//    first stage, the final norm and the LM head (d x vocab / T) on the last
//    (one table when tied and both ends are on the same stage);
//    weight-gathered: 1 / T of every matrix plus the gathered-weight buffers.
//  - KV cache: the keys and values of the chip's sequences and KV heads over
//    kv_len = context_len + q positions, for the stage's layers.
//  - peak activations: every micro-batch's residual stream (live for the
//    whole step) plus the largest single compute instruction's activation
//    inputs and outputs. Collective buffers are the inputs and outputs of the
//    compute instructions next to them, so they are not added again.
#pragma once

#include <cstdint>

#include "workload/program.h"
#include "workload/shard_plan.h"

namespace podsim::workload::internal {

struct StageExtent {
  uint32_t first_layer = 0;
  uint32_t layers = 0;
  bool first = true;  // holds the embedding
  bool last = true;   // holds the LM head
};

uint64_t stage_weight_bytes(const ShardPlan& plan, const StageExtent& stage);
uint64_t stage_kv_cache_bytes(const ShardPlan& plan, const StageExtent& stage);
// Activation inputs plus outputs of one compute instruction (0 otherwise).
uint64_t activation_working_set(const Instruction& ins);

}  // namespace podsim::workload::internal

// The workload layer: a serving step lowered into an SPMD program.
//
// lower() turns model + sharding + scenario into one program per pipeline
// stage; every chip of a stage runs that stage's program on its own shard
// (SPMD). A program is a list of instructions with explicit dependencies:
//  - compute instructions (chip::Op, with their true per-shard shapes) run on
//    the chip's one compute unit in program order: each waits for the previous
//    compute instruction and for its own dependencies;
//  - collectives over mesh axes (config::CollectiveSpec) and stage transfers
//    (pipeline activations) start as soon as their dependencies are done and
//    run alongside compute, so a collective overlaps whatever compute does
//    not depend on it. With overlap disabled in the sharding, lowering makes
//    every compute instruction depend on the collectives issued before it.
// The engine (src/engine) plays programs on the pod.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "chip/ops.h"
#include "config/serving_spec.h"
#include "config/workload_spec.h"

namespace podsim::workload {

// What an instruction is, for the breakdown by op class.
enum class OpClass : uint8_t {
  kEmbedding,
  kNorm,
  kAttentionProjection,  // Q/K/V and output projections
  kAttention,            // scores, softmax, values against the KV cache
  kFfn,                  // dense FFN matmuls and activation
  kMoeRouter,
  kExpertFfn,  // routed and shared experts
  kLmHead,
  kElementwise,  // residual adds and other vector work
  // A parallel block's fused projections: Q/K/V with the FFN's up (and
  // gate), and the attention output with the FFN's down.
  kFusedProjection,
  kCollective,
  kStageTransfer,
};
const char* to_string(OpClass c);

// Activations sent to the chip at the same coordinates in the next
// (direction +1) or previous (-1) pipeline stage; the matching receive is a
// dependency of the receiving stage's instruction (see Instruction::recv_from).
struct StageTransfer {
  int32_t direction = +1;
  uint64_t bytes = 0;
};

using Body = std::variant<chip::Op, config::CollectiveSpec, StageTransfer>;

struct Instruction {
  std::string name;    // "L12.attn.qkv", "embed", "lm_head", ...
  int32_t layer = -1;  // -1 outside the layer stack
  OpClass op_class = OpClass::kElementwise;
  uint32_t micro_batch = 0;
  Body body;
  // Earlier instructions of the same stage program that must finish first.
  std::vector<uint32_t> deps;
  // For the first instruction a stage runs on a micro-batch: the index, in the
  // previous stage's program, of the StageTransfer that delivers its input
  // (-1: none).
  int32_t recv_from = -1;
};

struct StageProgram {
  std::vector<Instruction> instructions;
};

// Bytes one chip holds, per kind, at the peak of the step.
struct MemoryFootprint {
  uint64_t weight_bytes = 0;
  uint64_t kv_cache_bytes = 0;
  uint64_t activation_peak_bytes = 0;
  uint64_t total() const { return weight_bytes + kv_cache_bytes + activation_peak_bytes; }
};

// What sharding.collective_matmul did to one stage's program (the stage that
// looped the most, with a pipeline): tensor-parallel all-gathers and
// reduce-scatters looped with their matmuls, those left whole, and why.
struct CollectiveMatmulUse {
  bool on = false;
  uint64_t looped = 0;
  uint64_t whole = 0;
  std::vector<std::string> whole_reasons;
};

struct Program {
  std::vector<StageProgram> stages;  // index = pipeline stage (1 without a pipeline)
  std::string pipeline_axis;         // empty without a pipeline
  MemoryFootprint memory_per_chip;   // the largest over stages
  // Useful FLOPs of the whole step over the whole pod (no padding, no padded
  // heads, no recomputation), for model FLOP utilisation.
  double model_flops = 0;
  uint64_t tokens = 0;  // tokens the step produces (decode) or processes (prefill)
  // A prefill run in sequential chunks: how many, and each one's sequences
  // per replica (1 and the whole replica's share otherwise).
  uint32_t prefill_chunks = 1;
  uint64_t chunk_sequences = 0;
  // Weight-gathered: how many times each layer's weights are gathered in the
  // step (1, or the chunks when each chunk gathers its own); 0: weights are
  // not gathered.
  uint32_t weight_gathers = 0;
  // Attention heads the program computes: the model's, or with
  // sharding.pad_heads the padded counts (config/head_padding.h).
  uint32_t heads = 0;
  uint32_t kv_heads = 0;
  // How attention was split over a micro-batch's chips: "by-heads",
  // "by-batch" (sharding.kv_layout), or "by-heads over x and y" (2D, a
  // micro-batch with fewer sequences than the first tensor axis has chips).
  std::string attention_layout;
  CollectiveMatmulUse collective_matmul;
};

// The stage transfer that delivers instruction (stage, k)'s input (its
// recv_from): the instruction recv_from of the neighbouring stage whose
// StageTransfer points towards `stage`. Where there is one, returns true and
// sets `from_stage` and `transfer`. O(1).
bool stage_transfer_into(const Program& program, size_t stage, const Instruction& receiver,
                         size_t& from_stage, size_t& transfer);

// Mesh axis sizes the lowering needs (names as in the workload's mesh).
struct MeshAxes {
  std::vector<std::string> names;
  std::vector<uint32_t> sizes;
  // Size of one axis; 1 for an empty name. Throws std::out_of_range on an unknown one.
  uint32_t size(std::string_view name) const;
  // Product of the sizes of the named axes.
  uint64_t product(const std::vector<std::string>& axes) const;

  friend bool operator==(const MeshAxes&, const MeshAxes&) = default;
};

// A shape the sharding cannot split evenly (heads over the tensor axes,
// layers over pipeline stages, ...). `field` is the workload field path to
// blame, e.g. "model.kv_heads"; the caller adds the file.
class ShapeError : public std::runtime_error {
 public:
  ShapeError(std::string field, const std::string& message)
      : std::runtime_error(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

Program lower(const config::ServingSpec& serving, const MeshAxes& mesh);

}  // namespace podsim::workload

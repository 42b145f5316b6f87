// Internal to the workload layer: emits the instructions of one block
// (embedding, attention, FFN or MoE, LM head) for one micro-batch, following
// the schedules in README.md. The residual stream of each micro-batch is a
// Stream; its layout says how the chips of the tensor group hold it between
// blocks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "workload/program_builder.h"
#include "workload/shard_plan.h"

namespace podsim::workload::internal {

enum class Layout : uint8_t {
  kFull,            // rows x d on every chip of the tensor group
  kTokenScattered,  // 1D reduce-scatter: rows / T tokens x d (weight-gathered: rows / R)
  kModelScattered,  // 2D: rows x d / T (d over X, then Y)
};

// The matmul dimension a tensor-parallel collective's array is split along
// (collective_matmul.cc): the rows (tokens), the contraction, or the output
// columns.
enum class ChunkDim : uint8_t { kRows, kContraction, kColumns };

// A matmul on one chip (batch 1) and where its weights live.
struct MatmulShape {
  std::string slot;
  OpClass op_class = OpClass::kFfn;
  uint64_t m = 0, k = 0, n = 0;
  uint64_t full_weight_elements = 0;  // weight-gathered: what gather_weights gathers
};

// One part of a fused matmul (a parallel block's projections serve two
// branches) whose collective is chunked along its own dimension: `elements`
// of the collective's array belong to it.
struct LoopSegment {
  MatmulShape mm;
  ChunkDim dim = ChunkDim::kRows;
  uint64_t elements = 0;
};

// An all-gather feeding a matmul, or a reduce-scatter of its output: V =
// `elements` activations (the gathered result, or each chip's input), over
// `group`, split along `dim` of the matmul; or, for a fused matmul, each of
// `segments` along its own (elements is then their sum).
struct LoopableCollective {
  std::string name;
  uint64_t elements = 0;
  const AxisGroup* group = nullptr;
  ChunkDim dim = ChunkDim::kRows;
  std::vector<LoopSegment> segments;
};

// A block's output waiting to be added to the residual stream. The add is
// emitted when the stream is next used, so that with several micro-batches a
// block's closing collective overlaps the other micro-batches' compute
// instead of blocking the compute unit right away.
struct PendingAdd {
  bool armed = false;
  int32_t layer = -1;
  std::string name;
  Ref block_output = kNoRef;
  Layout output_layout = Layout::kFull;
};

struct Stream {
  uint32_t micro_batch = 0;
  Layout layout = Layout::kFull;
  Ref residual = kNoRef;  // producer of the residual stream (kNoRef: received)
  PendingAdd pending;
};

class LayerEmitter {
 public:
  LayerEmitter(const ShardPlan& plan, ProgramBuilder& builder) : plan_(plan), b_(builder) {}

  void embedding(Stream& s);
  void attention(Stream& s, uint32_t layer);
  // The dense FFN, or the MoE block on MoE layers.
  void ffn(Stream& s, uint32_t layer);
  // A whole layer: attention then FFN, or the two side by side in a
  // parallel block (model.parallel_block).
  void layer(Stream& s, uint32_t layer);
  void lm_head(Stream& s);
  // Emits the stream's pending residual add, if any. Blocks do it first;
  // it changes the builder's context, so call it before setting one.
  void settle(Stream& s);

  // Elements and bytes of a micro-batch's residual stream on one chip in
  // `layout`.
  uint64_t residual_elements(Layout layout) const;
  uint64_t residual_bytes(Layout layout) const;
  // Largest residual stream seen, and (weight-gathered) the bytes of the
  // gathered-weight buffers: one per weight slot, as large as its largest use.
  uint64_t max_residual_bytes() const { return max_residual_bytes_; }
  uint64_t gathered_weight_bytes() const;
  // Collective matmul (collective_matmul.cc): the tensor collectives looped
  // with their matmuls, those left whole, and why (distinct reasons).
  uint64_t looped_collectives() const { return looped_; }
  uint64_t whole_collectives() const { return whole_count_; }
  const std::set<std::string>& whole_reasons() const { return whole_; }

 private:
  // Common steps (layer_emitter.cc).
  // `input2`: a second producer the collective waits for (a fused matmul's
  // second input, gathered with the first).
  Ref collective(std::string_view name, config::CollectiveKind kind, uint64_t bytes,
                 const AxisGroup& group, Ref input, config::DType dtype, Ref input2 = kNoRef);
  Ref act_collective(std::string_view name, config::CollectiveKind kind, uint64_t elements,
                     const AxisGroup& group, Ref input, Ref input2 = kNoRef);
  // A matmul whose weights live in `slot`; weight-gathered, their all-gather
  // of `full_weight_elements` comes first (0: replicated weights, never
  // gathered).
  Ref matmul(std::string_view slot, OpClass op_class, uint64_t batch, uint64_t m, uint64_t k,
             uint64_t n, Ref input, uint64_t full_weight_elements, Ref input2 = kNoRef);
  Ref gather_weights(const std::string& slot, uint64_t full_weight_elements);
  Ref activation(std::string_view name, OpClass op_class, uint64_t rows, uint64_t cols, Ref input);
  Ref norm(const Stream& s, std::string_view name);
  // The normed stream, as the first projection of a block reads it: the
  // all-gather it needs (nullopt: none), and that gather applied.
  std::optional<LoopableCollective> projection_gather(const Stream& s,
                                                      std::string_view prefix) const;
  Ref projection_input(const Stream& s, std::string_view prefix);
  // The norm and the block's first projection `mm`, with its gather and the
  // reduce-scatter `scatter` of its output (null: none) as tensor_matmul().
  Ref project(const Stream& s, std::string_view prefix, const MatmulShape& mm,
              const LoopableCollective* scatter);
  // `rows` full rows (rows x d) on every chip of the tensor group.
  Ref full_rows(const Stream& s, Ref input, uint64_t rows, std::string_view name);
  // The row-parallel output's reduction; sets `layout` to what it leaves.
  // output_scatter() is it when it is a reduce-scatter.
  std::optional<LoopableCollective> output_scatter(std::string_view prefix, Layout& layout) const;
  Ref reduce_output(Ref input, std::string_view prefix, Layout& layout);
  // The block's last projection `mm` (after `gather`, may be null) and the
  // reduction of its output, as tensor_matmul().
  Ref matmul_reduce(const MatmulShape& mm, Ref input, const LoopableCollective* gather,
                    std::string_view prefix, Layout& layout, Ref input2 = kNoRef);
  // A matmul with the all-gather before it and/or the reduce-scatter after
  // it (either may be null), one of them looped with it when
  // sharding.collective_matmul is on and the axis allows (collective_matmul.cc).
  Ref tensor_matmul(const LoopableCollective* gather, Ref input, const MatmulShape& mm,
                    const LoopableCollective* scatter, Ref input2 = kNoRef);
  bool loops(const LoopableCollective& c, const MatmulShape& mm, std::string* why) const;
  Ref looped_gather(const LoopableCollective& ag, Ref input, const MatmulShape& mm, Ref input2);
  Ref looped_scatter(const LoopableCollective& rs, Ref input, const MatmulShape& mm, Ref input2);
  Ref chunk_matmul(const MatmulShape& mm, Ref input, Ref input2);
  // One step's chunk matmuls, one per segment, each 1 / n of its part.
  std::vector<Ref> chunk_parts(const std::vector<LoopSegment>& segments, uint64_t n, Ref input,
                               Ref input2);
  // Adds each part to `into` (an accumulator, or a partial sum received);
  // with none, the parts are chained, or with `sum_parts` summed into the
  // first. The last op.
  Ref fold(const std::vector<LoopSegment>& segments, uint64_t n, const std::vector<Ref>& parts,
           Ref into, bool sum_parts);
  Ref shift(const LoopableCollective& c, int32_t direction, uint64_t bytes, Ref input,
            Ref input2 = kNoRef);
  Ref accumulate(const MatmulShape& mm, Ref partial, Ref sum);
  // What every block of `layer` does first: settles the stream's pending add
  // and sets the builder's context to the layer and micro-batch.
  void enter(Stream& s, uint32_t layer);
  // Arms the residual add of a block's output (see PendingAdd).
  void residual_add(Stream& s, std::string_view name, Ref block_output, Layout output_layout);

  // Blocks (attention_emitter.cc, ffn_emitter.cc, parallel_block_emitter.cc).
  // `kv`: the KV heads' own producer when it is not `qkv` (2D, heads over X
  // and Y with shared KV heads).
  Ref attention_core(Ref qkv, Ref kv = kNoRef);
  Ref scatter_qkv_x(Ref qkv_out, Ref& kv);
  // The attention between the QKV projection's output and the output
  // projection's input (2D scatter, KV-by-batch all-to-alls, the core).
  Ref attention_middle(Ref qkv_out);
  // The attention between the 2D scatter and gather: the KV-by-batch
  // all-to-alls and the core.
  Ref attention_heads(Ref qkv, Ref kv);
  // 2D with heads over X and Y and KV heads shared over X: the QKV output is
  // reduce-scattered (Q) and all-reduced (KV) in two parts.
  bool splits_kv_x() const;
  // The FFN between the up projection's output and the down projection's
  // input (2D scatter and gather, the activation).
  Ref ffn_middle(Ref up_out);
  void parallel_block(Stream& s);
  // 2D with collective matmul: the collectives between the fused
  // projections loop as one per projection, each part of the fused matmul
  // chunked along its own dimension.
  void looped_parallel_block(Stream& s);
  // Multi-head latent attention (mla_emitter.cc), in place of attention().
  void mla_attention(Stream& s, uint32_t layer);
  // RMS norm of a latent: rows x width.
  Ref latent_norm(std::string_view name, uint64_t width, Ref input);
  void dense_ffn(Stream& s);
  void moe(Stream& s);
  Ref shared_experts(Ref input);

  struct WeightSlot {
    int32_t layer = -1;      // whose weights the buffer holds
    Ref gather = kNoRef;     // the all-gather that filled it
    Ref last_use = kNoRef;   // the last matmul that read it
    uint64_t max_bytes = 0;  // largest gather into it
  };

  const ShardPlan& plan_;
  ProgramBuilder& b_;
  int32_t layer_ = -1;
  uint64_t max_residual_bytes_ = 0;
  std::map<std::string, WeightSlot> slots_;
  Ref last_weight_gather_ = kNoRef;  // weight-gathered: the one in flight before the next
  uint64_t looped_ = 0;
  uint64_t whole_count_ = 0;
  std::set<std::string> whole_;
};

}  // namespace podsim::workload::internal

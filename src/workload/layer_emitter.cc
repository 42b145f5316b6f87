// Steps shared by every block, and the two ends of the model (embedding, LM
// head). Formulas are per chip and per micro-batch; README.md has the full
// schedules.
#include "workload/layer_emitter.h"

#include <algorithm>
#include <cassert>

namespace podsim::workload::internal {
namespace {

using config::CollectiveKind;

// Vector FLOPs per output element of the FFN activation: SiLU (negate, exp,
// add, divide) times the up projection when gated; GELU-like otherwise.
// Rough counts: vector work is a small share of a layer's time.
constexpr uint32_t kGatedActivationFlops = 5;
constexpr uint32_t kActivationFlops = 4;
// Bytes per token of the LM head's cross-chip argmax: an fp32 value and an
// int32 index.
constexpr uint64_t kArgmaxBytesPerToken = 8;
// Bytes per row of the RMS statistics a 2D norm all-reduces (one fp32 sum).
constexpr uint64_t kNormStatBytesPerRow = 4;

}  // namespace

uint64_t LayerEmitter::residual_elements(Layout layout) const {
  const uint64_t d = plan_.model.d_model;
  switch (layout) {
    case Layout::kFull:
      return plan_.rows * d;
    case Layout::kTokenScattered:
      return plan_.rows / plan_.stationary.chips * d;
    case Layout::kModelScattered:
      return plan_.rows * (d / plan_.tensor.chips);
  }
  return 0;
}

uint64_t LayerEmitter::residual_bytes(Layout layout) const {
  return plan_.act_bytes(residual_elements(layout));
}

uint64_t LayerEmitter::gathered_weight_bytes() const {
  uint64_t total = 0;
  for (const auto& [name, slot] : slots_)
    total += slot.max_bytes;
  return total;
}

Ref LayerEmitter::collective(std::string_view name, config::CollectiveKind kind, uint64_t bytes,
                             const AxisGroup& group, Ref input, config::DType dtype, Ref input2) {
  if (group.chips <= 1)
    return input;  // a group of one chip already holds the result
  config::CollectiveSpec spec;
  spec.kind = kind;
  spec.bytes = bytes;
  spec.axes = group.names;
  spec.dtype = dtype;
  return b_.communicate(name, OpClass::kCollective, spec, {input, input2});
}

Ref LayerEmitter::act_collective(std::string_view name, config::CollectiveKind kind,
                                 uint64_t elements, const AxisGroup& group, Ref input, Ref input2) {
  return collective(name, kind, plan_.act_bytes(elements), group, input,
                    plan_.model.activation_dtype, input2);
}

// Weight-gathered: the stationary chips' share of the matrix (1 / R of it),
// all-gathered over G from the 1 / T each chip stores.
Ref LayerEmitter::gather_weights(const std::string& slot, uint64_t full_weight_elements) {
  if (!plan_.gathers_weights() || full_weight_elements == 0)
    return kNoRef;
  WeightSlot& s = slots_[slot];
  if (s.layer == layer_ && s.gather != kNoRef)
    return s.gather;  // still holds this layer's weights (layer-major micro-batches)
  const uint64_t bytes = plan_.weight_bytes(full_weight_elements / plan_.stationary.chips);
  // Waits for the last reader of the buffer (write after read): with one
  // buffer per slot, layer l's gather overlaps the rest of layer l - 1. And
  // for the previous weight gather: one is in flight at a time, in program
  // order, as XLA's latency-hiding scheduler allows by default (its
  // SchedulerConfig::all_gather_overlap_limit is 1). Gathers in flight
  // together would share the links fairly, so one needed later slowed the
  // one needed next, and more work elsewhere, delaying the later one, made
  // the step faster (tests/study/monotone_physics_test.cc).
  config::CollectiveSpec spec;
  spec.kind = CollectiveKind::kAllGather;
  spec.bytes = bytes;
  spec.axes = plan_.gathered.names;
  spec.dtype = plan_.model.weight_dtype;
  if (plan_.collective_matmul) {
    whole_.insert("the weight all-gathers over " + plan_.gathered.describe("mesh") +
                  " (each overlaps the previous layer's compute instead)");
  }
  s.gather = b_.communicate(slot + ".gather_weights", OpClass::kCollective, spec,
                            {s.last_use, last_weight_gather_});
  last_weight_gather_ = s.gather;
  s.layer = layer_;
  s.max_bytes = std::max(s.max_bytes, bytes);
  return s.gather;
}

Ref LayerEmitter::matmul(std::string_view slot, OpClass op_class, uint64_t batch, uint64_t m,
                         uint64_t k, uint64_t n, Ref input, uint64_t full_weight_elements,
                         Ref input2) {
  const Ref w = gather_weights(std::string(slot), full_weight_elements);
  chip::Matmul mm;
  mm.batch = batch;
  mm.m = m;
  mm.k = k;
  mm.n = n;
  mm.act = plan_.model.activation_dtype;
  mm.weight = plan_.model.weight_dtype;
  const Ref r = b_.compute(slot, op_class, mm, {input, input2, w});
  if (w != kNoRef)
    slots_[std::string(slot)].last_use = r;
  return r;
}

Ref LayerEmitter::activation(std::string_view name, OpClass op_class, uint64_t rows, uint64_t cols,
                             Ref input) {
  const bool gated = plan_.model.gated_ffn;
  chip::Elementwise e;
  e.elements = rows * cols;
  e.flops_per_element = gated ? kGatedActivationFlops : kActivationFlops;
  e.bytes_in = plan_.act_bytes(rows * cols) * (gated ? 2 : 1);
  e.bytes_out = plan_.act_bytes(rows * cols);
  return b_.compute(name, op_class, e, {input});
}

// RMS norm of the residual stream in its layout. In the model-scattered (2D)
// layout a row's elements are spread over the tensor group: sum of squares
// locally, all-reduce of one fp32 per row, then scale locally.
Ref LayerEmitter::norm(const Stream& s, std::string_view name) {
  const uint64_t d = plan_.model.d_model;
  const uint64_t t = plan_.tensor.chips;
  const config::DType act = plan_.model.activation_dtype;
  if (s.layout != Layout::kModelScattered) {
    const uint64_t rows =
        s.layout == Layout::kFull ? plan_.rows : plan_.rows / plan_.stationary.chips;
    return b_.compute(name, OpClass::kNorm, chip::Norm{chip::NormKind::kRms, rows, d, act},
                      {s.residual});
  }
  const uint64_t local = plan_.rows * (d / t);
  const std::string n(name);
  Ref r = b_.compute(n + ".sumsq", OpClass::kNorm, chip::Reduction{local, plan_.rows, act},
                     {s.residual});
  r = collective(n + ".allreduce", CollectiveKind::kAllReduce, plan_.rows * kNormStatBytesPerRow,
                 plan_.tensor, r, config::DType::kFp32);
  chip::Elementwise scale;
  scale.elements = local;
  scale.flops_per_element = 2;  // times 1 / rms, times gamma
  scale.bytes_in = plan_.act_bytes(local) + plan_.rows * kNormStatBytesPerRow;
  scale.bytes_out = plan_.act_bytes(local);
  return b_.compute(name, OpClass::kNorm, scale, {r, s.residual});
}

// 1D and weight-gathered projections read full rows (rows x d): a
// token-scattered stream is all-gathered by token. 2D ones read rows x d / X,
// so a model-scattered stream is all-gathered over Y only, along the
// projection's contraction. A full stream needs nothing (2D: the chip slices
// its d / X columns locally).
std::optional<LoopableCollective> LayerEmitter::projection_gather(const Stream& s,
                                                                  std::string_view prefix) const {
  const std::string p(prefix);
  switch (s.layout) {
    case Layout::kFull:
      return std::nullopt;
    case Layout::kTokenScattered:
      return LoopableCollective{
          p + ".gather", plan_.rows * plan_.model.d_model, &plan_.stationary, ChunkDim::kRows, {}};
    case Layout::kModelScattered:
      return LoopableCollective{
          p + ".gather_y", plan_.rows * plan_.proj_in, &plan_.y, ChunkDim::kContraction, {}};
  }
  return std::nullopt;
}

Ref LayerEmitter::projection_input(const Stream& s, std::string_view prefix) {
  const Ref x = norm(s, std::string(prefix) + ".norm");
  const auto gather = projection_gather(s, prefix);
  if (!gather)
    return x;
  return act_collective(gather->name, CollectiveKind::kAllGather, gather->elements, *gather->group,
                        x);
}

Ref LayerEmitter::project(const Stream& s, std::string_view prefix, const MatmulShape& mm,
                          const LoopableCollective* scatter) {
  const Ref x = norm(s, std::string(prefix) + ".norm");
  const auto gather = projection_gather(s, prefix);
  return tensor_matmul(gather ? &*gather : nullptr, x, mm, scatter);
}

Ref LayerEmitter::full_rows(const Stream& s, Ref input, uint64_t rows, std::string_view name) {
  if (s.layout == Layout::kFull)
    return input;
  const AxisGroup& over = s.layout == Layout::kTokenScattered ? plan_.stationary : plan_.tensor;
  return act_collective(name, CollectiveKind::kAllGather, rows * plan_.model.d_model, over, input);
}

// 1D and weight-gathered: all-reduce (or reduce-scatter of tokens) of
// rows x d over the stationary chips (none when every tensor axis gathers
// weights: the matmul saw whole weights).
// 2D: reduce-scatter over Y of rows x d / X by column, leaving rows x d / T.
// The reduce-scatters, which a collective matmul can loop; nullopt for the
// all-reduce.
std::optional<LoopableCollective> LayerEmitter::output_scatter(std::string_view prefix,
                                                               Layout& layout) const {
  const std::string p(prefix);
  if (plan_.scheme == TensorScheme::k2D) {
    layout = Layout::kModelScattered;
    return LoopableCollective{
        p + ".scatter_y", plan_.rows * plan_.proj_in, &plan_.y, ChunkDim::kColumns, {}};
  }
  if (plan_.reduce_scatter) {
    layout = Layout::kTokenScattered;
    return LoopableCollective{p + ".reduce_scatter",
                              plan_.rows * plan_.model.d_model,
                              &plan_.stationary,
                              ChunkDim::kRows,
                              {}};
  }
  layout = Layout::kFull;
  return std::nullopt;
}

Ref LayerEmitter::reduce_output(Ref input, std::string_view prefix, Layout& layout) {
  if (const auto rs = output_scatter(prefix, layout))
    return act_collective(rs->name, CollectiveKind::kReduceScatter, rs->elements, *rs->group,
                          input);
  if (plan_.collective_matmul && plan_.stationary.chips > 1) {
    ++whole_count_;
    whole_.insert("the all-reduces of tensor_collective ALL_REDUCE over " +
                  plan_.stationary.describe("mesh") +
                  " (an all-reduce does not loop; TENSOR_REDUCE_SCATTER_ALL_GATHER does)");
  }
  return act_collective(std::string(prefix) + ".allreduce", CollectiveKind::kAllReduce,
                        plan_.rows * plan_.model.d_model, plan_.stationary, input);
}

Ref LayerEmitter::matmul_reduce(const MatmulShape& mm, Ref input, const LoopableCollective* gather,
                                std::string_view prefix, Layout& layout, Ref input2) {
  if (const auto rs = output_scatter(prefix, layout))
    return tensor_matmul(gather, input, mm, &*rs, input2);
  const Ref x = tensor_matmul(gather, input, mm, nullptr, input2);
  return reduce_output(x, prefix, layout);
}

void LayerEmitter::enter(Stream& s, uint32_t layer) {
  settle(s);
  layer_ = static_cast<int32_t>(layer);
  b_.set_context(layer_, s.micro_batch);
}

void LayerEmitter::residual_add(Stream& s, std::string_view name, Ref block_output,
                                Layout output_layout) {
  assert(!s.pending.armed);  // every block settles its stream first
  s.pending = PendingAdd{true, layer_, std::string(name), block_output, output_layout};
}

// The sum keeps the stream's scattered layout if either side has one: a
// chip adds only its own shard (slicing a replicated array is free).
void LayerEmitter::settle(Stream& s) {
  if (!s.pending.armed)
    return;
  const PendingAdd add_of = std::move(s.pending);
  s.pending = PendingAdd{};
  const Layout layout = s.layout != Layout::kFull ? s.layout : add_of.output_layout;
  const uint64_t elements = residual_elements(layout);
  const uint64_t bytes = plan_.act_bytes(elements);
  chip::Elementwise add;
  add.elements = elements;
  add.bytes_in = 2 * bytes;
  add.bytes_out = bytes;
  b_.set_context(add_of.layer, s.micro_batch);
  s.residual =
      b_.compute(add_of.name, OpClass::kElementwise, add, {add_of.block_output, s.residual});
  s.layout = layout;
  max_residual_bytes_ = std::max(max_residual_bytes_, bytes);
}

// The table is stored split by columns (vocab x d / T per chip): each chip
// looks up its columns of the tokens, then 2D keeps them (the
// model-scattered layout); 1D all-gathers them into full rows;
// weight-gathered looks up the G chips' tokens, trades them with an
// all-to-all over G for d / R columns of its own sequences, and all-gathers
// those over R (1D: G is one chip, weight-gathered over every tensor axis: R
// is).
void LayerEmitter::embedding(Stream& s) {
  layer_ = -1;
  b_.set_context(-1, s.micro_batch);
  const uint64_t t = plan_.tensor.chips;
  const uint64_t d = plan_.model.d_model;
  const uint64_t tokens = plan_.rows * plan_.gathered.chips;
  const chip::Embedding e{tokens, d / t, plan_.model.vocab, plan_.model.weight_dtype};
  Ref r = b_.compute("embed", OpClass::kEmbedding, e, {});
  if (plan_.scheme == TensorScheme::k2D) {
    s.layout = Layout::kModelScattered;
  } else {
    r = act_collective("embed.to_rows", CollectiveKind::kAllToAll,
                       tokens * (d / plan_.stationary.chips), plan_.gathered, r);
    r = act_collective("embed.gather", CollectiveKind::kAllGather, plan_.rows * d, plan_.stationary,
                       r);
    s.layout = Layout::kFull;
  }
  s.residual = r;
  max_residual_bytes_ = std::max(max_residual_bytes_, residual_bytes(s.layout));
}

// Final norm and vocabulary-parallel LM head (d x V / T per chip) over the
// tokens that are sampled, then an argmax: local, and an all-reduce of (value,
// index) per token over T. Weight-gathered gathers the T chips' tokens
// instead of the V x d weights (the largest gather of the step otherwise).
void LayerEmitter::lm_head(Stream& s) {
  settle(s);
  layer_ = -1;
  b_.set_context(-1, s.micro_batch);
  const uint64_t t = plan_.tensor.chips;
  const uint64_t d = plan_.model.d_model;
  const config::DType act = plan_.model.activation_dtype;
  const uint64_t last = plan_.last_rows;
  Ref x = full_rows(s, s.residual, last, "final.gather");
  x = b_.compute("final_norm", OpClass::kNorm, chip::Norm{chip::NormKind::kRms, last, d, act}, {x});
  // Weight-gathered: the G chips' tokens meet the vocabulary split over T.
  const uint64_t rows = last * plan_.gathered.chips;
  x = act_collective("lm_head.gather", CollectiveKind::kAllGather, rows * d, plan_.gathered, x);
  const uint64_t vocab = plan_.model.vocab / t;
  chip::Matmul mm{1, rows, d, vocab, act, plan_.model.weight_dtype};
  Ref logits = b_.compute("lm_head", OpClass::kLmHead, mm, {x});
  Ref best = b_.compute("lm_head.argmax", OpClass::kLmHead,
                        chip::Reduction{rows * vocab, rows, act}, {logits});
  collective("lm_head.argmax.allreduce", CollectiveKind::kAllReduce, rows * kArgmaxBytesPerToken,
             plan_.tensor, best, config::DType::kFp32);
}

}  // namespace podsim::workload::internal

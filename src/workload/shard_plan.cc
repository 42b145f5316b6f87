#include "workload/shard_plan.h"

#include <algorithm>
#include <limits>

#include "chip/ops.h"
#include "config/head_padding.h"

namespace podsim::workload::internal {
namespace {

using config::ModelSpec;
using config::Phase;

std::string list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i)
    out += (i ? ", " : "") + names[i];
  return out + "]";
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

AxisGroup group(const MeshAxes& mesh, std::vector<std::string> names) {
  AxisGroup g;
  g.chips = mesh.product(names);
  g.names = std::move(names);
  return g;
}

// The axes of `from` that are not in any of `minus`.
std::vector<std::string> difference(const std::vector<std::string>& from,
                                    std::initializer_list<const std::vector<std::string>*> minus) {
  std::vector<std::string> out;
  for (const std::string& a : from) {
    if (std::none_of(minus.begin(), minus.end(), [&](const auto* m) { return contains(*m, a); }))
      out.push_back(a);
  }
  return out;
}

// "64 heads do not divide evenly over the 48 chips of tensor axes [x, y]".
void require_divides(uint64_t value, uint64_t parts, const char* field, const std::string& what,
                     const std::string& over) {
  if (parts == 0 || value % parts != 0)
    throw ShapeError(field,
                     std::to_string(value) + " " + what + " do not divide evenly over " + over);
}

void require_positive(uint64_t value, const char* field, const char* what) {
  if (value == 0)
    throw ShapeError(field, std::string(what) + " must be at least 1");
}

// KV heads per chip when heads are split over `chips`: K / n when n divides
// K, else 1 with each KV head replicated on n / K chips (those chips' query
// heads all belong to it).
uint64_t kv_heads_per_chip(uint64_t kv_heads, uint64_t chips, const std::string& over) {
  if (kv_heads % chips == 0)
    return kv_heads / chips;
  if (chips % kv_heads == 0)
    return 1;
  throw ShapeError("model.kv_heads", std::to_string(kv_heads) +
                                         " KV heads neither divide evenly over nor replicate "
                                         "evenly across " +
                                         over);
}

void check_model(const ModelSpec& m) {
  require_positive(m.layers, "model.layers", "layers");
  require_positive(m.d_model, "model.d_model", "d_model");
  require_positive(m.heads, "model.heads", "heads");
  require_positive(m.kv_heads, "model.kv_heads", "kv_heads");
  require_positive(m.head_dim, "model.head_dim", "head_dim");
  require_positive(m.vocab, "model.vocab", "vocab");
  if (m.mla) {
    require_positive(m.mla->kv_rank, "model.mla.kv_lora_rank", "kv_lora_rank");
    require_positive(m.mla->q_rank, "model.mla.q_lora_rank", "q_lora_rank");
    require_positive(m.mla->nope_dim, "model.mla.qk_nope_head_dim", "qk_nope_head_dim");
    require_positive(m.mla->rope_dim, "model.mla.qk_rope_head_dim", "qk_rope_head_dim");
    require_positive(m.mla->v_dim, "model.mla.v_head_dim", "v_head_dim");
  }
  require_divides(m.heads, m.kv_heads, "model.kv_heads", "query heads",
                  "the " + std::to_string(m.kv_heads) + " KV heads (grouped-query attention)");
  bool any_dense = false;
  bool any_moe = false;
  for (uint32_t l = 0; l < m.layers; ++l)
    (m.is_moe_layer(l) ? any_moe : any_dense) = true;
  if (any_dense)
    require_positive(m.ffn_dim, "model.ffn_dim", "ffn_dim");
  if (any_moe) {
    require_positive(m.moe->experts, "model.moe.experts", "experts");
    require_positive(m.moe->experts_per_token, "model.moe.experts_per_token", "experts_per_token");
    require_positive(m.moe->expert_ffn_dim, "model.moe.expert_ffn_dim", "expert_ffn_dim");
    if (m.moe->experts_per_token > m.moe->experts)
      throw ShapeError("model.moe.experts_per_token", "experts_per_token exceeds experts");
  }
}

// sharding.pad_heads: the model's heads (and KV heads) replaced by the
// padded counts over the `chips` that split heads (config/head_padding.h),
// so that every shape, weight and KV byte below is the padded one.
void pad_heads(ModelSpec& m, uint64_t chips) {
  const config::PaddedHeads padded = config::padded_heads(m.heads, m.kv_heads, chips);
  if (padded.heads > std::numeric_limits<uint32_t>::max())
    throw ShapeError("sharding.pad_heads", "padding " + std::to_string(m.heads) + " heads over " +
                                               std::to_string(chips) + " chips gives " +
                                               std::to_string(padded.heads) + ", too many");
  m.heads = static_cast<uint32_t>(padded.heads);
  m.kv_heads = static_cast<uint32_t>(padded.kv_heads);
}

void check_roles(const config::ShardingSpec& s) {
  const std::string& p = s.pipeline_axis;
  if (!p.empty() &&
      (contains(s.tensor_axes, p) || contains(s.data_axes, p) || contains(s.expert_axes, p)))
    throw ShapeError("sharding.pipeline_axis",
                     "pipeline axis " + p + " is also a tensor, data or expert axis");
  for (const std::string& a : s.tensor_axes) {
    if (contains(s.data_axes, a))
      throw ShapeError("sharding.data_axes", "axis " + a + " is both a tensor and a data axis");
  }
  for (const std::string& a : s.weight_gathered_axes) {
    if (!contains(s.tensor_axes, a))
      throw ShapeError("sharding.weight_gathered_axes",
                       "axis " + a + " is not one of the tensor axes " + list(s.tensor_axes));
  }
}

// One-dimensional weight-stationary tensor parallelism over p.stationary
// (1D: every tensor axis; weight-gathered: the axes not gathered over), on
// `seqs` sequences per chip: heads and FFN columns split over those chips,
// the embedding table and the LM head over all tensor chips.
void plan_1d(ShardPlan& p, uint64_t seqs) {
  const ModelSpec& m = p.model;
  const std::string over = p.stationary.describe("tensor");
  const uint64_t s = p.stationary.chips;
  require_divides(m.heads, s, "model.heads", "heads", over);
  p.proj_kv_heads = kv_heads_per_chip(m.kv_heads, s, over);
  require_divides(m.d_model, p.tensor.chips, "model.d_model", "d_model columns (embedding table)",
                  p.tensor.describe("tensor"));
  require_divides(m.vocab, p.tensor.chips, "model.vocab", "vocabulary entries (LM head)",
                  p.tensor.describe("tensor"));
  p.seqs = seqs;
  p.proj_in = m.d_model;
  p.proj_heads = m.heads / s;
  p.ffn_cols = m.ffn_dim / s;
  if (p.reduce_scatter)
    require_divides(seqs * p.q, s, "scenario.batch",
                    "tokens per micro-batch and chip (reduce-scatter splits tokens)", over);
  if (p.kv_by_batch()) {
    require_divides(seqs, s, "scenario.batch",
                    "sequences per micro-batch and chip (KV cache by batch)", over);
    p.att_seqs = seqs / s;
    p.att_heads = m.heads;
    p.att_kv_heads = m.kv_heads;
  } else {
    p.att_seqs = seqs;
    p.att_heads = p.proj_heads;
    p.att_kv_heads = p.proj_kv_heads;
  }
}

// d_model over X, heads and FFN columns over Y (the other tensor axes).
// Attention splits the micro-batch's sequences over X, or, when there are
// too few of them, its heads over X and Y (AttentionSplit::kHeadsOverXY).
void plan_2d(ShardPlan& p, uint64_t b_mb) {
  const ModelSpec& m = p.model;
  const std::string over = p.tensor.describe("tensor");
  const std::string over_y = p.y.describe("tensor");
  require_divides(m.heads, p.y.chips, "model.heads", "heads", over_y);
  p.proj_kv_heads = kv_heads_per_chip(m.kv_heads, p.y.chips, over_y);
  require_divides(m.d_model, p.tensor.chips, "model.d_model", "d_model columns", over);
  require_divides(m.vocab, p.tensor.chips, "model.vocab", "vocabulary entries (LM head)", over);
  p.seqs = b_mb;
  p.proj_in = m.d_model / p.x.chips;
  p.proj_heads = m.heads / p.y.chips;
  p.ffn_cols = m.ffn_dim / p.y.chips;
  if (p.kv_by_batch()) {
    require_divides(b_mb, p.x.chips, "scenario.batch",
                    "sequences per micro-batch (2D attention by batch splits sequences over the "
                    "first tensor axis)",
                    p.x.describe("tensor"));
    const uint64_t seqs_x = b_mb / p.x.chips;
    require_divides(seqs_x, p.y.chips, "scenario.batch",
                    "sequences per micro-batch and first-axis chip (KV cache by batch)", over_y);
    p.att_seqs = seqs_x / p.y.chips;
    p.att_heads = m.heads;
    p.att_kv_heads = m.kv_heads;
  } else if (b_mb % p.x.chips == 0) {
    p.att_seqs = b_mb / p.x.chips;
    p.att_heads = p.proj_heads;
    p.att_kv_heads = p.proj_kv_heads;
  } else {
    p.attention = AttentionSplit::kHeadsOverXY;
    require_divides(m.heads, p.tensor.chips, "model.heads",
                    "heads (a micro-batch of " + std::to_string(b_mb) +
                        " sequences does not split over the first tensor axis, so 2D attention "
                        "splits heads over every tensor axis)",
                    over);
    p.att_seqs = b_mb;
    p.att_heads = m.heads / p.tensor.chips;
    p.att_kv_heads = kv_heads_per_chip(m.kv_heads, p.tensor.chips, over);
  }
}

// Pope et al.'s weight-gathered layouts: each matrix stored 1 / T per chip
// and all-gathered over G before its matmul, the activations split by
// sequence over G; over the remaining tensor axes R the gathered weights
// stay 1D weight-stationary (X-weight-gathered on X, Y, Z: G = X, R = YZ;
// XYZ-weight-gathered: R is empty).
void plan_weight_gathered(ShardPlan& p, uint64_t b_mb) {
  const std::string over = p.gathered.describe("weight-gathered");
  require_divides(b_mb, p.gathered.chips, "scenario.batch",
                  "sequences per micro-batch (weight-gathered: activations split by sequence)",
                  over);
  plan_1d(p, b_mb / p.gathered.chips);
}

// Multi-head latent attention (README.md, "Multi-head latent attention"):
// 1D weight-stationary only; the latent cache is held whole by every tensor
// chip (KV by heads) or split by sequence (KV by batch, decode only).
void plan_mla(ShardPlan& p) {
  if (p.scheme == TensorScheme::kWeightGathered)
    throw ShapeError("sharding.weight_gathered",
                     "model.mla is lowered for weight-stationary tensor parallelism only");
  if (p.scheme == TensorScheme::k2D)
    throw ShapeError("sharding.tensor_axes",
                     "model.mla is lowered for one tensor axis (1D) or none");
  if (p.kv_by_batch() && p.phase == Phase::kPrefill)
    throw ShapeError("sharding.kv_layout",
                     "a model.mla prefill materialises keys and values by heads; use "
                     "KV_BY_HEADS");
  p.att_kv_heads = p.mla_absorbed() ? 1 : p.att_heads;
}

void plan_moe(ShardPlan& p, const config::ShardingSpec& s, const MeshAxes& mesh) {
  const config::MoeSpec& moe = *p.model.moe;
  // Chips along data axes (and, weight-gathered, gathered axes) hold
  // different tokens; along the other expert axes they hold the same ones and
  // split them. Experts are split over the stationary tensor axes.
  p.expert_split = group(mesh, difference(s.expert_axes, {&s.data_axes, &p.gathered.names}));
  p.expert_tensor = group(mesh, difference(p.stationary.names, {&s.expert_axes}));
  require_divides(moe.experts, p.expert.chips, "model.moe.experts", "experts",
                  p.expert.describe("expert"));
  require_divides(moe.expert_ffn_dim, p.expert_tensor.chips, "model.moe.expert_ffn_dim",
                  "expert FFN columns", p.expert_tensor.describe("tensor"));
  require_divides(p.rows, p.expert_split.chips, "scenario.batch",
                  "tokens per micro-batch and chip (chips along these expert axes hold the same "
                  "tokens and split them)",
                  p.expert_split.describe("expert"));
  p.moe_rows = p.rows / p.expert_split.chips;
  p.experts_local = moe.experts / p.expert.chips;
  p.expert_cols = moe.expert_ffn_dim / p.expert_tensor.chips;
  p.shared_cols = moe.shared_experts * p.expert_cols;
}

}  // namespace

std::string AxisGroup::describe(std::string_view role) const {
  return "the " + std::to_string(chips) + " chips of " + std::string(role) +
         (names.size() == 1 ? " axis " + names[0] : " axes " + list(names));
}

std::string ShardPlan::attention_layout() const {
  switch (attention) {
    case AttentionSplit::kHeads:
      return "by-heads";
    case AttentionSplit::kHeadsOverXY:
      return "by-heads over x and y";
    case AttentionSplit::kBatch:
      return "by-batch";
  }
  return "by-heads";
}

uint64_t ShardPlan::act_bytes(uint64_t elements) const {
  return chip::bytes_of(elements, model.activation_dtype);
}

uint64_t ShardPlan::weight_bytes(uint64_t elements) const {
  return chip::bytes_of(elements, model.weight_dtype);
}

ShardPlan make_plan(const config::ServingSpec& serving, const MeshAxes& mesh) {
  const config::ShardingSpec& s = serving.sharding;
  const config::ScenarioSpec& sc = serving.scenario;
  ShardPlan p;
  p.model = serving.model;
  p.phase = sc.phase;
  p.overlap = s.overlap_collectives;
  // AUTO is resolved before lowering (study/collective_matmul.h): lowered
  // as given it is off.
  p.collective_matmul = s.collective_matmul == config::CollectiveMatmul::kOn;
  p.attention_mapping = s.attention_mapping;
  check_model(p.model);
  check_roles(s);
  const bool gathered = s.weight_gathered || !s.weight_gathered_axes.empty();
  p.scheme = gathered                   ? TensorScheme::kWeightGathered
             : s.tensor_axes.size() > 1 ? TensorScheme::k2D
                                        : TensorScheme::k1D;
  p.tensor = group(mesh, s.tensor_axes);
  switch (p.scheme) {
    case TensorScheme::k1D:
      p.stationary = p.tensor;
      break;
    case TensorScheme::k2D:
      p.x = group(mesh, {s.tensor_axes[0]});
      p.y = group(mesh, {s.tensor_axes.begin() + 1, s.tensor_axes.end()});
      break;
    case TensorScheme::kWeightGathered: {
      // weight_gathered alone gathers over every tensor axis.
      const std::vector<std::string>& g =
          s.weight_gathered_axes.empty() ? s.tensor_axes : s.weight_gathered_axes;
      p.gathered = group(mesh, g);
      p.stationary = group(mesh, difference(s.tensor_axes, {&g}));
      break;
    }
  }
  // With one stationary chip there is nothing to scatter.
  p.reduce_scatter = p.scheme != TensorScheme::k2D && p.stationary.chips > 1 &&
                     s.tensor_collective == config::TensorCollective::kReduceScatterAllGather;
  if (s.kv_layout == config::KvLayout::kByBatch)
    p.attention = AttentionSplit::kBatch;
  p.data = group(mesh, s.data_axes);
  p.expert = group(mesh, s.expert_axes);
  p.pipeline = group(mesh, s.pipeline_axis.empty() ? std::vector<std::string>{}
                                                   : std::vector<std::string>{s.pipeline_axis});

  require_positive(sc.batch, "scenario.batch", "batch");
  require_positive(sc.micro_batches, "scenario.micro_batches", "micro_batches");
  if (sc.phase == Phase::kPrefill)
    require_positive(sc.prompt_len, "scenario.prompt_len", "prefill prompt_len");
  require_divides(
      p.model.layers, p.pipeline.chips, "model.layers", "layers",
      "the " + std::to_string(p.pipeline.chips) + " stages of pipeline axis " + s.pipeline_axis);
  require_divides(sc.batch, p.data.chips, "scenario.batch", "sequences", p.data.describe("data"));
  const uint64_t b_local = sc.batch / p.data.chips;
  require_divides(b_local, sc.micro_batches, "scenario.micro_batches", "sequences per replica",
                  "the " + std::to_string(sc.micro_batches) + " micro-batches");
  p.chunks = std::max(1u, sc.prefill_chunks);
  if (p.chunks > 1) {
    if (sc.phase != Phase::kPrefill || p.pipeline.chips > 1)
      throw ShapeError("scenario.prefill_chunks",
                       "sequential chunks are for a PREFILL without a pipeline");
    require_divides(b_local / sc.micro_batches, p.chunks, "scenario.prefill_chunks",
                    "sequences per replica", "the " + std::to_string(p.chunks) + " chunks");
  }
  const uint64_t b_mb = b_local / sc.micro_batches / p.chunks;
  p.chunks_share_gathers = p.chunks > 1 && p.gathers_weights() && !sc.regather_chunk_weights;
  // Heads are padded over the chips that split them: 1D and weight-gathered,
  // the stationary ones; 2D, Y, or every tensor chip when the micro-batch is
  // too small to split over X (plan_2d).
  if (s.pad_heads) {
    const bool over_xy = p.scheme == TensorScheme::k2D && !p.kv_by_batch() && b_mb % p.x.chips != 0;
    pad_heads(p.model, p.scheme != TensorScheme::k2D ? p.stationary.chips
                       : over_xy                     ? p.tensor.chips
                                                     : p.y.chips);
  }
  p.layers_per_stage = static_cast<uint32_t>(p.model.layers / p.pipeline.chips);
  p.micro_batches = sc.micro_batches;
  p.q = sc.phase == Phase::kDecode ? 1 : sc.prompt_len;
  p.kv_len = sc.context_len + p.q;

  switch (p.scheme) {
    case TensorScheme::k1D:
      plan_1d(p, b_mb);
      break;
    case TensorScheme::k2D:
      plan_2d(p, b_mb);
      break;
    case TensorScheme::kWeightGathered:
      plan_weight_gathered(p, b_mb);
      break;
  }
  if (p.model.mla)
    plan_mla(p);
  bool any_dense = false;
  bool any_moe = false;
  for (uint32_t l = 0; l < p.model.layers; ++l)
    (p.model.is_moe_layer(l) ? any_moe : any_dense) = true;
  // 1D and weight-gathered split F over the stationary chips; 2D over Y
  // and then X (F / T per chip after the reduce-scatter). Weight-gathered
  // stores 1 / T of each matrix, which d_model % T already guarantees.
  const AxisGroup& ffn_over = p.scheme == TensorScheme::k2D ? p.tensor : p.stationary;
  if (any_dense)
    require_divides(p.model.ffn_dim, ffn_over.chips, "model.ffn_dim", "FFN columns",
                    ffn_over.describe("tensor"));
  p.rows = p.seqs * p.q;
  p.last_rows = sc.phase == Phase::kDecode || sc.score_every_token ? p.rows : p.seqs;
  if (any_moe)
    plan_moe(p, s, mesh);
  return p;
}

}  // namespace podsim::workload::internal

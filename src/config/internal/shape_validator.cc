#include "config/internal/shape_validator.h"

#include <algorithm>
#include <string>

#include "config/head_padding.h"
#include "config/internal/model_validator.h"
#include "podsim/workload.pb.h"

namespace podsim::config::internal {
namespace {

std::string str(uint64_t n) {
  return std::to_string(n);
}

// The layouts of docs/inputs.md ("Shape rules") and src/workload/README.md.
enum class Layout { k1D, k2D, kWeightGathered };

class ShapeValidator {
 public:
  ShapeValidator(const Workload& w, const ShardingGroups& groups, IssueList& issues)
      : m_(w.model()), sc_(w.scenario()), s_(w.sharding()), g_(groups), issues_(issues) {}

  void run() {
    tensor_rules();
    pipeline_rule();
    batch_rules();
    expert_rule();
    mla_rules();
  }

 private:
  Layout layout() const {
    if (s_.weight_gathered() || s_.weight_gathered_axes_size() > 0)
      return Layout::kWeightGathered;
    return g_.tensor.names.size() >= 2 ? Layout::k2D : Layout::k1D;
  }

  // The tensor axes that keep their weight shards: 1D every one, 2D the
  // second and later (the heads and FFN widths; d_model is over the first),
  // weight-gathered the ones not gathered over.
  AxisGroup stationary() const {
    const AxisGroup& t = g_.tensor;
    switch (layout()) {
      case Layout::k1D:
        return t;
      case Layout::k2D:
        return t.without(t.axis(0));
      case Layout::kWeightGathered:
        return t.without(g_.gathered);
    }
    return t;
  }

  // Heads (and KV heads) split over the stationary tensor chips (2D: over
  // the axes after the first; a micro-batch too small for the first axis
  // also splits them over it, batch_rules). FFN widths split over the
  // tensor chips (2D: all of them, weight-gathered: the stationary ones).
  // Every layout stores d_model and the vocabulary split over the tensor
  // chips.
  void tensor_rules() {
    const AxisGroup& t = g_.tensor;
    if (!t.valid || t.chips <= 1 || !g_.gathered.valid)
      return;
    const AxisGroup heads_over = stationary();
    const char* why =
        layout() == Layout::k2D
            ? " (2D weight-stationary splits heads over the tensor axes after the first)"
        : layout() == Layout::kWeightGathered
            ? " (weight-gathered layouts split heads over the tensor axes not gathered over)"
            : "";
    check_heads(heads_over, why);
    width(model_("d_model"), "d_model", m_.d_model(), t, "");
    const AxisGroup& widths = layout() == Layout::kWeightGathered ? heads_over : t;
    if (m_.ffn_dim() > 0)
      width(model_("ffn_dim"), "ffn_dim", m_.ffn_dim(), widths, "");
    width(model_("vocab"), "vocab", m_.vocab(), t,
          " (the embedding and the LM head are split over them)");
    // Expert axes never share a tensor axis, so each expert is split over the
    // tensor axes as a dense FFN is.
    if (m_.has_moe() && m_.moe().expert_ffn_dim() > 0)
      width(model_("moe")("expert_ffn_dim"), "expert_ffn_dim", m_.moe().expert_ffn_dim(), widths,
            "");
  }

  void check_heads(const AxisGroup& heads_over, const std::string& why) {
    if (heads_over.chips <= 1)
      return;
    // Padded heads split by construction (config/head_padding.h).
    if (s_.pad_heads()) {
      check_padded_count(heads_over.chips);
      return;
    }
    const std::string pad = padding_hint(heads_over.chips);
    if (m_.heads() > 0 && m_.heads() % heads_over.chips != 0) {
      issues_.add(model_("heads"), plural(m_.heads(), "head") + " do not divide evenly over " +
                                       heads_over.label() + why + pad);
    }
    check_kv_heads(heads_over, why.c_str(), pad);
  }

  // KV heads split over the chips that split heads, or, when there are fewer
  // KV heads than those chips, each KV head is held by chips / kv_heads of
  // them: both need one count to divide the other.
  void check_kv_heads(const AxisGroup& over, const char* why, const std::string& pad) {
    const uint64_t kv = m_.kv_heads();
    if (kv == 0)
      return;
    if (kv >= over.chips && kv % over.chips != 0) {
      issues_.add(model_("kv_heads"),
                  plural(kv, "KV head") + " do not divide evenly over " + over.label() + why + pad);
    } else if (kv < over.chips && over.chips % kv != 0) {
      issues_.add(model_("kv_heads"),
                  plural(kv, "KV head") + " cannot be replicated evenly over " + over.label() +
                      why + ": with fewer KV heads than chips each KV head is replicated, which " +
                      "needs " + str(over.chips) + " to be a multiple of " + str(kv) + pad);
    }
  }

  // Padding multiplies the heads at most by about (chips + kv_heads) /
  // kv_heads; the padded count must still be one the lowering can hold.
  void check_padded_count(uint64_t chips) {
    const uint64_t h = m_.heads();
    const uint64_t kv = m_.kv_heads();
    if (h == 0 || kv == 0 || h % kv != 0)
      return;
    const PaddedHeads p = padded_heads(h, kv, chips);
    if (p.heads > kMaxCount) {
      issues_.add(FieldPath()("sharding")("pad_heads"), "pads " + plural(h, "head") + " to " +
                                                            str(p.heads) + " over " + str(chips) +
                                                            " chips, more than " + str(kMaxCount));
    }
  }

  // "; set sharding.pad_heads: true to pad to 64 heads (33% more attention
  // work)": what padding over `chips` would give, for a shape error on the
  // heads. Empty when the heads do not group over the KV heads (reported by
  // the model rules) or already split. The percentage is the growth in query
  // heads, which the attention and its Q and output projections scale with.
  std::string padding_hint(uint64_t chips) const {
    const uint64_t h = m_.heads();
    const uint64_t kv = m_.kv_heads();
    if (h == 0 || kv == 0 || h % kv != 0)
      return "";
    const PaddedHeads p = padded_heads(h, kv, chips);
    if (p.heads == h && p.kv_heads == kv)
      return "";
    std::string to = plural(p.heads, "head");
    if (p.kv_heads != kv)
      to += " over " + plural(p.kv_heads, "KV head");
    const uint64_t percent = (200 * (p.heads - h) + h) / (2 * h);  // rounded
    const std::string more = percent == 0 ? "under 1%" : str(percent) + "%";
    return "; set sharding.pad_heads: true to pad to " + to + " (costs " + more +
           " more attention work)";
  }

  void width(const FieldPath& path, const char* name, uint64_t value, const AxisGroup& over,
             const char* why) {
    if (value > 0 && value % over.chips != 0) {
      issues_.add(path, std::string(name) + " " + str(value) + " does not divide evenly over " +
                            over.label() + why);
    }
  }

  void pipeline_rule() {
    const AxisGroup& p = g_.pipeline;
    if (p.valid && p.chips > 1 && m_.layers() > 0 && m_.layers() % p.chips != 0) {
      issues_.add(model_("layers"), plural(m_.layers(), "layer") +
                                        " do not divide evenly over the " + str(p.chips) +
                                        " stages of pipeline axis \"" + s_.pipeline_axis() + "\"");
    }
  }

  // The batch splits over the replicas, each replica's share into
  // micro-batches, and each micro-batch as the layout splits it.
  void batch_rules() {
    const AxisGroup& d = g_.data;
    const uint64_t batch = sc_.batch();
    if (!d.valid || batch == 0)
      return;
    if (batch % d.chips != 0) {
      issues_.add(scenario_("batch"), plural(batch, "sequence") +
                                          " do not divide evenly over the " + str(d.chips) +
                                          " replicas of data axes [" + join(d.names) + "]");
      return;
    }
    const uint64_t per_replica = batch / d.chips;
    const std::string replica_share = "the " + plural(per_replica, "sequence") +
                                      (d.chips > 1 ? " of each replica" : " of the batch");
    uint64_t micro_batches = std::max<uint64_t>(1, sc_.micro_batches());
    if (s_.pipeline_axis().empty())
      micro_batches = 1;  // more is reported by the sharding rules
    if (micro_batches > per_replica) {
      issues_.add(scenario_("micro_batches"),
                  "must be <= " + replica_share + ", got " + str(micro_batches));
      return;
    }
    if (per_replica % micro_batches != 0) {
      issues_.add(scenario_("micro_batches"), replica_share + " do not split into " +
                                                  str(micro_batches) + " equal micro-batches");
      return;
    }
    unit_ = micro_batches > 1 ? "micro-batch" : d.chips > 1 ? "replica" : "batch";
    uint64_t sequences = per_replica / micro_batches;
    const uint64_t chunks = sc_.prefill_chunks();
    if (chunks > 1 && sc_.phase() == PREFILL && s_.pipeline_axis().empty()) {
      if (sequences % chunks != 0) {
        issues_.add(scenario_("prefill_chunks"),
                    replica_share + " do not split into " + str(chunks) + " equal chunks");
        return;
      }
      unit_ = "chunk";
      sequences /= chunks;
    }
    if (check_sequences_over_tensor_axes(sequences))
      check_tokens(sequences);
  }

  // Layouts that split a micro-batch's sequences over tensor chips: the
  // weight-gathered layouts over the gathered axes, the KV cache by batch
  // over the stationary ones (2D: over every tensor axis). A 2D micro-batch
  // with too few sequences for the first axis has its heads split over every
  // tensor axis instead. True when they divide.
  bool check_sequences_over_tensor_axes(uint64_t sequences) {
    const AxisGroup& t = g_.tensor;
    if (!t.valid || !g_.gathered.valid || t.chips <= 1)
      return true;
    if (layout() == Layout::kWeightGathered) {
      if (sequences % g_.gathered.chips != 0) {
        add_batch_issue("weight-gathered layouts split the activations by sequence", sequences,
                        g_.gathered);
        return false;
      }
      sequences /= g_.gathered.chips;
    }
    const bool two_d = layout() == Layout::k2D;
    if (s_.kv_layout() == KV_BY_BATCH) {
      const AxisGroup over = two_d ? t : stationary();
      if (sequences % over.chips != 0) {
        add_batch_issue("sharding.kv_layout KV_BY_BATCH splits the KV cache by sequence", sequences,
                        over);
        return false;
      }
    } else if (two_d && sequences % t.sizes[0] != 0 &&
               (s_.pad_heads() || m_.heads() % stationary().chips == 0)) {
      check_heads(t,
                  " (2D weight-stationary attention splits heads over every tensor axis when a " +
                      unit_ + "'s " + plural(sequences, "sequence") +
                      " do not divide over the first; use a multiple of " + str(t.sizes[0]) +
                      " sequences to split them over it instead)");
    }
    return true;
  }

  void add_batch_issue(const std::string& what, uint64_t sequences, const AxisGroup& over) {
    issues_.add(scenario_("batch"), what + " over " + over.label() + ": each " + unit_ + "'s " +
                                        plural(sequences, "sequence") +
                                        " do not divide evenly (use a multiple of " +
                                        str(over.chips) + " sequences per " + unit_ + ")");
  }

  // Token counts that are split: the reduce-scatter of 1D tensor parallelism
  // splits a micro-batch's tokens over the tensor chips, and expert axes that
  // are not data axes split the tokens their chips share.
  void check_tokens(uint64_t sequences) {
    const uint64_t per_token = sc_.phase() == PREFILL ? sc_.prompt_len() : 1;
    const AxisGroup& t = g_.tensor;
    if (per_token == 0 || !t.valid)
      return;
    const uint64_t on_chip =
        layout() == Layout::kWeightGathered ? sequences / g_.gathered.chips : sequences;
    const AxisGroup rs = stationary();
    if (layout() != Layout::k2D && rs.chips > 1 &&
        s_.tensor_collective() == TENSOR_REDUCE_SCATTER_ALL_GATHER &&
        (on_chip * per_token) % rs.chips != 0) {
      issues_.add(scenario_("batch"), "TENSOR_REDUCE_SCATTER_ALL_GATHER splits each " + unit_ +
                                          "'s " + plural(on_chip * per_token, "token") +
                                          " per chip over " + rs.label() +
                                          ", and they do not divide evenly");
      return;
    }
    const AxisGroup shared = g_.expert.without(g_.data);
    if (!m_.has_moe() || !g_.expert.valid || !g_.data.valid || shared.chips <= 1)
      return;
    if ((on_chip * per_token) % shared.chips != 0) {
      issues_.add(scenario_("batch"),
                  "each " + unit_ + "'s " + plural(on_chip * per_token, "token") +
                      " per chip do not divide evenly over " + shared.label() +
                      ": along expert axes that are not data axes the chips hold the same tokens "
                      "and split them for routing");
    }
  }

  void expert_rule() {
    const AxisGroup& e = g_.expert;
    if (!e.valid || e.chips <= 1 || !m_.has_moe() || m_.moe().experts() == 0)
      return;
    if (m_.moe().experts() % e.chips != 0) {
      issues_.add(model_("moe")("experts"),
                  plural(m_.moe().experts(), "expert") + " do not divide evenly over " + e.label());
    }
  }

  const Model& m_;
  const Scenario& sc_;
  const Sharding& s_;
  const ShardingGroups& g_;
  IssueList& issues_;
  // Multi-head latent attention is lowered for 1D weight-stationary tensor
  // parallelism (or none); its prefill materialises each head's K and V from
  // the latent every tensor chip holds, so it keeps the cache by heads
  // (src/workload/README.md, "Multi-head latent attention").
  void mla_rules() {
    if (!m_.has_mla())
      return;
    const FieldPath sharding = FieldPath()("sharding");
    if (layout() == Layout::kWeightGathered) {
      issues_.add(sharding(s_.weight_gathered() ? "weight_gathered" : "weight_gathered_axes"),
                  "model.mla is lowered for weight-stationary tensor parallelism only; drop "
                  "weight_gathered");
    } else if (s_.tensor_axes_size() > 1) {
      issues_.add(sharding("tensor_axes"),
                  "model.mla is lowered for one tensor axis (1D) or none, got " +
                      str(s_.tensor_axes_size()));
    }
    if (sc_.phase() == PREFILL && s_.kv_layout() == KV_BY_BATCH) {
      issues_.add(sharding("kv_layout"),
                  "a model.mla prefill materialises each head's keys and values from the latent "
                  "cache every tensor chip holds, by heads; use KV_BY_HEADS (KV_BY_BATCH is for "
                  "its decode)");
    }
  }

  const FieldPath model_ = FieldPath()("model");
  const FieldPath scenario_ = FieldPath()("scenario");
  std::string unit_ = "batch";  // what a micro-batch is called in messages
};

}  // namespace

void validate_shapes(const Workload& workload, const ShardingGroups& groups, IssueList& issues) {
  if (workload.scenario().phase() != GENERATION) {
    ShapeValidator(workload, groups, issues).run();
    return;
  }
  // A generation runs a prefill step and decode steps with one sharding:
  // each must lower. A rule both break is reported once.
  Workload prefill = workload;
  prefill.mutable_scenario()->set_phase(PREFILL);
  prefill.mutable_scenario()->set_output_len(0);
  ShapeValidator(prefill, groups, issues).run();
  Workload decode = prefill;
  Scenario& d = *decode.mutable_scenario();
  d.set_phase(DECODE);
  d.set_context_len(d.context_len() + d.prompt_len());
  d.set_prompt_len(0);
  d.set_prefill_chunks(0);
  IssueList decode_issues;
  ShapeValidator(decode, groups, decode_issues).run();
  for (const FieldIssue& issue : decode_issues.issues()) {
    const bool reported =
        std::any_of(issues.issues().begin(), issues.issues().end(), [&](const FieldIssue& i) {
          return i.path.to_string() == issue.path.to_string() && i.message == issue.message;
        });
    if (!reported)
      issues.add(issue.path, issue.message + " (in the generation's decode steps)");
  }
}

}  // namespace podsim::config::internal

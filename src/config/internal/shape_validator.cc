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
    if (s_.weight_gathered())
      return Layout::kWeightGathered;
    return g_.tensor.names.size() == 2 ? Layout::k2D : Layout::k1D;
  }

  // Weight-stationary layouts split the heads (1D: over all tensor chips; 2D:
  // over the second tensor axis, d_model over the first) and the FFN widths
  // over the tensor chips. Every layout stores d_model and the vocabulary
  // split over the tensor chips; weight-gathered ones compute whole heads and
  // widths on each chip.
  void tensor_rules() {
    const AxisGroup& t = g_.tensor;
    if (!t.valid || t.chips <= 1)
      return;
    const bool stationary = layout() != Layout::kWeightGathered;
    if (stationary) {
      const bool two_d = layout() == Layout::k2D;
      const AxisGroup heads_over = two_d ? t.axis(1) : t;
      const char* why =
          two_d ? " (2D weight-stationary splits heads over the second tensor axis)" : "";
      // Padded heads split by construction (config/head_padding.h).
      if (s_.pad_heads()) {
        check_padded_count(heads_over.chips);
      } else {
        const std::string pad = padding_hint(heads_over.chips);
        if (m_.heads() > 0 && m_.heads() % heads_over.chips != 0) {
          issues_.add(model_("heads"), plural(m_.heads(), "head") + " do not divide evenly over " +
                                           heads_over.label() + why + pad);
        }
        check_kv_heads(heads_over, why, pad);
      }
    }
    width(model_("d_model"), "d_model", m_.d_model(), "");
    if (stationary && m_.ffn_dim() > 0)
      width(model_("ffn_dim"), "ffn_dim", m_.ffn_dim(), "");
    width(model_("vocab"), "vocab", m_.vocab(),
          " (the embedding and the LM head are split over them)");
    // Expert axes never share a tensor axis, so each expert is split over the
    // tensor axes as a dense FFN is.
    if (stationary && m_.has_moe() && m_.moe().expert_ffn_dim() > 0)
      width(model_("moe")("expert_ffn_dim"), "expert_ffn_dim", m_.moe().expert_ffn_dim(), "");
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

  void width(const FieldPath& path, const char* name, uint64_t value, const char* why) {
    if (value > 0 && value % g_.tensor.chips != 0) {
      issues_.add(path, std::string(name) + " " + str(value) + " does not divide evenly over " +
                            g_.tensor.label() + why);
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
  // weight-gathered layout and the KV cache by batch over all of them, 2D
  // attention over the first tensor axis. True when they divide.
  bool check_sequences_over_tensor_axes(uint64_t sequences) {
    const AxisGroup& t = g_.tensor;
    if (!t.valid || t.chips <= 1)
      return true;
    if (layout() == Layout::k2D && sequences % t.sizes[0] != 0) {
      add_batch_issue("2D weight-stationary attention splits the sequences", sequences, t.axis(0));
      return false;
    }
    const char* what =
        layout() == Layout::kWeightGathered ? "sharding.weight_gathered splits the activations"
        : s_.kv_layout() == KV_BY_BATCH     ? "sharding.kv_layout KV_BY_BATCH splits the KV cache"
                                            : nullptr;
    if (what != nullptr && sequences % t.chips != 0) {
      add_batch_issue(std::string(what) + " by sequence", sequences, t);
      return false;
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
    if (layout() == Layout::k1D && t.chips > 1 &&
        s_.tensor_collective() == TENSOR_REDUCE_SCATTER_ALL_GATHER &&
        (sequences * per_token) % t.chips != 0) {
      issues_.add(scenario_("batch"), "TENSOR_REDUCE_SCATTER_ALL_GATHER splits each " + unit_ +
                                          "'s " + plural(sequences * per_token, "token") +
                                          " over " + t.label() + ", and they do not divide evenly");
      return;
    }
    const AxisGroup shared = g_.expert.without(g_.data);
    if (!m_.has_moe() || !g_.expert.valid || !g_.data.valid || shared.chips <= 1)
      return;
    const uint64_t on_chip = layout() == Layout::kWeightGathered ? sequences / t.chips : sequences;
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
    if (s_.weight_gathered()) {
      issues_.add(sharding("weight_gathered"),
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
  ShapeValidator(workload, groups, issues).run();
}

}  // namespace podsim::config::internal

#include "config/internal/model_validator.h"

#include <cstdio>
#include <string>

#include "config/internal/enum_values.h"
#include "podsim/workload.pb.h"

namespace podsim::config::internal {
namespace {

// value in [1, max], one issue otherwise.
bool in_range(const FieldPath& path, uint64_t value, uint64_t max, IssueList& issues) {
  return issues.at_least(path, value, 1) && issues.at_most(path, value, max, "");
}

void validate_moe(const Moe& moe, uint32_t layers, const FieldPath& path, IssueList& issues) {
  if (moe.experts() == 0) {
    issues.add(path("experts"),
               "must be >= 1 when moe is given (leave moe out for a dense model), got 0");
  } else {
    issues.at_most(path("experts"), moe.experts(), kMaxCount, "");
  }
  if (moe.experts_per_token() == 0) {
    issues.add(path("experts_per_token"), "must be >= 1: each token goes to at least one expert");
  } else if (moe.experts() > 0 && moe.experts_per_token() > moe.experts()) {
    issues.add(path("experts_per_token"), "must be <= experts (" + std::to_string(moe.experts()) +
                                              "), got " + std::to_string(moe.experts_per_token()));
  }
  issues.at_most(path("shared_experts"), moe.shared_experts(), kMaxCount, "");
  in_range(path("expert_ffn_dim"), moe.expert_ffn_dim(), kMaxWidth, issues);
  if (layers > 0 && moe.first_dense_layers() >= layers) {
    issues.add(path("first_dense_layers"), "must be < layers (" + std::to_string(layers) +
                                               "), got " +
                                               std::to_string(moe.first_dense_layers()) +
                                               ": with every layer dense first, no layer is MoE");
  }
  issues.at_most(path("moe_layer_interval"), moe.moe_layer_interval(), kMaxCount, "");
}

void validate_heads(const Model& model, bool heads_ok, const FieldPath& path, IssueList& issues) {
  const bool kv_ok = in_range(path("kv_heads"), model.kv_heads(), kMaxCount, issues);
  if (heads_ok && kv_ok && model.heads() % model.kv_heads() != 0) {
    issues.add(path("kv_heads"),
               plural(model.heads(), "head") + " do not split into equal groups over " +
                   plural(model.kv_heads(), "KV head") +
                   ": heads must be a multiple of kv_heads (kv_heads = heads: multi-head; 1: "
                   "multi-query; in between: grouped-query)");
  }
  in_range(path("head_dim"), model.head_dim(), kMaxCount, issues);
}

void validate_mla(const Model& model, const FieldPath& path, IssueList& issues) {
  const MultiHeadLatentAttention& mla = model.mla();
  const FieldPath p = path("mla");
  in_range(p("kv_lora_rank"), mla.kv_lora_rank(), kMaxWidth, issues);
  in_range(p("q_lora_rank"), mla.q_lora_rank(), kMaxWidth, issues);
  in_range(p("qk_nope_head_dim"), mla.qk_nope_head_dim(), kMaxCount, issues);
  in_range(p("qk_rope_head_dim"), mla.qk_rope_head_dim(), kMaxCount, issues);
  in_range(p("v_head_dim"), mla.v_head_dim(), kMaxCount, issues);
  if (model.kv_heads() != 0)
    issues.add(path("kv_heads"),
               "with mla there are no KV heads to give: every head's keys and values come from "
               "one shared latent (mla.kv_lora_rank); leave kv_heads 0, got " +
                   std::to_string(model.kv_heads()));
  if (model.head_dim() != 0)
    issues.add(path("head_dim"),
               "with mla the head shapes are mla.qk_nope_head_dim, mla.qk_rope_head_dim and "
               "mla.v_head_dim; leave head_dim 0, got " +
                   std::to_string(model.head_dim()));
  if (model.parallel_block())
    issues.add(path("parallel_block"),
               "a parallel attention+FFN block fuses the Q/K/V projection, which mla does not "
               "have (its projections go through latents); drop parallel_block, or mla");
}

}  // namespace

bool every_layer_is_moe(const Model& model) {
  return model.has_moe() && model.moe().first_dense_layers() == 0 &&
         model.moe().moe_layer_interval() <= 1;
}

void validate_model(const Model& model, const FieldPath& path, IssueList& issues) {
  if (model.name().empty())
    issues.add(path("name"), "must not be empty");
  in_range(path("layers"), model.layers(), kMaxCount, issues);
  in_range(path("d_model"), model.d_model(), kMaxWidth, issues);
  const bool heads_ok = in_range(path("heads"), model.heads(), kMaxCount, issues);
  if (model.has_mla()) {
    validate_mla(model, path, issues);
  } else {
    validate_heads(model, heads_ok, path, issues);
  }
  if (!every_layer_is_moe(model)) {
    if (model.ffn_dim() == 0) {
      issues.add(path("ffn_dim"), "must be >= 1: the model has dense FFN layers, got 0");
    } else {
      issues.at_most(path("ffn_dim"), model.ffn_dim(), kMaxWidth, "");
    }
  } else if (model.ffn_dim() != 0) {
    issues.add(path("ffn_dim"),
               "every layer is MoE (moe.first_dense_layers 0, moe.moe_layer_interval 1), so a "
               "dense FFN width would be unused: leave it 0 (the experts' width is "
               "moe.expert_ffn_dim), got " +
                   std::to_string(model.ffn_dim()));
  }
  in_range(path("vocab"), model.vocab(), kMaxWidth, issues);
  issues.at_most(path("max_context_len"), model.max_context_len(), kMaxTokens, "");
  if (model.has_moe())
    validate_moe(model.moe(), model.layers(), path("moe"), issues);
  if (model.parallel_block() && model.has_moe())
    issues.add(path("parallel_block"),
               "a parallel attention+FFN block is for dense models; this model has moe (drop "
               "parallel_block, or moe)");
  known_value(*DType_descriptor(), model.weight_dtype(), path("weight_dtype"), issues);
  known_value(*DType_descriptor(), model.activation_dtype(), path("activation_dtype"), issues);
  known_value(*DType_descriptor(), model.kv_dtype(), path("kv_dtype"), issues);
}

// Tokens in each sequence's KV cache once the scenario has run: a
// prefill's prompt after its context, a decode step's new token after its
// context, and a generation's every token but the last (which is sampled,
// never fed back). 0 when the counts are still missing.
uint64_t final_context(const Scenario& scenario) {
  const uint64_t context = scenario.context_len();
  switch (scenario.phase()) {
    case PREFILL:
      return context + scenario.prompt_len();
    case DECODE:
      return context + 1;
    case GENERATION:
      return scenario.output_len() == 0
                 ? 0
                 : context + scenario.prompt_len() + scenario.output_len() - 1;
    default:
      return 0;
  }
}

void validate_scenario(const Scenario& scenario, const FieldPath& path, IssueList& issues) {
  const bool phase_ok = set_and_known(*Phase_descriptor(), scenario.phase(), path("phase"), issues);
  in_range(path("batch"), scenario.batch(), kMaxTokens, issues);
  const bool generation = phase_ok && scenario.phase() == GENERATION;
  if (phase_ok && scenario.phase() == PREFILL && scenario.prompt_len() == 0) {
    issues.add(path("prompt_len"), "must be >= 1: PREFILL processes each sequence's prompt, got 0");
  }
  if (generation && scenario.prompt_len() == 0) {
    issues.add(path("prompt_len"),
               "must be >= 1: GENERATION starts with the prefill of each sequence's prompt, "
               "whose LM head samples the first output token, got 0");
  }
  if (generation && scenario.output_len() == 0) {
    issues.add(path("output_len"),
               "must be >= 1: GENERATION generates output_len tokens per sequence (1: the "
               "prefill's token alone), got 0");
  }
  if (phase_ok && !generation && scenario.output_len() != 0) {
    issues.add(path("output_len"),
               "only GENERATION generates several tokens; a " +
                   std::string(scenario.phase() == PREFILL ? "PREFILL" : "DECODE") +
                   " scenario is one step and would ignore it (use phase: GENERATION), got " +
                   std::to_string(scenario.output_len()));
  }
  if (phase_ok && scenario.phase() == DECODE) {
    if (scenario.context_len() == 0) {
      issues.add(path("context_len"),
                 "must be >= 1: DECODE reads the KV cache of the tokens before the one it "
                 "produces, got 0");
    }
    if (scenario.prompt_len() != 0) {
      issues.add(path("prompt_len"),
                 "only PREFILL processes a prompt; DECODE would ignore it (the tokens already in "
                 "the cache are context_len), got " +
                     std::to_string(scenario.prompt_len()));
    }
    if (scenario.prefill_chunks() > 1) {
      issues.add(path("prefill_chunks"),
                 "only PREFILL runs in chunks; a DECODE step's activations are one token per "
                 "sequence, got " +
                     std::to_string(scenario.prefill_chunks()));
    }
  }
  const uint64_t tokens = uint64_t{scenario.prompt_len()} + scenario.context_len();
  if (tokens > kMaxTokens) {
    issues.add(path("context_len"),
               "prompt_len + context_len must be <= " + std::to_string(kMaxTokens) +
                   " tokens per sequence, got " + std::to_string(tokens));
  } else if (generation && final_context(scenario) > kMaxTokens) {
    issues.add(path("output_len"),
               "context_len + prompt_len + output_len - 1 (the tokens in the KV cache after the "
               "last decode step) must be <= " +
                   std::to_string(kMaxTokens) + " per sequence, got " +
                   std::to_string(final_context(scenario)));
  }
}

void validate_context_limit(const Model& model, const Scenario& scenario, const FieldPath& path,
                            IssueList& issues) {
  const uint64_t limit = model.max_context_len();
  const uint64_t tokens = final_context(scenario);
  if (limit == 0 || tokens <= limit)
    return;
  const uint64_t before = tokens - (scenario.phase() == GENERATION ? scenario.output_len() - 1
                                    : scenario.phase() == PREFILL  ? scenario.prompt_len()
                                                                   : 1);
  switch (scenario.phase()) {
    case GENERATION:
      issues.add(path("output_len"),
                 "each sequence reaches " + std::to_string(tokens) +
                     " tokens (context_len + prompt_len + output_len - 1), past the model's "
                     "max_context_len of " +
                     std::to_string(limit) +
                     (before <= limit ? "; at most " + std::to_string(limit - before + 1) +
                                            " output tokens fit after this prompt"
                                      : "; the prompt alone already does not fit"));
      return;
    case PREFILL:
      issues.add(path("prompt_len"), "each sequence reaches " + std::to_string(tokens) +
                                         " tokens (context_len + prompt_len), past the model's "
                                         "max_context_len of " +
                                         std::to_string(limit));
      return;
    default:
      issues.add(path("context_len"), "the new token is at position " + std::to_string(tokens) +
                                          " of its sequence, past the model's max_context_len "
                                          "of " +
                                          std::to_string(limit));
  }
}

void validate_cache_size(const Model& model, const Scenario& scenario, const FieldPath& path,
                         IssueList& issues) {
  // In long double: the product of four 24- and 32-bit fields can pass 2^64.
  const long double per_token =
      model.has_mla()
          ? static_cast<long double>(model.mla().kv_lora_rank()) + model.mla().qk_rope_head_dim()
          : 2.0L * model.kv_heads() * model.head_dim();
  const long double elements = static_cast<long double>(scenario.batch()) *
                               final_context(scenario) * model.layers() * per_token;
  if (elements <= static_cast<long double>(kMaxCacheElements))
    return;
  char count[32];
  std::snprintf(count, sizeof count, "%.4Lg", elements);
  issues.add(path("batch"),
             "the KV cache of batch x tokens per sequence x layers x cached elements per token "
             "and layer = " +
                 std::string(count) + " elements is past 2^55 (" +
                 std::to_string(kMaxCacheElements) +
                 "): more than any pod holds, and past podsim's 64-bit byte counts; lower batch "
                 "or context_len");
}

}  // namespace podsim::config::internal

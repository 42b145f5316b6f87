#include "config/serving_candidate.h"

#include <google/protobuf/text_format.h>

#include "config/internal/input_parser.h"
#include "config/internal/issue_list.h"
#include "config/internal/model_validator.h"
#include "config/internal/serving_converter.h"
#include "podsim/workload.pb.h"

namespace podsim::config {
namespace {

using internal::FieldPath;

Scenario to_message(const ScenarioSpec& spec) {
  Scenario s;
  s.set_phase(spec.is_generation() ? GENERATION : spec.phase == Phase::kPrefill ? PREFILL : DECODE);
  s.set_output_len(spec.output_len);
  s.set_batch(spec.batch);
  s.set_prompt_len(spec.prompt_len);
  s.set_context_len(spec.context_len);
  if (spec.micro_batches > 1)
    s.set_micro_batches(spec.micro_batches);
  s.set_prefill_chunks(spec.prefill_chunks);
  return s;
}

Sharding to_message(const ShardingSpec& spec) {
  Sharding s;
  for (const std::string& a : spec.tensor_axes)
    s.add_tensor_axes(a);
  if (spec.tensor_collective == TensorCollective::kReduceScatterAllGather)
    s.set_tensor_collective(TENSOR_REDUCE_SCATTER_ALL_GATHER);
  s.set_weight_gathered(spec.weight_gathered);
  for (const std::string& a : spec.weight_gathered_axes)
    s.add_weight_gathered_axes(a);
  if (spec.kv_layout == KvLayout::kByBatch)
    s.set_kv_layout(KV_BY_BATCH);
  for (const std::string& a : spec.expert_axes)
    s.add_expert_axes(a);
  for (const std::string& a : spec.data_axes)
    s.add_data_axes(a);
  s.set_pipeline_axis(spec.pipeline_axis);
  if (!spec.overlap_collectives)
    s.set_overlap_collectives(false);
  if (spec.pad_heads)
    s.set_pad_heads(true);
  if (spec.collective_matmul == CollectiveMatmul::kOn)
    s.set_collective_matmul(COLLECTIVE_MATMUL_ON);
  else if (spec.collective_matmul == CollectiveMatmul::kAuto)
    s.set_collective_matmul(COLLECTIVE_MATMUL_AUTO);
  switch (spec.attention_mapping) {
    case AttentionMapping::kCacheStationary:
      s.set_attention_mapping(ATTENTION_MAPPING_CACHE_STATIONARY);
      break;
    case AttentionMapping::kQueriesStationary:
      s.set_attention_mapping(ATTENTION_MAPPING_QUERIES_STATIONARY);
      break;
    case AttentionMapping::kVectorUnit:
      s.set_attention_mapping(ATTENTION_MAPPING_VECTOR_UNIT);
      break;
    case AttentionMapping::kAuto:
      break;
  }
  return s;
}

std::string to_text(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::TextFormat::PrintToString(m, &out);
  return out;
}

}  // namespace

ServingModel ServingModel::load(const std::filesystem::path& path, const Overrides& overrides) {
  Workload message;
  internal::ParsedInput parsed = internal::ParsedInput::parse(
      internal::format_of(path), read_file_to_string(path), path.string(), message);
  parsed.apply_overrides(overrides, "workload", message);
  internal::IssueList issues;
  if (!message.has_model()) {
    issues.add(FieldPath()("model"),
               "the file has no serving model (a model is what the search shards; give a "
               "serving workload such as workloads/llama3-8b-decode-v5e.textproto)");
  } else {
    internal::validate_model(message.model(), FieldPath()("model"), issues);
  }
  parsed.throw_if_invalid(issues.issues());

  ServingModel out;
  out.source_file_ = path.string();
  out.model_text_ = to_text(message.model());
  Workload model_only;
  *model_only.mutable_model() = message.model();
  out.spec_ = internal::to_serving_spec(model_only).model;
  return out;
}

std::string ServingModel::workload_text(const ServingCandidate& candidate,
                                        std::string_view topology_comment) const {
  Workload w;
  w.set_name(candidate.name);
  w.set_description(candidate.description);
  for (const CandidateAxis& a : candidate.mesh) {
    MeshAxis* axis = w.mutable_mesh()->add_axes();
    axis->set_name(a.name);
    for (const std::string& d : a.dims)
      axis->add_dims(d);
  }
  // The model was read from a file and printed by protobuf: it parses back.
  if (!google::protobuf::TextFormat::ParseFromString(model_text_, w.mutable_model()))
    throw std::logic_error("ServingModel: the stored model text does not parse");
  *w.mutable_scenario() = to_message(candidate.scenario);
  *w.mutable_sharding() = to_message(candidate.sharding);

  std::string out = "# proto-file: podsim/workload.proto\n# proto-message: podsim.Workload\n";
  if (!topology_comment.empty())
    out += "# topology: " + std::string(topology_comment) + "\n";
  out += "# model from: " + source_file_ + "\n\n";
  return out + to_text(w);
}

}  // namespace podsim::config

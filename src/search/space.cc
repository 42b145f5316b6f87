#include "search/space.h"

#include <algorithm>
#include <limits>

namespace podsim::search {
namespace {

// A role per dimension; the order is the order of the mesh's axes.
enum Role : int { kTensor, kTensor2, kExpert, kExpertData, kData, kPipeline, kRoles };

constexpr const char* kAxisName[kRoles] = {"tensor",      "tensor2", "expert",
                                           "expert_data", "data",    "pipeline"};

constexpr const char* kSliceName = "slice";

struct Dim {
  std::string name;
  uint32_t size = 1;
  bool is_slice = false;
};

// Dimensions that need a role: torus dimensions of size > 1, then the slices.
std::vector<Dim> dims_to_cover(const config::PodSpec& pod) {
  std::vector<Dim> out;
  for (const auto& d : pod.torus.dims) {
    if (d.size > 1)
      out.push_back({d.name, d.size, false});
  }
  if (pod.slices > 1)
    out.push_back({kSliceName, pod.slices, true});
  return out;
}

bool allowed(const Dim& d, Role r, bool moe) {
  if (d.is_slice)
    return r == kData || r == kPipeline;
  if (r == kExpert || r == kExpertData)
    return moe;
  return true;
}

// The mesh and the axis roles of one assignment of roles to dimensions;
// false when the assignment is not a sharding (a second tensor axis without
// a first, two pipeline axes).
struct Layout {
  std::vector<config::CandidateAxis> mesh;
  std::vector<std::string> tensor, expert, data;
  std::string pipeline;
  uint64_t data_chips = 1;
  uint64_t pipeline_stages = 1;
};

bool build_layout(const std::vector<Dim>& dims, const std::vector<Role>& roles, Layout& out) {
  out = Layout{};
  for (int r = 0; r < kRoles; ++r) {
    config::CandidateAxis axis{kAxisName[r], {}};
    uint64_t chips = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (roles[i] == r && !dims[i].is_slice) {
        axis.dims.push_back(dims[i].name);
        chips *= dims[i].size;
      }
    }
    if (axis.dims.empty())
      continue;
    out.mesh.push_back(axis);
    switch (r) {
      case kTensor:
      case kTensor2:
        out.tensor.push_back(axis.name);
        break;
      case kExpert:
        out.expert.push_back(axis.name);
        break;
      case kExpertData:
        out.expert.push_back(axis.name);
        out.data.push_back(axis.name);
        out.data_chips *= chips;
        break;
      case kData:
        out.data.push_back(axis.name);
        out.data_chips *= chips;
        break;
      case kPipeline:
        out.pipeline = axis.name;
        out.pipeline_stages = chips;
        break;
      default:
        break;
    }
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].is_slice)
      continue;
    const bool pipe = roles[i] == kPipeline;
    config::CandidateAxis axis{pipe ? "dcn_pipeline" : "dcn_data", {kSliceName}};
    out.mesh.push_back(axis);
    if (pipe) {
      if (!out.pipeline.empty())
        return false;
      out.pipeline = axis.name;
      out.pipeline_stages = dims[i].size;
    } else {
      out.data.push_back(axis.name);
      out.data_chips *= dims[i].size;
    }
  }
  const bool first = std::find(roles.begin(), roles.end(), kTensor) != roles.end();
  const bool second = std::find(roles.begin(), roles.end(), kTensor2) != roles.end();
  return first || !second;
}

// The tensor layouts of a role assignment.
std::vector<config::ShardingSpec> layouts(const Layout& l) {
  config::ShardingSpec base;
  base.tensor_axes = l.tensor;
  base.expert_axes = l.expert;
  base.data_axes = l.data;
  base.pipeline_axis = l.pipeline;
  if (l.tensor.empty())
    return {base};
  std::vector<config::ShardingSpec> out;
  for (const auto collective :
       {config::TensorCollective::kAllReduce, config::TensorCollective::kReduceScatterAllGather}) {
    // Reduce-scatter + all-gather is a 1D schedule; 2D has its own.
    if (collective == config::TensorCollective::kReduceScatterAllGather && l.tensor.size() == 2)
      continue;
    for (const auto kv : {config::KvLayout::kByHeads, config::KvLayout::kByBatch}) {
      config::ShardingSpec s = base;
      s.tensor_collective = collective;
      s.kv_layout = kv;
      out.push_back(s);
    }
  }
  // Weight-gathered over one tensor axis (over several dimensions when the
  // role covers several); kv_layout and the collective do not apply to it.
  if (l.tensor.size() == 1) {
    config::ShardingSpec s = base;
    s.weight_gathered = true;
    out.push_back(s);
  }
  return out;
}

std::vector<uint32_t> micro_batch_counts(const Layout& l, uint32_t batch,
                                         const SpaceOptions& options) {
  if (l.pipeline.empty() || l.pipeline_stages <= 1 || batch % l.data_chips != 0)
    return {1};
  const uint64_t per_replica = batch / l.data_chips;
  const uint64_t limit = std::min<uint64_t>(
      per_replica, uint64_t{options.micro_batches_per_stage} * l.pipeline_stages);
  std::vector<uint32_t> out;
  for (uint64_t m = 1; m <= limit; ++m) {
    if (per_replica % m == 0)
      out.push_back(static_cast<uint32_t>(m));
  }
  return out;
}

std::string phase_name(config::Phase p) {
  return p == config::Phase::kPrefill ? "prefill" : "decode";
}

std::string describe(const config::ShardingSpec& s) {
  std::string out;
  if (s.tensor_axes.empty()) {
    out = "no tensor parallelism";
  } else if (s.weight_gathered) {
    out = "weight-gathered";
  } else {
    out = s.tensor_axes.size() == 2 ? "2D weight-stationary" : "1D tensor parallel";
    if (s.tensor_collective == config::TensorCollective::kReduceScatterAllGather)
      out += " (reduce-scatter + all-gather)";
    out += s.kv_layout == config::KvLayout::kByBatch ? ", KV by batch" : ", KV by heads";
  }
  if (!s.expert_axes.empty())
    out += ", experts";
  if (!s.data_axes.empty())
    out += ", replicas";
  if (!s.pipeline_axis.empty())
    out += ", pipeline";
  return out;
}

}  // namespace

std::vector<uint32_t> default_batches(const config::PodSpec& slice, const config::ModelSpec& model,
                                      const SpaceOptions& options) {
  const double q = options.phase == config::Phase::kPrefill ? options.prompt_len : 1;
  const double kv_per_sequence =
      static_cast<double>(model.layers) * (static_cast<double>(options.context_len) + q) *
      static_cast<double>(model.kv_cache_width()) * config::bytes_per_element(model.kv_dtype);
  const double hbm =
      static_cast<double>(slice.chip_count()) * static_cast<double>(slice.chip.hbm_bytes);
  constexpr uint32_t kMaxBatch = 1u << 24;
  std::vector<uint32_t> out{1};
  for (uint64_t b = 2; b <= kMaxBatch && static_cast<double>(b) * kv_per_sequence <= hbm; b *= 2)
    out.push_back(static_cast<uint32_t>(b));
  return out;
}

std::vector<Candidate> enumerate(const config::PodSpec& slice, size_t slice_index,
                                 const config::ModelSpec& model, const SpaceOptions& options) {
  const std::vector<Dim> dims = dims_to_cover(slice);
  const bool moe = model.moe.has_value();
  const std::vector<uint32_t> batches =
      options.batches.empty() ? default_batches(slice, model, options) : options.batches;
  const std::string prefix = model.name + "-" + phase_name(options.phase) + "-" + slice.name + "-";

  std::vector<Candidate> out;
  // Odometer over roles, the first dimension fastest.
  std::vector<Role> roles(dims.size(), kTensor);
  bool done = false;
  while (!done) {
    bool ok = true;
    for (size_t i = 0; i < dims.size(); ++i)
      ok = ok && allowed(dims[i], roles[i], moe);
    Layout layout;
    if (ok && build_layout(dims, roles, layout)) {
      for (const config::ShardingSpec& sharding : layouts(layout)) {
        for (const uint32_t batch : batches) {
          for (const uint32_t mb : micro_batch_counts(layout, batch, options)) {
            Candidate c;
            c.slice = slice_index;
            c.workload.name = prefix + std::to_string(out.size());
            c.workload.description = describe(sharding) + ", batch " + std::to_string(batch) +
                                     (mb > 1 ? ", " + std::to_string(mb) + " micro-batches" : "");
            c.workload.mesh = layout.mesh;
            if (c.workload.mesh.empty()) {
              // A one-chip slice: one axis of one chip, no roles needed.
              c.workload.mesh.push_back({"data", {slice.torus.dims.at(0).name}});
            }
            c.workload.sharding = sharding;
            c.workload.scenario.phase = options.phase;
            c.workload.scenario.batch = batch;
            c.workload.scenario.context_len = options.context_len;
            c.workload.scenario.prompt_len =
                options.phase == config::Phase::kPrefill ? options.prompt_len : 0;
            c.workload.scenario.micro_batches = mb;
            out.push_back(std::move(c));
          }
        }
      }
    }
    size_t i = 0;
    for (; i < roles.size(); ++i) {
      if (roles[i] + 1 < kRoles) {
        roles[i] = static_cast<Role>(roles[i] + 1);
        break;
      }
      roles[i] = kTensor;
    }
    done = i == roles.size();
  }
  return out;
}

std::vector<std::string> families(const config::ServingCandidate& c) {
  const config::ShardingSpec& s = c.sharding;
  std::vector<std::string> out;
  const auto dims_of = [&](const std::string& axis) -> size_t {
    for (const auto& a : c.mesh) {
      if (a.name == axis)
        return a.dims.size();
    }
    return 0;
  };
  const auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  if (!s.tensor_axes.empty() && !s.weight_gathered)
    out.push_back(s.tensor_axes.size() == 2 ? "tensor-2d" : "tensor-1d");
  for (const std::string& a : s.tensor_axes) {
    if (dims_of(a) > 1) {
      out.push_back("tensor-multi-dim");
      break;
    }
  }
  if (s.tensor_collective == config::TensorCollective::kReduceScatterAllGather)
    out.push_back("reduce-scatter-all-gather");
  if (s.weight_gathered)
    out.push_back("weight-gathered");
  if (s.kv_layout == config::KvLayout::kByBatch)
    out.push_back("kv-by-batch");
  for (const std::string& a : s.expert_axes)
    out.push_back(has(s.data_axes, a) ? "expert-on-data" : "expert");
  if (!s.data_axes.empty())
    out.push_back("data");
  for (const std::string& a : s.data_axes) {
    if (dims_of(a) > 1) {
      out.push_back("data-multi-dim");
      break;
    }
  }
  if (!s.pipeline_axis.empty())
    out.push_back("pipeline");
  if (c.scenario.micro_batches > 1)
    out.push_back("micro-batches");
  for (const auto& a : c.mesh) {
    if (a.dims.size() == 1 && a.dims[0] == kSliceName) {
      out.push_back("dcn");
      break;
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string mesh_label(const config::ServingCandidate& c) {
  std::string out;
  for (const auto& a : c.mesh) {
    out += (out.empty() ? "" : " ") + a.name + "=";
    for (size_t i = 0; i < a.dims.size(); ++i)
      out += (i == 0 ? "" : "+") + a.dims[i];
  }
  return out;
}

}  // namespace podsim::search

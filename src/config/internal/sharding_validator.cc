#include "config/internal/sharding_validator.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "config/internal/enum_values.h"
#include "config/workload_spec.h"
#include "podsim/workload.pb.h"

namespace podsim::config::internal {

std::string AxisGroup::label() const {
  return "the " + plural(chips, "chip") + " of " + role + " axes [" + join(names) + "]";
}

AxisGroup AxisGroup::axis(size_t i) const {
  AxisGroup one(role);
  one.names = {names.at(i)};
  one.sizes = {sizes.at(i)};
  one.chips = sizes[i];
  one.valid = valid;
  return one;
}

AxisGroup AxisGroup::without(const AxisGroup& other) const {
  AxisGroup rest(role);
  rest.valid = valid;
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::find(other.names.begin(), other.names.end(), names[i]) != other.names.end())
      continue;
    rest.names.push_back(names[i]);
    rest.sizes.push_back(sizes[i]);
    rest.chips *= sizes[i];
  }
  return rest;
}

namespace {

class ShardingValidator {
 public:
  ShardingValidator(const Workload& w, const ResolvedMesh& mesh, const PodSpec& pod,
                    IssueList& issues)
      : w_(w), s_(w.sharding()), mesh_(mesh), pod_(pod), issues_(issues) {}

  ShardingGroups run() {
    // Data before expert, so that an expert axis finds the data role it may share.
    resolve_list(s_.tensor_axes(), "tensor_axes", groups_.tensor);
    resolve_list(s_.data_axes(), "data_axes", groups_.data);
    resolve_list(s_.expert_axes(), "expert_axes", groups_.expert);
    if (!s_.pipeline_axis().empty())
      resolve(s_.pipeline_axis(), path_("pipeline_axis"), groups_.pipeline);
    resolve_gathered();
    check_layout_fields();
    check_role_needs();
    check_pod_covered();
    check_every_axis_has_a_role();
    return groups_;
  }

 private:
  template <typename Names>
  void resolve_list(const Names& names, const char* field, AxisGroup& group) {
    for (int k = 0; k < names.size(); ++k)
      resolve(names.Get(k), path_(field, k), group);
  }

  // Adds one axis to `group`: it must exist, be listed once in the group and
  // have no other role (except expert on a data axis).
  void resolve(const std::string& name, const FieldPath& at, AxisGroup& group) {
    for (const std::string& earlier : group.names) {
      if (earlier == name) {
        issues_.add(at, "axis \"" + name + "\" is listed twice");
        group.valid = false;
        return;
      }
    }
    const ResolvedAxis* axis = mesh_.find(name);
    if (axis == nullptr) {
      // With no axes at all the mesh itself is reported; naming each miss adds nothing.
      if (!mesh_.axes().empty()) {
        issues_.add(at, "no mesh axis named \"" + name + "\" (the mesh has " + mesh_.names() + ")");
      }
      group.valid = false;
      return;
    }
    if (const auto it = role_of_.find(name); it != role_of_.end()) {
      if (!(group.role == "expert" && it->second.first == "data")) {
        issues_.add(at, "axis \"" + name + "\" is already a " + it->second.first + " axis (" +
                            it->second.second +
                            "); an axis has one role, except that an expert axis may also be a "
                            "data axis (experts spread over the replicas)");
        group.valid = false;
      }
    } else {
      role_of_.emplace(name, std::make_pair(group.role, at.to_string()));
    }
    group.valid = group.valid && axis->valid;
    group.names.push_back(name);
    group.sizes.push_back(axis->size);
    group.chips *= axis->size;  // at most the pod's chip count: each dimension is in one axis
  }

  // sharding.weight_gathered_axes: tensor axes, each listed once. The
  // gathered group is every tensor axis when only weight_gathered is set.
  void resolve_gathered() {
    AxisGroup& g = groups_.gathered;
    if (s_.weight_gathered_axes_size() == 0) {
      if (s_.weight_gathered())
        g = groups_.tensor;
      g.role = "weight-gathered";
      return;
    }
    g.valid = groups_.tensor.valid;
    for (int k = 0; k < s_.weight_gathered_axes_size(); ++k) {
      const std::string& name = s_.weight_gathered_axes(k);
      const FieldPath at = path_("weight_gathered_axes", k);
      const auto& listed = s_.tensor_axes();
      const auto& t = groups_.tensor.names;  // the listed axes that resolved
      const auto it = std::find(t.begin(), t.end(), name);
      if (std::find(g.names.begin(), g.names.end(), name) != g.names.end()) {
        issues_.add(at, "axis \"" + name + "\" is listed twice");
        g.valid = false;
      } else if (std::find(listed.begin(), listed.end(), name) == listed.end()) {
        if (!listed.empty()) {
          issues_.add(at, "\"" + name + "\" is not a tensor axis (tensor_axes [" +
                              join(std::vector<std::string>(listed.begin(), listed.end())) +
                              "]): weights are gathered over a subset of the tensor axes");
        }
        g.valid = false;
      } else if (it == t.end()) {
        g.valid = false;  // the tensor axis itself is reported
      } else {
        g.names.push_back(name);
        g.sizes.push_back(groups_.tensor.sizes[static_cast<size_t>(it - t.begin())]);
        g.chips *= g.sizes.back();
      }
    }
  }

  // Fields that only mean something with tensor parallelism would be ignored
  // silently without it, so they are errors.
  void check_layout_fields() {
    known_value(*TensorCollective_descriptor(), s_.tensor_collective(), path_("tensor_collective"),
                issues_);
    known_value(*KvLayout_descriptor(), s_.kv_layout(), path_("kv_layout"), issues_);
    known_value(*CollectiveMatmul_descriptor(), s_.collective_matmul(), path_("collective_matmul"),
                issues_);
    known_value(*AttentionMapping_descriptor(), s_.attention_mapping(), path_("attention_mapping"),
                issues_);
    if (s_.tensor_axes_size() > 0)
      return;
    if (s_.tensor_collective() != TENSOR_COLLECTIVE_UNSPECIFIED) {
      issues_.add(path_("tensor_collective"),
                  "only tensor parallelism has tensor collectives; with no tensor_axes it would "
                  "be ignored");
    }
    if (s_.weight_gathered()) {
      issues_.add(path_("weight_gathered"),
                  "gathers each layer's weights over tensor_axes, and there are none");
    }
    if (s_.weight_gathered_axes_size() > 0) {
      issues_.add(path_("weight_gathered_axes", 0),
                  "gathers each layer's weights over a subset of tensor_axes, and there are none");
    }
    if (s_.kv_layout() == KV_BY_BATCH) {
      issues_.add(path_("kv_layout"),
                  "KV_BY_BATCH splits the cache over tensor_axes, and there are none (every chip "
                  "holds its sequences' whole cache)");
    }
    if (s_.pad_heads()) {
      issues_.add(path_("pad_heads"),
                  "pads heads to split over tensor_axes, and there are none (every chip computes "
                  "every head)");
    }
    if (s_.collective_matmul() == COLLECTIVE_MATMUL_ON ||
        s_.collective_matmul() == COLLECTIVE_MATMUL_AUTO) {
      issues_.add(path_("collective_matmul"),
                  "loops tensor-parallel collectives with their matmuls, and there are no "
                  "tensor_axes");
    }
  }

  void check_role_needs() {
    if (s_.expert_axes_size() > 0 && w_.has_model() && !w_.model().has_moe()) {
      issues_.add(path_("expert_axes", 0),
                  "the model has no experts (no model.moe): expert parallelism needs a mixture "
                  "of experts");
    }
    if (w_.scenario().micro_batches() > 1 && s_.pipeline_axis().empty()) {
      issues_.add(FieldPath()("scenario")("micro_batches"),
                  "micro-batches feed pipeline stages: with no sharding.pipeline_axis, " +
                      std::to_string(w_.scenario().micro_batches()) +
                      " would be ignored (leave it 0 or 1)");
    }
    if (w_.scenario().prefill_chunks() > 1 && !s_.pipeline_axis().empty()) {
      issues_.add(FieldPath()("scenario")("prefill_chunks"),
                  "sequential prefill chunks are not modelled with a pipeline (its "
                  "micro-batches already bound the live activations): leave it 0 or 1, or use "
                  "scenario.micro_batches");
    }
  }

  // A serving step runs on every chip: a pod dimension outside the mesh would
  // hold chips the sharding says nothing about.
  // Skipped while the mesh itself is broken: its problems are reported already.
  void check_pod_covered() {
    std::set<uint32_t> covered;
    for (const ResolvedAxis& axis : mesh_.axes()) {
      if (!axis.valid)
        return;
      covered.insert(axis.dims.begin(), axis.dims.end());
    }
    if (covered.empty())
      return;
    const auto require = [&](uint32_t index, const std::string& name, uint64_t size) {
      if (size > 1 && !covered.contains(index)) {
        issues_.add(FieldPath()("mesh"),
                    "a serving step runs on every chip of the pod, but dimension \"" + name +
                        "\" (" + std::to_string(size) +
                        ") is in no mesh axis: add it to an axis (a data axis runs replicas)");
      }
    };
    for (size_t i = 0; i < pod_.torus.dims.size(); ++i)
      require(static_cast<uint32_t>(i), pod_.torus.dims[i].name, pod_.torus.dims[i].size);
    require(kSliceDimIndex, std::string(kSliceDimName), pod_.slices);
  }

  // An axis with no role would make its chips repeat the others' work.
  void check_every_axis_has_a_role() {
    for (size_t i = 0; i < mesh_.axes().size(); ++i) {
      const ResolvedAxis& axis = mesh_.axes()[i];
      if (!axis.valid || axis.size <= 1 || role_of_.contains(axis.name))
        continue;
      issues_.add(FieldPath()("mesh")("axes", static_cast<int>(i)),
                  "axis \"" + axis.name + "\" (" + plural(axis.size, "chip") +
                      ") has no role in sharding (tensor_axes, expert_axes, data_axes or "
                      "pipeline_axis): its chips would repeat the work of the others; name it in "
                      "data_axes to run replicas there");
    }
  }

  const Workload& w_;
  const Sharding& s_;
  const ResolvedMesh& mesh_;
  const PodSpec& pod_;
  IssueList& issues_;
  const FieldPath path_ = FieldPath()("sharding");
  ShardingGroups groups_;
  // Axis name -> (role, where it was given that role), for the one-role rule.
  std::map<std::string, std::pair<std::string, std::string>> role_of_;
};

}  // namespace

ShardingGroups validate_sharding(const Workload& workload, const ResolvedMesh& mesh,
                                 const PodSpec& pod, IssueList& issues) {
  return ShardingValidator(workload, mesh, pod, issues).run();
}

}  // namespace podsim::config::internal

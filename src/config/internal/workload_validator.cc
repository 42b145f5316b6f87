#include "config/internal/workload_validator.h"

#include <map>
#include <string>

#include "config/internal/collective_validator.h"
#include "config/internal/compute_validator.h"
#include "config/internal/model_validator.h"
#include "config/internal/shape_validator.h"
#include "config/internal/sharding_validator.h"
#include "config/internal/workload_mesh.h"
#include "podsim/workload.pb.h"

namespace podsim::config::internal {
namespace {

class WorkloadValidator {
 public:
  WorkloadValidator(const Workload& workload, const PodSpec& pod) : w_(workload), pod_(pod) {}

  std::vector<FieldIssue> run() {
    if (w_.name().empty())
      issues_.add(root_("name"), "must not be empty");
    const ResolvedMesh mesh(w_.mesh(), pod_, root_("mesh"), issues_);
    check_form();
    for (int i = 0; i < w_.operations_size(); ++i)
      check_operation(i, mesh);
    check_serving(mesh);
    check_dead_chips();
    return issues_.issues();
  }

  // A mesh spans every chip of the pod, so any workload but one of SEND
  // pairs alone (checked pair by pair) needs every chip, dead ones too.
  void check_dead_chips() {
    if (pod_.dead_chips.empty())
      return;
    bool whole_mesh = w_.has_model() || w_.has_scenario() || w_.has_sharding();
    for (const Operation& op : w_.operations()) {
      whole_mesh = whole_mesh || !op.has_collective() || op.collective().kind() != SEND;
    }
    if (!whole_mesh)
      return;
    const DeadChipSpec& d = pod_.dead_chips.front();
    std::string at;
    for (size_t i = 0; i < d.coords.size(); ++i) {
      at += (i == 0 ? "" : ", ") + pod_.torus.dims[i].name + "=" + std::to_string(d.coords[i]);
    }
    issues_.add(root_("mesh"),
                "needs every chip of the pod, and chip (" + at + ") of slice " +
                    std::to_string(d.slice) + " is dead (the topology's dead_chips[0]" +
                    (pod_.dead_chips.size() > 1
                         ? ", one of " + std::to_string(pod_.dead_chips.size()) + " dead chips"
                         : std::string()) +
                    "); only SEND pairs between live chips can run on this pod");
  }

 private:
  // Exactly one form: operations, or model + scenario + sharding together.
  void check_form() {
    std::vector<std::string> given;
    std::vector<std::string> missing;
    (w_.has_model() ? given : missing).emplace_back("model");
    (w_.has_scenario() ? given : missing).emplace_back("scenario");
    (w_.has_sharding() ? given : missing).emplace_back("sharding");
    const bool serving = !given.empty();
    if (w_.operations_size() > 0 && serving) {
      issues_.add(root_("operations"),
                  "a workload is either a list of operations or a serving step (model + scenario + "
                  "sharding), not both; this one also has " +
                      join(given));
    } else if (!serving && w_.operations_size() == 0) {
      issues_.add(root_("operations"),
                  "must list at least one operation, or give model, scenario and sharding for a "
                  "serving step");
    }
    if (!serving)
      return;
    for (const std::string& field : missing) {
      issues_.add(root_(field),
                  "missing: a serving step needs model, scenario and sharding "
                  "together (this workload has " +
                      join(given) + ")");
    }
  }

  // Each part of a serving step that is given is checked; the rules that tie
  // the parts together need all three.
  void check_serving(const ResolvedMesh& mesh) {
    if (w_.has_model())
      validate_model(w_.model(), root_("model"), issues_);
    if (w_.has_scenario())
      validate_scenario(w_.scenario(), root_("scenario"), issues_);
    if (w_.has_model() && w_.has_scenario()) {
      validate_context_limit(w_.model(), w_.scenario(), root_("scenario"), issues_);
      validate_cache_size(w_.model(), w_.scenario(), root_("scenario"), issues_);
    }
    if (w_.has_model() && w_.has_scenario() && w_.has_sharding())
      validate_shapes(w_, validate_sharding(w_, mesh, pod_, issues_), issues_);
  }

  void check_operation(int i, const ResolvedMesh& mesh) {
    const FieldPath path = root_("operations", i);
    const Operation& op = w_.operations(i);
    check_after(i);
    // Registered after check_after(), so an operation never finds itself earlier.
    if (op.name().empty()) {
      issues_.add(path("name"), "must not be empty");
    } else if (const auto [it, inserted] = operation_named_.emplace(op.name(), i); !inserted) {
      issues_.add(path("name"), "operation name \"" + op.name() +
                                    "\" is already used by operations[" +
                                    std::to_string(it->second) + "]");
    }
    issues_.at_most(path("repeat"), op.repeat(), kMaxRepeat, "");
    switch (op.op_case()) {
      case Operation::kCollective:
        validate_collective(op.collective(), mesh, pod_, path("collective"), issues_);
        return;
      case Operation::kCompute:
        validate_compute(op.compute(), path("compute"), issues_);
        return;
      case Operation::OP_NOT_SET:
        break;
    }
    issues_.add(path,
                "operation has no collective and no compute (add collective { ... } "
                "or compute { ... })");
  }

  // Dependencies point back only, so the operations form a DAG in file order
  // and no cycle can exist. O(after x log operations), plus a scan of the
  // later operations for a name that is not found earlier.
  void check_after(int i) {
    const Operation& op = w_.operations(i);
    std::map<std::string, int> listed;  // name -> first position in `after`
    for (int k = 0; k < op.after_size(); ++k) {
      const FieldPath path = root_("operations", i)("after", k);
      const std::string& name = op.after(k);
      if (const auto [it, inserted] = listed.emplace(name, k); !inserted) {
        issues_.add(path, "\"" + name + "\" is listed twice (also after[" +
                              std::to_string(it->second) + "])");
      } else if (name == op.name()) {
        issues_.add(path, "an operation cannot wait for itself");
      } else if (!operation_named_.contains(name)) {
        issues_.add(path, unknown_dependency(i, name));
      }
    }
  }

  std::string unknown_dependency(int i, const std::string& name) const {
    for (int j = i + 1; j < w_.operations_size(); ++j) {
      if (w_.operations(j).name() == name) {
        return "\"" + name + "\" is operations[" + std::to_string(j) +
               "], which comes later: an operation can only wait for earlier ones (list "
               "operations in the order they may start)";
      }
    }
    return "no operation named \"" + name + "\"";
  }

  const Workload& w_;
  const PodSpec& pod_;
  const FieldPath root_;
  IssueList issues_;
  std::map<std::string, int> operation_named_;  // name -> index, operations checked so far
};

}  // namespace

std::vector<FieldIssue> validate_workload(const Workload& workload, const PodSpec& pod) {
  return WorkloadValidator(workload, pod).run();
}

}  // namespace podsim::config::internal

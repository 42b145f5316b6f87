#include "config/internal/workload_validator.h"

#include <map>
#include <string>

#include "config/internal/collective_validator.h"
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
    if (w_.operations_size() == 0)
      issues_.add(root_("operations"), "must list at least one operation");
    for (int i = 0; i < w_.operations_size(); ++i)
      check_operation(i, mesh);
    return issues_.issues();
  }

 private:
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
    if (op.op_case() == Operation::OP_NOT_SET) {
      issues_.add(path, "operation has no collective (add collective { ... })");
      return;
    }
    validate_collective(op.collective(), mesh, path("collective"), issues_);
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

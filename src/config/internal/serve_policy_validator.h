// The rules of a serve file's serving policies (proto/podsim/serve.proto):
// a replica's speculative decoding and admission control, and the SLO
// classes, checked beside serve_validator.cc's replica and arrival rules,
// and their conversion into config::ServeSpec. Internal to src/config.
#pragma once

#include <functional>
#include <string>

#include "config/internal/field_path.h"
#include "config/internal/issue_list.h"
#include "config/serve_spec.h"

namespace podsim {
class ServeConfig;
class ServeReplica;
class Speculative;
}  // namespace podsim

namespace podsim::config::internal {

// Checks that a named file can be read (serve_validator.cc's check_file).
using FileCheck =
    std::function<void(const FieldPath& at, const std::string& name, const char* what)>;

// replicas[i].speculative, .admission, and their fit with the scheduler,
// role and token budget.
void check_serving_policy(const podsim::ServeReplica& r, const FieldPath& at, IssueList& issues,
                          const FileCheck& check_file);

// slo_classes: names unique and well formed, objectives >= 0, shares in
// [0, 1] adding up to at most 1 and only for synthetic arrivals.
void check_slo_classes(const podsim::ServeConfig& s, const FieldPath& root, IssueList& issues);

// The speculative spec without its draft workload or pod (serve_loader.cc
// loads them), and the admission policy.
SpeculativeSpec speculative_spec(const podsim::Speculative& s);
AdmissionKind admission_of(int admission);
std::vector<SloClassSpec> slo_class_specs(const podsim::ServeConfig& s);

}  // namespace podsim::config::internal

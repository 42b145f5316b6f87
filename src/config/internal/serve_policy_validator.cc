#include "config/internal/serve_policy_validator.h"

#include <set>

#include "config/internal/enum_values.h"
#include "podsim/serve.pb.h"

namespace podsim::config::internal {
namespace {

bool valid_class_name(const std::string& name) {
  if (name.empty() || name.size() > 64)
    return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok)
      return false;
  }
  return true;
}

bool probability(IssueList& issues, const FieldPath& at, double p) {
  if (!issues.finite(at, p))
    return false;
  if (p < 0 || p > 1) {
    issues.add(at, "must be in [0, 1], got " + format_number(p));
    return false;
  }
  return true;
}

void check_speculative(const ServeReplica& r, const FieldPath& at, IssueList& issues,
                       const FileCheck& check_file) {
  const Speculative& s = r.speculative();
  const uint32_t k = s.draft_tokens();
  if (k == 0) {
    if (s.has_acceptance_rate() || s.acceptance_per_position_size() > 0 ||
        !s.draft_workload().empty() || !s.draft_topology().empty() || s.mtp_layers() != 0)
      issues.add(at("draft_tokens"),
                 "speculative decoding needs draft_tokens >= 1 (the other fields are set)");
    return;
  }
  issues.at_most(at("draft_tokens"), k, kMaxDraftTokens, "");
  if (s.has_acceptance_rate() == (s.acceptance_per_position_size() > 0))
    issues.add(at("acceptance_rate"),
               "give the acceptance as one rate or as acceptance_per_position (one of the two)");
  if (s.has_acceptance_rate())
    probability(issues, at("acceptance_rate"), s.acceptance_rate());
  if (s.acceptance_per_position_size() > 0) {
    if (static_cast<uint32_t>(s.acceptance_per_position_size()) != k)
      issues.add(at("acceptance_per_position"),
                 "needs one probability per draft token (" + std::to_string(k) + "), got " +
                     std::to_string(s.acceptance_per_position_size()));
    for (int i = 0; i < s.acceptance_per_position_size(); ++i)
      probability(issues, at("acceptance_per_position", i), s.acceptance_per_position(i));
  }
  if (s.draft_workload().empty() == (s.mtp_layers() == 0))
    issues.add(at("draft_workload"),
               "give the draft as a draft_workload file or as mtp_layers (one of the two)");
  if (!s.draft_workload().empty())
    check_file(at("draft_workload"), s.draft_workload(), "serving workload");
  if (!s.draft_topology().empty()) {
    if (s.draft_workload().empty())
      issues.add(at("draft_topology"),
                 "only a draft_workload runs on a slice of its own (mtp_layers run on the "
                 "replica's chips)");
    else
      check_file(at("draft_topology"), s.draft_topology(), "topology");
  }
  issues.at_most(at("mtp_layers"), s.mtp_layers(), 1024u, "");
}

}  // namespace

void check_serving_policy(const ServeReplica& r, const FieldPath& at, IssueList& issues,
                          const FileCheck& check_file) {
  known_value(*Admission_descriptor(), r.admission(), at("admission"), issues);
  if (r.admission() == REJECT_LATE || r.admission() == DEFER_LATE) {
    if (r.scheduler() != DEADLINE)
      issues.add(at("admission"),
                 "REJECT_LATE and DEFER_LATE need the DEADLINE scheduler (it predicts when "
                 "each waiting request's first token would come)");
  }
  if (!r.has_speculative())
    return;
  const FieldPath sp = at("speculative");
  check_speculative(r, sp, issues, check_file);
  const uint32_t k = r.speculative().draft_tokens();
  if (k == 0)
    return;
  if (r.scheduler() == STATIC_BATCHING)
    issues.add(sp("draft_tokens"),
               "speculative decoding batches continuously (CONTINUOUS_BATCHING, CHUNKED_PREFILL "
               "or DEADLINE), not STATIC_BATCHING");
  if (r.role() == ROLE_PREFILL)
    issues.add(sp("draft_tokens"), "a ROLE_PREFILL replica never decodes: nothing to speculate");
  // Every decoding sequence verifies k + 1 tokens per step.
  const uint64_t need = uint64_t{r.max_batch()} * (k + 1);
  if (r.max_tokens_per_step() != 0 && r.max_batch() != 0 && k <= kMaxDraftTokens &&
      r.max_tokens_per_step() < need)
    issues.add(at("max_tokens_per_step"),
               "must be >= max_batch x (draft_tokens + 1) (" + std::to_string(need) +
                   "): every running sequence verifies draft_tokens + 1 tokens per step");
}

void check_slo_classes(const ServeConfig& s, const FieldPath& root, IssueList& issues) {
  std::set<std::string> names;
  double shares = 0;
  for (int i = 0; i < s.slo_classes_size(); ++i) {
    const SloClass& c = s.slo_classes(i);
    const FieldPath at = root("slo_classes", i);
    if (!valid_class_name(c.name()))
      issues.add(at("name"),
                 "must be 1 to 64 letters, digits, '_' or '-', got " + internal::quoted(c.name()));
    else if (!names.insert(c.name()).second)
      issues.add(at("name"), "names another class already: " + internal::quoted(c.name()));
    issues.non_negative(at("ttft_ms"), c.ttft_ms());
    issues.non_negative(at("tpot_ms"), c.tpot_ms());
    issues.non_negative(at("tbt_ms"), c.tbt_ms());
    if (!probability(issues, at("share"), c.share()))
      continue;
    shares += c.share();
    if (c.share() > 0 && s.arrivals().has_trace())
      issues.add(at("share"), "a trace names each request's class (its slo_class column)");
  }
  if (shares > 1 + 1e-12)
    issues.add(root("slo_classes"),
               "the shares add up to " + format_number(shares) + ", more than 1");
}

SpeculativeSpec speculative_spec(const Speculative& s) {
  SpeculativeSpec out;
  out.draft_tokens = s.draft_tokens();
  if (s.has_acceptance_rate())
    out.acceptance.assign(out.draft_tokens, s.acceptance_rate());
  else
    out.acceptance.assign(s.acceptance_per_position().begin(), s.acceptance_per_position().end());
  out.mtp_layers = s.mtp_layers();
  return out;
}

AdmissionKind admission_of(int admission) {
  switch (admission) {
    case REJECT_LATE:
      return AdmissionKind::kRejectLate;
    case DEFER_LATE:
      return AdmissionKind::kDeferLate;
    default:
      return AdmissionKind::kAdmitAll;
  }
}

std::vector<SloClassSpec> slo_class_specs(const ServeConfig& s) {
  std::vector<SloClassSpec> out;
  for (const SloClass& c : s.slo_classes())
    out.push_back(SloClassSpec{c.name(), SloSpec{c.ttft_ms(), c.tpot_ms(), c.tbt_ms()}, c.share()});
  return out;
}

}  // namespace podsim::config::internal

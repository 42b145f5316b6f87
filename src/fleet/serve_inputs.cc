#include "fleet/serve_inputs.h"

#include <string>

#include "report/format.h"
#include "report/result_inputs.h"

namespace podsim::fleet {
namespace {

std::string_view scheduler_name(config::SchedulerKind k) {
  switch (k) {
    case config::SchedulerKind::kStatic:
      return "STATIC_BATCHING";
    case config::SchedulerKind::kContinuous:
      return "CONTINUOUS_BATCHING";
    case config::SchedulerKind::kChunkedPrefill:
      return "CHUNKED_PREFILL";
    case config::SchedulerKind::kDeadline:
      return "DEADLINE";
  }
  return "";
}

std::string_view role_name(config::RoleKind k) {
  switch (k) {
    case config::RoleKind::kUnified:
      return "ROLE_UNIFIED";
    case config::RoleKind::kPrefill:
      return "ROLE_PREFILL";
    case config::RoleKind::kDecode:
      return "ROLE_DECODE";
  }
  return "";
}

std::string_view admission_name(config::AdmissionKind k) {
  switch (k) {
    case config::AdmissionKind::kAdmitAll:
      return "ADMIT_ALL";
    case config::AdmissionKind::kRejectLate:
      return "REJECT_LATE";
    case config::AdmissionKind::kDeferLate:
      return "DEFER_LATE";
  }
  return "";
}

std::string_view process_name(config::ArrivalKind k) {
  switch (k) {
    case config::ArrivalKind::kPoisson:
      return "poisson";
    case config::ArrivalKind::kGamma:
      return "gamma";
    case config::ArrivalKind::kClosedLoop:
      return "closed_loop";
    case config::ArrivalKind::kTrace:
      return "trace";
    case config::ArrivalKind::kConversations:
      return "conversations";
  }
  return "";
}

// "fixed 512", "uniform 1..2048", "exponential mean 300 max 4096".
std::string lengths_text(const config::LengthSpec& l) {
  std::string text;
  switch (l.kind) {
    case config::LengthKind::kFixed:
      text = "fixed ";
      text += std::to_string(l.min);
      break;
    case config::LengthKind::kUniform:
      text = "uniform ";
      text += std::to_string(l.min);
      text += "..";
      text += std::to_string(l.max);
      break;
    case config::LengthKind::kExponential:
      text = "exponential mean ";
      text += report::format_double(l.mean);
      text += " max ";
      text += std::to_string(l.max);
      break;
  }
  return text;
}

// Requests per second as the capacity search reads a spec (its nominal
// rate): a trace's requests over its span; 0 where there is none.
double arrival_rate(const config::ArrivalSpec& a) {
  switch (a.kind) {
    case config::ArrivalKind::kClosedLoop:
      return 0;
    case config::ArrivalKind::kTrace:
      if (a.trace.size() < 2 || a.trace.back().arrival <= a.trace.front().arrival)
        return 0;
      return static_cast<double>(a.trace.size() - 1) /
             (a.trace.back().arrival - a.trace.front().arrival).to_s();
    case config::ArrivalKind::kConversations:
      return a.conversations.rate_per_s;
    case config::ArrivalKind::kPoisson:
    case config::ArrivalKind::kGamma:
      break;
  }
  return a.rate_per_s;
}

void fill_arrivals(const config::ArrivalSpec& a, podsim::output::ServeArrivalInputs& out) {
  out.set_process(std::string(process_name(a.kind)));
  out.set_rate_per_s(arrival_rate(a));
  if (a.kind == config::ArrivalKind::kGamma)
    out.set_cv(a.cv);
  if (a.kind == config::ArrivalKind::kClosedLoop) {
    out.set_users(a.users);
    out.set_think_time_s(a.think_time_s);
  }
  if (a.kind == config::ArrivalKind::kConversations)
    out.set_think_time_s(a.conversations.think_time_s);
  if (a.kind == config::ArrivalKind::kTrace) {
    out.set_trace_file(a.trace_file);
    out.set_trace_sha256(a.trace_sha256);
    out.set_trace_speedup(a.trace_speedup);
    out.set_trace_requests(a.trace.size());
    return;
  }
  if (a.kind == config::ArrivalKind::kConversations) {
    out.set_prompt_tokens("conversations: user " + lengths_text(a.conversations.user_tokens));
    out.set_output_tokens(lengths_text(a.conversations.output_tokens));
    return;
  }
  out.set_prompt_tokens(lengths_text(a.prompt));
  out.set_output_tokens(lengths_text(a.output));
}

}  // namespace

void fill_serve_inputs(const config::ServeSpec& spec, podsim::output::ServeInputs& out) {
  out.set_name(spec.name);
  out.set_file(spec.source_file);
  out.set_sha256(spec.source_sha256);
  out.set_seed(spec.seed);
  out.set_router(spec.router == config::RouterKind::kLeastOutstandingTokens
                     ? "LEAST_OUTSTANDING_TOKENS"
                     : "ROUND_ROBIN");
  out.set_network(spec.network);
  fill_arrivals(spec.arrivals, *out.mutable_arrivals());
  out.set_slo_ttft_ms(spec.slo.ttft_ms);
  out.set_slo_tpot_ms(spec.slo.tpot_ms);
  out.set_slo_tbt_ms(spec.slo.tbt_ms);
  for (const std::string& o : spec.overrides)
    out.add_overrides(o);
  out.set_slo_classes(static_cast<uint32_t>(spec.slo_classes.size()));
  out.set_duration_s(spec.duration < sim::Time::max() ? spec.duration.to_s() : 0.0);
  out.set_max_requests(spec.max_requests < config::kMaxServeRequests ? spec.max_requests : 0);
  for (const config::ServeReplicaSpec& r : spec.replicas) {
    podsim::output::ServeReplicaInputs& o = *out.add_replicas();
    o.set_name(r.name);
    o.set_count(r.count);
    o.set_role(std::string(role_name(r.role)));
    o.set_scheduler(std::string(scheduler_name(r.scheduler)));
    o.set_max_batch(r.max_batch);
    o.set_max_tokens_per_step(r.max_tokens_per_step);
    o.set_kv_block_tokens(r.kv_block_tokens);
    o.set_kv_memory_fraction(r.kv_memory_fraction);
    o.set_preemption(r.preemption == config::PreemptionKind::kSwap ? "SWAP" : "RECOMPUTE");
    o.set_admission(std::string(admission_name(r.admission)));
    o.set_prefix_caching(r.prefix_caching);
    o.set_draft_tokens(r.speculative.draft_tokens);
    report::fill_topology_inputs(r.pod, *o.mutable_topology());
    // The workload's identity and mesh, and the serving step's model,
    // scenario and sharding, as a `podsim run` of the two files records them.
    podsim::Inputs inputs;
    report::fill_workload_inputs(r.workload, r.pod, inputs);
    *o.mutable_workload() = inputs.workload();
    *o.mutable_serving() = inputs.serving();
  }
}

}  // namespace podsim::fleet

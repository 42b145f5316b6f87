#include "fleet/capacity_report.h"

#include "fleet/serve_inputs.h"
#include "report/message_csv.h"
#include "report/output_json.h"
#include "report/result_cost.h"
#include "report/result_inputs.h"

namespace podsim::fleet {
namespace {

using podsim::output::CapacityReport;

constexpr uint32_t kCapacitySchemaVersion = 1;

const char* minimise_name(Minimise m) {
  switch (m) {
    case Minimise::kChips:
      return "chips";
    case Minimise::kCost:
      return "cost";
    case Minimise::kEnergy:
      return "energy";
  }
  return "chips";
}

uint32_t chips_of(const config::ServeSpec& spec) {
  uint32_t chips = 0;
  for (const config::ServeReplicaSpec& r : spec.replicas)
    chips += static_cast<uint32_t>(r.pod.chip_count()) * r.count;
  return chips;
}

uint32_t copies_of(const config::ServeSpec& spec) {
  uint32_t copies = 0;
  for (const config::ServeReplicaSpec& r : spec.replicas)
    copies += r.count;
  return copies;
}

std::string counts_text(const std::vector<uint32_t>& counts) {
  std::string text;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (i > 0)
      text += ';';
    text += std::to_string(counts[i]);
  }
  return text;
}

std::vector<uint32_t> file_counts(const config::ServeSpec& spec) {
  std::vector<uint32_t> counts;
  for (const config::ServeReplicaSpec& r : spec.replicas)
    counts.push_back(r.count);
  return counts;
}

CapacityReport new_report(const char* mode, const CapacityOptions& options, double target_rate,
                          const std::vector<const config::ServeSpec*>& specs) {
  CapacityReport r;
  r.set_schema_version(kCapacitySchemaVersion);
  r.set_podsim_version(std::string(report::podsim_version()));
  r.set_mode(mode);
  podsim::output::CapacityObjectives& o = *r.mutable_objectives();
  o.set_ttft_ms(options.ttft_ms);
  o.set_tpot_ms(options.tpot_ms);
  o.set_tbt_ms(options.tbt_ms);
  o.set_percentile(options.percentile);
  o.set_tolerance(target_rate > 0 ? 0.0 : options.relative_tolerance);
  o.set_target_rate_per_s(target_rate);
  o.set_minimise(minimise_name(options.minimise));
  if (options.pricing) {
    o.set_pricing(options.pricing->name);
    o.set_pricing_sha256(options.pricing->source_sha256);
    o.set_commitment(report::commitment_label(options.pricing->commitment));
  }
  r.mutable_answer();
  r.mutable_bound();
  for (const config::ServeSpec* s : specs)
    fill_serve_inputs(*s, *r.add_serve_files());
  return r;
}

podsim::output::CapacityRun& add_run(CapacityReport& r, const CapacityRun& run, uint32_t chips) {
  podsim::output::CapacityRun& o = *r.add_runs();
  o.set_index(static_cast<uint32_t>(r.runs_size()));
  o.set_rate_per_s(run.rate_per_s);
  o.set_chips(chips);
  o.set_ttft_s(run.ttft_s);
  o.set_tpot_s(run.tpot_s);
  o.set_completed(run.completed);
  o.set_rejected(run.rejected);
  o.set_meets_slo(run.ok);
  o.set_energy_modelled(run.energy_modelled);
  o.set_j_per_output_token(run.j_per_output_token);
  o.set_priced(run.priced);
  o.set_usd_per_m_output_tokens(run.usd_per_m_output_tokens);
  o.set_tbt_s(run.tbt_s);
  return o;
}

void set_answer(CapacityReport& r, const CapacityRun& run, uint32_t chips, uint32_t replicas,
                const std::string& counts) {
  r.set_status("ok");
  podsim::output::CapacityAnswer& a = *r.mutable_answer();
  a.set_rate_per_s(run.rate_per_s);
  a.set_chips(chips);
  a.set_replicas(replicas);
  a.set_counts(counts);
  a.set_ttft_s(run.ttft_s);
  a.set_tpot_s(run.tpot_s);
  a.set_priced(run.priced);
  a.set_usd_per_m_output_tokens(run.usd_per_m_output_tokens);
  a.set_energy_modelled(run.energy_modelled);
  a.set_j_per_output_token(run.j_per_output_token);
  a.set_tbt_s(run.tbt_s);
}

void set_none(CapacityReport& r, std::string reason) {
  r.set_status("none");
  r.set_reason(std::move(reason));
}

}  // namespace

CapacityReport rate_search_report(const config::ServeSpec& spec, const CapacityOptions& options,
                                  const CapacityResult& result, const TtftBound& bound) {
  CapacityReport r = new_report("rate_search", options, 0, {&spec});
  if (bound.known) {
    podsim::output::CapacityBound& b = *r.mutable_bound();
    b.set_requests(bound.requests);
    b.set_allowed(bound.allowed);
    b.set_binding(bound.binding);
    for (const uint64_t id : bound.binding_ids)
      b.add_binding_ids(id);
    b.set_prompt_tokens(bound.prompt_tokens);
    b.set_prefill_s(bound.prefill_s);
    b.set_replica(bound.replica);
  }
  if (bound.unattainable) {
    r.set_status("unattainable");
    r.set_reason(bound.reason);
    return r;
  }
  const uint32_t chips = chips_of(spec);
  const CapacityRun* best = nullptr;
  for (const CapacityRun& run : result.runs) {
    add_run(r, run, chips);
    if (run.ok && run.rate_per_s == result.rate_per_s && result.rate_per_s > 0)
      best = &run;
  }
  if (best == nullptr) {
    set_none(r, "no rate tried meets the objectives");
    return r;
  }
  set_answer(r, *best, chips, copies_of(spec), counts_text(file_counts(spec)));
  r.mutable_answer()->set_bracketed(result.bracketed);
  return r;
}

CapacityReport target_rate_report(const std::vector<config::ServeSpec>& specs, double rate,
                                  const CapacityOptions& options, const FewestChips& result) {
  std::vector<const config::ServeSpec*> all;
  for (const config::ServeSpec& s : specs)
    all.push_back(&s);
  CapacityReport r = new_report("target_rate", options, rate, all);
  for (size_t i = 0; i < result.configs.size(); ++i) {
    const ConfigVerdict& v = result.configs[i];
    podsim::output::CapacityRun& o = add_run(r, v.run, v.chips);
    o.set_config(v.name);
    o.set_counts(counts_text(file_counts(specs[i])));
  }
  if (result.best < 0) {
    set_none(r, "no configuration meets the objectives");
    return r;
  }
  const auto best = static_cast<size_t>(result.best);
  const ConfigVerdict& v = result.configs[best];
  set_answer(r, v.run, v.chips, copies_of(specs[best]), counts_text(file_counts(specs[best])));
  r.mutable_answer()->set_config(v.name);
  return r;
}

CapacityReport fewest_replicas_report(const config::ServeSpec& spec, double rate,
                                      const CapacityOptions& options,
                                      const FewestReplicas& result) {
  CapacityReport r = new_report("fewest_replicas", options, rate, {&spec});
  for (const CopiesRun& c : result.tried)
    add_run(r, c.run, c.chips).set_counts(std::to_string(c.copies));
  if (result.best < 0) {
    set_none(r, "no count of copies tried meets the objectives");
    return r;
  }
  const CopiesRun& b = result.tried[static_cast<size_t>(result.best)];
  set_answer(r, b.run, b.chips, b.copies, std::to_string(b.copies));
  r.mutable_answer()->set_config(spec.name);
  return r;
}

CapacityReport choose_mix_report(const config::ServeSpec& spec, double rate,
                                 const CapacityOptions& options, const MixChoice& result) {
  CapacityReport r = new_report("choose_mix", options, rate, {&spec});
  for (const MixRun& m : result.tried)
    add_run(r, m.run, m.chips).set_counts(counts_text(m.counts));
  if (result.best < 0) {
    set_none(r, "no mix tried meets the objectives");
    return r;
  }
  const MixRun& b = result.tried[static_cast<size_t>(result.best)];
  uint32_t copies = 0;
  for (const uint32_t c : b.counts)
    copies += c;
  set_answer(r, b.run, b.chips, copies, counts_text(b.counts));
  r.mutable_answer()->set_config(spec.name);
  return r;
}

std::string capacity_csv(const CapacityReport& report) {
  static const report::MessageCsv layout(CapacityReport::descriptor());
  return layout.render(report);
}

std::string capacity_json(const CapacityReport& report) {
  return report::to_json(report, report::JsonStyle{true, true});
}

}  // namespace podsim::fleet

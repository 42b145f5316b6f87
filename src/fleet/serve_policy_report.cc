#include "fleet/serve_policy_report.h"

#include "report/format.h"

namespace podsim::fleet {
namespace {

std::string milliseconds(double s) {
  return report::format_fixed(s * 1e3, 2);
}

}  // namespace

void fill_latency(const Percentiles& p, podsim::output::LatencyPercentiles& out) {
  out.set_mean(p.mean);
  out.set_p50(p.p50);
  out.set_p90(p.p90);
  out.set_p99(p.p99);
  out.set_max(p.max);
  out.set_count(p.count);
}

void fill_policy_report(const ServeSummary& s, podsim::output::ServeReport& r) {
  const SpeculationSummary& sp = s.speculation;
  r.set_verifications(sp.verifications);
  r.set_drafted_tokens(sp.drafted_tokens);
  r.set_accepted_drafts(sp.accepted_drafts);
  r.set_tokens_per_verification(sp.tokens_per_verification);
  r.set_draft_acceptance_rate(sp.draft_acceptance_rate);
  r.set_shed(s.shed);
  r.set_deferred(s.deferred);
  for (const SloClassSummary& c : s.slo_classes) {
    podsim::output::ServeSloClassReport& o = *r.add_slo_classes();
    o.set_name(c.name);
    o.set_ttft_ms(c.slo.ttft_ms);
    o.set_tpot_ms(c.slo.tpot_ms);
    o.set_requests(c.requests);
    o.set_completed(c.completed);
    o.set_shed(c.shed);
    o.set_slo_met(c.slo_met);
    o.set_slo_attainment(c.slo_attainment);
    o.set_goodput_requests_per_s(c.goodput_requests_per_s);
    fill_latency(c.ttft_s, *o.mutable_ttft_s());
    fill_latency(c.tpot_s, *o.mutable_tpot_s());
    fill_latency(c.tbt_s, *o.mutable_tbt_s());
    o.set_tbt_ms(c.slo.tbt_ms);
    o.set_tbt_gaps_over_slo(c.tbt_gaps_over_slo);
    o.set_tbt_over_slo_fraction(c.tbt_over_slo_fraction);
  }
}

void policy_key_values(const podsim::output::ServeReport& r,
                       std::vector<std::pair<std::string, std::string>>& kv) {
  if (r.verifications() > 0)
    kv.emplace_back("speculation", report::format_fixed(r.tokens_per_verification(), 3) +
                                       " tokens per verification, " +
                                       report::format_fixed(100 * r.draft_acceptance_rate(), 2) +
                                       "% of " + std::to_string(r.drafted_tokens()) +
                                       " draft tokens accepted");
  if (r.shed() > 0 || r.deferred() > 0)
    kv.emplace_back("admission", std::to_string(r.shed()) + " shed, " +
                                     std::to_string(r.deferred()) + " deferred");
  for (const podsim::output::ServeSloClassReport& c : r.slo_classes()) {
    std::string line = std::to_string(c.requests()) + " requests, " +
                       report::format_fixed(100 * c.slo_attainment(), 2) +
                       "% meet TTFT <= " + report::format_double(c.ttft_ms()) +
                       " ms, TPOT <= " + report::format_double(c.tpot_ms()) + " ms; p99 TTFT " +
                       milliseconds(c.ttft_s().p99()) + " ms, p99 TPOT " +
                       milliseconds(c.tpot_s().p99()) + " ms";
    if (c.tbt_ms() > 0) {
      line += "; max TBT <= ";
      line += report::format_double(c.tbt_ms());
      line += " ms, p99 TBT ";
      line += milliseconds(c.tbt_s().p99());
      line += " ms";
    }
    if (c.shed() > 0)
      line += "; " + std::to_string(c.shed()) + " shed";
    kv.emplace_back("SLO class " + (c.name().empty() ? std::string("(none)") : c.name()), line);
  }
}

}  // namespace podsim::fleet

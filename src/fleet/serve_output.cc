#include "fleet/serve_output.h"

#include <algorithm>
#include <sstream>
#include <string_view>

#include "fleet/serve_cost.h"
#include "fleet/serve_inputs.h"
#include "fleet/serve_policy_report.h"
#include "report/format.h"
#include "report/message_csv.h"
#include "report/output_json.h"
#include "report/result_cost.h"
#include "report/result_inputs.h"
#include "report/table.h"

namespace podsim::fleet {
namespace {

using report::format_double;

void fill(const Percentiles& p, podsim::output::LatencyPercentiles& out) {
  fill_latency(p, out);
}

std::string ms(double s) {
  return report::format_fixed(s * 1e3, 2);
}

// Every replica copy's chip has a power model.
bool fleet_powered(const ServeOutput& out) {
  return !out.setups.empty() && std::all_of(out.setups.begin(), out.setups.end(),
                                            [](const ReplicaSetup& r) { return r.power_modelled; });
}

// The buckets' line of the table: how many steps were simulated and the
// error bound (docs/serving.md, "Step times").
std::string bucket_line(const podsim::output::ServeBuckets& b) {
  std::string line = std::to_string(b.buckets()) + " simulated (" +
                     std::to_string(b.simulated_steps()) + " pod runs); ";
  if (b.mode() == "refine") {
    line +=
        "refined (" + std::to_string(b.refinements()) + " grid lines added); step-time error <= ";
    line += report::format_fixed(100 * b.step_time_error_bound(), 2) + "% (target ";
    line += report::format_double(100 * b.max_error()) + "%)";
    return line;
  }
  line += "counts rounded up < " + report::format_fixed(100 * b.input_rounding_bound(), 1) + "%";
  if (b.error_measured())
    line +=
        "; step-time error <= " + report::format_fixed(100 * b.step_time_error_bound(), 2) + "%";
  else
    line += "; step-time error not measured (--no-bucket-error)";
  return line;
}

// ", TBT <= X ms" when the run has a TBT objective (the line is today's
// without one).
std::string tbt_objective(const podsim::output::ServeReport& r) {
  if (r.slo_tbt_ms() == 0)
    return "";
  std::string s = ", max TBT <= ";
  s += report::format_double(r.slo_tbt_ms());
  s += " ms";
  return s;
}

std::string tbt_line(const podsim::output::ServeReport& r) {
  std::string s = std::to_string(r.tbt_s().count()) + " gaps; percentiles within ";
  s += report::format_fixed(100 * r.tbt_relative_error(), 2) + "%";
  if (r.slo_tbt_ms() > 0 || r.tbt_gaps_over_slo() > 0) {
    s += "; " + std::to_string(r.tbt_gaps_over_slo()) + " (";
    s += report::format_fixed(100 * r.tbt_over_slo_fraction(), 2) + "%) over the TBT objective";
  }
  return s;
}

}  // namespace

podsim::output::ServeReport make_report(const config::ServeSpec& spec, const ServeOutput& out,
                                        const config::PricingSpec* pricing) {
  const ServeSummary& s = out.summary;
  podsim::output::ServeReport r;
  r.set_name(spec.name);
  r.set_source_file(spec.source_file);
  r.set_seed(spec.seed);
  r.set_requests(s.requests);
  r.set_completed(s.completed);
  r.set_rejected(s.rejected);
  r.set_preemptions(s.preemptions);
  r.set_duration_s(s.duration_s);
  r.set_requests_per_s(s.requests_per_s);
  r.set_output_tokens_per_s(s.output_tokens_per_s);
  r.set_total_tokens_per_s(s.total_tokens_per_s);
  fill(s.ttft_s, *r.mutable_ttft_s());
  fill(s.tpot_s, *r.mutable_tpot_s());
  fill(s.e2e_s, *r.mutable_e2e_s());
  fill(s.queue_delay_s, *r.mutable_queue_delay_s());
  fill(s.kv_transfer_s, *r.mutable_kv_transfer_s());
  r.set_slo_ttft_ms(s.slo_ttft_ms);
  r.set_slo_tpot_ms(s.slo_tpot_ms);
  r.set_slo_met(s.slo_met);
  r.set_goodput_requests_per_s(s.goodput_requests_per_s);
  r.set_slo_attainment(s.slo_attainment);
  r.set_mean_requests_in_system(s.mean_requests_in_system);
  r.set_chip_utilisation(s.chip_utilisation);
  r.set_model_flops_utilisation(s.model_flops_utilisation);
  r.set_kv_utilisation(s.kv_utilisation);
  r.set_chips(s.chips);
  r.set_events(out.run.events);
  r.set_timeseries_truncated(out.run.samples_truncated);
  r.set_output_tokens(s.output_tokens);
  r.set_energy_modelled(s.energy_modelled);
  r.set_energy_j(s.energy_j);
  r.set_idle_energy_j(s.idle_energy_j);
  r.set_kv_transfer_energy_j(s.kv_transfer_energy_j);
  r.set_mean_power_w(s.mean_power_w);
  r.set_peak_power_w(s.peak_power_w);
  r.set_j_per_output_token(s.j_per_output_token);
  fill(s.energy_per_request_j, *r.mutable_energy_per_request_j());
  r.set_kv_resharded(out.run.kv_resharded);
  r.set_kv_transfer_bytes(out.run.kv_transfer_bytes);
  fill(s.tbt_s, *r.mutable_tbt_s());
  r.set_slo_tbt_ms(s.slo_tbt_ms);
  r.set_tbt_gaps_over_slo(s.tbt_gaps_over_slo);
  r.set_tbt_over_slo_fraction(s.tbt_over_slo_fraction);
  r.set_tbt_relative_error(GapHistogram::kRelativeError);
  r.set_podsim_version(std::string(report::podsim_version()));
  fill_serve_inputs(spec, *r.mutable_inputs());
  if (pricing != nullptr) {
    const ServeCost c = serve_cost(spec, s, *pricing);
    r.set_priced(true);
    r.set_pricing(pricing->name);
    r.set_commitment(report::commitment_label(pricing->commitment));
    r.set_usd_per_m_output_tokens(c.usd_per_m_output_tokens);
    r.set_gco2e_per_m_output_tokens(c.gco2e_per_m_output_tokens);
    r.set_usd_per_hour(c.usd_per_hour);
  }
  fill_policy_report(s, r);
  r.set_prefix_caching(s.prefix_caching);
  r.set_prefix_cache_hit_rate(s.prefix_cache_hit_rate);
  r.set_prefill_tokens_saved(s.prefill_tokens_saved);
  r.set_cached_blocks_evicted(s.cached_blocks_evicted);
  podsim::output::ServeBuckets& b = *r.mutable_buckets();
  b.set_batch_steps_per_octave(s.buckets.batch_steps_per_octave);
  b.set_length_steps_per_octave(s.buckets.length_steps_per_octave);
  b.set_input_rounding_bound(s.buckets.input_rounding_bound);
  b.set_error_measured(s.buckets.error_measured);
  b.set_step_time_error_bound(s.buckets.step_time_error_bound);
  b.set_buckets(s.buckets.buckets);
  b.set_simulated_steps(s.buckets.simulated_steps);
  b.set_mode(s.buckets.mode);
  b.set_max_error(s.buckets.max_error);
  b.set_refinements(s.buckets.refinements);
  // Copies of one spec replica share its KV figures.
  size_t spec_index = 0;
  uint32_t copy = 0;
  for (const ReplicaSummary& rs : s.replicas) {
    const ReplicaInfo& info = out.replicas[spec_index];
    podsim::output::ServeReplicaReport& o = *r.add_replicas();
    o.set_name(rs.name);
    o.set_chips(rs.chips);
    o.set_requests(rs.requests);
    o.set_steps(rs.steps);
    o.set_busy_fraction(rs.busy_fraction);
    o.set_model_flops_utilisation(rs.model_flops_utilisation);
    o.set_kv_mean_utilisation(rs.kv_mean_utilisation);
    o.set_kv_peak_utilisation(rs.kv_peak_utilisation);
    o.set_kv_blocks(rs.kv_blocks);
    o.set_kv_block_tokens(spec.replicas[spec_index].kv_block_tokens);
    o.set_peak_batch(rs.peak_batch);
    o.set_kv_bytes_per_token_per_chip(info.kv.kv_bytes_per_token);
    o.set_weight_bytes_per_chip(info.kv.weight_bytes);
    o.set_activation_bytes_per_chip(info.kv.activation_bytes);
    o.set_energy_j(rs.energy_j);
    o.set_idle_energy_j(rs.idle_energy_j);
    o.set_prefix_cache_hit_rate(rs.prefix_cache_hit_rate);
    o.set_prefill_tokens_saved(rs.prefill_tokens_saved);
    o.set_cached_blocks_evicted(rs.cached_blocks_evicted);
    o.set_chip(spec.replicas[spec_index].pod.chip.name);
    if (++copy == info.copies) {
      copy = 0;
      ++spec_index;
    }
  }
  return r;
}

void add_without_prefix_cache(podsim::output::ServeReport& report, const ServeOutput& without) {
  report.set_compared_without_prefix_cache(true);
  fill(without.summary.ttft_s, *report.mutable_ttft_without_prefix_cache_s());
  report.set_goodput_without_prefix_cache_requests_per_s(without.summary.goodput_requests_per_s);
}

void write_requests_csv(const ServeOutput& out, const std::function<void(std::string_view)>& sink) {
  constexpr size_t kPiece = size_t{1} << 20;  // handed on at about 1 MiB
  std::string s =
      "request,arrival_s,replica,prompt_tokens,output_tokens,status,queue_delay_s,"
      "first_token_s,finish_s,ttft_s,tpot_s,e2e_s,preemptions,decode_replica,kv_transfer_s,"
      "energy_j,cached_prompt_tokens,max_tbt_s,tbt_over_slo\n";
  const bool powered = fleet_powered(out);
  const auto& reqs = out.run.requests;
  for (size_t i = 0; i < reqs.size(); ++i) {
    if (s.size() >= kPiece) {
      sink(s);
      s.clear();
    }
    const RequestRecord& r = reqs[i];
    s += std::to_string(i);
    s += ',' + format_double(r.arrival.to_s());
    s += ',' + report::csv_escape(out.setups[r.replica].name);
    s += ',' + std::to_string(r.prompt_tokens);
    s += ',' + std::to_string(r.output_tokens);
    if (r.rejected || !r.done) {
      s += r.shed ? ",shed,,," : r.rejected ? ",rejected,,," : ",unfinished,,,";
      s += r.rejected ? format_double(r.finish.to_s()) : "";
      s += ",,,," + std::to_string(r.preemptions) + ",,,,";
      s += std::to_string(r.cached_prompt_tokens) + ",,\n";
      continue;
    }
    const double tpot =
        r.output_tokens > 1 ? (r.finish - r.first_token).to_s() / (r.output_tokens - 1) : 0;
    s += ",ok," + format_double((r.admitted - r.arrival).to_s());
    s += ',' + format_double(r.first_token.to_s());
    s += ',' + format_double(r.finish.to_s());
    s += ',' + format_double((r.first_token - r.arrival).to_s());
    s += ',' + (r.output_tokens > 1 ? format_double(tpot) : std::string());
    s += ',' + format_double((r.finish - r.arrival).to_s());
    s += ',' + std::to_string(r.preemptions);
    s += ',' + report::csv_escape(out.setups[r.decode_replica].name);
    s += ',' + format_double(r.kv_transfer.to_s());
    s += ',' + (powered ? format_double(r.energy_j) : std::string());
    s += ',' + std::to_string(r.cached_prompt_tokens);
    s += ',' + (r.output_tokens > 1 ? format_double(r.max_tbt.to_s()) : std::string());
    s += ',' + std::to_string(r.tbt_over_slo);
    s += '\n';
  }
  sink(s);
}

std::string requests_csv(const ServeOutput& out) {
  std::string all;
  write_requests_csv(out, [&all](std::string_view piece) { all += piece; });
  return all;
}

std::string timeseries_csv(const ServeOutput& out) {
  std::string s =
      "time_s,replica,waiting,running,kv_blocks_used,kv_utilisation,power_w,fleet_power_w\n";
  const bool powered = fleet_powered(out);
  const auto& samples = out.run.samples;
  // Samples come by time, then replica: the fleet's power once per time, in
  // replica order (as summarize() sums it for peak_power_w).
  std::string fleet;
  for (size_t i = 0; i < samples.size(); ++i) {
    const TimeSample& t = samples[i];
    if (i == 0 || samples[i - 1].time != t.time) {
      double w = 0;
      for (size_t j = i; j < samples.size() && samples[j].time == t.time; ++j)
        w += samples[j].power_w;
      fleet = powered ? format_double(w) : std::string();
    }
    const ReplicaSetup& r = out.setups[t.replica];
    s += format_double(t.time.to_s());
    s += ',';
    s += report::csv_escape(r.name);
    s += ',' + std::to_string(t.waiting);
    s += ',' + std::to_string(t.running);
    s += ',' + std::to_string(t.kv_blocks_used);
    s += ',' +
         format_double(static_cast<double>(t.kv_blocks_used) / static_cast<double>(r.kv_blocks));
    s += ',';
    if (r.power_modelled)
      s += format_double(t.power_w);
    s += ',';
    s += fleet;
    s += '\n';
  }
  return s;
}

std::string summary_json(const podsim::output::ServeReport& report) {
  return report::to_json(report, report::JsonStyle{true, true}) + "\n";
}

std::string summary_csv(const podsim::output::ServeReport& report) {
  static const report::MessageCsv layout(podsim::output::ServeReport::descriptor());
  return layout.render(report);
}

void render_summary(std::ostream& os, const podsim::output::ServeReport& r) {
  os << "serve '" << r.name() << "': " << r.requests() << " requests (" << r.completed()
     << " completed, " << r.rejected() << " rejected, ";
  if (r.shed() > 0)
    os << r.shed() << " shed, ";
  os << r.preemptions() << " preemptions) over " << report::format_fixed(r.duration_s(), 3)
     << " s on " << r.chips() << " chips\n\n";
  report::Table t({"latency (ms)", "mean", "p50", "p90", "p99", "max"});
  auto row = [&](const char* name, const podsim::output::LatencyPercentiles& p) {
    t.add_row({name, ms(p.mean()), ms(p.p50()), ms(p.p90()), ms(p.p99()), ms(p.max())});
  };
  row("TTFT", r.ttft_s());
  row("TPOT", r.tpot_s());
  row("TBT", r.tbt_s());
  row("end-to-end", r.e2e_s());
  row("queue delay", r.queue_delay_s());
  t.render_text(os);
  os << "\n";
  std::vector<std::pair<std::string, std::string>> kv = {
      {"throughput", report::format_fixed(r.requests_per_s(), 3) + " requests/s, " +
                         report::format_fixed(r.output_tokens_per_s(), 1) + " output tokens/s"},
      {"goodput", report::format_fixed(r.goodput_requests_per_s(), 3) + " requests/s (" +
                      report::format_fixed(100 * r.slo_attainment(), 2) +
                      (r.slo_classes_size() > 0
                           ? std::string("% meet their SLO class's objectives)")
                           : "% meet TTFT <= " + report::format_double(r.slo_ttft_ms()) +
                                 " ms, TPOT <= " + report::format_double(r.slo_tpot_ms()) + " ms" +
                                 tbt_objective(r) + "; 0 = none)")},
      {"time between tokens", tbt_line(r)},
      {"chip utilisation",
       report::format_fixed(100 * r.chip_utilisation(), 2) + "% of the time busy, " +
           report::format_fixed(100 * r.model_flops_utilisation(), 2) + "% model FLOP utilisation"},
      {"KV-cache utilisation",
       report::format_fixed(100 * r.kv_utilisation(), 2) + "% (time-averaged)"},
      {"requests in system", report::format_fixed(r.mean_requests_in_system(), 3) + " (mean)"},
      {"step-time buckets", bucket_line(r.buckets())},
  };
  policy_key_values(r, kv);
  if (r.energy_modelled()) {
    std::string energy = report::format_fixed(r.energy_j() * 1e-3, 3) + " kJ (" +
                         report::format_fixed(r.idle_energy_j() * 1e-3, 3) + " kJ idle";
    if (r.kv_transfer_energy_j() > 0)
      energy += ", " + report::format_fixed(r.kv_transfer_energy_j(), 3) + " J KV transfers";
    energy += "), " + report::format_fixed(r.j_per_output_token(), 4) + " J per output token";
    kv.emplace_back("energy", energy);
    std::string power = report::format_fixed(r.mean_power_w(), 1) + " W mean, ";
    power += report::format_fixed(r.peak_power_w(), 1) + " W peak (time-series samples)";
    kv.emplace_back("power", power);
    const podsim::output::LatencyPercentiles& e = r.energy_per_request_j();
    std::string per_request = report::format_fixed(e.mean(), 3) + " J mean, ";
    per_request += report::format_fixed(e.p50(), 3) + " p50, ";
    per_request += report::format_fixed(e.p99(), 3) + " p99 (steps' energy only)";
    kv.emplace_back("energy per request", per_request);
  } else {
    kv.emplace_back("energy", "not modelled (a replica's chip has no power model)");
  }
  if (r.prefix_caching()) {
    std::string cache = report::format_fixed(100 * r.prefix_cache_hit_rate(), 2) +
                        "% of admitted prompt tokens cached, ";
    cache += std::to_string(r.prefill_tokens_saved()) + " prefill tokens saved, ";
    cache += std::to_string(r.cached_blocks_evicted()) + " blocks evicted";
    kv.emplace_back("prefix cache", cache);
    if (r.compared_without_prefix_cache()) {
      const podsim::output::LatencyPercentiles& w = r.ttft_without_prefix_cache_s();
      std::string without = "TTFT " + ms(w.mean()) + " ms mean, " + ms(w.p50()) + " p50, ";
      without += ms(w.p99()) + " p99; goodput ";
      without += report::format_fixed(r.goodput_without_prefix_cache_requests_per_s(), 3);
      without += " requests/s";
      kv.emplace_back("without prefix cache", without);
    }
  }
  if (r.priced()) {
    std::string cost = "$" + report::format_fixed(r.usd_per_m_output_tokens(), 4) +
                       " per million output tokens, $";
    cost += report::format_fixed(r.usd_per_hour(), 2) + " per hour, ";
    cost += report::format_fixed(r.gco2e_per_m_output_tokens(), 1) +
            " gCO2e per million output tokens (";
    cost += r.pricing();
    cost += ", ";
    cost += r.commitment();
    cost += ")";
    kv.emplace_back("cost", cost);
  }
  report::render_key_values(os, kv);
}

}  // namespace podsim::fleet

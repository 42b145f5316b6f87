#include "fleet/summary.h"

#include <algorithm>
#include <cmath>

#include "fleet/slo_classes.h"

namespace podsim::fleet {

Percentiles percentiles(std::vector<double>& values) {
  Percentiles p;
  p.count = values.size();
  if (values.empty())
    return p;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values)
    sum += v;
  p.mean = sum / static_cast<double>(values.size());
  auto rank = [&](double q) {
    const auto n = static_cast<double>(values.size());
    const auto k = static_cast<size_t>(std::ceil(q / 100 * n));
    return values[std::max<size_t>(k, 1) - 1];
  };
  p.p50 = rank(50);
  p.p90 = rank(90);
  p.p99 = rank(99);
  p.max = values.back();
  return p;
}

Percentiles percentiles(const GapHistogram& gaps) {
  Percentiles p;
  p.count = gaps.count();
  if (p.count == 0)
    return p;
  p.mean = gaps.mean_s();
  p.p50 = gaps.percentile_s(50);
  p.p90 = gaps.percentile_s(90);
  p.p99 = gaps.percentile_s(99);
  p.max = gaps.max().to_s();
  return p;
}

namespace {

double share_of(uint64_t part, uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// The fleet's energy figures from its replicas' (already in `s`) and the
// completed requests' shares (`energy`, sorted in place).
void summarize_energy(const FleetRun& run, ServeSummary& s, std::vector<double>& energy) {
  s.energy_modelled = !s.replicas.empty();
  for (const ReplicaSummary& r : s.replicas)
    s.energy_modelled = s.energy_modelled && r.energy_modelled;
  if (!s.energy_modelled)
    return;
  for (const ReplicaSummary& r : s.replicas) {
    s.busy_energy_j += r.busy_energy_j;
    s.idle_energy_j += r.idle_energy_j;
  }
  s.kv_transfer_energy_j = run.kv_transfer_energy_j;
  s.energy_j = s.busy_energy_j + s.idle_energy_j + s.kv_transfer_energy_j;
  if (s.duration_s > 0)
    s.mean_power_w = s.energy_j / s.duration_s;
  if (s.output_tokens > 0)
    s.j_per_output_token = s.energy_j / static_cast<double>(s.output_tokens);
  // Samples come by time, then replica: one fleet figure per time.
  for (size_t i = 0; i < run.samples.size();) {
    double fleet = 0;
    size_t j = i;
    for (; j < run.samples.size() && run.samples[j].time == run.samples[i].time; ++j)
      fleet += run.samples[j].power_w;
    s.peak_power_w = std::max(s.peak_power_w, fleet);
    i = j;
  }
  s.energy_per_request_j = percentiles(energy);
}

void summarize_speculation(const FleetRun& run, ServeSummary& s) {
  SpeculationSummary& sp = s.speculation;
  for (const ReplicaTotals& t : run.replicas) {
    sp.verifications += t.verifications;
    sp.drafted_tokens += t.drafted_tokens;
    sp.accepted_drafts += t.accepted_drafts;
    sp.verified_tokens += t.verified_tokens;
  }
  if (sp.verifications > 0)
    sp.tokens_per_verification =
        static_cast<double>(sp.verified_tokens) / static_cast<double>(sp.verifications);
  if (sp.drafted_tokens > 0)
    sp.draft_acceptance_rate =
        static_cast<double>(sp.accepted_drafts) / static_cast<double>(sp.drafted_tokens);
}

// Per class: its requests' counts, SLO attainment and latency percentiles.
void summarize_classes(const FleetRun& run, const std::vector<config::SloSpec>& table,
                       const std::vector<config::SloClassSpec>& classes, ServeSummary& s) {
  if (classes.empty())
    return;
  std::vector<SloClassSummary> by(table.size());
  std::vector<std::vector<double>> ttft(table.size());
  std::vector<std::vector<double>> tpot(table.size());
  for (size_t c = 0; c < table.size(); ++c) {
    by[c].name = c == 0 ? "" : classes[c - 1].name;
    by[c].slo = table[c];
  }
  for (const RequestRecord& r : run.requests) {
    SloClassSummary& c = by[r.slo_class];
    ++c.requests;
    c.tbt_gaps_over_slo += r.tbt_over_slo;
    if (r.shed)
      ++c.shed;
    if (r.rejected || !r.done)
      continue;
    ++c.completed;
    const double t_ttft = (r.first_token - r.arrival).to_s();
    ttft[r.slo_class].push_back(t_ttft);
    double t_tpot = 0;
    if (r.output_tokens > 1) {
      t_tpot = (r.finish - r.first_token).to_s() / (r.output_tokens - 1);
      tpot[r.slo_class].push_back(t_tpot);
    }
    if (meets(table[r.slo_class], t_ttft, t_tpot, r.max_tbt))
      ++c.slo_met;
  }
  for (size_t i = 1; i <= by.size(); ++i) {
    const size_t c = i % by.size();  // classes in file order, then class 0
    if (c == 0 && by[0].requests == 0)
      continue;
    by[c].ttft_s = percentiles(ttft[c]);
    by[c].tpot_s = percentiles(tpot[c]);
    if (c < run.tbt_by_class.size())
      by[c].tbt_s = percentiles(run.tbt_by_class[c]);
    by[c].tbt_over_slo_fraction = share_of(by[c].tbt_gaps_over_slo, by[c].tbt_s.count);
    if (by[c].requests > 0)
      by[c].slo_attainment =
          static_cast<double>(by[c].slo_met) / static_cast<double>(by[c].requests);
    if (s.duration_s > 0)
      by[c].goodput_requests_per_s = static_cast<double>(by[c].slo_met) / s.duration_s;
    s.slo_classes.push_back(std::move(by[c]));
  }
}

// Prefix caching: hit rates over the admitted requests' prompts (each
// request's hit at its first admission), tokens saved and blocks evicted
// over every admission.
void summarize_prefix_cache(const FleetRun& run, const std::vector<ReplicaSetup>& replicas,
                            ServeSummary& s) {
  std::vector<uint64_t> prompt(replicas.size(), 0);
  std::vector<uint64_t> cached(replicas.size(), 0);
  for (const RequestRecord& r : run.requests) {
    if (!r.was_admitted)
      continue;
    prompt[r.replica] += r.prompt_tokens;
    cached[r.replica] += r.cached_prompt_tokens;
  }
  uint64_t all_prompt = 0;
  for (size_t i = 0; i < replicas.size(); ++i) {
    ReplicaSummary& rs = s.replicas[i];
    const ReplicaTotals& t = run.replicas[i];
    s.prefix_caching = s.prefix_caching || replicas[i].prefix_caching;
    rs.prefix_caching = replicas[i].prefix_caching;
    rs.prefill_tokens_saved = t.prefill_tokens_saved;
    rs.cached_blocks_evicted = t.cached_blocks_evicted;
    if (prompt[i] > 0)
      rs.prefix_cache_hit_rate = static_cast<double>(cached[i]) / static_cast<double>(prompt[i]);
    s.prefill_tokens_saved += t.prefill_tokens_saved;
    s.cached_blocks_evicted += t.cached_blocks_evicted;
    s.cached_prompt_tokens += cached[i];
    all_prompt += prompt[i];
  }
  if (all_prompt > 0)
    s.prefix_cache_hit_rate =
        static_cast<double>(s.cached_prompt_tokens) / static_cast<double>(all_prompt);
}

}  // namespace

ServeSummary summarize(const FleetRun& run, const std::vector<ReplicaSetup>& replicas,
                       const config::SloSpec& slo,
                       const std::vector<config::SloClassSpec>& classes) {
  const std::vector<config::SloSpec> table = slo_table(slo, classes);
  ServeSummary s;
  s.requests = run.requests.size();
  s.duration_s = run.end.to_s();
  s.slo_ttft_ms = slo.ttft_ms;
  s.slo_tpot_ms = slo.tpot_ms;
  s.slo_tbt_ms = slo.tbt_ms;
  std::vector<double> ttft;
  std::vector<double> tpot;
  std::vector<double> e2e;
  std::vector<double> queue;
  std::vector<double> transfer;
  std::vector<double> energy;
  ttft.reserve(run.requests.size());
  e2e.reserve(run.requests.size());
  queue.reserve(run.requests.size());
  uint64_t output_tokens = 0;
  uint64_t total_tokens = 0;
  std::vector<uint64_t> per_replica(replicas.size(), 0);
  for (const RequestRecord& r : run.requests) {
    s.preemptions += r.preemptions;
    s.tbt_gaps_over_slo += r.tbt_over_slo;
    ++per_replica[r.replica];
    if (r.deferred)
      ++s.deferred;
    if (r.shed) {
      ++s.shed;
      continue;
    }
    if (r.rejected) {
      ++s.rejected;
      continue;
    }
    if (!r.done)
      continue;
    ++s.completed;
    output_tokens += r.output_tokens;
    total_tokens += uint64_t{r.output_tokens} + r.prompt_tokens;
    const double t_ttft = (r.first_token - r.arrival).to_s();
    ttft.push_back(t_ttft);
    e2e.push_back((r.finish - r.arrival).to_s());
    queue.push_back((r.admitted - r.arrival).to_s());
    energy.push_back(r.energy_j);
    if (r.decode_replica != r.replica)
      transfer.push_back(r.kv_transfer.to_s());
    double t_tpot = 0;
    if (r.output_tokens > 1) {
      t_tpot = (r.finish - r.first_token).to_s() / (r.output_tokens - 1);
      tpot.push_back(t_tpot);
    }
    if (meets(r.slo_class < table.size() ? table[r.slo_class] : slo, t_ttft, t_tpot, r.max_tbt))
      ++s.slo_met;
  }
  GapHistogram gaps;
  for (const GapHistogram& h : run.tbt_by_class)
    gaps.merge(h);
  s.tbt_s = percentiles(gaps);
  s.tbt_over_slo_fraction = share_of(s.tbt_gaps_over_slo, s.tbt_s.count);
  s.ttft_s = percentiles(ttft);
  s.tpot_s = percentiles(tpot);
  s.e2e_s = percentiles(e2e);
  s.queue_delay_s = percentiles(queue);
  s.kv_transfer_s = percentiles(transfer);
  s.output_tokens = output_tokens;
  if (s.duration_s > 0) {
    s.requests_per_s = static_cast<double>(s.completed) / s.duration_s;
    s.output_tokens_per_s = static_cast<double>(output_tokens) / s.duration_s;
    s.total_tokens_per_s = static_cast<double>(total_tokens) / s.duration_s;
    s.goodput_requests_per_s = static_cast<double>(s.slo_met) / s.duration_s;
    s.mean_requests_in_system = run.request_seconds / s.duration_s;
  }
  if (s.requests > 0)
    s.slo_attainment = static_cast<double>(s.slo_met) / static_cast<double>(s.requests);
  double chip_busy = 0;
  double chip_flops = 0;
  double block_seconds = 0;
  double blocks = 0;
  for (size_t i = 0; i < replicas.size(); ++i) {
    const ReplicaTotals& t = run.replicas[i];
    ReplicaSummary r;
    r.name = replicas[i].name;
    r.chips = replicas[i].chips;
    r.requests = per_replica[i];
    r.steps = t.steps;
    r.kv_blocks = replicas[i].kv_blocks;
    r.peak_batch = t.peak_batch;
    if (s.duration_s > 0) {
      r.busy_fraction = t.busy.to_s() / s.duration_s;
      r.model_flops_utilisation = t.flops_seconds / s.duration_s;
      r.kv_mean_utilisation =
          t.kv_block_seconds / (static_cast<double>(r.kv_blocks) * s.duration_s);
    }
    r.kv_peak_utilisation =
        static_cast<double>(t.peak_kv_blocks) / static_cast<double>(r.kv_blocks);
    r.energy_modelled = replicas[i].power_modelled && t.energy_modelled;
    if (r.energy_modelled) {
      r.busy_energy_j = t.busy_energy_j;
      const double idle_s = std::max(0.0, s.duration_s - t.busy.to_s());
      r.idle_energy_j = replicas[i].static_watts * idle_s;
      r.energy_j = r.busy_energy_j + r.idle_energy_j;
    }
    s.chips += r.chips;
    chip_busy += r.busy_fraction * r.chips;
    chip_flops += r.model_flops_utilisation * r.chips;
    block_seconds += t.kv_block_seconds;
    blocks += static_cast<double>(r.kv_blocks);
    s.replicas.push_back(std::move(r));
  }
  if (s.chips > 0) {
    s.chip_utilisation = chip_busy / s.chips;
    s.model_flops_utilisation = chip_flops / s.chips;
  }
  if (blocks > 0 && s.duration_s > 0)
    s.kv_utilisation = block_seconds / (blocks * s.duration_s);
  summarize_energy(run, s, energy);
  summarize_speculation(run, s);
  summarize_classes(run, table, classes, s);
  summarize_prefix_cache(run, replicas, s);
  return s;
}

}  // namespace podsim::fleet

// The figures of a fleet run (docs/serving.md, "Outputs"): latency
// percentiles, throughput, goodput under the SLOs, utilisation, energy, and
// the step-time buckets' error bound.
//
// Percentiles are nearest-rank on the sorted values (the smallest value with
// at least p% of the values at or below it), so every figure is one of the
// requests' own. TPOT is (finish - first token) / (output tokens - 1) over
// requests with at least two output tokens. Rejected requests count in no
// latency figure and never meet an SLO.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/serve_spec.h"
#include "fleet/fleet_sim.h"

namespace podsim::fleet {

struct Percentiles {
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
  uint64_t count = 0;
};

// Nearest-rank percentiles of `values` (sorted in place).
Percentiles percentiles(std::vector<double>& values);
// The same of a histogram's gaps, in seconds: count, mean and max exact,
// p50/p90/p99 within GapHistogram::kRelativeError.
Percentiles percentiles(const GapHistogram& gaps);

struct ReplicaSummary {
  std::string name;
  uint32_t chips = 0;
  uint64_t requests = 0;
  uint64_t steps = 0;
  double busy_fraction = 0;            // of the run's duration, with a step running
  double model_flops_utilisation = 0;  // over the run's duration
  double kv_mean_utilisation = 0;      // time-averaged used blocks over blocks
  double kv_peak_utilisation = 0;
  uint64_t kv_blocks = 0;
  uint32_t peak_batch = 0;
  // Its chip has a power model and every step's energy was known.
  bool energy_modelled = false;
  double busy_energy_j = 0;  // its steps'
  // Its static power (ReplicaSetup::static_watts) over the run's duration
  // less its busy time.
  double idle_energy_j = 0;
  double energy_j = 0;  // busy + idle
  // Prefix caching (docs/serving.md, "Prefix caching").
  bool prefix_caching = false;
  double prefix_cache_hit_rate = 0;   // its requests' prompt tokens found cached
  uint64_t prefill_tokens_saved = 0;  // over every admission
  uint64_t cached_blocks_evicted = 0;
};

struct BucketReport {
  uint32_t batch_steps_per_octave = 0;
  uint32_t length_steps_per_octave = 0;
  double input_rounding_bound = 0;  // the largest relative rounding up of a count
  bool error_measured = false;
  double step_time_error_bound = 0;  // measured, over the buckets met
  uint64_t buckets = 0;
  uint64_t simulated_steps = 0;  // oracle calls
  std::string mode;              // "refine" or "round_up"
  double max_error = 0;          // refined: the target
  uint64_t refinements = 0;      // refined: grid lines added
};

// The requests of one SLO class (index 0: of no class, the serve file's
// `slo`).
struct SloClassSummary {
  std::string name;
  config::SloSpec slo;
  uint64_t requests = 0;
  uint64_t completed = 0;
  uint64_t shed = 0;
  uint64_t slo_met = 0;
  double slo_attainment = 0;  // slo_met over requests
  double goodput_requests_per_s = 0;
  Percentiles ttft_s;
  Percentiles tpot_s;
  Percentiles tbt_s;               // its requests' gaps between tokens
  uint64_t tbt_gaps_over_slo = 0;  // longer than its TBT objective
  double tbt_over_slo_fraction = 0;
};

// Speculative decoding, over the replicas that speculate (ReplicaTotals).
struct SpeculationSummary {
  uint64_t verifications = 0;
  uint64_t drafted_tokens = 0;
  uint64_t accepted_drafts = 0;
  uint64_t verified_tokens = 0;
  double tokens_per_verification = 0;  // verified tokens / verifications
  double draft_acceptance_rate = 0;    // accepted drafts / drafted tokens
};

struct ServeSummary {
  uint64_t requests = 0;
  uint64_t completed = 0;
  uint64_t rejected = 0;  // never fit the KV cache (shed requests apart)
  uint64_t shed = 0;      // by admission control (REJECT_LATE)
  uint64_t deferred = 0;  // by admission control (DEFER_LATE)
  uint64_t preemptions = 0;
  double duration_s = 0;  // to the last request's end
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double total_tokens_per_s = 0;
  Percentiles ttft_s;
  Percentiles tpot_s;
  Percentiles e2e_s;
  Percentiles queue_delay_s;
  Percentiles kv_transfer_s;  // disaggregated: over the requests handed off
  double slo_ttft_ms = 0;
  double slo_tpot_ms = 0;
  // Time between tokens (docs/serving.md, "Time between tokens"): every gap
  // between consecutive tokens of a request (FleetRun::tbt_by_class merged),
  // those over their request's TBT objective, and their share.
  Percentiles tbt_s;
  double slo_tbt_ms = 0;
  uint64_t tbt_gaps_over_slo = 0;
  double tbt_over_slo_fraction = 0;
  uint64_t slo_met = 0;  // completed requests meeting every SLO given (their class's)
  double goodput_requests_per_s = 0;
  double slo_attainment = 0;           // slo_met over requests
  double mean_requests_in_system = 0;  // Little's L
  double chip_utilisation = 0;         // busy fraction, chip-weighted over replicas
  double model_flops_utilisation = 0;  // useful FLOPs over duration x chips x peak
  double kv_utilisation = 0;           // time-averaged, block-weighted over replicas
  uint32_t chips = 0;
  uint64_t output_tokens = 0;  // of the completed requests
  std::vector<ReplicaSummary> replicas;
  BucketReport buckets;
  // Energy (docs/serving.md, "Energy"). Every figure 0 unless every
  // replica's energy is modelled.
  bool energy_modelled = false;
  double energy_j = 0;              // busy + idle + KV transfers, over the run
  double busy_energy_j = 0;         // every replica's steps'
  double idle_energy_j = 0;         // every replica's static power while no step ran
  double kv_transfer_energy_j = 0;  // disaggregated: the caches' bytes over DCN and ICI
  double mean_power_w = 0;          // energy_j / duration_s
  double peak_power_w = 0;          // the largest fleet power among the time series' samples
  double j_per_output_token = 0;    // energy_j / output_tokens
  // Over the completed requests: each one's share of its steps' energy
  // (RequestRecord::energy_j); the shares add up to busy_energy_j.
  Percentiles energy_per_request_j;
  SpeculationSummary speculation;
  // With SLO classes: one entry per class in file order, then class 0 (the
  // requests of no class) when it has requests. Empty without classes.
  std::vector<SloClassSummary> slo_classes;
  // Prefix caching (docs/serving.md, "Prefix caching"): whether a replica
  // has it; prompt tokens found cached at the requests' first admission
  // (cached_prompt_tokens) over the prompt tokens of the requests admitted;
  // prefill tokens skipped over every admission (after preemptions too);
  // cached blocks evicted.
  bool prefix_caching = false;
  double prefix_cache_hit_rate = 0;
  uint64_t cached_prompt_tokens = 0;
  uint64_t prefill_tokens_saved = 0;
  uint64_t cached_blocks_evicted = 0;
};

// Each request is held to its class's objectives (`classes[c - 1]` for class
// c >= 1, `slo` for class 0).
ServeSummary summarize(const FleetRun& run, const std::vector<ReplicaSetup>& replicas,
                       const config::SloSpec& slo,
                       const std::vector<config::SloClassSpec>& classes = {});

}  // namespace podsim::fleet

// The request-level discrete-event simulation of a fleet (`podsim serve`):
// arrivals from one process, a router, replicas each stepping on its own
// schedule, all on one sim::Simulation. Step times come from each replica's
// StepTimer, so this file knows nothing of pods (fleet/serve.h wires the
// pod simulation in; tests wire formulas).
//
// Events: one pending arrival of the process's stream (plus one per
// closed-loop user thinking), one step end per busy replica, one sample
// tick: O(log events) each. Requests are records in one vector, sequences
// slots in each replica's pool: no allocation per request beyond the
// record's growth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fleet/arrivals.h"
#include "fleet/gap_histogram.h"
#include "fleet/kv_transfer.h"
#include "fleet/replica.h"
#include "sim/work_budget.h"

namespace podsim::fleet {

struct RequestRecord {
  sim::Time arrival;
  sim::Time admitted;     // first admission into a running batch
  sim::Time first_token;  // end of the step that produced it
  sim::Time finish;       // end of the step that produced the last token (or rejection)
  uint32_t prompt_tokens = 0;
  uint32_t output_tokens = 0;
  uint32_t replica = 0;         // the replica routed to (its prefill replica, disaggregated)
  uint32_t decode_replica = 0;  // where it decoded (the same, unless disaggregated)
  sim::Time kv_transfer;  // disaggregated: its cache's move over the network, contention included
  uint32_t preemptions = 0;
  // Its share of the energy of the steps that advanced it (each step's
  // shared by tokens processed: fleet/replica.h), in joules.
  double energy_j = 0;
  // Prompt tokens found in its replica's prefix cache at its first
  // admission (their prefill skipped).
  uint32_t cached_prompt_tokens = 0;
  // Time between tokens (docs/serving.md, "Time between tokens"): when its
  // latest token reached the user, the longest gap between two consecutive
  // tokens (tokens emitted together: 0 after the first), and how many gaps
  // exceeded its class's TBT objective (none without one).
  sim::Time last_token;
  sim::Time max_tbt;
  uint32_t tokens_emitted = 0;
  uint32_t tbt_over_slo = 0;
  bool was_admitted = false;  // joined a running batch at least once
  bool rejected = false;      // needs more KV blocks than its replica has, or shed
  bool shed = false;          // with rejected: shed by admission control (DEADLINE, REJECT_LATE)
  bool deferred = false;      // deferred by admission control (DEADLINE, DEFER_LATE)
  bool done = false;          // finished or rejected
  uint32_t slo_class = 0;     // fleet/slo_classes.h
};

// A replica's state at a sample time.
struct TimeSample {
  sim::Time time;
  uint32_t replica = 0;
  uint64_t waiting = 0;
  uint32_t running = 0;
  uint64_t kv_blocks_used = 0;
  double power_w = 0;  // Replica::power_w()
};

struct FleetSetup {
  std::vector<ReplicaSetup> replicas;  // one per copy
  config::RouterKind router = config::RouterKind::kRoundRobin;
  std::unique_ptr<ArrivalProcess> arrivals;
  sim::Time duration = sim::Time::max();  // no arrival after this
  uint64_t max_requests = 0;              // 0: no limit
  sim::Time sample_interval;              // 0: no time series
  bool record_steps = false;              // fill FleetRun::steps
  KvTransferSetup kv_transfer;            // with prefill and decode replicas (fleet/kv_transfer.h)
  // Each SLO class's objectives, by class index (fleet/slo_classes.h); the
  // schedulers see each request's deadline and TPOT objective. Empty: none.
  std::vector<config::SloSpec> slo_by_class;
  // Charged by the fleet's simulation (sim/work_budget.h): a run past a
  // limit throws sim::WorkLimitExceeded. Optional.
  sim::WorkBudget* budget = nullptr;
};

struct FleetRun {
  std::vector<RequestRecord> requests;  // in arrival order
  std::vector<TimeSample> samples;      // by time, then replica
  bool samples_truncated = false;       // stopped at kMaxSamples
  std::vector<ReplicaTotals> replicas;
  std::vector<std::vector<StepRecord>> steps;  // per replica, with record_steps
  // Every gap between consecutive tokens of a request, streamed, by the
  // request's SLO class (fleet/gap_histogram.h); one entry per class of
  // FleetSetup::slo_by_class (at least one).
  std::vector<GapHistogram> tbt_by_class;
  sim::Time end;  // the last event (the last request's end)
  // Integral over time of the requests in the system (arrived, not done),
  // in request-seconds: Little's L times `end`.
  double request_seconds = 0;
  uint64_t events = 0;
  uint64_t fingerprint = 0;  // of the event stream
  // Disaggregated: the KV caches' moves, in bytes sent and in joules (the
  // transfer pod's chip's power model: every byte sent into the DCN pays
  // dcn_pj_per_byte, every ICI hop ici_pj_per_byte_per_hop).
  uint64_t kv_transfer_bytes = 0;
  bool kv_resharded = false;  // moved by the resharding pattern (fleet/kv_reshard.h)
  double kv_transfer_energy_j = 0;
};

// Rows of the time series at most (a month sampled every second over
// thousands of replicas would not fit in memory); sampling stops there.
inline constexpr std::size_t kMaxSamples = 4'000'000;

FleetRun simulate(FleetSetup setup);

}  // namespace podsim::fleet

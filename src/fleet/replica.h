// One serving replica on the fleet's Simulation: it runs one step at a time,
// as its scheduler plans them and its step timer costs them, and tells the
// run when requests produce their first token and finish.
//
// Per step: plan O(batch), one timer query (O(log memo)), one event. Each
// step's energy (the timer's, plus the slice's idle and host power over any
// swap time) is shared among the requests it advanced in proportion to the
// tokens each processed in it (prompt tokens, or 1 for a decode).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "fleet/replica_state.h"
#include "fleet/rng.h"
#include "fleet/scheduler.h"
#include "fleet/speculation.h"
#include "fleet/step_timer.h"
#include "sim/simulation.h"
#include "sim/time.h"

namespace podsim::fleet {

// One step of a replica, for traces (FleetSetup::record_steps).
struct StepRecord {
  sim::Time start;
  sim::Time end;
  StepShape shape;
  uint64_t swap_tokens = 0;
};

// Progress of requests, as the replica makes it (times are the step's end).
class RequestListener : public ReplicaListener {
 public:
  virtual void first_token(uint32_t request, sim::Time t) = 0;
  virtual void finished(uint32_t request, sim::Time t) = 0;
  virtual void rejected_at(uint32_t request, sim::Time t) = 0;
  // Shed by admission control (DEADLINE with REJECT_LATE) at t; deferred.
  virtual void shed_at(uint32_t request, sim::Time t) { rejected_at(request, t); }
  virtual void deferred_request(uint32_t request) { (void)request; }
  // A prefill replica's sequence finished its prefill at t: its cache of
  // `cached` tokens (in `blocks` blocks, held until return_blocks()) moves
  // to a decode replica.
  virtual void handed_off(uint32_t replica, uint32_t request, const Sequence& s, sim::Time t) = 0;
  // `n` tokens of `request` reach its user at t, the end of the step that
  // produced them (its first token's too; a speculative verification's
  // kept drafts and the target's own token together).
  virtual void tokens(uint32_t request, uint32_t n, sim::Time t) {
    (void)request;
    (void)n;
    (void)t;
  }
  // A step that just ended charges `joules` of its energy to `request`.
  virtual void charged(uint32_t request, double joules) {
    (void)request;
    (void)joules;
  }

 protected:
  ~RequestListener() = default;
};

enum class ReplicaRole {
  kUnified,  // prefills and decodes its requests
  kPrefill,  // prefills, then hands each sequence to a decode replica
  kDecode,   // decodes sequences prefilled elsewhere (and recomputes its preempted ones)
};

struct ReplicaSetup {
  std::string name;
  ReplicaRole role = ReplicaRole::kUnified;
  config::SchedulerKind scheduler = config::SchedulerKind::kContinuous;
  config::AdmissionKind admission = config::AdmissionKind::kAdmitAll;  // DEADLINE only
  SchedulerLimits limits;
  uint64_t kv_blocks = 1;
  uint32_t kv_block_tokens = 16;
  uint32_t chips = 1;  // for chip-utilisation figures
  // The slice's power while no step runs: its powered chips x (idle + host
  // watts) of its chip's power model (config::PowerSpec), and whether it has
  // one. Steps draw what the timer says (StepCost::energy_j).
  double static_watts = 0;
  bool power_modelled = false;
  // Swap preemption: the time to copy one cached token between HBM and host
  // (its bytes per chip over the host bandwidth); recompute when 0.
  double swap_s_per_token = 0;
  // KV-cache bytes of one cached token on each chip (disaggregation: what a
  // handed-off sequence sends per chip).
  double kv_bytes_per_token = 0;
  // Keep full KV blocks of named content for later requests
  // (fleet/prefix_cache.h).
  bool prefix_caching = false;
  StepTimer* timer = nullptr;  // not owned; may be shared by identical copies
  // Speculative decoding (limits.decode_tokens = draft tokens + 1): each
  // verification's accepted drafts, drawn from this acceptance with this
  // seed (fleet/speculation.h). Empty: plain decoding.
  std::vector<double> acceptance;
  uint64_t acceptance_seed = 0;
};

// Time integrals of a replica's state, for utilisation figures.
struct ReplicaTotals {
  sim::Time busy;               // time with a step running
  double flops_seconds = 0;     // integral of the steps' model FLOP utilisation over time
  double kv_block_seconds = 0;  // integral of used KV blocks over time
  uint64_t steps = 0;
  uint64_t prefill_tokens = 0;
  uint64_t decode_tokens = 0;
  uint64_t swapped_tokens = 0;  // copied between HBM and host, both ways
  sim::Time swap_time;          // steps' time spent on it
  uint32_t peak_batch = 0;
  uint64_t peak_kv_blocks = 0;
  // The steps' energy (joules): what the timer gave, plus the static power
  // over their swap time; modelled while every step's was.
  double busy_energy_j = 0;
  bool energy_modelled = true;
  // Speculative decoding: sequence verifications, drafts proposed in them,
  // drafts accepted (as drawn) and tokens they produced (accepted drafts
  // kept and the target's own, within each request's output).
  uint64_t verifications = 0;
  uint64_t drafted_tokens = 0;
  uint64_t accepted_drafts = 0;
  uint64_t verified_tokens = 0;
  // Prefix caching: prefill tokens found cached (every admission, after
  // preemptions too), and cached blocks evicted.
  uint64_t prefill_tokens_saved = 0;
  uint64_t cached_blocks_evicted = 0;
};

class Replica final : public sim::EventHandler, private ReplicaListener {
 public:
  Replica(uint32_t index, const ReplicaSetup& setup, RequestListener& listener);

  // A routed request arrives now; an idle replica starts a step. `prefix`:
  // the chain naming its tokens (fleet/prefix_chains.h); its TTFT deadline
  // and TPOT objective (fleet/slo_classes.h).
  void enqueue(sim::Simulation& sim, uint32_t request, uint32_t prompt, uint32_t output,
               uint32_t prefix = PrefixChains::kRoot, sim::Time deadline = sim::Time::max(),
               sim::Time tpot = {});
  // The run's prefix chains (not owned), for prefix caching.
  void use_chains(const PrefixChains* chains) { state_.use_chains(chains); }
  // A sequence prefilled elsewhere arrives with its cache (disaggregation).
  void enqueue_prefilled(sim::Simulation& sim, const Sequence& s);
  // The blocks of a sequence handed off earlier (as it was handed off) are
  // free again.
  void return_blocks(sim::Simulation& sim, const Sequence& handed_off);
  void handle(sim::Simulation& sim, uint64_t payload) override;  // a step ends

  uint32_t index() const { return index_; }
  const ReplicaSetup& setup() const { return setup_; }
  const ReplicaState& state() const { return state_; }
  uint64_t outstanding_tokens() const { return state_.outstanding_tokens(); }
  // Steps are appended to `steps` from now on (not owned; null: none).
  void record_steps(std::vector<StepRecord>* steps) { steps_ = steps; }
  // The totals up to `now` (KV integral brought up to date).
  ReplicaTotals totals(sim::Time now) const;
  // What the slice draws now (watts): the running step's energy over its
  // time, or the static power when no step runs.
  double power_w() const;

 private:
  void admitted(uint32_t request) override { listener_.admitted(request); }
  void preempted(uint32_t request) override { listener_.preempted(request); }
  void rejected(uint32_t request) override { rejected_.push_back(request); }
  void shed(uint32_t request) override { shed_.push_back(request); }
  void deferred(uint32_t request) override { listener_.deferred_request(request); }
  void prefix_hit(uint32_t request, uint32_t tokens, bool first) override {
    listener_.prefix_hit(request, tokens, first);
  }

  void start_step(sim::Simulation& sim);
  double step_mfu_ = 0;
  double step_energy_j_ = 0;  // the running step's
  sim::Time step_time_;       // the running step's, swaps included
  std::vector<StepRecord>* steps_ = nullptr;
  void apply(sim::Time now);
  void account_kv(sim::Time now);

  uint32_t index_;
  ReplicaSetup setup_;
  RequestListener& listener_;
  ReplicaState state_;
  std::unique_ptr<Scheduler> scheduler_;
  Acceptance acceptance_;
  Rng acceptance_rng_;
  StepPlan plan_;
  std::vector<uint32_t> rejected_;  // during a plan; reported with its time
  std::vector<uint32_t> shed_;      // the same, shed by admission control
  bool busy_ = false;
  sim::Time step_start_;
  sim::Time kv_since_;
  ReplicaTotals totals_;
};

}  // namespace podsim::fleet

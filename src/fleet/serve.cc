#include "fleet/serve.h"

#include <algorithm>
#include <memory>

#include "fleet/buckets.h"
#include "fleet/slo_classes.h"
#include "fleet/speculative_replica.h"
#include "net/network.h"
#include "sim/time.h"
#include "study/evaluate.h"
#include "topo/components.h"

namespace podsim::fleet {

Server::Server(const config::ServeSpec& spec, const sim::WorkLimits& limits)
    : spec_(spec), limits_(limits) {
  const net::Model network = net::parse_model(spec.network).value_or(net::Model::kAnalytical);
  for (const config::ServeReplicaSpec& r : spec.replicas) {
    engines_.push_back(std::make_unique<EngineReplica>(r, network, limits));
    const EngineReplica& engine = *engines_.back();
    MemoOptions mo;
    mo.batch_steps_per_octave = spec.buckets.batch_steps_per_octave;
    mo.length_steps_per_octave = spec.buckets.length_steps_per_octave;
    mo.batch_quantum = engine.batch_quantum();
    mo.measure_error = spec.buckets.measure_error;
    mo.refine = spec.buckets.refine();
    mo.max_error = spec.buckets.max_error;
    memos_.push_back(std::make_unique<StepMemo>(engine.oracle(), mo));
    ReplicaInfo info;
    info.name = r.name;
    info.copies = r.count;
    info.chips = static_cast<uint32_t>(r.pod.chip_count());
    info.kv = engine.kv_capacity();
    StepTimer* timer = memos_.back().get();
    SpeculativeReplica* speculative = nullptr;
    if (r.speculative.enabled()) {
      speculative_.push_back(
          std::make_unique<SpeculativeReplica>(r, engine, *memos_.back(), mo, network, limits));
      speculative = speculative_.back().get();
      info.kv = speculative->kv_capacity(info.kv);
      info.chips += speculative->draft_chips();
      timer = speculative->timer();
    }
    for (uint32_t c = 0; c < r.count; ++c) {
      ReplicaSetup rs;
      rs.name = r.count == 1 ? r.name : r.name + "#" + std::to_string(c);
      rs.scheduler = r.scheduler;
      rs.admission = r.admission;
      rs.limits =
          SchedulerLimits{r.max_batch, r.max_tokens_per_step, r.speculative.draft_tokens + 1};
      rs.acceptance = r.speculative.acceptance;
      // Each copy its own stream, apart from the arrivals' (seeded by spec.seed).
      rs.acceptance_seed = spec.seed ^ (0x5bd1e9955bd1e995ull * (setups_.size() + 1));
      rs.kv_blocks = info.kv.blocks;
      rs.kv_block_tokens = r.kv_block_tokens;
      rs.chips = info.chips;
      rs.power_modelled = r.pod.chip.power.modelled;
      rs.static_watts = static_watts(r.pod);
      if (speculative != nullptr) {
        rs.power_modelled = rs.power_modelled && (speculative->draft_chips() == 0 ||
                                                  r.speculative.draft_pod->chip.power.modelled);
        rs.static_watts += speculative->draft_static_watts();
      }
      rs.role = r.role == config::RoleKind::kPrefill  ? ReplicaRole::kPrefill
                : r.role == config::RoleKind::kDecode ? ReplicaRole::kDecode
                                                      : ReplicaRole::kUnified;
      rs.kv_bytes_per_token = info.kv.kv_bytes_per_token;
      if (r.preemption == config::PreemptionKind::kSwap)
        rs.swap_s_per_token = info.kv.kv_bytes_per_token / (r.host_bandwidth_gbps * 1e9);
      rs.timer = timer;
      setups_.push_back(rs);
    }
    info_.push_back(std::move(info));
  }
  // The prefill and decode copies, in order, take the KV pod's placements.
  if (spec.kv_transfer.pod) {
    kv_.pod = std::make_shared<const topo::Pod>(*spec.kv_transfer.pod);
    kv_.model = net::parse_model(spec.kv_transfer.model).value_or(net::Model::kFlow);
    kv_.shape = spec.kv_transfer.shape;
    size_t next = 0;
    std::vector<uint32_t> prefill;
    std::vector<uint32_t> decode;
    for (const ReplicaSetup& rs : setups_) {
      const auto copy = static_cast<uint32_t>(kv_.place.size());
      if (rs.role == ReplicaRole::kPrefill)
        prefill.push_back(copy);
      if (rs.role == ReplicaRole::kDecode)
        decode.push_back(copy);
      kv_.place.push_back(rs.role == ReplicaRole::kUnified ? config::KvPlacement{}
                                                           : spec.kv_transfer.placement.at(next++));
    }
    set_up_reshard(spec);
    try {
      if (kv_.reshard)
        require_reshard_routes(kv_, prefill, decode);
      else
        require_kv_routes(kv_, prefill, decode);
    } catch (const topo::Partitioned& e) {
      throw StepError(
          std::string(spec.kv_transfer.ici_topology.empty()
                          ? "the KV transfer pod: "
                          : "the KV transfer topology " + spec.kv_transfer.ici_topology + ": ") +
              e.what(),
          spec.kv_transfer.ici_topology.empty() ? "kv_transfer" : "kv_transfer.ici_topology");
    }
  }
}

namespace {

// The prefill and decode replicas shard one model alike (the same mesh,
// model and sharding): each chip holds what the same chip of the other does.
bool sharded_alike(const config::ServeSpec& spec) {
  const config::ServeReplicaSpec* first = nullptr;
  for (const config::ServeReplicaSpec& r : spec.replicas) {
    if (r.role == config::RoleKind::kUnified)
      continue;
    if (first == nullptr) {
      first = &r;
      continue;
    }
    if (!(r.workload.mesh == first->workload.mesh) ||
        !(r.workload.serving->model == first->workload.serving->model) ||
        !(r.workload.serving->sharding == first->workload.serving->sharding))
      return false;
  }
  return true;
}

}  // namespace

// Copies of different slices, shardings alike or not, or the file's
// kv_transfer.reshard: caches move by the resharding pattern. Each role
// replica's layout is read once from its own pod and workload; a pair of
// layouts the pattern cannot join is refused here, before the fleet runs.
void Server::set_up_reshard(const config::ServeSpec& spec) {
  kv_.reshard = spec.kv_transfer.reshard || spec.kv_transfer.chips_by_id || !sharded_alike(spec);
  if (!kv_.reshard)
    return;
  const topo::Pod& pod = *kv_.pod;
  std::vector<std::shared_ptr<const KvLayout>> layouts;
  size_t copy = 0;
  for (const config::ServeReplicaSpec& r : spec.replicas) {
    std::shared_ptr<const KvLayout> layout;
    std::unique_ptr<topo::Pod> own;
    if (r.role != config::RoleKind::kUnified) {
      own = std::make_unique<topo::Pod>(r.pod.without_faults());
      try {
        layout = std::make_shared<const KvLayout>(kv_layout(*own, r.workload));
      } catch (const KvLayoutError& e) {
        throw StepError(e.what());
      }
      layouts.push_back(layout);
    }
    for (uint32_t c = 0; c < r.count; ++c, ++copy) {
      kv_.layout.push_back(layout);
      kv_.power.push_back(r.pod.chip.power);
      std::vector<topo::ChipId> chips;
      if (own) {
        const config::KvPlacement& p = kv_.place.at(copy);
        for (topo::ChipId id = 0; id < own->chip_count(); ++id) {
          std::vector<uint32_t> at;
          if (spec.kv_transfer.chips_by_id) {
            at = {id};
          } else {
            at = own->coords(id);
            for (size_t d = 0; d < at.size() && d < p.origin.size(); ++d)
              at[d] += p.origin[d];
          }
          chips.push_back(pod.chip_at(p.slice, at));
        }
      }
      kv_.chips.push_back(std::move(chips));
    }
  }
  // Every pair of layouts must be of one cache.
  for (const auto& a : layouts) {
    for (const auto& b : layouts) {
      try {
        (void)kv_reshard(*a, 0, *b, 0);
      } catch (const KvLayoutError& e) {
        throw StepError(e.what());
      }
    }
  }
}

Server::~Server() = default;

ServeOutput Server::run(const config::ServeSpec& run, bool record_steps) {
  ServeOutput out;
  out.replicas = info_;
  for (const std::unique_ptr<StepMemo>& memo : memos_)
    memo->new_run();
  for (const std::unique_ptr<SpeculativeReplica>& sp : speculative_) {
    for (StepMemo* memo : sp->memos())
      memo->new_run();
  }
  FleetSetup setup;
  setup.replicas = setups_;
  // Prefix caching is the run's choice (a run without it is the "without"
  // of --compare-no-prefix-cache); the replicas' wiring is the same.
  size_t copy = 0;
  for (const config::ServeReplicaSpec& r : run.replicas)
    for (uint32_t c = 0; c < r.count && copy < setup.replicas.size(); ++c)
      setup.replicas[copy++].prefix_caching = r.prefix_caching;
  setup.router = run.router;
  setup.arrivals =
      with_drawn_classes(make_arrival_process(run.arrivals, run.seed), run.slo_classes, run.seed);
  setup.slo_by_class = slo_table(run.slo, run.slo_classes);
  setup.duration = run.duration;
  setup.max_requests = run.max_requests;
  setup.sample_interval = run.sample_interval;
  setup.record_steps = record_steps;
  setup.kv_transfer = kv_;
  sim::WorkBudget budget(limits_);
  budget.set_observer(progress_);
  setup.budget = &budget;
  out.setups = setup.replicas;
  try {
    out.run = simulate(std::move(setup));
  } catch (const sim::TimeOverflow& e) {
    // Steps, swaps and transfers each within the clock can still add up past
    // it (slow replicas, long outputs): refused as `podsim run` refuses it.
    throw StepError(study::clock_overflow_reason(e));
  }
  out.summary = summarize(out.run, out.setups, run.slo, run.slo_classes);
  BucketReport& b = out.summary.buckets;
  b.batch_steps_per_octave = spec_.buckets.batch_steps_per_octave;
  b.length_steps_per_octave = spec_.buckets.length_steps_per_octave;
  const bool refine = spec_.buckets.refine();
  b.input_rounding_bound =
      refine ? 0.0
             : bucket_relative_bound(std::min(spec_.buckets.batch_steps_per_octave,
                                              spec_.buckets.length_steps_per_octave));
  b.error_measured = spec_.buckets.measure_error;
  b.mode = refine ? "refine" : "round_up";
  b.max_error = refine ? spec_.buckets.max_error : 0.0;
  for (size_t i = 0; i < memos_.size(); ++i) {
    out.replicas[i].memo = memos_[i]->stats();
    b.step_time_error_bound =
        std::max(b.step_time_error_bound, memos_[i]->stats().max_relative_error);
    b.buckets += memos_[i]->stats().entries;
    b.simulated_steps += memos_[i]->stats().oracle_calls;
    b.refinements += memos_[i]->stats().refinements;
  }
  for (const auto& sp : speculative_) {
    for (const StepMemo* m : sp->memos()) {
      b.step_time_error_bound = std::max(b.step_time_error_bound, m->stats().max_relative_error);
      b.buckets += m->stats().entries;
      b.simulated_steps += m->stats().oracle_calls;
      b.refinements += m->stats().refinements;
    }
  }
  for (ReplicaSetup& rs : out.setups)
    rs.timer = nullptr;
  return out;
}

sim::Time Server::prefill_alone(size_t entry, uint32_t prompt_tokens) {
  size_t copy = 0;
  for (size_t i = 0; i < entry; ++i)
    copy += spec_.replicas.at(i).count;
  const config::ServeReplicaSpec& r = spec_.replicas.at(entry);
  StepTimer& timer = *setups_.at(copy).timer;
  const bool chunked = r.scheduler == config::SchedulerKind::kChunkedPrefill ||
                       r.scheduler == config::SchedulerKind::kDeadline;
  const uint64_t most = chunked ? std::max<uint64_t>(r.max_tokens_per_step, 1) : prompt_tokens;
  sim::Time total;
  uint64_t done = 0;
  while (done < prompt_tokens) {
    const uint64_t chunk = std::min<uint64_t>(prompt_tokens - done, most);
    StepShape shape;
    shape.prefill_sequences = 1;
    shape.prefill_tokens = chunk;
    shape.prefill_context_tokens = done;
    total += timer.step_time(shape);
    done += chunk;
  }
  return total;
}

ServeOutput serve(const config::ServeSpec& spec, bool record_steps, const sim::WorkLimits& limits) {
  Server server(spec, limits);
  return server.run(spec, record_steps);
}

}  // namespace podsim::fleet

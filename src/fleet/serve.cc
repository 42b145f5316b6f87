#include "fleet/serve.h"

#include <algorithm>
#include <memory>

#include "fleet/buckets.h"
#include "net/network.h"

namespace podsim::fleet {

ServeOutput serve(const config::ServeSpec& spec) {
  const net::Model network = net::parse_model(spec.network).value_or(net::Model::kAnalytical);
  std::vector<std::unique_ptr<EngineReplica>> engines;
  std::vector<std::unique_ptr<StepMemo>> memos;
  ServeOutput out;
  FleetSetup setup;
  for (const config::ServeReplicaSpec& r : spec.replicas) {
    engines.push_back(std::make_unique<EngineReplica>(r, network));
    const EngineReplica& engine = *engines.back();
    MemoOptions mo;
    mo.batch_steps_per_octave = spec.buckets.batch_steps_per_octave;
    mo.length_steps_per_octave = spec.buckets.length_steps_per_octave;
    mo.batch_quantum = engine.batch_quantum();
    mo.measure_error = spec.buckets.measure_error;
    memos.push_back(std::make_unique<StepMemo>(engine.oracle(), mo));
    ReplicaInfo info;
    info.name = r.name;
    info.copies = r.count;
    info.chips = static_cast<uint32_t>(r.pod.chip_count());
    info.kv = engine.kv_capacity();
    for (uint32_t c = 0; c < r.count; ++c) {
      ReplicaSetup rs;
      rs.name = r.count == 1 ? r.name : r.name + "#" + std::to_string(c);
      rs.scheduler = r.scheduler;
      rs.limits = SchedulerLimits{r.max_batch, r.max_tokens_per_step};
      rs.kv_blocks = info.kv.blocks;
      rs.kv_block_tokens = r.kv_block_tokens;
      rs.chips = info.chips;
      if (r.preemption == config::PreemptionKind::kSwap)
        rs.swap_s_per_token = info.kv.kv_bytes_per_token / (r.host_bandwidth_gbps * 1e9);
      rs.timer = memos.back().get();
      setup.replicas.push_back(rs);
    }
    out.replicas.push_back(std::move(info));
  }
  setup.router = spec.router;
  setup.arrivals = make_arrival_process(spec.arrivals, spec.seed);
  setup.duration = spec.duration;
  setup.max_requests = spec.max_requests;
  setup.sample_interval = spec.sample_interval;
  out.setups = setup.replicas;
  out.run = simulate(std::move(setup));
  out.summary = summarize(out.run, out.setups, spec.slo);
  BucketReport& b = out.summary.buckets;
  b.batch_steps_per_octave = spec.buckets.batch_steps_per_octave;
  b.length_steps_per_octave = spec.buckets.length_steps_per_octave;
  b.input_rounding_bound = bucket_relative_bound(
      std::min(spec.buckets.batch_steps_per_octave, spec.buckets.length_steps_per_octave));
  b.error_measured = spec.buckets.measure_error;
  for (size_t i = 0; i < memos.size(); ++i) {
    out.replicas[i].memo = memos[i]->stats();
    b.step_time_error_bound =
        std::max(b.step_time_error_bound, memos[i]->stats().max_relative_error);
    b.buckets += memos[i]->stats().entries;
    b.simulated_steps += memos[i]->stats().oracle_calls;
  }
  for (ReplicaSetup& rs : out.setups)
    rs.timer = nullptr;
  return out;
}

}  // namespace podsim::fleet

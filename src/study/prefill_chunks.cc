#include "study/prefill_chunks.h"

namespace podsim::study {

std::optional<ChunkedPrefill> fit_prefill_chunks(const config::ServingSpec& serving,
                                                 const workload::Program& unchunked,
                                                 uint64_t data_replicas,
                                                 uint64_t hbm_capacity_bytes,
                                                 const Lowering& lower) {
  const config::ScenarioSpec& sc = serving.scenario;
  if (sc.phase != config::Phase::kPrefill || sc.prefill_chunks != 0 ||
      !serving.sharding.pipeline_axis.empty() || data_replicas == 0)
    return std::nullopt;
  const workload::MemoryFootprint& m = unchunked.memory_per_chip;
  // Neither the weights nor the whole batch's KV cache shrink with chunks.
  if (m.weight_bytes + m.kv_cache_bytes >= hbm_capacity_bytes)
    return std::nullopt;
  const uint64_t sequences = sc.batch / data_replicas / sc.micro_batches;
  // Each layer's weights gathered once first (with every chunk's residual
  // live), at any number of chunks; a gather per chunk only when no number
  // fits that way. Elsewhere the flag changes nothing, and the first pass
  // finds the answer.
  for (const bool regather : {false, true}) {
    for (uint64_t k = 2; k <= sequences; ++k) {
      if (sequences % k != 0)
        continue;
      ChunkedPrefill out{serving, nullptr};
      out.serving.scenario.prefill_chunks = static_cast<uint32_t>(k);
      out.serving.scenario.regather_chunk_weights = regather;
      try {
        out.program = lower(out.serving);
      } catch (const workload::ShapeError&) {
        continue;  // the layout cannot split a chunk this small (or this shape)
      }
      if (out.program->memory_per_chip.total() <= hbm_capacity_bytes)
        return out;
    }
    if (unchunked.weight_gathers == 0)
      break;  // nothing is gathered: a second pass would lower the same programs
  }
  return std::nullopt;
}

}  // namespace podsim::study

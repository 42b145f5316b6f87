// A prefill whose activations do not fit: the fewest sequential chunks of
// each replica's sequences that make the step fit in HBM, when its weights
// and KV cache fit by themselves (docs/outputs.md, serving.prefill_chunks).
//
// Chunking trades time for memory: each chunk reads the weights again and
// only one chunk's working set is live (workload/lower.cc). Weight-gathered,
// the chunks run inside each layer, so each layer is gathered once and every
// chunk's residual stream stays live; a gather per chunk, with one chunk's
// residual live, is chosen only when no number of chunks fits otherwise
// (scenario.regather_chunk_weights; the result reports the gathers). The
// choice stays with the user when scenario.prefill_chunks is set; this is
// the automatic choice for 0, made only for a step that would not fit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "config/serving_spec.h"
#include "workload/program.h"

namespace podsim::study {

struct ChunkedPrefill {
  config::ServingSpec serving;  // the input with scenario.prefill_chunks set
  std::shared_ptr<const workload::Program> program;
};

// Lowers `serving` (the caller's lowering, cached or not); throws ShapeError.
using Lowering =
    std::function<std::shared_ptr<const workload::Program>(const config::ServingSpec&)>;

// Tries K = 2, 3, ... over the divisors of each replica's sequences per
// micro-batch, skipping those the layout cannot split, and returns the first
// whose program fits in `hbm_capacity_bytes` per chip; weight-gathered, the
// same again with a gather per chunk when none fits. nullopt when the
// step is not an automatic-chunking prefill (decode, a pipeline, chunks
// given), when weights and KV cache alone exceed the capacity, or when no K
// fits. `unchunked` is the program lowered for `serving` as given.
std::optional<ChunkedPrefill> fit_prefill_chunks(const config::ServingSpec& serving,
                                                 const workload::Program& unchunked,
                                                 uint64_t data_replicas,
                                                 uint64_t hbm_capacity_bytes,
                                                 const Lowering& lower);

}  // namespace podsim::study

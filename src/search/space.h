// The space `podsim search` explores: every sharding of a serving model that
// the lowering supports on one slice, at every batch size asked for
// (docs/search.md lists what is enumerated and what is left out on purpose).
//
// A sharding is built from a role per torus dimension (every dimension of
// size > 1, and the slices of a multi-slice pod, must have one):
//   first tensor axis, second tensor axis (2D weight-stationary), expert
//   axis, expert axis that is also a data axis (MoE models only), data axis,
//   pipeline axis.
// The dimensions of one role form one mesh axis, over several dimensions in
// torus order when there are several (the slices, joined by the DCN, are an
// axis of their own and take the data or pipeline role only). Then the
// tensor layout: 2D weight-stationary (KV by heads or by batch); 1D with
// all-reduce or reduce-scatter + all-gather, each with KV by heads or by
// batch; or weight-gathered (one tensor axis). Then the batch, and with a
// pipeline the micro-batches.
//
// The enumeration does not apply the loader's rules: candidates that break
// them (a batch that does not divide over the replicas, heads that do not
// divide over the tensor chips) are generated and left to
// config::parse_workload_text() to reject, so the loader is the one judge of
// what podsim accepts. The order is fixed (roles, then layout, batch,
// micro-batches), so candidate indices are stable run to run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config/serving_candidate.h"
#include "config/serving_spec.h"
#include "config/topology_spec.h"

namespace podsim::search {

struct SpaceOptions {
  config::Phase phase = config::Phase::kDecode;
  uint32_t context_len = 0;
  uint32_t prompt_len = 0;  // prefill only
  // Batch sizes (sequences over the whole slice); empty: default_batches().
  std::vector<uint32_t> batches;
  // With P pipeline stages, micro-batch counts are the divisors of the
  // per-replica batch up to this many per stage (x P): beyond a few per
  // stage the bubble is already small, and each one adds a full pass over
  // the weights.
  uint32_t micro_batches_per_stage = 4;
};

// Powers of two from 1 up to the largest batch whose KV cache alone fits in
// the HBM of every chip of the slice together (a bound no sharding can beat:
// the cache is at best split, never shrunk), at most 2^24 (the loader's
// limit). At least {1}.
std::vector<uint32_t> default_batches(const config::PodSpec& slice, const config::ModelSpec& model,
                                      const SpaceOptions& options);

struct Candidate {
  size_t slice = 0;  // index of the slice it runs on (the caller's order)
  config::ServingCandidate workload;
};

// Every candidate on `slice` (given index `slice_index`) in the fixed order.
// Names are "<model>-<phase>-<slice>-<n>"; descriptions say the layout in
// words. O(roles^dims x layouts x batches x micro-batches).
std::vector<Candidate> enumerate(const config::PodSpec& slice, size_t slice_index,
                                 const config::ModelSpec& model, const SpaceOptions& options);

// The sharding families a candidate belongs to, for reports and tests:
// "tensor-1d", "tensor-2d", "tensor-multi-dim", "reduce-scatter-all-gather",
// "weight-gathered", "kv-by-batch", "expert", "expert-on-data", "data",
// "data-multi-dim", "pipeline", "micro-batches", "dcn".
std::vector<std::string> families(const config::ServingCandidate& candidate);

// "tensor=x+y data=z": each mesh axis with its dimensions.
std::string mesh_label(const config::ServingCandidate& candidate);

}  // namespace podsim::search

// The rules a serving step's model and scenario satisfy on their own, before
// any sharding: positive shapes, heads that group over the KV heads, a
// mixture of experts that routes to experts it has, a phase with the token
// counts it needs (docs/inputs.md lists them).
//
// Internal to src/config: it reads the generated podsim::Model and
// podsim::Scenario messages. The sharding rules (sharding_validator.h) check
// the same numbers against the mesh afterwards.
#pragma once

#include <cstdint>

#include "config/internal/issue_list.h"

namespace podsim {
class Model;
class Scenario;
}  // namespace podsim

namespace podsim::config::internal {

// Typo guards, far beyond any model built: they keep every product the
// lowering forms (shapes x tokens x bytes) well inside 64 bits.
inline constexpr uint64_t kMaxWidth = uint64_t{1} << 24;  // d_model, FFN widths, vocab
inline constexpr uint32_t kMaxCount = 1u << 16;           // layers, heads, head_dim, experts
inline constexpr uint32_t kMaxTokens = 1u << 24;          // batch; prompt + context per sequence

// True when every layer's FFN is a mixture of experts (then the dense FFN
// width is unused and must be 0). O(1).
bool every_layer_is_moe(const podsim::Model& model);

// Adds one issue per broken rule under `path` ("model"). O(1).
void validate_model(const podsim::Model& model, const FieldPath& path, IssueList& issues);

// Adds one issue per broken rule under `path` ("scenario"). The rules that
// need the sharding (micro-batches against the replicas and the pipeline)
// are the sharding validator's. O(1).
void validate_scenario(const podsim::Scenario& scenario, const FieldPath& path, IssueList& issues);

// The model's max_context_len (when given) against the longest sequence the
// scenario makes, blaming the scenario field that grows it past the limit
// under `path` ("scenario"). O(1).
void validate_context_limit(const podsim::Model& model, const podsim::Scenario& scenario,
                            const FieldPath& path, IssueList& issues);

// The KV cache the scenario fills on the whole model, unsharded (batch x
// tokens x layers x cached elements per token and layer), at most
// kMaxCacheElements, blamed on "batch" under `path` ("scenario"): each
// field is within its own limit, but their product could pass 64-bit byte
// counts (found by workload_fuzzer: batch and context_len of 2^24 each).
// O(1).
inline constexpr uint64_t kMaxCacheElements = uint64_t{1} << 55;
void validate_cache_size(const podsim::Model& model, const podsim::Scenario& scenario,
                         const FieldPath& path, IssueList& issues);

}  // namespace podsim::config::internal

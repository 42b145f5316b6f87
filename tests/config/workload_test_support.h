// Helpers shared by the workload tests: a small pod, a valid workload on it,
// and the diagnostics of a workload that must fail to load.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/topology_spec.h"
#include "config/workload_spec.h"
#include "podsim/workload.pb.h"
#include "shipped.h"

namespace podsim::config::testing {

// valid_topology() loaded: a 4x4x2 torus with dimensions x, y (4, wrapped) and
// z (2, a line); `slices` copies of it joined by DCN when slices > 1.
PodSpec test_pod(uint32_t slices = 1);

// A small valid workload on test_pod():
//   mesh: "data" over x (4 chips), "model" over y and z (8 chips);
//   operations[0] "ar": ALL_REDUCE of 1024 bytes over [data, model] (32 chips);
//   operations[1] "ag", after "ar": ALL_GATHER of 64 fp32 bytes over [model].
// Tests break one rule at a time on a copy.
podsim::Workload valid_workload();

// The collective of operations[i].
podsim::Collective& collective(podsim::Workload& w, int i);

// A small valid serving step (the second form) on test_pod():
//   mesh: "data" over x (4 chips), "model" over y and z (8 chips);
//   model "tiny": 4 layers, d_model 1024, 16 heads, 4 KV heads (each held by
//     2 of the 8 tensor chips), head_dim 64, FFN 4096, vocab 32000;
//   scenario: DECODE, batch 16 (4 per replica), context 1024;
//   sharding: tensor_axes [model], data_axes [data].
// Tests break one rule at a time on a copy.
podsim::Workload valid_serving_workload();

// valid_serving_workload() made a mixture of experts with expert parallelism
// over the data axis: moe { experts 8, top-2, expert_ffn_dim 2048 } in every
// layer (ffn_dim 0), expert_axes [data].
podsim::Workload valid_moe_workload();

// valid_serving_workload() made a pipelined prefill: the "data" axis renamed
// "stage" and made the pipeline axis (4 stages of 1 layer), PREFILL of
// batch 8 with prompt_len 512 and context_len 0, in 2 micro-batches.
podsim::Workload valid_pipeline_workload();

// Prints `workload` as text, parses it against `pod`, and returns the
// diagnostics of the InputError it must raise (an empty list, and a test
// failure, if it loads).
std::vector<Diagnostic> workload_errors(const podsim::Workload& workload,
                                        const PodSpec& pod = test_pod());
std::vector<Diagnostic> workload_errors(const std::string& text, const PodSpec& pod = test_pod());

// Prints `workload` as text and loads it against `pod`.
WorkloadSpec load_workload(const podsim::Workload& workload, const PodSpec& pod = test_pod());

// The PATH of the "# topology: PATH" line among the comment lines that open
// `file`; nullopt without one (tests/support/shipped.h).
using podsim::testing::topology_header;

// A shipped workload (workloads/NAME) loaded against the topology its header
// names.
struct ShippedWorkload {
  PodSpec pod;
  WorkloadSpec workload;
};
ShippedWorkload load_shipped_workload(const std::string& name);

}  // namespace podsim::config::testing

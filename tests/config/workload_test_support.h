// Helpers shared by the workload tests: a small pod, a valid workload on it,
// and the diagnostics of a workload that must fail to load.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/topology_spec.h"
#include "config/workload_spec.h"
#include "podsim/workload.pb.h"

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

// Prints `workload` as text, parses it against `pod`, and returns the
// diagnostics of the InputError it must raise (an empty list, and a test
// failure, if it loads).
std::vector<Diagnostic> workload_errors(const podsim::Workload& workload,
                                        const PodSpec& pod = test_pod());
std::vector<Diagnostic> workload_errors(const std::string& text, const PodSpec& pod = test_pod());

// Prints `workload` as text and loads it against `pod`.
WorkloadSpec load_workload(const podsim::Workload& workload, const PodSpec& pod = test_pod());

}  // namespace podsim::config::testing

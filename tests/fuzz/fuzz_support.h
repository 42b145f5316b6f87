// What the fuzz targets share: the small pods a workload runs on, the work
// bound that keeps a run short, and the one rule of what a target catches.
//
// A target catches exactly the exceptions that mean "input refused" (what
// `podsim` turns into exit 2: config::InputError, and for the CSV readers
// report::CsvError / report::CompareError) and lets everything else escape,
// so that libFuzzer reports it: an exception `podsim` would report as an
// internal error (exit 3) is a finding like a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/overrides.h"
#include "config/workload_spec.h"
#include "topo/pod.h"

namespace podsim::fuzz {

// The input as text (libFuzzer's bytes, unchanged).
inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A file of the source tree (PODSIM_SOURCE_DIR, set at build time), e.g.
// "topologies/v5e-2x2.textproto". Aborts when it cannot be read: the
// harness is broken, not the input.
std::string source_file(const std::string& relative_path);

// The path of a file or folder of the source tree, e.g. "workloads/serve".
std::string source_path(const std::string& relative_path);

// CI's replay of the corpora (scripts/fuzz.sh --quick sets PODSIM_FUZZ_QUICK=1):
// the targets that simulate still parse and check every input but simulate
// less of it (fewer requests of a serving run, one point of a sweep), so
// that replaying their corpora under the sanitizers fits CI's budget. Read
// once. A corpus is never merged in this mode (its features differ).
bool quick();

// Small pods built once from shipped topologies shrunk with overrides: a
// v5e 2x2, a v4 2x2x2 and two v5e 2x2 slices joined by DCN (every
// dimension a line: a wrap needs 3 chips, and 3 divides no shipped
// workload's sizes), so that workloads written for any shipped pod find
// their dimension names. A twisted torus needs k x k x 2k with k >= 3
// (54 chips or more): too slow here, so twisted routing is fuzzed through
// topology_fuzzer's routes only.
const std::vector<std::unique_ptr<topo::Pod>>& small_pods();

// Whether a run of `workload` is cheap enough to simulate in a fuzz
// iteration: bounds on operations x repeats and on layers x micro-batches x
// chunks (no `--max-events` yet, so the harness estimates the work itself).
bool within_work_bound(const config::WorkloadSpec& workload);

// Evaluates `workload` on `pod` on the analytical network (the engine's
// cheapest model) when within_work_bound(); a result of status invalid (the
// run refused as bad input) is fine, any exception escapes.
void run_bounded(const topo::Pod& pod, const config::WorkloadSpec& workload);

// Loads `text` as a workload on the first small pod it is valid for, and
// runs it bounded. Returns false when every pod refused it.
bool load_and_run_workload(std::string_view text, const config::Overrides& overrides);

// The cheap parts of a pod's metrics and routing, for a pod of at most a few
// hundred chips.
void exercise_pod(const topo::Pod& pod);

}  // namespace podsim::fuzz

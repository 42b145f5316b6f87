// Sweep files (podsim sweep, docs/sweeps.md): parsing and every rule of the
// sweep loader, with base and parameter file names resolved in
// workloads/sweeps/ (the shipped sweeps' directory, so "../../topologies/..."
// and "../llama3-8b-...textproto" resolve); the point count checked against
// the parameters; then the first, the middle and the last point generated
// (sweep::point_at) and, when the point is small (at most 16 chips, a
// workload within fuzz_support's work bound, at most kMaxEvents events), run
// (sweep::run_point) and rendered as CSV and JSON Lines rows, through the
// frame the workers hand the writer (encode/decode) and the RowWriter.
//
// What `podsim sweep` turns into exit 2 is caught: the loader's InputError,
// and the RowWriter's std::invalid_argument (points mixing serving and
// operation-list CSV columns). A point that breaks a rule is not an
// exception but a row of status invalid, which must give its reason. A point
// past the harness's work limit (sim::WorkLimitExceeded, exit 1 for podsim)
// is the harness's own bound. Anything else escapes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/overrides.h"
#include "config/sweep_loader.h"
#include "fuzz_support.h"
#include "podsim/sweep.pb.h"
#include "sim/work_budget.h"
#include "structured_mutator.h"
#include "sweep/point_run.h"
#include "sweep/points.h"
#include "sweep/row_writer.h"

namespace {

namespace sweep = podsim::sweep;
namespace config = podsim::config;

constexpr uint64_t kMaxChips = 16;
// Events over a point's simulations, and its wall time: a point that passes
// either stops (WorkLimitExceeded). Small points take far less, but a small
// pod on the flow network can still take seconds (a shipped sweep, LLaMA-3-8B
// prefill on the v5e 4x4, about 0.5 s of CPU a point under the sanitizers);
// three points stay under libFuzzer's 10 s timeout. The budget checks the
// clock every 65536 events (sim::Simulation::kChargeInterval) and when a
// simulation ends.
constexpr uint64_t kMaxEvents = 2'000'000;
constexpr double kMaxWallSeconds = 2;

[[noreturn]] void fail(const char* what, uint64_t index) {
  std::fprintf(stderr, "fuzz harness: point %llu: %s\n", static_cast<unsigned long long>(index),
               what);
  std::abort();
}

// The point count the parameters make (the loader checked it fits).
uint64_t count_points(const config::SweepSpec& spec) {
  if (spec.parameters.empty()) {
    return 0;
  }
  if (spec.combine == config::SweepCombine::kZip) {
    const uint64_t n = spec.parameters.front().values.size();
    for (const auto& p : spec.parameters) {
      if (p.values.size() != n) {
        return 0;
      }
    }
    return n;
  }
  uint64_t n = 1;
  for (const auto& p : spec.parameters) {
    n *= p.values.size();
  }
  return n;
}

// Whether running `point` is cheap: its pod at most kMaxChips and its
// workload within the work bound. A point that breaks a rule while loading is
// cheap too (run_point stops at the same rule and makes it a row).
bool small_point(const sweep::Point& point, sweep::BaseInputs& bases) {
  try {
    config::Overrides overrides;
    for (const std::string& o : point.overrides) {
      overrides.push_back(config::parse_override(o));
    }
    config::check_override_roots(overrides);
    const config::PodSpec pod = bases.topology(point.topology_file).load(overrides);
    uint64_t chips = std::max<uint32_t>(pod.slices, 1);
    for (const auto& d : pod.torus.dims) {
      chips *= d.size;
      if (chips > kMaxChips) {
        return false;
      }
    }
    const config::WorkloadSpec workload = bases.workload(point.workload_file).load(pod, overrides);
    return podsim::fuzz::within_work_bound(workload);
  } catch (const config::InputError&) {
    return true;
  }
}

void render(const podsim::Result& result, uint64_t index, std::vector<sweep::RowWriter>& writers) {
  if (result.status() != podsim::Result::ok && result.reason().empty()) {
    fail("status not ok without a reason", index);
  }
  const sweep::RowFormat formats[] = {sweep::RowFormat::kCsv, sweep::RowFormat::kJsonLines};
  for (size_t f = 0; f < 2; ++f) {
    const sweep::RenderedPoint r = sweep::render(formats[f], result);
    const sweep::RenderedPoint back = sweep::decode(sweep::encode(r));
    if (back.status != r.status || back.reason != r.reason || back.kind != r.kind ||
        back.text != r.text) {
      fail("the row frame does not round-trip", index);
    }
    try {
      (void)writers[f].rows(back);
    } catch (const std::invalid_argument&) {
      // serving and operation-list rows in one CSV: exit 2 in podsim sweep
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  config::SweepSpec spec;
  try {
    spec = config::parse_sweep_text(podsim::fuzz::as_text(data, size), "fuzz.sweep",
                                    podsim::fuzz::source_path("workloads/sweeps"));
  } catch (const config::InputError&) {
    return 0;
  }
  if (spec.points < 1 || spec.points > config::kMaxSweepPoints ||
      spec.points != count_points(spec)) {
    fail("point count disagrees with the parameters", spec.points);
  }
  try {
    (void)sweep::point_at(spec, spec.points);
    fail("point_at past the end did not throw", spec.points);
  } catch (const std::out_of_range&) {
  }
  std::vector<uint64_t> indices = {0};  // the first point alone in quick mode
  if (spec.points > 2 && !podsim::fuzz::quick()) {
    indices.push_back(spec.points / 2);
  }
  if (spec.points > 1 && !podsim::fuzz::quick()) {
    indices.push_back(spec.points - 1);
  }
  sweep::PointOptions options;
  options.allow_oom = spec.allow_oom;
  options.generation.every_step = spec.every_step;
  options.generation.tolerance = spec.step_tolerance;
  options.limits =
      podsim::sim::WorkLimits{.max_events = kMaxEvents, .max_wall_seconds = kMaxWallSeconds};
  sweep::BaseInputs bases;
  std::vector<sweep::RowWriter> writers = {sweep::RowWriter(sweep::RowFormat::kCsv),
                                           sweep::RowWriter(sweep::RowFormat::kJsonLines)};
  for (const uint64_t i : indices) {
    const sweep::Point point = sweep::point_at(spec, i);
    if (point.index != i || point.varied.size() != spec.parameters.size()) {
      fail("point_at made a point of another index or parameter count", i);
    }
    if (!small_point(point, bases)) {
      continue;
    }
    podsim::Result result;
    try {
      result = sweep::run_point(point, options, bases);
    } catch (const podsim::sim::WorkLimitExceeded&) {
      continue;
    }
    render(result, i, writers);
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return podsim::fuzz::mutate_text_proto(podsim::Sweep::default_instance(), data, size, max_size,
                                         seed);
}

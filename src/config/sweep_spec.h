// A validated sweep (proto/podsim/sweep.proto): one base configuration and
// the parameters to vary, with every range already expanded into values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace podsim::config {

// One varied parameter: a `--set` path ("workload.scenario.batch"), one of
// the run options "network" and "compute", or "topology" / "workload" (the
// input file), and its values in order, each as `--set` takes it ("64",
// "[model]", "flow"; files resolved against the sweep file's directory).
struct SweepParameter {
  std::string path;
  std::vector<std::string> values;
  std::vector<std::string> also;  // further --set paths given the same value

  friend bool operator==(const SweepParameter&, const SweepParameter&) = default;
};

enum class SweepCombine {
  kGrid,  // every combination; the first parameter varies slowest
  kZip,   // the i-th value of every parameter (all have the same length)
};

struct SweepSpec {
  std::string name;
  std::string description;
  std::string source_file;  // as the user named it
  // The base inputs, resolved against the sweep file's directory; nullopt:
  // the embedded default.
  std::optional<std::string> topology_file;
  std::optional<std::string> workload_file;
  std::vector<SweepParameter> parameters;
  SweepCombine combine = SweepCombine::kGrid;
  std::vector<std::string> set;      // "path=value", applied to every point first
  std::string network = "flow";      // analytical, flow or packet
  std::string compute = "roofline";  // roofline, systolic or tensorcore
  bool allow_oom = false;
  bool every_step = false;       // generations: every decode step simulated
  double step_tolerance = 1e-3;  // generations: the bisection's bound
  uint64_t points = 1;           // how many points the parameters make (checked <= kMaxSweepPoints)
  // A sweep of a serve file (resolved against the sweep file's directory):
  // each point is a `podsim serve` of it with the point's overrides
  // (config/serve_overrides.h); nullopt: each point is a `podsim run`.
  std::optional<std::string> serve_file;

  friend bool operator==(const SweepSpec&, const SweepSpec&) = default;
};

// Limits, so a typo cannot ask for a sweep that never ends.
inline constexpr uint64_t kMaxSweepPoints = 10'000'000;
inline constexpr uint64_t kMaxParameterValues = 100'000;

}  // namespace podsim::config

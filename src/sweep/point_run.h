// One sweep point run into a podsim.Result: the point's overrides applied to
// its base files (or the embedded defaults), loaded, and evaluated by
// study::evaluate(). Never throws for bad input: a point whose overrides or
// inputs break a rule is a result with status invalid and the loader's
// diagnostics as its reason. Safe to call from several threads at once.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "config/calibration_spec.h"
#include "config/pricing_spec.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "podsim/result.pb.h"
#include "sim/work_budget.h"
#include "study/evaluate.h"
#include "sweep/points.h"
#include "workload/program_cache.h"

namespace podsim::sweep {

struct PointOptions {
  bool allow_oom = false;               // simulate points that do not fit (flagged), as --allow-oom
  study::GenerationOptions generation;  // the sweep's every_step and step_tolerance
  // Applied to every point's pod (--calibration; config/calibration_loader.h):
  // a point whose pod has another chip, or whose overrides set
  // topology.calibration.*, is invalid, with the reason.
  std::optional<config::CalibrationProfileSpec> calibration;
  // Each point's limits (--max-events, ...); a point past one stops the sweep.
  sim::WorkLimits limits = sim::kDefaultWorkLimits;
  // --pricing: each point's cost; a point whose chip has no price is invalid.
  std::shared_ptr<const config::PricingSpec> pricing;
};

// What a sweep's points share: their base inputs and the programs they lower.
// The base inputs of a sweep's points (a file, or the embedded default when
// the path is nullopt), each read and parsed the first time a point names
// it and shared by the points after it: loading from it is loading the file
// again, without the reading and parsing. Safe to use from several threads.
class BaseInputs {
 public:
  config::TopologySource topology(const std::optional<std::string>& file);
  config::WorkloadSource workload(const std::optional<std::string>& file);
  // Serving steps lowered by earlier points (a hardware sweep lowers one
  // step per mesh and workload, not one per point).
  const std::shared_ptr<workload::ProgramCache>& programs() const { return programs_; }

 private:
  template <class Source>
  Source cached(std::map<std::optional<std::string>, Source>& cache,
                const std::optional<std::string>& file);
  std::mutex mutex_;
  std::map<std::optional<std::string>, config::TopologySource> topologies_;
  std::map<std::optional<std::string>, config::WorkloadSource> workloads_;
  const std::shared_ptr<workload::ProgramCache> programs_ =
      std::make_shared<workload::ProgramCache>();
};

podsim::Result run_point(const Point& point, const PointOptions& options, BaseInputs& bases);
// The same with `limits` in place of options.limits (what the sweep has
// left, sweep_budget.h).
podsim::Result run_point(const Point& point, const PointOptions& options, BaseInputs& bases,
                         const sim::WorkLimits& limits);

}  // namespace podsim::sweep

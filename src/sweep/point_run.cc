#include "sweep/point_run.h"

#include <optional>
#include <stdexcept>

#include "chip/compute_model.h"
#include "config/calibration_loader.h"
#include "config/overrides.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "engine/op_list.h"
#include "net/network.h"
#include "study/evaluate.h"
#include "topo/pod.h"

namespace podsim::sweep {
namespace {

study::RunOptions run_options(const Point& point, const PointOptions& options) {
  study::RunOptions o;
  const auto model = net::parse_model(point.network);
  const auto compute = chip::parse_compute_model(point.compute);
  if (!model || !compute)  // the sweep loader checked both names
    throw std::logic_error("sweep point " + std::to_string(point.index) + ": network '" +
                           point.network + "' or compute '" + point.compute + "' unknown");
  o.network.model = *model;
  o.compute = *compute;
  o.allow_oom = options.allow_oom;
  o.generation = options.generation;
  o.limits = options.limits;
  o.pricing = options.pricing;
  return o;
}

}  // namespace

// The source of `file` in `cache`, read the first time it is asked for.
template <class Source>
Source BaseInputs::cached(std::map<std::optional<std::string>, Source>& cache,
                          const std::optional<std::string>& file) {
  const std::lock_guard<std::mutex> lock(mutex_);
  auto it = cache.find(file);
  if (it == cache.end()) {
    it = cache.emplace(file, file ? Source::file(*file) : Source::embedded()).first;
  }
  return it->second;
}

config::TopologySource BaseInputs::topology(const std::optional<std::string>& file) {
  return cached(topologies_, file);
}

config::WorkloadSource BaseInputs::workload(const std::optional<std::string>& file) {
  return cached(workloads_, file);
}

podsim::Result run_point(const Point& point, const PointOptions& options, BaseInputs& bases) {
  return run_point(point, options, bases, options.limits);
}

podsim::Result run_point(const Point& point, const PointOptions& options, BaseInputs& bases,
                         const sim::WorkLimits& limits) {
  study::RunOptions opts = run_options(point, options);
  opts.limits = limits;
  opts.programs = bases.programs();
  std::optional<config::PodSpec> pod_spec;
  try {
    config::Overrides overrides;
    overrides.reserve(point.overrides.size());
    for (const std::string& o : point.overrides)
      overrides.push_back(config::parse_override(o));
    config::check_override_roots(overrides);
    pod_spec = bases.topology(point.topology_file).load(overrides);
    if (options.calibration)
      config::apply_calibration(*options.calibration, *pod_spec);
    const config::WorkloadSpec workload =
        bases.workload(point.workload_file).load(*pod_spec, overrides);
    const topo::Pod pod(std::move(*pod_spec));
    return study::evaluate(pod, workload, opts);
  } catch (const sim::WorkLimitExceeded& e) {
    // The whole sweep stops: its file would otherwise lack this point.
    throw sim::WorkLimitExceeded(e.limit(),
                                 "sweep point " + std::to_string(point.index) + ": " + e.what());
  } catch (const config::InputError& e) {
    study::KnownInputs known;
    known.pod = pod_spec ? &*pod_spec : nullptr;
    known.topology_file = point.topology_file.value_or("");
    known.workload_file = point.workload_file.value_or("");
    known.options = &opts;
    known.overrides = point.overrides;
    return study::invalid_result(e, known);
  }
}

}  // namespace podsim::sweep

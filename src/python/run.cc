// podsim.run(): `podsim run`'s loading and evaluation (src/cli/cmd_run.cc)
// without its printing, the result serialised as --format binpb writes it.
#include <memory>
#include <optional>
#include <utility>

#include "chip/compute_model.h"
#include "config/calibration_loader.h"
#include "config/op_table_loader.h"
#include "config/overrides.h"
#include "config/pricing_loader.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "net/network.h"
#include "python/api.h"
#include "report/result_print.h"
#include "study/evaluate.h"
#include "topo/pod.h"

namespace podsim::python {
namespace {

// The options of the command line that name no file, checked as cmd_run.cc
// checks them.
study::RunOptions run_options(const RunRequest& r) {
  study::RunOptions o;
  const auto model = net::parse_model(r.network);
  if (!model)
    throw UsageError("network: expected analytical, flow or packet, got '" + r.network + "'");
  o.network.model = *model;
  if (*model != net::Model::kPacket && (r.packet_bytes || r.switching)) {
    std::string message = r.packet_bytes ? "packet_bytes" : "switching";
    message += " applies to network='packet' only, and the network is ";
    message += r.network;
    throw UsageError(message);
  }
  if (r.packet_bytes) {
    if (*r.packet_bytes < 1)
      throw UsageError("packet_bytes must be at least 1, got 0");
    o.network.packet_bytes = *r.packet_bytes;
  }
  if (r.switching) {
    if (*r.switching == "cut-through")
      o.network.switching = net::Switching::kCutThrough;
    else if (*r.switching == "store-and-forward")
      o.network.switching = net::Switching::kStoreAndForward;
    else
      throw UsageError("switching: expected cut-through or store-and-forward, got '" +
                       *r.switching + "'");
  }
  const auto compute = chip::parse_compute_model(r.compute);
  if (!compute)
    throw UsageError("compute: expected roofline, systolic, table or tensorcore, got '" +
                     r.compute + "'");
  o.compute = *compute;
  if (r.op_table_file)
    o.op_table_file = *r.op_table_file;
  else if (o.compute == chip::ComputeModelKind::kTable)
    throw UsageError("compute='table' needs op_table=FILE");
  o.allow_oom = r.allow_oom;
  o.vs_healthy = r.vs_healthy;
  o.fold = r.fold;
  o.symmetry = r.symmetry;
  o.generation.every_step = r.every_step;
  if (r.step_tolerance) {
    const double t = *r.step_tolerance;
    if (!(t >= 0 && t < 1))
      throw UsageError("step_tolerance: expected a relative error in [0, 1), such as 0.001, got " +
                       std::to_string(t));
    o.generation.tolerance = t;
  }
  o.link_stats = r.link_stats;
  o.limits = r.limits;
  return o;
}

}  // namespace

std::string run_result(const RunRequest& request) {
  study::RunOptions options = run_options(request);
  study::KnownInputs known;
  known.topology_file = request.topology_file.value_or("");
  known.workload_file = request.workload_file.value_or("");
  known.options = &options;
  std::optional<config::PodSpec> pod_spec;
  std::optional<config::WorkloadSpec> workload;
  try {
    const config::Overrides overrides = config::parse_overrides(request.set);
    for (const config::Override& o : overrides)
      known.overrides.push_back(config::to_string(o));
    std::optional<config::CalibrationProfileSpec> profile;
    if (request.calibration_file)
      profile = config::load_calibration_file(*request.calibration_file);
    if (request.pricing_file)
      options.pricing = std::make_shared<const config::PricingSpec>(
          config::load_pricing_file(*request.pricing_file));
    pod_spec = request.topology_file ? config::load_topology_file(*request.topology_file, overrides)
                                     : config::default_topology(overrides);
    known.pod = &*pod_spec;
    if (profile)
      config::apply_calibration(*profile, *pod_spec);
    workload = request.workload_file
                   ? config::load_workload_file(*request.workload_file, *pod_spec, overrides)
                   : config::default_workload(*pod_spec, overrides);
    known.workload = &*workload;
    if (!options.op_table_file.empty())
      options.op_table = config::load_op_table_file(options.op_table_file);
  } catch (const config::InputError& e) {
    throw InvalidRun(e, report::result_to_binpb(study::invalid_result(e, known)));
  }
  // Only a generation has decode steps to interpolate; ignoring these misleads.
  if (!workload->serving || !workload->serving->scenario.is_generation()) {
    if (request.every_step || request.step_tolerance)
      throw UsageError(std::string(request.every_step ? "every_step" : "step_tolerance") +
                       " applies to a scenario of phase GENERATION only, and '" + workload->name +
                       "' is one " + (workload->serving ? "serving step" : "operation list"));
  }
  const topo::Pod pod(std::move(*pod_spec));
  study::Evaluation ev = study::evaluate_in_detail(pod, *workload, options);
  if (ev.result.status() == podsim::Result::invalid) {
    const config::InputError error =
        ev.error ? *ev.error
                 : config::InputError(config::Diagnostic{"", "", 0, 0, ev.result.reason()});
    throw InvalidRun(error, report::result_to_binpb(ev.result));
  }
  return report::result_to_binpb(ev.result);
}

}  // namespace podsim::python

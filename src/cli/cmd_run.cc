// podsim run [--workload W] [--topology T] [--network M] [--compute C] [--format F] [--out FILE]
#include <boost/program_options.hpp>
#include <sstream>

#include "chip/compute_model.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/set_option.h"
#include "cli/trace_option.h"
#include "config/op_table_loader.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "engine/op_list.h"
#include "engine/serving_summary.h"
#include "engine/step.h"
#include "engine/workload_mesh.h"
#include "report/link_report.h"
#include "report/op_list_report.h"
#include "report/step_report.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::cli {

namespace po = boost::program_options;

namespace {

net::Switching parse_switching(const std::string& s) {
  if (s == "cut-through") {
    return net::Switching::kCutThrough;
  }
  if (s == "store-and-forward") {
    return net::Switching::kStoreAndForward;
  }
  throw UsageError("--switching: expected cut-through or store-and-forward, got '" + s + "'");
}

// The mesh as "x=16,y=16" for reports, and its axis sizes for lowering.
workload::MeshAxes mesh_axes(const topo::DeviceMesh& mesh, std::string& label) {
  workload::MeshAxes axes;
  for (const auto& a : mesh.axes()) {
    axes.names.push_back(a.name);
    axes.sizes.push_back(mesh.axis_size(a.name));
    label += (label.empty() ? "" : ",") + a.name + "=" + std::to_string(axes.sizes.back());
  }
  return axes;
}

// Efficiency knobs from the topology's calibration section.
chip::Efficiency efficiency(const config::PodSpec& pod) {
  chip::Efficiency e;
  e.mxu = pod.calibration.mxu_efficiency;
  e.hbm = pod.calibration.hbm_efficiency;
  e.op_overhead = pod.calibration.op_overhead;
  return e;
}

struct ServingOptions {
  chip::ComputeModelKind compute = chip::ComputeModelKind::kRoofline;
  std::optional<std::string> op_table;
  bool allow_oom = false;
  bool fold = true;
  bool link_stats = false;            // --link-stats (JSON only)
  bool progress = false;              // stderr is a terminal and no --quiet
  std::optional<TraceRequest> trace;  // --trace, --trace-chips
};

// The compute model --compute and --op-table ask for, with the pod's
// calibration; both workload forms run on it.
std::unique_ptr<chip::ComputeModel> make_compute(const ServingOptions& so, const topo::Pod& pod) {
  std::optional<config::OpTableSpec> table;
  if (so.op_table) {
    table = config::load_op_table_file(*so.op_table);
  } else if (so.compute == chip::ComputeModelKind::kTable) {
    throw UsageError("--compute table needs --op-table FILE");
  }
  return chip::make_compute_model(so.compute, pod.spec().chip, efficiency(pod.spec()),
                                  table ? &*table : nullptr);
}

int run_serving(Context& ctx, const topo::Pod& pod, const config::WorkloadSpec& workload,
                const net::Options& net_options, const ServingOptions& so,
                report::RunInputs run_inputs, report::Format format,
                const std::optional<std::string>& out_file) {
  const config::ServingSpec& serving = *workload.serving;
  const topo::DeviceMesh mesh = engine::workload_mesh(pod, workload);
  report::StepInputs in;
  in.run = std::move(run_inputs);
  in.serving = serving;
  in.allow_oom = so.allow_oom;
  in.compute_model = std::string(chip::to_string(so.compute));
  const workload::MeshAxes axes = mesh_axes(mesh, in.mesh);

  workload::Program program;
  try {
    program = workload::lower(serving, axes);
  } catch (const workload::ShapeError& e) {
    throw config::InputError(config::Diagnostic{workload.source_file, e.field(), 0, 0, e.what()});
  }

  const auto compute = make_compute(so, pod);

  std::ostringstream text;
  engine::StepResult step;
  engine::ServingSummary summary =
      engine::summarize_serving(step, program, pod.spec(), serving.scenario);
  if (!summary.fits && !so.allow_oom) {
    report::render_memory_only(in, summary, format, text);
    emit(ctx, out_file, text.str());
    ctx.log->error("'{}' does not fit in HBM; --allow-oom simulates it anyway", workload.name);
    if (so.trace) {
      ctx.log->warn("no trace written: the step was not simulated");
    }
    return kExitCheckFailed;
  }
  engine::StepOptions step_options;
  step_options.network = net_options;
  step_options.fold_replicas = so.fold;
  ProgressLine progress(ctx.err, so.progress, "simulating", "instructions");
  step_options.progress = [&progress](uint64_t done, uint64_t total) {
    progress.update(done, total);
  };
  step = engine::run_step(pod, mesh, program, *compute, step_options);
  progress.finish();
  summary = engine::summarize_serving(step, program, pod.spec(), serving.scenario);
  if (!summary.fits) {
    ctx.log->warn("'{}' does not fit in HBM; simulated anyway (--allow-oom)", workload.name);
  }
  if (so.link_stats) {
    in.run.link_stats =
        report::make_link_report(pod, step.link_stats, step.chips, net_options, step.step_time);
  }
  report::render_step(in, step, summary, format, text);
  if (so.trace) {
    write_step_trace(ctx, *so.trace, {pod, mesh, program, *compute, step, in.run});
  }
  emit(ctx, out_file, text.str());
  return kExitOk;
}

}  // namespace

int cmd_run(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts("Usage: podsim run [--workload FILE] [options]\n\nOptions");
  opts.add_options()("help,h", "show this help")("workload,w", po::value<std::string>(),
                                                 "workload file (operations on the device mesh)")(
      "topology,t", po::value<std::string>(), "topology file (default: the embedded v5e 16x16)")(
      "network,n", po::value<std::string>()->default_value("flow"),
      "network model: analytical, flow or packet")("packet-bytes",
                                                   po::value<int64_t>()->default_value(64 * 1024),
                                                   "packet model: bytes per packet")(
      "switching", po::value<std::string>()->default_value("cut-through"),
      "packet model: cut-through or store-and-forward")(
      "compute,c", po::value<std::string>()->default_value("roofline"),
      "compute model: roofline, systolic or table")("op-table", po::value<std::string>(),
                                                    "measured op times (CSV) for --compute table")(
      "allow-oom", "simulate a configuration that does not fit in HBM (flagged)")(
      "no-fold", "simulate every chip, even replicas the engine could fold")(
      "link-stats", "JSON only: add every link's bytes and utilisation (large on big pods)")(
      "quiet,q", "no progress line on stderr (shown only on a terminal, for long runs)")(
      "format,f", po::value<std::string>()->default_value("table"), "table, json or csv")(
      "out,o", po::value<std::string>(), "write to this file (whole or not at all)")(
      "trace", po::value<std::string>(),
      "also write a Chrome/Perfetto timeline (JSON) to this file")(
      "trace-chips", po::value<std::string>(),
      "chips to trace: ids and ranges (0,5,8-15) and/or 'critical' (default: all up to 64)");
  add_set_option(opts);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    ctx.out << "Simulates a workload on a pod. A serving workload (model, sharding, scenario)\n"
               "reports the step time and where it went; an operation list reports, per\n"
               "collective, its time, algorithm and bus bandwidth (NCCL-tests convention)\n"
               "and link utilisation, and per compute operation its time, FLOPs, HBM bytes\n"
               "and bound (on the --compute model). Without --workload: the embedded default, "
               "LLaMA-3-70B\n"
               "decode on the default pod (TPU v5e 16x16).\n\n"
            << opts;
    return kExitOk;
  }
  const report::Format format = parse_format_option(vm["format"].as<std::string>());
  const auto model = net::parse_model(vm["network"].as<std::string>());
  if (!model) {
    throw UsageError("--network: expected analytical, flow or packet, got '" +
                     vm["network"].as<std::string>() + "'");
  }
  net::Options net_options;
  net_options.model = *model;
  // Read as signed: Boost would wrap "-5" into a huge unsigned value.
  const int64_t packet_bytes = vm["packet-bytes"].as<int64_t>();
  if (packet_bytes < 1) {
    throw UsageError("--packet-bytes must be at least 1, got " + std::to_string(packet_bytes));
  }
  net_options.packet_bytes = static_cast<uint64_t>(packet_bytes);
  net_options.switching = parse_switching(vm["switching"].as<std::string>());
  std::optional<std::string> out_file;
  if (vm.count("out") != 0) {
    out_file = vm["out"].as<std::string>();
  }

  ServingOptions so;
  const auto compute_kind = chip::parse_compute_model(vm["compute"].as<std::string>());
  if (!compute_kind) {
    throw UsageError("--compute: expected roofline, systolic or table, got '" +
                     vm["compute"].as<std::string>() + "'");
  }
  so.compute = *compute_kind;
  if (vm.count("op-table") != 0) {
    so.op_table = vm["op-table"].as<std::string>();
  }
  so.allow_oom = vm.count("allow-oom") != 0;
  so.fold = vm.count("no-fold") == 0;
  so.link_stats = vm.count("link-stats") != 0;
  if (so.link_stats && format != report::Format::kJson) {
    throw UsageError("--link-stats needs --format json");
  }
  so.progress = ctx.err_is_terminal && vm.count("quiet") == 0;

  const config::Overrides overrides = set_overrides(vm);
  config::PodSpec pod_spec =
      vm.count("topology") != 0
          ? config::load_topology_file(vm["topology"].as<std::string>(), overrides)
          : config::default_topology(overrides);
  const config::WorkloadSpec workload =
      vm.count("workload") != 0
          ? config::load_workload_file(vm["workload"].as<std::string>(), pod_spec, overrides)
          : config::default_workload(pod_spec, overrides);
  const topo::Pod pod(std::move(pod_spec));
  so.trace = parse_trace_request(
      vm.count("trace") != 0 ? std::optional(vm["trace"].as<std::string>()) : std::nullopt,
      vm.count("trace-chips") != 0 ? std::optional(vm["trace-chips"].as<std::string>())
                                   : std::nullopt,
      pod.chip_count());

  const net::Options calibrated = engine::network_options(pod, *model);
  net_options.ici_efficiency = calibrated.ici_efficiency;
  net_options.dcn_efficiency = calibrated.dcn_efficiency;
  ctx.log->info("running '{}' on '{}' with the {} network", workload.name, pod.spec().name,
                net::to_string(*model));
  report::RunInputs in;
  in.topology = pod.spec().name;
  in.topology_file = pod.spec().source_file;
  in.workload = workload.name;
  in.workload_file = workload.source_file;
  in.network = std::string(net::to_string(*model));
  in.compute = std::string(chip::to_string(so.compute));
  in.chips = pod.chip_count();
  if (workload.serving) {
    return run_serving(ctx, pod, workload, net_options, so, in, format, out_file);
  }
  const auto compute = make_compute(so, pod);
  const engine::OpListResult result = engine::run_op_list(pod, workload, net_options, *compute);
  if (so.link_stats) {
    in.link_stats =
        report::make_link_report(pod, result.link_stats, {}, net_options, result.makespan);
  }
  std::ostringstream text;
  report::render_op_list(in, result, format, text);
  if (so.trace) {
    write_op_list_trace(ctx, *so.trace, in, result);
  }
  emit(ctx, out_file, text.str());
  return kExitOk;
}

}  // namespace podsim::cli

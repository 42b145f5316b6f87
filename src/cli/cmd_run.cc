// podsim run [--workload W] [--topology T] [--network M] [--compute C] [--format F] [--out FILE]
//
// Option parsing, loading, study::evaluate_in_detail() and printing; the
// evaluation itself (and everything a sweep shares with run) is src/study/.
#include <spdlog/logger.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "chip/compute_model.h"
#include "cli/calibration_option.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/hlo_option.h"
#include "cli/limit_options.h"
#include "cli/model_caveat_warning.h"
#include "cli/output.h"
#include "cli/pricing_option.h"
#include "cli/progress.h"
#include "cli/set_option.h"
#include "cli/trace_option.h"
#include "config/op_table_loader.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "report/energy_report.h"
#include "report/generation_report.h"
#include "report/op_list_report.h"
#include "report/result_csv.h"
#include "report/result_print.h"
#include "report/step_report.h"
#include "study/evaluate.h"
#include "study/generation.h"
#include "topo/mesh.h"
#include "topo/pod.h"

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

report::ResultFormat parse_run_format(const std::string& value) {
  const auto f = report::parse_result_format(value);
  if (!f) {
    throw UsageError("--format: expected table, json, csv, textproto or binpb, got '" + value +
                     "'");
  }
  return *f;
}

// The result as --format asks (every format but the table).
std::string print_result(const podsim::Result& r, report::ResultFormat format) {
  switch (format) {
    case report::ResultFormat::kJson:
      return report::result_to_json(r);
    case report::ResultFormat::kTextproto:
      return report::result_to_textproto(r);
    case report::ResultFormat::kBinpb:
      return report::result_to_binpb(r);
    case report::ResultFormat::kCsv: {
      std::ostringstream text;
      report::render_result_csv(r, text);
      return text.str();
    }
    case report::ResultFormat::kTable:
      break;
  }
  return "";
}

// The mesh as "x=16,y=16" for the terminal table.
std::string mesh_label(const topo::DeviceMesh& mesh) {
  std::string label;
  for (const auto& a : mesh.axes()) {
    label += (label.empty() ? "" : ",") + a.name + "=" + std::to_string(mesh.axis_size(a.name));
  }
  return label;
}

struct OutputOptions {
  report::ResultFormat format = report::ResultFormat::kTable;
  std::optional<std::string> out_file;
  bool progress = false;              // stderr is a terminal and no --quiet
  std::optional<TraceRequest> trace;  // --trace, --trace-chips
};

// The table's closing line on a pod with faults: what is broken, the
// critical chip, and the slowdown when --vs-healthy measured it.
std::string faults_line(const topo::Pod& pod, const podsim::Result& result) {
  const config::PodSpec& p = pod.spec();
  std::string line = "\nfaults: " + std::to_string(p.failed_links.size()) + " failed links, " +
                     std::to_string(p.dead_chips.size()) + " dead chips, " +
                     std::to_string(p.degraded_links.size()) + " degraded links, " +
                     std::to_string(p.stragglers.size()) + " stragglers";
  if (result.has_serving()) {
    line += "; critical chip " + std::to_string(result.serving().critical_chip());
  }
  const double slowdown =
      result.has_serving() ? result.serving().fault_slowdown() : result.op_list().fault_slowdown();
  const double healthy = result.has_serving() ? result.serving().healthy_step_time_us()
                                              : result.op_list().healthy_makespan_us();
  char buf[128];
  if (slowdown > 0) {
    std::snprintf(buf, sizeof buf, "\nvs the pod repaired: %.2f us, %.3fx slower\n", healthy,
                  slowdown);
  } else {
    std::snprintf(buf, sizeof buf, "\n(--vs-healthy compares with the pod repaired)\n");
  }
  return line + buf;
}

// Evaluates, prints and traces a loaded configuration; the exit code.
int run_loaded(Context& ctx, const topo::Pod& pod, const config::WorkloadSpec& workload,
               study::RunOptions options, const OutputOptions& oo, const report::RunInputs& names) {
  const bool table = oo.format == report::ResultFormat::kTable;
  // A generation reports its decode steps simulated, at most all of them.
  ProgressLine progress(ctx.err, oo.progress, "simulating",
                        !workload.serving                            ? "operation runs"
                        : workload.serving->scenario.is_generation() ? "decode steps"
                                                                     : "instructions");
  options.progress = [&progress](uint64_t done, uint64_t total) { progress.update(done, total); };
  options.on_estimate = [&ctx, &options](uint64_t min_events) {
    warn_if_long(ctx.err, min_events, options.limits);
  };
  warn_if_out_of_step(ctx, pod, workload, options.network.model);
  study::Evaluation ev = study::evaluate_in_detail(pod, workload, options);
  progress.finish();
  PendingOutputs pending;  // --trace and --out, put in place together
  const podsim::Result& result = ev.result;
  if (result.status() == podsim::Result::invalid) {
    if (!table) {
      emit(ctx, oo.out_file, print_result(result, oo.format));
    }
    throw *ev.error;  // the diagnostics on stderr, exit 2
  }
  std::ostringstream text;
  if (ev.serving) {
    const study::ServingRun& run = *ev.serving;
    report::StepInputs in;
    in.run = names;
    in.serving = *workload.serving;
    in.allow_oom = options.allow_oom;
    in.compute_model = names.compute;
    in.mesh = mesh_label(run.mesh);
    const bool generation = workload.serving->scenario.is_generation();
    if (generation) {
      // The breakdown below is the step `serving` describes.
      in.serving.scenario = study::reported_step(workload.serving->scenario);
    }
    if (result.status() == podsim::Result::oom) {
      if (table) {
        report::render_memory_only(in, run.summary, text);
      } else {
        text << print_result(result, oo.format);
      }
      emit(ctx, oo.out_file, text.str());
      ctx.log->error("{}; --allow-oom simulates it anyway", result.reason());
      if (oo.trace) {
        ctx.log->warn("no trace written: the step was not simulated");
      }
      return kExitCheckFailed;
    }
    if (generation ? !result.generation().fits() : !run.summary.fits) {
      ctx.log->warn("'{}' does not fit in HBM; simulated anyway (--allow-oom)", workload.name);
    }
    if (table) {
      if (generation) {
        report::render_generation(workload.serving->scenario, result.generation(),
                                  pod.spec().chip.hbm_bytes, text);
        text << (workload.serving->scenario.output_len > 1 ? "last decode step: " : "the step: ");
      }
      report::render_step(in, run.step, run.summary, text);
      report::render_cost(result.serving().cost(), text);
    } else {
      text << print_result(result, oo.format);
    }
    if (oo.trace) {
      if (generation)
        ctx.log->info("the trace is of the generation's last decode step (serving)");
      report::StepTraceInputs trace{pod,      run.mesh, *run.program,         *run.compute,
                                    run.step, names,    oo.trace->unit_layer, nullptr};
      trace.critical_compute = &run.model_of(run.step.critical_chip);
      write_step_trace(ctx, pending, *oo.trace, trace);
    }
  } else {
    if (table) {
      report::render_op_list(names, *ev.op_list, text);
    } else {
      text << print_result(result, oo.format);
    }
    if (oo.trace) {
      write_op_list_trace(ctx, pending, *oo.trace, names, *ev.op_list);
    }
  }
  if (table && pod.has_faults()) {
    text << faults_line(pod, result);
  }
  emit(ctx, pending, oo.out_file, text.str());
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
      "compute model: roofline, systolic, table or tensorcore")(
      "op-table", po::value<std::string>(), "measured op times (CSV) for --compute table")(
      "allow-oom", "simulate a configuration that does not fit in HBM (flagged)")(
      "vs-healthy",
      "on a pod with faults, also run it repaired and report the slowdown (fault_slowdown)")(
      "no-fold", "simulate every chip, even replicas the engine could fold")(
      "no-symmetry",
      "play every chip, not one per class of chips a translation of the torus maps onto each "
      "other (exact either way; see simulation.method)")(
      "every-step", "GENERATION: simulate every decode step (default: bisection, interpolated)")(
      "step-tolerance", po::value<double>()->default_value(1e-3),
      "GENERATION: relative midpoint error under which decode steps are interpolated")(
      "link-stats", "json/textproto/binpb: add every link's bytes and utilisation (large)")(
      "quiet,q", "no progress line on stderr (shown only on a terminal, for long runs)")(
      "format,f", po::value<std::string>()->default_value("table"),
      "table, json, csv, textproto or binpb")("out,o", po::value<std::string>(),
                                              "write to this file (whole or not at all)")(
      "trace", po::value<std::string>(),
      "also write a Chrome/Perfetto timeline (JSON) to this file")(
      "trace-chips", po::value<std::string>(),
      "chips to trace: ids and ranges (0,5,8-15) and/or 'critical' (default: all up to 64)")(
      "trace-units", po::value<std::string>(),
      "also trace the critical chip's units (MXU, vector unit, issue, DMA) running one layer: "
      "a layer number or L<n>, embed, head or other");
  add_set_option(opts);
  add_hlo_options(opts);
  add_calibration_option(opts);
  add_pricing_options(opts);
  add_limit_options(opts);
  po::variables_map vm;
  // No positional arguments: without this Boost drops them silently, and
  // `podsim run TOPOLOGY WORKLOAD` would run the default workload.
  const po::positional_options_description none;
  po::store(po::command_line_parser(args).options(opts).positional(none).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    ctx.out << "Simulates a workload on a pod. A serving workload (model, sharding, scenario)\n"
               "reports the step time and where it went; an operation list reports, per\n"
               "collective, its time, algorithm and bus bandwidth (NCCL-tests convention)\n"
               "and link utilisation, and per compute operation its time, FLOPs, HBM bytes\n"
               "and bound (on the --compute model). A scenario of phase GENERATION plays the\n"
               "prefill and every decode step and reports TTFT, time per output token, total\n"
               "latency, tokens/s and MFU over the generation.\n"
               "Without --workload: the embedded default, LLaMA-3-70B\n"
               "decode on the default pod (TPU v5e 16x16).\n\n"
            << opts;
    return kExitOk;
  }
  OutputOptions oo;
  oo.format = parse_run_format(vm["format"].as<std::string>());
  const auto model = net::parse_model(vm["network"].as<std::string>());
  if (!model) {
    throw UsageError("--network: expected analytical, flow or packet, got '" +
                     vm["network"].as<std::string>() + "'");
  }
  study::RunOptions options;
  options.limits = limit_options(vm);
  options.network.model = *model;
  // Read as signed: Boost would wrap "-5" into a huge unsigned value.
  const int64_t packet_bytes = vm["packet-bytes"].as<int64_t>();
  if (packet_bytes < 1) {
    throw UsageError("--packet-bytes must be at least 1, got " + std::to_string(packet_bytes));
  }
  options.network.packet_bytes = static_cast<uint64_t>(packet_bytes);
  options.network.switching = parse_switching(vm["switching"].as<std::string>());
  if (*model != net::Model::kPacket) {
    // Only the packet model has packets; silently ignoring these misleads.
    for (const char* packet_only : {"switching", "packet-bytes"}) {
      if (!vm[packet_only].defaulted())
        throw UsageError(std::string("--") + packet_only +
                         " applies to --network packet only, and the network is " +
                         std::string(net::to_string(*model)));
    }
  }
  if (vm.count("out") != 0) {
    oo.out_file = vm["out"].as<std::string>();
  }

  const auto compute_kind = chip::parse_compute_model(vm["compute"].as<std::string>());
  if (!compute_kind) {
    throw UsageError("--compute: expected roofline, systolic, table or tensorcore, got '" +
                     vm["compute"].as<std::string>() + "'");
  }
  options.compute = *compute_kind;
  if (vm.count("op-table") != 0) {
    options.op_table_file = vm["op-table"].as<std::string>();
  } else if (options.compute == chip::ComputeModelKind::kTable) {
    throw UsageError("--compute table needs --op-table FILE");
  }
  options.allow_oom = vm.count("allow-oom") != 0;
  options.vs_healthy = vm.count("vs-healthy") != 0;
  options.fold = vm.count("no-fold") == 0;
  options.symmetry = vm.count("no-symmetry") == 0;
  options.generation.every_step = vm.count("every-step") != 0;
  options.generation.tolerance = vm["step-tolerance"].as<double>();
  if (!(options.generation.tolerance >= 0 && options.generation.tolerance < 1)) {
    throw UsageError("--step-tolerance: expected a relative error in [0, 1), such as 0.001, got " +
                     std::to_string(options.generation.tolerance));
  }
  options.link_stats = vm.count("link-stats") != 0;
  if (options.link_stats &&
      (oo.format == report::ResultFormat::kCsv || oo.format == report::ResultFormat::kTable)) {
    throw UsageError("--link-stats needs --format json (or textproto or binpb)");
  }
  oo.progress = ctx.err_is_terminal && vm.count("quiet") == 0;
  const std::optional<HloRequest> hlo = hlo_request(vm);
  const auto given = [&vm](const char* option) {
    return vm.count(option) != 0 ? vm[option].as<std::string>() : std::string();
  };
  refuse_clobbering({{"--topology", given("topology")},
                     {"--workload", given("workload")},
                     {"--op-table", given("op-table")},
                     {"--calibration", given("calibration")},
                     {"--pricing", given("pricing")},
                     {"--hlo", given("hlo")},
                     {"--hlo-devices", hlo ? hlo->devices_file : std::string()}},
                    {{"--out", given("out")}, {"--trace", given("trace")}});

  // A machine-readable format gets a result even when the inputs do not
  // load: status invalid, with what is known; the diagnostics go to stderr.
  study::KnownInputs known;
  known.topology_file = vm.count("topology") != 0 ? vm["topology"].as<std::string>() : "";
  known.workload_file = vm.count("workload") != 0 ? vm["workload"].as<std::string>()
                        : hlo                     ? hlo->file
                                                  : "";
  known.options = &options;
  std::optional<config::PodSpec> pod_spec;
  std::optional<config::WorkloadSpec> workload;
  try {
    const config::Overrides overrides = set_overrides(vm);
    known.overrides.clear();
    for (const config::Override& o : overrides)
      known.overrides.push_back(config::to_string(o));
    const std::optional<config::CalibrationProfileSpec> profile = calibration_profile(vm);
    options.pricing = pricing_spec(vm);
    pod_spec = vm.count("topology") != 0
                   ? config::load_topology_file(vm["topology"].as<std::string>(), overrides)
                   : config::default_topology(overrides);
    known.pod = &*pod_spec;
    if (profile)
      apply_calibration_profile(ctx, *profile, *pod_spec);
    workload =
        hlo ? load_hlo(ctx, *hlo, *pod_spec, overrides)
        : vm.count("workload") != 0
            ? config::load_workload_file(vm["workload"].as<std::string>(), *pod_spec, overrides)
            : config::default_workload(*pod_spec, overrides);
    known.workload = &*workload;
    if (!options.op_table_file.empty()) {
      options.op_table = config::load_op_table_file(options.op_table_file);
    }
  } catch (const config::InputError& e) {
    if (oo.format != report::ResultFormat::kTable) {
      emit(ctx, oo.out_file, print_result(study::invalid_result(e, known), oo.format));
    }
    throw;
  }
  // Only a generation has decode steps to interpolate; ignoring these misleads.
  if (!workload->serving || !workload->serving->scenario.is_generation()) {
    for (const char* generation_only : {"every-step", "step-tolerance"}) {
      if (vm.count(generation_only) != 0 && !vm[generation_only].defaulted())
        throw UsageError(std::string("--") + generation_only +
                         " applies to a scenario of phase GENERATION only, and '" + workload->name +
                         "' is one " + (workload->serving ? "serving step" : "operation list"));
    }
  }
  const topo::Pod pod(std::move(*pod_spec));
  const auto optional_string = [&vm](const char* name) {
    return vm.count(name) != 0 ? std::optional(vm[name].as<std::string>()) : std::nullopt;
  };
  oo.trace = parse_trace_request(optional_string("trace"), optional_string("trace-chips"),
                                 pod.chip_count());
  if (const auto units = optional_string("trace-units")) {
    if (!oo.trace) {
      throw UsageError("--trace-units needs --trace FILE");
    }
    if (!workload->serving) {
      throw UsageError("--trace-units applies to a serving workload, and '" + workload->name +
                       "' is an operation list");
    }
    oo.trace->unit_layer = parse_trace_layer(*units, workload->serving->model.layers);
  }

  ctx.log->info("running '{}' on '{}' with the {} network", workload->name, pod.spec().name,
                net::to_string(*model));
  report::RunInputs names;
  names.topology = pod.spec().name;
  names.topology_file = pod.spec().source_file;
  names.workload = workload->name;
  names.workload_file = workload->source_file;
  names.network = std::string(net::to_string(*model));
  names.compute = std::string(chip::to_string(options.compute));
  names.chips = pod.chip_count();
  return run_loaded(ctx, pod, *workload, std::move(options), oo, names);
}

}  // namespace podsim::cli

// podsim validate [--topology FILE] [--set PATH=VALUE]... FILE...: load every
// file, topology, workload, calibration profile or pricing file (sniffed
// from its header or contents), print
// every problem, exit 2 if any file is bad. Workloads are checked against
// --topology, or the embedded default pod. The topology overrides apply to
// every topology (the --topology pod included), the workload overrides to
// every workload.
#include <boost/program_options.hpp>
#include <functional>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/set_option.h"
#include "config/calibration_loader.h"
#include "config/diagnostics.h"
#include "config/pricing_loader.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"

namespace podsim::cli {

namespace po = boost::program_options;

namespace {

// Checks one file and prints "FILE: ok (...)" to ctx.out. Throws InputError.
// `pod` gives the pod a workload is checked against.
void validate_file(Context& ctx, const std::string& file,
                   const std::function<const config::PodSpec&()>& pod,
                   const config::Overrides& overrides) {
  const config::FileKind kind = config::sniff_file_kind(file);
  if (kind == config::FileKind::kCalibration) {
    const config::CalibrationProfileSpec profile = config::load_calibration_file(file);
    ctx.out << file << ": ok (calibration profile '" << profile.name << "' for chip \""
            << profile.chip << "\")\n";
    return;
  }
  if (kind == config::FileKind::kPricing) {
    const config::PricingSpec pricing = config::load_pricing_file(file);
    ctx.out << file << ": ok (pricing '" << pricing.name << "' of " << pricing.date << ", "
            << pricing.prices.size() << (pricing.prices.size() == 1 ? " price" : " prices")
            << ")\n";
    return;
  }
  if (kind == config::FileKind::kWorkload) {
    const config::WorkloadSpec workload = config::load_workload_file(file, pod(), overrides);
    ctx.out << file << ": ok (workload '" << workload.name << "', ";
    if (workload.serving) {
      const auto& sc = workload.serving->scenario;
      ctx.out << workload.serving->model.name << ' '
              << (sc.is_generation()                    ? "generation"
                  : sc.phase == config::Phase::kPrefill ? "prefill"
                                                        : "decode")
              << ", batch " << sc.batch
              << (sc.is_generation() ? ", " + std::to_string(sc.output_len) + " output tokens" : "")
              << ")\n";
    } else {
      ctx.out << workload.operations.size()
              << (workload.operations.size() == 1 ? " operation" : " operations") << ")\n";
    }
    return;
  }
  const config::PodSpec topology = config::load_topology_file(file, overrides);
  ctx.out << file << ": ok (topology '" << topology.name << "', " << topology.chip_count()
          << " chips)\n";
}

// The --topology file. A bad one is bad input like any other file
// (InputError, exit 2); a workload there gets a message that says so rather
// than the topology loader's list of everything a workload lacks.
config::PodSpec load_pod(const std::string& file, const config::Overrides& overrides) {
  const config::FileKind kind = config::sniff_file_kind(file);
  if (kind != config::FileKind::kTopology) {
    config::Diagnostic d;
    d.file = file;
    d.message = std::string("--topology needs a topology (podsim.Topology); this file is a ") +
                (kind == config::FileKind::kWorkload      ? "workload"
                 : kind == config::FileKind::kCalibration ? "calibration profile"
                                                          : "pricing file");
    throw config::InputError(std::move(d));
  }
  return config::load_topology_file(file, overrides);
}

}  // namespace

int cmd_validate(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts(
      "Usage: podsim validate [--topology FILE] [--set PATH=VALUE]... FILE...\n\nOptions");
  opts.add_options()("help,h", "show this help")(
      "topology", po::value<std::string>(),
      "the pod workload files are checked against (default: the embedded v5e 16x16 pod)")(
      "file", po::value<std::vector<std::string>>()->composing(), "files to check");
  add_set_option(opts);
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    ctx.out << "Checks topology, workload, calibration profile and pricing files and prints\n"
               "every error found as FILE:LINE:COL: FIELD: REASON. A file's kind comes from\n"
               "its '# proto-message: podsim.Topology' (or podsim.Workload,\n"
               "podsim.CalibrationProfile, podsim.Pricing) header, else from which message\n"
               "its contents parse as. Workloads are checked against a pod.\n\n"
            << opts;
    return kExitOk;
  }
  if (vm.count("file") == 0) {
    throw UsageError("validate: no files given");
  }
  const config::Overrides overrides = set_overrides(vm);
  std::optional<config::PodSpec> pod;
  if (vm.count("topology") != 0) {
    pod = load_pod(vm["topology"].as<std::string>(), overrides);
  }
  // The default pod is loaded only when a workload needs it: topology
  // overrides meant for the topology files being checked may not fit it.
  const auto pod_for_workloads = [&]() -> const config::PodSpec& {
    if (!pod) {
      pod = config::default_topology(overrides);
    }
    return *pod;
  };

  int bad = 0;
  for (const auto& file : vm["file"].as<std::vector<std::string>>()) {
    try {
      validate_file(ctx, file, pod_for_workloads, overrides);
    } catch (const config::InputError& e) {
      ++bad;
      ctx.err << e.what() << '\n';
    }
  }
  return bad == 0 ? kExitOk : kExitBadInput;
}

}  // namespace podsim::cli

#include "cli/hlo_option.h"

#include <spdlog/logger.h>

#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "topo/pod.h"

namespace podsim::cli {

namespace po = boost::program_options;

namespace {

// "NAME=N" -> (NAME, N).
std::pair<std::string, uint32_t> name_count(const std::string& option, const std::string& text) {
  const size_t eq = text.rfind('=');
  const std::string digits = eq == std::string::npos ? "" : text.substr(eq + 1);
  const bool ok = eq != std::string::npos && eq > 0 && !digits.empty() && digits.size() <= 9 &&
                  digits.find_first_not_of("0123456789") == std::string::npos;
  if (!ok) {
    throw UsageError("--" + option + ": expected NAME=N (an instruction name and a count), got '" +
                     text + "'");
  }
  std::string name = text.substr(0, eq);
  if (name.starts_with('%')) {
    name.erase(0, 1);
  }
  return {name, static_cast<uint32_t>(std::stoul(digits))};
}

std::vector<std::string> strings(const po::variables_map& vm, const char* name) {
  return vm.count(name) != 0 ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

}  // namespace

void add_hlo_options(po::options_description& opts) {
  opts.add_options()("hlo", po::value<std::string>(),
                     "run an XLA HLO module (text, as --xla_dump_to writes it) on the "
                     "--topology pod instead of a workload (docs/hlo.md)")(
      "hlo-devices", po::value<std::string>(),
      "HLO: device i on the i-th chip listed (3,2,1,0), or a file holding the list "
      "(default: device d on chip d)")(
      "hlo-trip-count", po::value<std::vector<std::string>>()->composing(),
      "HLO: NAME=N, the trip count of the while named NAME (repeatable)")(
      "hlo-branch", po::value<std::vector<std::string>>()->composing(),
      "HLO: NAME=I, the branch the conditional named NAME takes (default 0; repeatable)");
}

std::optional<HloRequest> hlo_request(const po::variables_map& vm) {
  if (vm.count("hlo") == 0) {
    for (const char* o : {"hlo-devices", "hlo-trip-count", "hlo-branch"}) {
      if (vm.count(o) != 0) {
        throw UsageError(std::string("--") + o + " applies to --hlo FILE only");
      }
    }
    return std::nullopt;
  }
  if (vm.count("workload") != 0) {
    throw UsageError("--hlo and --workload name the program twice: give one");
  }
  if (vm.count("topology") == 0) {
    throw UsageError(
        "--hlo needs --topology (-t): the pod must have one chip per device of the module");
  }
  HloRequest r;
  r.file = vm["hlo"].as<std::string>();
  if (vm.count("hlo-devices") != 0) {
    const std::string d = vm["hlo-devices"].as<std::string>();
    if (d.find_first_not_of("0123456789, \t") == std::string::npos) {
      r.options.device_to_chip = hlo_import::parse_device_list(d, "--hlo-devices");
    } else {
      r.devices_file = d;
    }
  }
  for (const std::string& t : strings(vm, "hlo-trip-count")) {
    r.options.trip_counts.insert(name_count("hlo-trip-count", t));
  }
  for (const std::string& t : strings(vm, "hlo-branch")) {
    r.options.branches.insert(name_count("hlo-branch", t));
  }
  return r;
}

config::WorkloadSpec load_hlo(Context& ctx, const HloRequest& request, const config::PodSpec& spec,
                              const config::Overrides& overrides) {
  for (const config::Override& o : overrides) {
    if (o.path.starts_with("workload.")) {
      throw UsageError("--set " + config::to_string(o) +
                       ": an HLO run has no workload file to override (the program is the "
                       "module); --set topology.* applies");
    }
  }
  hlo_import::ImportOptions options = request.options;
  if (!request.devices_file.empty()) {
    options.device_to_chip = hlo_import::parse_device_list(
        config::read_file_to_string(request.devices_file, config::kMaxInputFileBytes,
                                    config::FileContents::kText),
        request.devices_file);
  }
  const topo::Pod pod(spec);
  hlo_import::Imported imported = hlo_import::load_hlo_workload(request.file, pod, options);
  for (const std::string& w : imported.warnings) {
    ctx.log->warn("{}: {}", request.file, w);
  }
  return std::move(imported.workload);
}

}  // namespace podsim::cli

#include "cli/calibration_option.h"

#include <spdlog/logger.h>

#include <string>

#include "config/calibration_loader.h"

namespace podsim::cli {

namespace po = boost::program_options;

void add_calibration_option(po::options_description& opts) {
  opts.add_options()("calibration", po::value<std::string>(),
                     "calibration profile (podsim.CalibrationProfile): efficiencies and fixed "
                     "costs fitted to microbenchmarks, applied in place of the topology's own "
                     "calibration to every pod of the chip it names, e.g. "
                     "topologies/calibration/v5e.textproto (default: the topology's, ideal "
                     "unless it sets one; docs/inputs.md, Calibration profiles)");
}

std::optional<config::CalibrationProfileSpec> calibration_profile(const po::variables_map& vm) {
  if (vm.count("calibration") == 0)
    return std::nullopt;
  return config::load_calibration_file(vm["calibration"].as<std::string>());
}

void apply_calibration_profile(Context& ctx, const config::CalibrationProfileSpec& profile,
                               config::PodSpec& pod) {
  const std::string own_source = pod.calibration.source;
  config::apply_calibration(profile, pod);
  if (pod.calibration.replaced_topology_calibration) {
    ctx.log->warn(
        "calibration profile '{}' ({}) replaces the calibration '{}' sets itself (source: {})",
        profile.name, profile.source_file, pod.name, own_source.empty() ? "none" : own_source);
  } else {
    ctx.log->info("calibration profile '{}' ({}) applied to '{}'", profile.name,
                  profile.source_file, pod.name);
  }
}

}  // namespace podsim::cli

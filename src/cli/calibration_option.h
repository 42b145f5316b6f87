// `--calibration FILE` on every command that simulates (run, sweep, search):
// the option, and the profile it names (config/calibration_loader.h), which
// the command applies to every pod it loads.
#pragma once

#include <boost/program_options.hpp>
#include <optional>

#include "cli/context.h"
#include "config/calibration_spec.h"
#include "config/topology_spec.h"

namespace podsim::cli {

// Adds --calibration to `opts`.
void add_calibration_option(boost::program_options::options_description& opts);

// The profile --calibration names, loaded and checked; nullopt without the
// option (the topology's own calibration, ideal unless it sets one). Throws
// config::InputError (exit 2) when the file cannot be read or breaks a rule.
std::optional<config::CalibrationProfileSpec> calibration_profile(
    const boost::program_options::variables_map& vm);

// config::apply_calibration(profile, pod), and a log line saying so; a
// warning when the profile replaces a calibration the topology file set.
void apply_calibration_profile(Context& ctx, const config::CalibrationProfileSpec& profile,
                               config::PodSpec& pod);

}  // namespace podsim::cli

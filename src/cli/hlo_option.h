// `podsim run --hlo FILE`: the options that run an XLA HLO module on a pod
// (--hlo, --hlo-devices, --hlo-trip-count, --hlo-branch), their usage
// checks, and loading the module as an operation list (src/hlo_import/).
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>

#include "cli/context.h"
#include "config/overrides.h"
#include "config/topology_spec.h"
#include "config/workload_spec.h"
#include "hlo_import/import.h"

namespace podsim::cli {

void add_hlo_options(boost::program_options::options_description& opts);

struct HloRequest {
  std::string file;
  std::string devices_file;  // --hlo-devices naming a file; empty for a list
  hlo_import::ImportOptions options;
};

// The request, or nullopt without --hlo. Throws UsageError for --hlo with
// --workload or without --topology, an --hlo-* option without --hlo, and a
// malformed NAME=N.
std::optional<HloRequest> hlo_request(const boost::program_options::variables_map& vm);

// The module as an operation list on the pod `spec` describes; warnings
// logged. Throws UsageError for a --set workload.* (an HLO run has no
// workload file to override), config::InputError for bad input.
config::WorkloadSpec load_hlo(Context& ctx, const HloRequest& request, const config::PodSpec& spec,
                              const config::Overrides& overrides);

}  // namespace podsim::cli

#include "cli/set_option.h"

#include <functional>
#include <string>
#include <vector>

#include "config/serve_overrides.h"

namespace podsim::cli {

namespace po = boost::program_options;

void add_set_option(po::options_description& opts) {
  opts.add_options()("set", po::value<std::vector<std::string>>()->composing(),
                     "PATH=VALUE: override one field of the topology or workload before it is "
                     "checked, e.g. topology.torus.dims[0].link_bandwidth_gbps=100, "
                     "workload.scenario.batch=64, workload.sharding.tensor_axes=[model] "
                     "(repeatable; docs/inputs.md, Overrides)");
}

namespace {

// The --set values, each checked by `check_roots`.
config::Overrides checked_overrides(
    const po::variables_map& vm, const std::function<void(const config::Overrides&)>& check_roots) {
  config::Overrides overrides;
  if (vm.count("set") == 0)
    return overrides;
  std::vector<config::Diagnostic> bad;
  for (const std::string& text : vm["set"].as<std::vector<std::string>>()) {
    try {
      overrides.push_back(config::parse_override(text));
    } catch (const config::InputError& e) {
      bad.insert(bad.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  try {
    check_roots(overrides);
  } catch (const config::InputError& e) {
    bad.insert(bad.end(), e.diagnostics().begin(), e.diagnostics().end());
  }
  if (!bad.empty())
    throw config::InputError(std::move(bad));
  return overrides;
}

}  // namespace

config::Overrides set_overrides(const po::variables_map& vm) {
  return checked_overrides(vm, config::check_override_roots);
}

void add_serve_set_option(po::options_description& opts) {
  opts.add_options()("set", po::value<std::vector<std::string>>()->composing(),
                     "PATH=VALUE: override one field before it is checked: of the serve file "
                     "(serve.replicas[0].max_batch=64, serve.arrivals.poisson.rate_per_s=3, "
                     "serve.slo.ttft_ms=500), of every replica's topology or workload "
                     "(topology.torus.dims[0].link_bandwidth_gbps=100, "
                     "workload.sharding.tensor_axes=[model]) or of one replica entry's "
                     "(replicas[1].topology....); repeatable; docs/inputs.md, Overrides of serve "
                     "files");
}

config::Overrides serve_set_overrides(const po::variables_map& vm) {
  return checked_overrides(vm, config::check_serve_override_roots);
}

}  // namespace podsim::cli

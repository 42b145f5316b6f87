#include "cli/set_option.h"

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

config::Overrides set_overrides(const po::variables_map& vm) {
  if (vm.count("set") == 0)
    return {};
  return config::parse_overrides(vm["set"].as<std::vector<std::string>>());
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
  if (vm.count("set") == 0)
    return {};
  return config::parse_overrides(vm["set"].as<std::vector<std::string>>(),
                                 config::check_serve_override_roots);
}

}  // namespace podsim::cli

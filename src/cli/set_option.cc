#include "cli/set_option.h"

#include <string>
#include <vector>

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

}  // namespace podsim::cli

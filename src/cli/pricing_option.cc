#include "cli/pricing_option.h"

#include <string>

#include "cli/context.h"
#include "config/pricing_loader.h"

namespace podsim::cli {

namespace po = boost::program_options;

void add_pricing_options(po::options_description& opts) {
  opts.add_options()("pricing", po::value<std::string>(),
                     "pricing file (podsim.Pricing): price per chip-hour, electricity and "
                     "carbon intensity, e.g. topologies/pricing/google-cloud-2026.textproto; "
                     "results gain $ and gCO2e per million tokens (docs/energy.md)")(
      "commitment", po::value<std::string>(),
      "with --pricing: on-demand, spot, 1-year or 3-year (default: the file's commitment)");
}

std::shared_ptr<const config::PricingSpec> pricing_spec(const po::variables_map& vm) {
  if (vm.count("pricing") == 0) {
    if (vm.count("commitment") != 0)
      throw UsageError("--commitment needs --pricing");
    return nullptr;
  }
  auto spec = std::make_shared<config::PricingSpec>(
      config::load_pricing_file(vm["pricing"].as<std::string>()));
  if (vm.count("commitment") != 0) {
    const std::string c = vm["commitment"].as<std::string>();
    if (c == "on-demand")
      spec->commitment = config::Commitment::kOnDemand;
    else if (c == "spot")
      spec->commitment = config::Commitment::kSpot;
    else if (c == "1-year")
      spec->commitment = config::Commitment::kOneYear;
    else if (c == "3-year")
      spec->commitment = config::Commitment::kThreeYear;
    else {
      std::string message = "--commitment must be on-demand, spot, 1-year or 3-year, got '";
      message += c;
      message += "'";
      throw UsageError(message);
    }
    spec->commitment_line = 0;  // chosen on the command line, not in the file
    spec->commitment_column = 0;
  }
  return spec;
}

}  // namespace podsim::cli

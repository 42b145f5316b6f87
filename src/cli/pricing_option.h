// `--pricing FILE` and `--commitment` on the commands that report results
// (run, sweep, search, capacity): the pricing file (proto/podsim/
// pricing.proto; config/pricing_loader.h) that turns each result's chip
// time and energy into dollars and grams of CO2e (docs/energy.md).
#pragma once

#include <boost/program_options.hpp>
#include <memory>

#include "config/pricing_spec.h"

namespace podsim::cli {

// Adds --pricing and --commitment to `opts`.
void add_pricing_options(boost::program_options::options_description& opts);

// The pricing file --pricing names, loaded and checked, with --commitment
// in place of the file's own; null without --pricing. Throws
// config::InputError (exit 2) for a bad file, UsageError for a bad
// --commitment or one given without --pricing.
std::shared_ptr<const config::PricingSpec> pricing_spec(
    const boost::program_options::variables_map& vm);

}  // namespace podsim::cli

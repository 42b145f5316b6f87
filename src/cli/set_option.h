// `--set PATH=VALUE` (repeatable) on every command that loads inputs: the
// option, and the overrides it gives (config/overrides.h) for the loaders.
#pragma once

#include <boost/program_options.hpp>

#include "config/overrides.h"

namespace podsim::cli {

// Adds --set to `opts`.
void add_set_option(boost::program_options::options_description& opts);

// The --set values in command-line order. Throws config::InputError (exit 2)
// listing every malformed one (no '=', empty path) and every path not rooted
// at "topology." or "workload.". Values are checked later, against the
// schema, by the loaders that apply them.
config::Overrides set_overrides(const boost::program_options::variables_map& vm);

}  // namespace podsim::cli

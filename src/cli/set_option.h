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

// --set on the commands that load a serve file (serve, capacity), whose
// paths start with serve., topology., workload. or replicas[i].
// (config/serve_overrides.h).
void add_serve_set_option(boost::program_options::options_description& opts);

// Their --set values in command-line order; the same errors as
// set_overrides() for the serve roots.
config::Overrides serve_set_overrides(const boost::program_options::variables_map& vm);

}  // namespace podsim::cli

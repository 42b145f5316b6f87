// Subcommands that take files as positional arguments (compare, sweep,
// serve, capacity): one way to parse them beside the named options.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace podsim::cli {

// Parses `args` against `opts`, collecting every positional argument as a
// file, in order; fills and notifies `vm`. Throws Boost.Program_options'
// errors as the commands' own parsing does (a usage error, exit 2).
std::vector<std::string> parse_with_files(const std::vector<std::string>& args,
                                          const boost::program_options::options_description& opts,
                                          boost::program_options::variables_map& vm);

}  // namespace podsim::cli

// The subcommands. Each parses its own options from `args` (the words after
// the subcommand's name), writes results through `ctx`, and returns an exit
// code. Bad usage throws UsageError; bad input files throw
// config::InputError; both are mapped to exit code 2 by run_cli().
#pragma once

#include <string>
#include <vector>

#include "cli/context.h"

namespace podsim::cli {

int cmd_validate(Context& ctx, const std::vector<std::string>& args);
int cmd_topo(Context& ctx, const std::vector<std::string>& args);
int cmd_run(Context& ctx, const std::vector<std::string>& args);
int cmd_compare(Context& ctx, const std::vector<std::string>& args);
int cmd_search(Context& ctx, const std::vector<std::string>& args);
int cmd_sweep(Context& ctx, const std::vector<std::string>& args);
int cmd_serve(Context& ctx, const std::vector<std::string>& args);
int cmd_capacity(Context& ctx, const std::vector<std::string>& args);
int cmd_calibrate(Context& ctx, const std::vector<std::string>& args);
int cmd_report(Context& ctx, const std::vector<std::string>& args);
int cmd_hlo_stats(Context& ctx, const std::vector<std::string>& args);

}  // namespace podsim::cli

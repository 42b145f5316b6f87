// Exit codes shared by every podsim subcommand (docs/cli.md lists them).
#pragma once

namespace podsim::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,  // a regression, SLO or capacity check failed
  kExitBadInput = 2,     // bad input file or bad usage
  kExitInternal = 3,     // a bug in podsim: please report it
};

}  // namespace podsim::cli

// What every subcommand is handed: where results and diagnostics go.
// Results go to `out` (or a file), logs and errors to `err`, never mixed.
#pragma once

// The logger is only declared here: <spdlog/logger.h> costs about 4 s of
// parsing, and every CLI test includes this header. Files that log include it.
#include <spdlog/fwd.h>

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace podsim::cli {

struct Context {
  std::ostream& out;
  std::ostream& err;
  std::shared_ptr<spdlog::logger> log;
  // Whether `err` is a terminal: progress lines are drawn only there.
  bool err_is_terminal = false;
};

// Thrown for bad command-line usage; main maps it to exit code 2 and prints the
// message with a hint to run --help.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The entry point, separated from main() so tests can drive the whole command
// line in-process. args excludes the program name. Returns the exit code.
// err_is_terminal: main passes isatty(2), so long runs may show progress.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            bool err_is_terminal = false);

}  // namespace podsim::cli

// podsim's entry point: everything happens in run_cli(), which tests drive
// in-process; main only adapts argv and guards against the unexpected.
#include <unistd.h>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "sweep/transport.h"

int main(int argc, char** argv) {
  try {
    // MPI only when an MPI launcher started this process (podsim sweep's ranks).
    const podsim::sweep::MpiSession mpi(argc, argv);
    std::ios::sync_with_stdio(false);
    const std::vector<std::string> args(argv + 1, argv + argc);
    const int code = podsim::cli::run_cli(args, std::cout, std::cerr, isatty(STDERR_FILENO) != 0);
    std::cout.flush();
    return code;
  } catch (...) {
    std::cerr << "podsim: internal error: unexpected exception\n";
    return podsim::cli::kExitInternal;
  }
}

// podsim validate FILE...: load every file, print every problem, exit 2 if any.
#include <boost/program_options.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "config/diagnostics.h"
#include "config/topology_loader.h"

namespace podsim::cli {

namespace po = boost::program_options;

int cmd_validate(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts("Usage: podsim validate FILE...\n\nOptions");
  opts.add_options()("help,h", "show this help")(
      "file", po::value<std::vector<std::string>>()->composing(), "files to check");
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    ctx.out << "Checks topology files (and, once supported, workload files) and prints every\n"
               "error found as FILE:LINE:COL: FIELD: REASON.\n\n"
            << opts;
    return kExitOk;
  }
  if (vm.count("file") == 0) {
    throw UsageError("validate: no files given");
  }

  int bad = 0;
  for (const auto& file : vm["file"].as<std::vector<std::string>>()) {
    try {
      const config::PodSpec pod = config::load_topology_file(file);
      ctx.out << file << ": ok (topology '" << pod.name << "', " << pod.chip_count()
              << " chips)\n";
    } catch (const config::InputError& e) {
      ++bad;
      ctx.err << e.what() << '\n';
    }
  }
  return bad == 0 ? kExitOk : kExitBadInput;
}

}  // namespace podsim::cli

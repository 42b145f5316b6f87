// podsim hlo-stats FILE: an HLO module's dot FLOPs and collective bytes
// (hlo_import/stats.h), one "key value" line each, for comparison with
// scripts/hlo_counts.py and a first look at a dump.
#include <boost/program_options.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "config/diagnostics.h"
#include "hlo/parse_error.h"
#include "hlo/parser.h"
#include "hlo_import/stats.h"

namespace podsim::cli {

namespace po = boost::program_options;

int cmd_hlo_stats(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts("Usage: podsim hlo-stats FILE [options]\n\nOptions");
  opts.add_options()("help,h", "show this help")("hlo", po::value<std::string>(),
                                                 "the HLO text file")(
      "out,o", po::value<std::string>(), "write to this file (whole or not at all)");
  po::positional_options_description pos;
  pos.add("hlo", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    ctx.out << "Counts an XLA HLO module's work, each instruction once (a while body once):\n"
               "dot FLOPs, and per collective kind how many and their bytes V as podsim\n"
               "runs them (workload.proto's convention; async starts under their\n"
               "synchronous name). No pod needed.\n\n"
            << opts;
    return kExitOk;
  }
  if (vm.count("hlo") == 0) {
    throw UsageError("hlo-stats needs an HLO FILE");
  }
  const std::string file = vm["hlo"].as<std::string>();
  std::optional<std::string> out_file;
  if (vm.count("out") != 0) {
    out_file = vm["out"].as<std::string>();
    refuse_clobbering({{"FILE", file}}, {{"--out", *out_file}});
  }
  std::optional<hlo::Module> module;
  try {
    module.emplace(hlo::parse_module(
        config::read_file_to_string(file, hlo::kMaxHloTextBytes, config::FileContents::kText),
        file));
  } catch (const hlo::ParseError& e) {
    throw config::InputError(config::Diagnostic{e.file(), "", e.line(), e.column(), e.message()});
  }
  const hlo_import::ModuleStats s = hlo_import::module_stats(*module);
  std::ostringstream text;
  text << "module " << module->name << "\n";
  text << "dots " << s.dots << "\n";
  text << "dot_flops " << s.dot_flops << "\n";
  for (const auto& [kind, t] : s.collectives) {
    text << "collective " << kind << " count " << t.count << " bytes " << t.bytes << "\n";
  }
  emit(ctx, out_file, text.str());
  return kExitOk;
}

}  // namespace podsim::cli

// podsim topo [FILE] [--format table|json|csv] [--out FILE] [--set PATH=VALUE]...
#include <spdlog/logger.h>

#include <boost/program_options.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "cli/set_option.h"
#include "config/topology_loader.h"
#include "report/topology_report.h"
#include "topo/pod.h"

namespace podsim::cli {

namespace po = boost::program_options;

int cmd_topo(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts("Usage: podsim topo [FILE] [options]\n\nOptions");
  opts.add_options()("help,h", "show this help")(
      "format,f", po::value<std::string>()->default_value("table"), "table, json or csv")(
      "out,o", po::value<std::string>(), "write to this file (whole or not at all)")(
      "topology", po::value<std::string>(), "topology file (default: the embedded v5e 16x16)");
  add_set_option(opts);
  po::positional_options_description pos;
  pos.add("topology", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    ctx.out << "Describes a pod: chips, links, dimensions, diameter, per-chip and per-axis ICI\n"
               "bandwidth, and bisection bandwidth. Without FILE, the embedded default pod.\n\n"
            << opts;
    return kExitOk;
  }
  const report::Format format = parse_format_option(vm["format"].as<std::string>());
  std::optional<std::string> out_file;
  if (vm.count("out") != 0) {
    out_file = vm["out"].as<std::string>();
    refuse_clobbering(
        {{"topology", vm.count("topology") != 0 ? vm["topology"].as<std::string>() : ""}},
        {{"--out", *out_file}});
  }

  const config::Overrides overrides = set_overrides(vm);
  for (const config::Override& o : overrides) {
    if (!o.path.starts_with("topology.")) {
      ctx.log->warn("--set {}: ignored, topo reads no workload", config::to_string(o));
    }
  }
  config::PodSpec spec =
      vm.count("topology") != 0
          ? config::load_topology_file(vm["topology"].as<std::string>(), overrides)
          : config::default_topology(overrides);
  ctx.log->debug("loaded topology '{}' from {}", spec.name, spec.source_file);
  const topo::Pod pod(std::move(spec));
  std::ostringstream text;
  report::render_topology(report::summarize(pod), format, text);
  emit(ctx, out_file, text.str());
  return kExitOk;
}

}  // namespace podsim::cli

// podsim report RESULTS... -o report.html
#include <boost/program_options.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "cli/positional_files.h"
#include "html/page.h"
#include "html/report_inputs.h"

namespace podsim::cli {

namespace po = boost::program_options;

int cmd_report(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts("Usage: podsim report FILE... [-o report.html]\n\nOptions");
  opts.add_options()("help,h", "show this help")(
      "out,o", po::value<std::string>(), "write the page to this file (whole or not at all)");
  po::variables_map vm;
  const std::vector<std::string> files = parse_with_files(args, opts, vm);
  if (vm.count("help") != 0) {
    ctx.out << "Draws podsim's output files as one self-contained HTML page (inline SVG and\n"
               "CSS; nothing fetched, no script): the step-time breakdown, the sweep plot or\n"
               "search frontier, the serve latency CDFs (with the SLOs) and time series, the\n"
               "capacity search, and the inputs that are common to every row and those that\n"
               "differ. Each FILE is recognised by its content: a result CSV, JSON, JSON\n"
               "Lines or binpb (run, sweep), a search frontier CSV, serve --summary-json,\n"
               "--requests and --timeseries files, capacity --format csv. The same files\n"
               "give the same bytes. Exit 0 ok, 2 when a file cannot be read or used.\n\n"
            << opts;
    return kExitOk;
  }
  if (files.empty()) {
    throw UsageError("report needs at least one file to draw");
  }
  const std::optional<std::string> out =
      vm.count("out") != 0 ? std::optional(vm["out"].as<std::string>()) : std::nullopt;
  std::vector<NamedFile> inputs;
  for (const std::string& f : files) {
    inputs.push_back({"FILE", f});
  }
  refuse_clobbering(inputs, {{"--out", out.value_or("")}});
  std::string page;
  try {
    page = html::render_page(html::load_report_inputs(files));
  } catch (const html::ReportInputError& e) {
    ctx.err << "podsim: " << e.what() << '\n';
    return kExitBadInput;
  }
  emit(ctx, out, page);
  return kExitOk;
}

}  // namespace podsim::cli

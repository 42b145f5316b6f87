#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <functional>
#include <map>
#include <ostream>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/error_report.h"
#include "cli/exit_codes.h"
#include "cli/output.h"

namespace podsim::cli {
namespace {

struct Command {
  const char* summary;
  std::function<int(Context&, const std::vector<std::string>&)> run;
};

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> kCommands = {
      {"validate", {"check topology and workload files; print every error found", cmd_validate}},
      {"topo", {"describe a pod: chips, links, diameter, bisection bandwidth", cmd_topo}},
      {"run", {"simulate a workload on a pod and report where the time went", cmd_run}},
      {"hlo-stats",
       {"count an XLA HLO module's dot FLOPs and collective bytes (no pod needed)", cmd_hlo_stats}},
      {"calibrate",
       {"fit a calibration profile to microbenchmark measurements (least squares)", cmd_calibrate}},
      {"capacity",
       {"find the highest request rate whose serving SLOs hold (bisection over serve runs)",
        cmd_capacity}},
      {"compare",
       {"compare two result CSVs; exit 1 when a value moved beyond tolerance", cmd_compare}},
      {"search",
       {"search shardings and batches; print the throughput/latency frontier", cmd_search}},
      {"report",
       {"draw result, sweep, search, serve and capacity outputs as one HTML page", cmd_report}},
      {"serve", {"simulate serving requests on replicas: latency percentiles, goodput", cmd_serve}},
      {"sweep",
       {"run every point of a sweep file (threads, or MPI ranks); a row per point", cmd_sweep}},
  };
  return kCommands;
}

void print_usage(std::ostream& out) {
  out << "podsim " PODSIM_VERSION
         " - discrete-event simulator of TPU pods serving large language models\n\n"
         "Usage: podsim [--log-level LEVEL] COMMAND [OPTIONS]\n"
         "       podsim COMMAND --help\n\n"
         "Commands:\n";
  for (const auto& [name, cmd] : commands()) {
    out << "  " << name << std::string(12 - name.size(), ' ') << cmd.summary << '\n';
  }
  out << "\nGlobal options:\n"
         "  -h, --help             show this help\n"
         "  --version              print the version\n"
         "  --log-level LEVEL      trace, debug, info, warn (default), error, off\n\n"
         "Exit codes: 0 ok, 1 a check failed, 2 bad input or usage, 3 internal error.\n";
}

int dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             bool err_is_terminal) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(err);
  auto log = std::make_shared<spdlog::logger>("podsim", sink);
  log->set_pattern("podsim: %l: %v");
  log->set_level(spdlog::level::warn);
  Context ctx{out, err, log, err_is_terminal};

  try {
    size_t i = 0;
    // Global options come before the command name.
    for (; i < args.size() && args[i].starts_with("-"); ++i) {
      const std::string& a = args[i];
      if (a == "-h" || a == "--help") {
        print_usage(out);
        return kExitOk;
      }
      if (a == "--version") {
        out << "podsim " PODSIM_VERSION "\n";
        return kExitOk;
      }
      if (a == "--log-level" || a.starts_with("--log-level=")) {
        std::string level;
        if (a == "--log-level") {
          if (i + 1 >= args.size()) {
            throw UsageError("--log-level needs a value");
          }
          level = args[++i];
        } else {
          level = a.substr(std::string("--log-level=").size());
        }
        const auto lvl = spdlog::level::from_str(level);
        if (lvl == spdlog::level::off && level != "off") {
          throw UsageError("--log-level: unknown level '" + level + "'");
        }
        log->set_level(lvl);
        continue;
      }
      throw UsageError("unknown global option '" + a + "'");
    }
    if (i == args.size()) {
      throw UsageError("no command given");
    }
    const auto it = commands().find(args[i]);
    if (it == commands().end()) {
      throw UsageError("unknown command '" + args[i] + "'");
    }
    const std::vector<std::string> rest(args.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                        args.end());
    return it->second.run(ctx, rest);
  } catch (...) {
    return report_error(std::current_exception(), err);
  }
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            bool err_is_terminal) {
  const int code = dispatch(args, out, err, err_is_terminal);
  // Whatever the command said, a result cut short on stdout is not a result.
  try {
    check_stdout(out);
  } catch (const report::OutputError& e) {
    err << "podsim: " << e.what() << '\n';
    return kExitBadInput;
  }
  return code;
}

}  // namespace podsim::cli

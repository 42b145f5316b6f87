// podsim capacity SERVE_FILE [--ttft-ms X] [--tpot-ms Y] [--percentile P]
//   [--tolerance T] [--jobs N] [--format table|csv|json|textproto|binpb] [-q]
//   [--set PATH=VALUE ...]
// podsim capacity SERVE_FILE... --target-rate R [--minimise chips|cost|energy]
//   [--pricing FILE [--commitment C]]: the fewest chips, lowest cost or energy
// podsim capacity SERVE_FILE --target-rate R --fewest-replicas [--max-replicas N]
// podsim capacity SERVE_FILE --target-rate R --choose-mix [--max-replicas N]
//   [--minimise ...]: the count of each replica entry (cli/capacity_mix.h)
// Under mpirun the serve runs are dealt across the ranks and rank 0 alone
// writes (fleet/capacity_across.h): the output is that of one process.
#include <boost/program_options.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>

#include "cli/across_ranks.h"
#include "cli/capacity_mix.h"
#include "cli/commands.h"
#include "cli/error_report.h"
#include "cli/exit_codes.h"
#include "cli/limit_options.h"
#include "cli/model_caveat_warning.h"
#include "cli/positional_files.h"
#include "cli/pricing_option.h"
#include "cli/progress.h"
#include "cli/rank_timeout_option.h"
#include "cli/set_option.h"
#include "cli/unsigned_option.h"
#include "config/serve_loader.h"
#include "fleet/capacity.h"
#include "fleet/capacity_across.h"
#include "fleet/capacity_bound.h"
#include "fleet/capacity_replicas.h"
#include "fleet/capacity_report.h"
#include "fleet/engine_oracle.h"
#include "fleet/serve_cost.h"
#include "report/format.h"
#include "report/table.h"
#include "sim/work_budget.h"
#include "sweep/transport.h"

namespace podsim::cli {

namespace po = boost::program_options;

namespace {

// The energy and cost columns a table gains: J per output token with
// --minimise cost or energy or with --pricing, $ per million output tokens
// with --pricing. None otherwise, so the default output is unchanged.
struct CostColumns {
  bool energy = false;
  bool cost = false;

  void add_headers(std::vector<std::string>& headers) const {
    if (energy)
      headers.emplace_back("j_per_output_token");
    if (cost)
      headers.emplace_back("usd_per_m_output_tokens");
  }
  void add_cells(const fleet::CapacityRun& run, std::vector<std::string>& row) const {
    if (energy)
      row.push_back(run.energy_modelled ? report::format_double(run.j_per_output_token) : "");
    if (cost)
      row.push_back(run.priced ? report::format_double(run.usd_per_m_output_tokens) : "");
  }
};

CostColumns cost_columns(const fleet::CapacityOptions& options) {
  return CostColumns{options.minimise != fleet::Minimise::kChips || options.pricing != nullptr,
                     options.pricing != nullptr};
}

// --minimise energy: every file's replicas need a power model. Exit 2
// naming the first file (and replica) without one, before any run.
void require_power_models(const std::vector<config::ServeSpec>& specs) {
  for (const config::ServeSpec& spec : specs) {
    for (size_t i = 0; i < spec.replicas.size(); ++i) {
      const config::PodSpec& pod = spec.replicas[i].pod;
      if (pod.chip.power.modelled)
        continue;
      std::string message = "--minimise energy needs every serve file's power model; '";
      message += pod.source_file;
      message += "' gives none (chip.power; docs/energy.md)";
      throw config::InputError(config::Diagnostic{
          spec.source_file, "replicas[" + std::to_string(i) + "].topology", 0, 0, message});
    }
  }
}

// --target-rate: every configuration at the rate; the one that meets the
// objectives with the fewest chips, the lowest cost or the least energy.
int fewest_chips(Context& ctx, const std::vector<config::ServeSpec>& specs, double rate,
                 const fleet::CapacityOptions& options, report::ResultFormat format,
                 sweep::Transport& transport, unsigned jobs) {
  if (!(rate > 0) || !std::isfinite(rate) || rate > config::kMaxArrivalRatePerS)
    throw UsageError("--target-rate: expected a rate > 0 requests/s");
  fleet::FewestChips result;
  try {
    result = fleet::fewest_chips_across(specs, rate, options, transport, jobs);
  } catch (const fleet::StepError& e) {
    throw config::InputError(config::Diagnostic{"", e.field(), 0, 0, e.what()});
  } catch (const std::invalid_argument& e) {
    throw config::InputError(config::Diagnostic{"", "arrivals", 0, 0, e.what()});
  }
  if (!transport.writes_output())
    return kExitOk;  // rank 0 reports
  if (format != report::ResultFormat::kTable) {
    print_capacity_report(ctx, fleet::target_rate_report(specs, rate, options, result), format);
    ctx.out.flush();
    return result.best >= 0 ? kExitOk : kExitCheckFailed;
  }
  std::string p = std::to_string(options.percentile);
  p.insert(0, 1, 'p');
  const CostColumns columns = cost_columns(options);
  std::vector<std::string> headers = {
      "config",           "chips",     "rate_per_s", "ttft_" + p + "_s",
      "tpot_" + p + "_s", "completed", "rejected",   "meets_slo"};
  columns.add_headers(headers);
  report::Table t(headers);
  for (const fleet::ConfigVerdict& v : result.configs) {
    std::vector<std::string> row = {v.name,
                                    std::to_string(v.chips),
                                    report::format_double(v.run.rate_per_s),
                                    report::format_double(v.run.ttft_s),
                                    report::format_double(v.run.tpot_s),
                                    std::to_string(v.run.completed),
                                    std::to_string(v.run.rejected),
                                    v.run.ok ? "yes" : "no"};
    columns.add_cells(v.run, row);
    t.add_row(row);
  }
  t.render_text(ctx.out);
  const char* what = options.minimise == fleet::Minimise::kCost     ? "lowest cost"
                     : options.minimise == fleet::Minimise::kEnergy ? "least energy"
                                                                    : "fewest chips";
  ctx.out << "\n" << what << " at " << report::format_double(rate) << " requests/s: ";
  if (result.best >= 0) {
    const fleet::ConfigVerdict& b = result.configs[static_cast<size_t>(result.best)];
    ctx.out << "'" << b.name << "', ";
    if (options.minimise == fleet::Minimise::kCost)
      ctx.out << "$" << report::format_fixed(b.run.usd_per_m_output_tokens, 4)
              << " per million output tokens, ";
    else if (options.minimise == fleet::Minimise::kEnergy)
      ctx.out << report::format_fixed(b.run.j_per_output_token, 4) << " J per output token, ";
    ctx.out << b.chips << " chips";
  } else {
    ctx.out << "no configuration meets the objectives";
  }
  ctx.out << " (" << objectives_text(options) << ")\n";
  ctx.out.flush();
  return result.best >= 0 ? kExitOk : kExitCheckFailed;
}

// --fewest-replicas: the file's replica entry with 1, 2, ... copies at the
// rate; the fewest that meet the objectives.
int fewest_replicas(Context& ctx, const config::ServeSpec& spec, double rate, uint32_t max_copies,
                    const fleet::CapacityOptions& options, report::ResultFormat format,
                    sweep::Transport& transport, unsigned jobs) {
  if (!(rate > 0) || !std::isfinite(rate) || rate > config::kMaxArrivalRatePerS)
    throw UsageError("--target-rate: expected a rate > 0 requests/s");
  if (max_copies < 1 || max_copies > config::kMaxServeReplicas)
    throw UsageError("--max-replicas: expected 1 to " + std::to_string(config::kMaxServeReplicas));
  fleet::FewestReplicas result;
  try {
    result = fleet::fewest_replicas(spec, rate, options, max_copies, transport, jobs);
  } catch (const fleet::StepError& e) {
    throw config::InputError(config::Diagnostic{spec.source_file, e.field(), 0, 0, e.what()});
  } catch (const std::invalid_argument& e) {
    throw config::InputError(config::Diagnostic{
        spec.source_file, spec.replicas.size() != 1 ? "replicas" : "arrivals", 0, 0, e.what()});
  }
  if (!transport.writes_output())
    return result.best >= 0 ? kExitOk : kExitCheckFailed;  // rank 0 reports
  if (format != report::ResultFormat::kTable) {
    print_capacity_report(ctx, fleet::fewest_replicas_report(spec, rate, options, result), format);
    ctx.out.flush();
    return result.best >= 0 ? kExitOk : kExitCheckFailed;
  }
  std::string p = std::to_string(options.percentile);
  p.insert(0, 1, 'p');
  const CostColumns columns = cost_columns(options);
  std::vector<std::string> headers = {
      "copies",           "chips",     "rate_per_s", "ttft_" + p + "_s",
      "tpot_" + p + "_s", "completed", "rejected",   "meets_slo"};
  columns.add_headers(headers);
  report::Table t(headers);
  for (const fleet::CopiesRun& c : result.tried) {
    std::vector<std::string> row = {std::to_string(c.copies),
                                    std::to_string(c.chips),
                                    report::format_double(c.run.rate_per_s),
                                    report::format_double(c.run.ttft_s),
                                    report::format_double(c.run.tpot_s),
                                    std::to_string(c.run.completed),
                                    std::to_string(c.run.rejected),
                                    c.run.ok ? "yes" : "no"};
    columns.add_cells(c.run, row);
    t.add_row(row);
  }
  t.render_text(ctx.out);
  ctx.out << "\nfewest copies of '" << spec.name << "' at " << report::format_double(rate)
          << " requests/s: ";
  if (result.best >= 0) {
    const fleet::CopiesRun& b = result.tried[static_cast<size_t>(result.best)];
    ctx.out << b.copies << " (" << b.chips << " chips)";
  } else {
    ctx.out << "none up to " << max_copies << " meets the objectives";
  }
  ctx.out << " (" << objectives_text(options) << ")\n";
  ctx.out.flush();
  return result.best >= 0 ? kExitOk : kExitCheckFailed;
}

int capacity(Context& ctx, const std::vector<std::string>& args, sweep::Transport& transport) {
  po::options_description opts("Usage: podsim capacity SERVE_FILE [options]\n\nOptions");
  opts.add_options()("help,h", "show this help")(
      "ttft-ms", po::value<double>(),
      "TTFT objective at the percentile, ms > 0 (default: the file's slo)")(
      "tpot-ms", po::value<double>(),
      "TPOT objective at the percentile, ms > 0 (default: the file's slo)")(
      "tbt-ms", po::value<double>(),
      "objective on the percentile of every gap between tokens, ms > 0 (default: the file's "
      "slo)")("percentile", po::value<std::string>()->default_value("99"), "50, 90 or 99")(
      "tolerance", po::value<double>()->default_value(0.02),
      "stop when the bracket is narrower than this fraction of its top")(
      "fewest-replicas",
      "with --target-rate and one serve file of one replica entry: the fewest copies of it "
      "(1, 2, ...) that meet the objectives")("max-replicas",
                                              po::value<std::string>()->default_value("64"),
                                              "with --fewest-replicas: the most copies tried; "
                                              "with --choose-mix: of each entry (default 8 there)")(
      "choose-mix",
      "with --target-rate and one serve file of several replica entries (prefill and decode "
      "pools, or groups of different chips): the count of each that meets the objectives with "
      "the fewest chips, or with --minimise the lowest cost or energy")(
      "jobs,j", po::value<int64_t>()->default_value(1),
      "serve runs at once in this process (the same output for any number)")(
      "target-rate", po::value<double>(),
      "instead: run every serve file given at this rate (requests/s) and name the one that "
      "meets the objectives with the fewest chips")(
      "minimise", po::value<std::string>()->default_value("chips"),
      "with --target-rate: among the files that meet the objectives, the one with the fewest "
      "chips (chips), the lowest $ per million output tokens (cost, needs --pricing) or the "
      "fewest joules per output token (energy); ties go to the fewest chips, then the first")(
      "format,f", po::value<std::string>()->default_value("table"),
      "table, csv (one row per serve run, the answer in each), json, textproto or binpb "
      "(podsim.output.CapacityReport)")(
      "quiet,q",
      "no progress on stderr (a line redrawn on a terminal, else a line every 10 s of a long "
      "search)");
  add_serve_set_option(opts);
  add_pricing_options(opts);
  add_limit_options(opts);
  add_rank_timeout_option(opts);
  po::variables_map vm;
  const std::vector<std::string> files = parse_with_files(args, opts, vm);
  if (vm.count("help") != 0) {
    ctx.out << "Finds the highest arrival rate at which a serve file's configuration meets\n"
               "its SLOs (TTFT and TPOT at a percentile, no request rejected), by bisection\n"
               "over serve runs (docs/serving.md, \"Capacity\"). Exit 1 when no rate does,\n"
               "and when none can: a TTFT objective the longest prompts' prefill alone\n"
               "misses is reported unattainable, naming the requests and the bound, with\n"
               "no search.\n"
               "Going up, no rate above 1e9/s nor, for a run ended by its duration alone,\n"
               "one whose run would hold more than 1e6 requests is tried.\n\n"
               "Under `mpirun -np N podsim capacity ...` the serve runs are dealt across the\n"
               "ranks and rank 0 prints what one process would. A serve run's error (a limit\n"
               "included) is reported once, with one process's exit code; a rank that sends\n"
               "nothing (no result, no heartbeat) for --rank-timeout-seconds ends the job\n"
               "with exit 1, naming it.\n\n"
            << opts;
    return kExitOk;
  }
  const bool target = vm.count("target-rate") != 0;
  if (files.empty() || (files.size() != 1 && !target))
    throw UsageError("capacity needs one serve file (or, with --target-rate, one or more); got " +
                     std::to_string(files.size()));
  const std::string format_name = vm["format"].as<std::string>();
  const std::optional<report::ResultFormat> parsed_format =
      report::parse_result_format(format_name);
  if (!parsed_format)
    throw UsageError("--format: expected table, csv, json, textproto or binpb, got '" +
                     format_name + "'");
  const report::ResultFormat format = *parsed_format;
  fleet::CapacityOptions options;
  options.percentile = static_cast<uint32_t>(unsigned_option(vm, "percentile", 100));
  if (options.percentile != 50 && options.percentile != 90 && options.percentile != 99)
    throw UsageError("--percentile: expected 50, 90 or 99");
  options.limits = limit_options(vm);
  transport.set_wait_limits({.rank_timeout_seconds = rank_timeout_option(vm)});
  options.relative_tolerance = vm["tolerance"].as<double>();
  if (!(options.relative_tolerance >= 1e-4 && options.relative_tolerance < 1))
    throw UsageError("--tolerance: expected a fraction in [0.0001, 1)");
  std::vector<config::ServeSpec> specs;
  const config::Overrides overrides = serve_set_overrides(vm);  // to every file alike
  for (const std::string& f : files)
    specs.push_back(config::load_serve_file(f, overrides));
  const config::ServeSpec& spec = specs.front();
  if (transport.writes_output()) {  // one rank says it
    for (const config::ServeSpec& s : specs)
      warn_if_out_of_step(ctx, s);
  }
  // Given on the command line an objective must be one: a finite time > 0
  // (0 would drop it, leaving a search no rate may end; the file's slo keeps
  // 0 for "none").
  for (const char* slo : {"ttft-ms", "tpot-ms", "tbt-ms"}) {
    if (vm.count(slo) == 0)
      continue;
    const double ms = vm[slo].as<double>();
    if (!(ms > 0) || !std::isfinite(ms))
      throw UsageError(std::string("--") + slo + ": expected a time > 0 ms, got " +
                       report::format_double(ms));
  }
  options.ttft_ms = vm.count("ttft-ms") != 0 ? vm["ttft-ms"].as<double>() : spec.slo.ttft_ms;
  options.tpot_ms = vm.count("tpot-ms") != 0 ? vm["tpot-ms"].as<double>() : spec.slo.tpot_ms;
  options.tbt_ms = vm.count("tbt-ms") != 0 ? vm["tbt-ms"].as<double>() : spec.slo.tbt_ms;
  if (options.ttft_ms == 0 && options.tpot_ms == 0 && options.tbt_ms == 0)
    throw UsageError(
        "capacity needs an objective: --ttft-ms, --tpot-ms, --tbt-ms or the file's slo");
  const int64_t jobs = vm["jobs"].as<int64_t>();
  if (jobs < 1 || jobs > 1024)
    throw UsageError("--jobs: expected 1 to 1024 threads, got " + std::to_string(jobs));
  // Progress: serve runs done, on the rank that reports.
  ProgressLine progress(ctx.err, vm.count("quiet") == 0 && transport.writes_output(), "capacity",
                        "serve runs");
  if (!ctx.err_is_terminal)
    progress.every(kProgressLogSeconds);
  uint64_t runs_done = 0;
  options.on_run = [&progress, &runs_done] { progress.count(++runs_done); };
  const std::string minimise = vm["minimise"].as<std::string>();
  if (minimise == "cost")
    options.minimise = fleet::Minimise::kCost;
  else if (minimise == "energy")
    options.minimise = fleet::Minimise::kEnergy;
  else if (minimise != "chips")
    throw UsageError("--minimise: expected chips, cost or energy, got '" + minimise + "'");
  if (vm.count("choose-mix") != 0) {
    if (!target || files.size() != 1 || vm.count("fewest-replicas") != 0)
      throw UsageError(
          "--choose-mix needs --target-rate and one serve file (not --fewest-replicas)");
    options.pricing = pricing_spec(vm);
    if (options.minimise == fleet::Minimise::kCost && !options.pricing)
      throw UsageError(
          "--minimise cost needs --pricing FILE (a pricing file, e.g. "
          "topologies/pricing/google-cloud-2026.textproto)");
    if (options.pricing)
      fleet::require_pricing(spec, *options.pricing);
    if (options.minimise == fleet::Minimise::kEnergy)
      require_power_models(specs);
    // Unless given, at most 8 copies of each entry (64 mixes of two entries).
    const uint32_t max_copies =
        vm["max-replicas"].defaulted()
            ? 8
            : static_cast<uint32_t>(
                  unsigned_option(vm, "max-replicas", std::numeric_limits<uint32_t>::max()));
    return capacity_mix(ctx, spec, vm["target-rate"].as<double>(), max_copies, options, format,
                        transport, static_cast<unsigned>(jobs));
  }
  if (options.minimise != fleet::Minimise::kChips && (!target || vm.count("fewest-replicas") != 0))
    throw UsageError("--minimise " + minimise +
                     " chooses among serve files at a rate: it needs --target-rate (and not "
                     "--fewest-replicas)");
  options.pricing = pricing_spec(vm);
  if (options.minimise == fleet::Minimise::kCost && !options.pricing)
    throw UsageError(
        "--minimise cost needs --pricing FILE (a pricing file, e.g. "
        "topologies/pricing/google-cloud-2026.textproto)");
  // Before any run: a chip with no price, or no power model where one is needed.
  if (options.pricing)
    for (const config::ServeSpec& s : specs)
      fleet::require_pricing(s, *options.pricing);
  if (options.minimise == fleet::Minimise::kEnergy)
    require_power_models(specs);
  if (vm.count("fewest-replicas") != 0) {
    if (!target || files.size() != 1)
      throw UsageError("--fewest-replicas needs --target-rate and one serve file");
    return fewest_replicas(ctx, spec, vm["target-rate"].as<double>(),
                           static_cast<uint32_t>(unsigned_option(
                               vm, "max-replicas", std::numeric_limits<uint32_t>::max())),
                           options, format, transport, static_cast<unsigned>(jobs));
  }
  if (target)
    return fewest_chips(ctx, specs, vm["target-rate"].as<double>(), options, format, transport,
                        static_cast<unsigned>(jobs));
  fleet::CapacityResult result;
  fleet::TtftBound bound;
  try {
    // A TTFT objective the longest prompts' prefill alone already misses:
    // no rate meets it, and no run is made (fleet/capacity_bound.h).
    bound = fleet::ttft_bound(spec, options);
    if (!bound.unattainable)
      result = fleet::find_capacity_across(spec, options, transport, static_cast<unsigned>(jobs));
  } catch (const fleet::StepError& e) {
    throw config::InputError(config::Diagnostic{spec.source_file, e.field(), 0, 0, e.what()});
  } catch (const std::invalid_argument& e) {
    throw config::InputError(config::Diagnostic{spec.source_file, "arrivals", 0, 0, e.what()});
  }
  progress.finish();
  if (!transport.writes_output())
    return result.rate_per_s > 0 ? kExitOk : kExitCheckFailed;  // rank 0 reports
  if (format != report::ResultFormat::kTable) {
    print_capacity_report(ctx, fleet::rate_search_report(spec, options, result, bound), format);
    ctx.out.flush();
    return result.rate_per_s > 0 ? kExitOk : kExitCheckFailed;
  }
  if (bound.unattainable) {
    ctx.out << "capacity of '" << spec.name << "': unattainable: " << bound.reason << " ("
            << objectives_text(options) << ")\n";
    ctx.out.flush();
    return kExitCheckFailed;
  }
  std::string p = std::to_string(options.percentile);
  p.insert(0, 1, 'p');
  const CostColumns columns = cost_columns(options);
  std::vector<std::string> headers = {"rate_per_s", "ttft_" + p + "_s", "tpot_" + p + "_s",
                                      "completed",  "rejected",         "meets_slo"};
  columns.add_headers(headers);
  report::Table t(headers);
  for (const fleet::CapacityRun& r : result.runs) {
    std::vector<std::string> row = {
        report::format_double(r.rate_per_s), report::format_double(r.ttft_s),
        report::format_double(r.tpot_s),     std::to_string(r.completed),
        std::to_string(r.rejected),          r.ok ? "yes" : "no"};
    columns.add_cells(r, row);
    t.add_row(row);
  }
  t.render_text(ctx.out);
  ctx.out << "\ncapacity of '" << spec.name << "': ";
  if (result.rate_per_s > 0)
    ctx.out << report::format_fixed(result.rate_per_s, 3) << " requests/s";
  else
    ctx.out << "no rate tried meets the objectives";
  ctx.out << " (" << objectives_text(options)
          << (result.rate_per_s > 0 && !result.bracketed ? "; not bracketed within the runs" : "")
          << ")\n";
  ctx.out.flush();
  return result.rate_per_s > 0 ? kExitOk : kExitCheckFailed;
}

}  // namespace

int cmd_capacity(Context& ctx, const std::vector<std::string>& args) {
  // A serve run's error, a limit included, is every rank's alike: its probe
  // carries it to every rank that needs it, which rethrows it at the same
  // step (fleet/capacity_across.h), and the job exits as one process would.
  // capacity writes stdout only, once every round is done: there is no
  // temporary file to remove.
  return run_across_ranks(ctx, {.limits_shared = true}, [&](sweep::Transport& transport) {
    return capacity(ctx, args, transport);
  });
}

}  // namespace podsim::cli

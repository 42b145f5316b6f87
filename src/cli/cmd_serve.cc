// podsim serve SERVE_FILE [--format table|json|csv|textproto|binpb] [--requests FILE]
//   [--timeseries FILE] [--summary-json FILE] [--summary-csv FILE]
//   [--seed N] [--no-bucket-error] [--compare-no-prefix-cache | --no-prefix-cache]
//   [--pricing FILE [--commitment C]] [--set PATH=VALUE ...]
#include <algorithm>
#include <boost/program_options.hpp>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/limit_options.h"
#include "cli/model_caveat_warning.h"
#include "cli/output.h"
#include "cli/positional_files.h"
#include "cli/pricing_option.h"
#include "cli/progress.h"
#include "cli/set_option.h"
#include "cli/unsigned_option.h"
#include "config/serve_loader.h"
#include "fleet/engine_oracle.h"
#include "fleet/serve.h"
#include "fleet/serve_cost.h"
#include "fleet/serve_output.h"
#include "fleet/serve_run.h"
#include "fleet/serve_trace.h"
#include "report/output_file.h"
#include "report/result_print.h"

namespace podsim::cli {

namespace po = boost::program_options;

namespace {

std::string option_or_empty(const po::variables_map& vm, const char* name) {
  return vm.count(name) != 0 ? vm[name].as<std::string>() : std::string();
}

std::vector<NamedFile> serve_outputs(const po::variables_map& vm) {
  return {{"--requests", option_or_empty(vm, "requests")},
          {"--timeseries", option_or_empty(vm, "timeseries")},
          {"--summary-json", option_or_empty(vm, "summary-json")},
          {"--summary-csv", option_or_empty(vm, "summary-csv")},
          {"--trace", option_or_empty(vm, "trace")}};
}

}  // namespace

int cmd_serve(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts("Usage: podsim serve SERVE_FILE [options]\n\nOptions");
  opts.add_options()("help,h", "show this help")(
      "format,f", po::value<std::string>()->default_value("table"),
      "the summary on stdout: table, json, csv (one row), textproto or binpb "
      "(podsim.output.ServeReport)")("requests", po::value<std::string>(),
                                     "write the per-request CSV to this file")(
      "timeseries", po::value<std::string>(),
      "write the time series (queue, batch, KV occupancy per replica) CSV to this file")(
      "summary-json", po::value<std::string>(), "write the summary as JSON to this file")(
      "summary-csv", po::value<std::string>(), "write the summary as one CSV row to this file")(
      "trace", po::value<std::string>(),
      "write a Chrome/Perfetto trace (one track per replica, a slice per step) to this file")(
      "seed", po::value<std::string>(),
      "the seed of arrivals and lengths, 0 to 2^64 - 1 (overrides the file's)")(
      "no-bucket-error",
      "round step counts up to their buckets without refining or measuring the error (the "
      "bucketing before issue 31 without its lower edges: fewer pod simulations, no error "
      "bound)")(
      "compare-no-prefix-cache",
      "also run the same arrivals with prefix caching off on every replica and report that "
      "run's TTFT and goodput beside this one's (docs/serving.md, \"Prefix caching\")")(
      "no-prefix-cache",
      "run with prefix caching off on every replica (the \"without\" run alone)")(
      "quiet,q",
      "no progress on stderr (a line redrawn on a terminal, else a line every 10 s of a long "
      "run)");
  add_serve_set_option(opts);
  add_pricing_options(opts);
  add_limit_options(opts);
  po::variables_map vm;
  const std::vector<std::string> files = parse_with_files(args, opts, vm);
  if (vm.count("help") != 0) {
    ctx.out << "Simulates serving requests on one or more replicas (docs/serving.md): an\n"
               "arrival process (Poisson, gamma, closed loop or a trace CSV), a router, a\n"
               "scheduler per replica (static, continuous, chunked prefill, or deadline\n"
               "with admission control) with paged KV-cache admission, speculative\n"
               "decoding, SLO classes, step times from the pod simulation. Prints latency\n"
               "percentiles, throughput, goodput under the SLOs, utilisation and energy\n"
               "(with --pricing, $ and gCO2e per million output tokens).\n\n"
            << opts;
    return kExitOk;
  }
  if (files.size() != 1)
    throw UsageError("serve needs one serve file; got " + std::to_string(files.size()));
  const std::string format_name = vm["format"].as<std::string>();
  const std::optional<report::ResultFormat> format = report::parse_result_format(format_name);
  if (!format)
    throw UsageError("--format: expected table, json, csv, textproto or binpb, got '" +
                     format_name + "'");
  // Before loading (a typo costs nothing), and again with every file it names.
  refuse_clobbering({{"serve file", files[0]}, {"--pricing", option_or_empty(vm, "pricing")}},
                    serve_outputs(vm));

  const std::shared_ptr<const config::PricingSpec> pricing = pricing_spec(vm);
  config::ServeSpec spec = config::load_serve_file(files[0], serve_set_overrides(vm));
  refuse_clobbering(named_inputs(config::files_named_by(spec)), serve_outputs(vm));
  if (pricing)
    fleet::require_pricing(spec, *pricing);  // a chip with no price: exit 2 before the run
  warn_if_out_of_step(ctx, spec);
  if (vm.count("seed") != 0)
    spec.seed = unsigned_option(vm, "seed", std::numeric_limits<uint64_t>::max());
  if (vm.count("no-bucket-error") != 0)
    spec.buckets.measure_error = false;
  const bool compare = vm.count("compare-no-prefix-cache") != 0;
  if (compare && vm.count("no-prefix-cache") != 0)
    throw UsageError("--compare-no-prefix-cache and --no-prefix-cache exclude each other");
  if (vm.count("no-prefix-cache") != 0)
    for (config::ServeReplicaSpec& r : spec.replicas)
      r.prefix_caching = false;
  if (compare && std::none_of(spec.replicas.begin(), spec.replicas.end(),
                              [](const config::ServeReplicaSpec& r) { return r.prefix_caching; }))
    throw UsageError("--compare-no-prefix-cache needs a replica with prefix_caching");
  fleet::ServeRuns runs;
  {
    // The progress line ends (and is cleared) with the run, before any output.
    ProgressLine progress(ctx.err, vm.count("quiet") == 0, "serving", "events");
    if (!ctx.err_is_terminal)
      progress.every(kProgressLogSeconds);
    fleet::ServeRunOptions run_options;
    run_options.limits = limit_options(vm);
    run_options.compare_no_prefix_cache = compare;
    run_options.record_steps = vm.count("trace") != 0;
    run_options.pricing = pricing.get();
    run_options.progress = [&progress](uint64_t events) { progress.count(events); };
    runs = fleet::run_and_report(spec, run_options);
  }
  const fleet::ServeOutput& out = runs.out;
  const podsim::output::ServeReport& report = runs.report;
  // Every output is written to its temporary before any is put in place,
  // and all are put in place together. The per-request CSV (about 170 bytes
  // a request) is streamed into its temporary file rather than held whole.
  PendingOutputs pending;
  if (vm.count("requests") != 0) {
    report::AtomicFile& requests = pending.open(vm["requests"].as<std::string>());
    fleet::write_requests_csv(out, [&](std::string_view piece) { requests.write(piece); });
  }
  if (vm.count("timeseries") != 0)
    pending.add(vm["timeseries"].as<std::string>(), fleet::timeseries_csv(out));
  if (vm.count("summary-json") != 0)
    pending.add(vm["summary-json"].as<std::string>(), fleet::summary_json(report));
  if (vm.count("summary-csv") != 0)
    pending.add(vm["summary-csv"].as<std::string>(), fleet::summary_csv(report));
  if (vm.count("trace") != 0) {
    std::ostringstream trace;
    fleet::write_serve_trace(spec, out, trace);
    pending.add(vm["trace"].as<std::string>(), trace.view());
  }
  pending.commit();
  switch (*format) {
    case report::ResultFormat::kJson:
      ctx.out << fleet::summary_json(report);
      break;
    case report::ResultFormat::kCsv:
      ctx.out << fleet::summary_csv(report);
      break;
    case report::ResultFormat::kTextproto:
      ctx.out << report::message_to_textproto(report);
      break;
    case report::ResultFormat::kBinpb:
      ctx.out << report::message_to_binpb(report);
      break;
    case report::ResultFormat::kTable:
      fleet::render_summary(ctx.out, report);
      break;
  }
  ctx.out.flush();
  return kExitOk;
}

}  // namespace podsim::cli

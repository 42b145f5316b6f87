// podsim search --model M --topology T [T ...] --phase P --context C [options]:
// every sharding of M's model on each slice, the Pareto frontier of tokens/s
// per chip against per-token latency as CSV, and the best configuration under
// a latency target (docs/search.md). The work is search::run_search(); this
// file parses options and reports.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <memory>
#include <optional>
#include <thread>

#include "cli/across_ranks.h"
#include "cli/calibration_option.h"
#include "cli/commands.h"
#include "cli/error_report.h"
#include "cli/exit_codes.h"
#include "cli/limit_options.h"
#include "cli/output.h"
#include "cli/pricing_option.h"
#include "cli/progress.h"
#include "cli/rank_timeout_option.h"
#include "cli/search_progress.h"
#include "cli/set_option.h"
#include "config/diagnostics.h"
#include "config/serving_candidate.h"
#include "config/topology_loader.h"
#include "report/output_file.h"
#include "search/frontier_csv.h"
#include "search/search.h"
#include "sweep/transport.h"

namespace podsim::cli {

namespace po = boost::program_options;

namespace {

constexpr int64_t kMaxTokens = int64_t{1} << 24;  // the loader's limit per sequence

std::vector<uint32_t> parse_batches(const std::string& list) {
  std::vector<uint32_t> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    size_t used = 0;
    int64_t value = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || value < 1 || value > kMaxTokens) {
      throw UsageError("--batches: '" + item +
                       "' is not a batch size (a whole number from 1 to 16777216; the list is "
                       "comma-separated, e.g. 8,16,64)");
    }
    // A batch given twice is tried once.
    if (std::find(out.begin(), out.end(), static_cast<uint32_t>(value)) == out.end())
      out.push_back(static_cast<uint32_t>(value));
    start = comma + 1;
  }
  return out;
}

double parse_target(const po::variables_map& vm, const char* name) {
  const double v = vm[name].as<double>();
  if (!std::isfinite(v) || v <= 0) {
    throw UsageError(std::string("--") + name + " must be a positive number of milliseconds");
  }
  return v;
}

struct Request {
  std::string model_file;
  std::vector<std::string> topology_files;
  search::SearchOptions options;
  std::optional<double> target_ms;  // --tpot-ms or --ttft-ms
  std::optional<std::string> out_file;
  std::optional<std::string> best_file;
  bool jobs_given = true;  // false: the default below
};

// Threads when --jobs is not given: one per core of this machine, since the
// output is the same for any number (docs/search.md, "Threads and MPI
// ranks"); one per rank under mpirun, whose ranks may share the machine.
unsigned default_jobs(const sweep::Transport& transport) {
  if (transport.ranks() > 1)
    return 1;
  return std::max(1u, std::thread::hardware_concurrency());
}

Request parse(const po::variables_map& vm) {
  Request r;
  if (vm.count("model") == 0)
    throw UsageError("search needs --model FILE (a workload file with a serving model)");
  if (vm.count("topology") == 0)
    throw UsageError("search needs --topology FILE [FILE ...] (the slices to consider)");
  if (vm.count("phase") == 0)
    throw UsageError("search needs --phase prefill or --phase decode");
  if (vm.count("context") == 0)
    throw UsageError("search needs --context C (tokens already in each sequence's KV cache)");
  r.model_file = vm["model"].as<std::string>();
  r.topology_files = vm["topology"].as<std::vector<std::string>>();
  search::SpaceOptions& space = r.options.space;
  const std::string phase = vm["phase"].as<std::string>();
  if (phase == "prefill") {
    space.phase = config::Phase::kPrefill;
  } else if (phase == "decode") {
    space.phase = config::Phase::kDecode;
  } else {
    throw UsageError("--phase: expected prefill or decode, got '" + phase + "'");
  }
  const bool prefill = space.phase == config::Phase::kPrefill;
  const int64_t context = vm["context"].as<int64_t>();
  if (context < (prefill ? 0 : 1) || context >= kMaxTokens) {
    throw UsageError(std::string("--context: expected ") + (prefill ? "0" : "1") +
                     " to 16777215 tokens" +
                     (prefill ? "" : " (a decode step attends to a cache)") + ", got " +
                     std::to_string(context));
  }
  space.context_len = static_cast<uint32_t>(context);
  if (prefill) {
    if (vm.count("prompt") == 0)
      throw UsageError("--phase prefill needs --prompt N (tokens per sequence to process)");
    const int64_t prompt = vm["prompt"].as<int64_t>();
    if (prompt < 1 || prompt + context > kMaxTokens) {
      throw UsageError("--prompt: expected 1 to " + std::to_string(kMaxTokens - context) +
                       " tokens (prompt + context at most 16777216), got " +
                       std::to_string(prompt));
    }
    space.prompt_len = static_cast<uint32_t>(prompt);
  } else if (vm.count("prompt") != 0) {
    throw UsageError("--prompt applies to --phase prefill only (a decode step has no prompt)");
  }
  if (vm.count("tpot-ms") != 0) {
    if (prefill)
      throw UsageError("--tpot-ms is a decode target; for prefill give --ttft-ms");
    r.target_ms = parse_target(vm, "tpot-ms");
  }
  if (vm.count("ttft-ms") != 0) {
    if (!prefill)
      throw UsageError("--ttft-ms is a prefill target; for decode give --tpot-ms");
    r.target_ms = parse_target(vm, "ttft-ms");
  }
  if (vm.count("batches") != 0)
    space.batches = parse_batches(vm["batches"].as<std::string>());
  if (vm.count("jobs") != 0) {
    const int64_t jobs = vm["jobs"].as<int64_t>();
    if (jobs < 1 || jobs > 1024)
      throw UsageError("--jobs: expected 1 to 1024 threads, got " + std::to_string(jobs));
    r.options.jobs = static_cast<unsigned>(jobs);
  } else {
    r.jobs_given = false;
  }
  r.options.prune = vm.count("no-prune") == 0;
  const std::string objective = vm["objective"].as<std::string>();
  if (objective == "throughput")
    r.options.objective = search::Objective::kThroughput;
  else if (objective == "energy")
    r.options.objective = search::Objective::kEnergy;
  else if (objective == "cost")
    r.options.objective = search::Objective::kCost;
  else
    throw UsageError("--objective: expected throughput, energy or cost, got '" + objective + "'");
  if (r.options.objective == search::Objective::kCost && vm.count("pricing") == 0)
    throw UsageError("--objective cost needs --pricing FILE (the chips' prices)");
  if (vm.count("out") != 0)
    r.out_file = vm["out"].as<std::string>();
  if (vm.count("write-best") != 0)
    r.best_file = vm["write-best"].as<std::string>();
  std::vector<NamedFile> inputs{{"--model", r.model_file}};
  for (const std::string& t : r.topology_files)
    inputs.push_back({"--topology", t});
  if (vm.count("calibration") != 0)
    inputs.push_back({"--calibration", vm["calibration"].as<std::string>()});
  if (vm.count("pricing") != 0)
    inputs.push_back({"--pricing", vm["pricing"].as<std::string>()});
  refuse_clobbering(
      inputs, {{"--out", r.out_file.value_or("")}, {"--write-best", r.best_file.value_or("")}});
  return r;
}

int search_command(Context& ctx, const std::vector<std::string>& args,
                   sweep::Transport& transport) {
  po::options_description opts(
      "Usage: podsim search --model FILE --topology FILE [FILE ...] --phase P --context C "
      "[options]\n\nOptions");
  opts.add_options()("help,h", "show this help")("model,m", po::value<std::string>(),
                                                 "workload file whose serving model is searched")(
      "topology,t", po::value<std::vector<std::string>>()->multitoken(),
      "topology files: the slices to consider")("phase", po::value<std::string>(),
                                                "prefill or decode")(
      "context", po::value<int64_t>(), "tokens already in each sequence's KV cache")(
      "prompt", po::value<int64_t>(), "prefill: tokens per sequence to process")(
      "tpot-ms", po::value<double>(), "decode: time-per-output-token target, milliseconds")(
      "ttft-ms", po::value<double>(), "prefill: time-to-first-token target, milliseconds")(
      "batches", po::value<std::string>(),
      "batch sizes to try, comma-separated (default: powers of two up to what the KV cache "
      "allows)")("jobs,j", po::value<int64_t>(),
                 "threads (default: one per core; one per rank under mpirun); the output is the "
                 "same for any number")(
      "no-prune", "simulate every configuration that fits on flow (no analytical pruning)")(
      "objective", po::value<std::string>()->default_value("throughput"),
      "what the frontier trades against latency and the best maximises: throughput (tokens/s "
      "per chip), energy (tokens per joule) or cost (tokens per dollar, needs --pricing); "
      "energy and cost simulate every configuration that fits (docs/energy.md)")(
      "out,o", po::value<std::string>(), "write the frontier CSV here (whole or not at all)")(
      "write-best", po::value<std::string>(),
      "write the best configuration's workload file here, for podsim run")(
      "quiet,q",
      "no redrawn progress line on a terminal; a search longer than 30 s still writes a "
      "progress line every 30 s");
  add_set_option(opts);
  add_calibration_option(opts);
  add_pricing_options(opts);
  add_limit_options(opts);
  add_rank_timeout_option(opts);
  po::variables_map vm;
  // No positional arguments: without this Boost drops them silently, and
  // `podsim run TOPOLOGY WORKLOAD` would run the default workload.
  const po::positional_options_description none;
  po::store(po::command_line_parser(args).options(opts).positional(none).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    ctx.out << "Searches every sharding of a serving model on the given slices (tensor 1D/2D,\n"
               "weight-gathered, KV layouts, experts, pipeline with micro-batches, data) and\n"
               "batch sizes; drops what does not fit, or is clearly dominated on a bound of its\n"
               "step time or on the analytical network model, simulates the rest on the flow\n"
               "model and prints the Pareto frontier of tokens/s per chip against per-token\n"
               "latency (TPOT for decode, TTFT for prefill) as CSV. The best configuration\n"
               "under --tpot-ms / --ttft-ms is named on stderr (exit 1 when none meets it).\n"
               "See docs/search.md.\n\n"
               "Under `mpirun -np N podsim search ...` the evaluations are dealt across the\n"
               "ranks and rank 0 writes what one process would. An error on one rank (a\n"
               "limit included) ends the job at once with one process's exit code, the\n"
               "message naming the rank; a rank that sends nothing (no result, no\n"
               "heartbeat) for --rank-timeout-seconds ends it with exit 1, naming it.\n\n"
            << opts;
    return kExitOk;
  }
  Request req = parse(vm);
  if (!req.jobs_given)
    req.options.jobs = default_jobs(transport);
  transport.set_wait_limits({.rank_timeout_seconds = rank_timeout_option(vm)});
  // The search writes the mesh, sharding and scenario itself: --set may
  // change the slices and the model only.
  const config::Overrides overrides = set_overrides(vm);
  for (const config::Override& o : overrides) {
    if (o.path.starts_with("workload.") && !o.path.starts_with("workload.model."))
      throw UsageError("--set " + config::to_string(o) +
                       ": search generates the mesh, sharding and scenario; it takes "
                       "topology.* and workload.model.* overrides only");
  }
  const std::optional<config::CalibrationProfileSpec> profile = calibration_profile(vm);
  const config::ServingModel model = config::ServingModel::load(req.model_file, overrides);
  std::vector<search::Slice> slices;
  for (const std::string& file : req.topology_files) {
    config::PodSpec pod = config::load_topology_file(file, overrides);
    if (profile)
      apply_calibration_profile(ctx, *profile, pod);
    slices.push_back({std::move(pod), file});
  }

  // Rank 0 alone reports progress, as it alone writes.
  SearchProgress progress(ctx.err, transport.writes_output(), ctx.err_is_terminal,
                          vm.count("quiet") != 0);
  req.options.progress = [&progress](const search::Progress& p) { progress.update(p); };

  // Under mpirun every rank builds the same problem and runs the same search,
  // the evaluations dealt across them; rank 0 alone reports and writes.
  req.options.transport = &transport;
  search::Problem problem = search::build_problem(model, slices, req.options.space);
  problem.set_limits(limit_options(vm));
  problem.set_pricing(pricing_spec(vm));
  if (req.options.objective == search::Objective::kEnergy) {
    for (size_t i = 0; i < slices.size(); ++i) {
      if (!slices[i].spec.chip.power.modelled)
        throw config::InputError(config::Diagnostic{
            slices[i].file, "chip.power", 0, 0,
            "--objective energy needs the chip's power model; this topology has none "
            "(docs/energy.md)"});
    }
  }
  if (!transport.writes_output()) {
    const search::SearchResult result = search::run_search(problem, req.options);
    const std::optional<double> target_us =
        req.target_ms ? std::optional<double>(*req.target_ms * 1000) : std::nullopt;
    return !result.frontier.empty() && search::best_under(result, target_us, req.options.objective)
               ? kExitOk
               : kExitCheckFailed;
  }
  ctx.err << "podsim search: " << problem.size() << " configurations of " << model.spec().name
          << " on " << slices.size() << (slices.size() == 1 ? " slice" : " slices") << '\n';
  const search::SearchResult result = search::run_search(problem, req.options);
  progress.finish();
  const size_t fit = result.count(search::Status::kOk);
  ctx.err << "podsim search: " << result.count(search::Status::kInvalid)
          << " rejected (by the loader, the lowering or a cut in the pod), "
          << result.count(search::Status::kOom) << " do not fit in HBM, " << fit << " fit; ";
  if (result.rounds == 0) {
    ctx.err << result.simulated_flow() << " simulated on flow (no pruning); ";
  } else {
    ctx.err << result.pruned_by_bound() << " dominated on their step-time bound, "
            << result.estimated() << " estimated on the analytical model ("
            << result.pruned() - result.pruned_by_bound() << " dominated beyond its error), "
            << result.simulated_flow() << " simulated on flow in " << result.rounds
            << (result.rounds == 1 ? " round; " : " rounds; ");
  }
  ctx.err << result.frontier.size() << " on the frontier\n";

  // The frontier and the best configuration are put in place together.
  PendingOutputs pending;
  const std::string frontier =
      search::frontier_csv(problem, result, slices, req.options.space.phase);
  if (result.frontier.empty()) {
    emit(ctx, pending, req.out_file, frontier);
    ctx.err << "podsim search: no configuration is valid and fits";
    for (const auto& r : result.results) {
      if (r.check.status != search::Status::kOk) {
        ctx.err << " (for example: " << r.check.reason << ")";
        break;
      }
    }
    ctx.err << '\n';
    return kExitCheckFailed;
  }
  const bool prefill = req.options.space.phase == config::Phase::kPrefill;
  const char* target_name = prefill ? "TTFT" : "TPOT";
  const std::optional<double> target_us =
      req.target_ms ? std::optional<double>(*req.target_ms * 1000) : std::nullopt;
  const std::optional<size_t> best = search::best_under(result, target_us, req.options.objective);
  if (!best) {
    emit(ctx, pending, req.out_file, frontier);
    const search::Evaluation& fastest = *result.results[result.frontier.front()].flow;
    ctx.err << "podsim search: no configuration meets " << target_name
            << " <= " << search::shortest(*req.target_ms) << " ms (the fastest takes "
            << search::fixed(fastest.latency_us / 1000, 3) << " ms)\n";
    return kExitCheckFailed;
  }
  const search::Candidate& c = problem.candidates()[*best];
  const search::Evaluation& e = *result.results[*best].flow;
  ctx.err << "podsim search: best"
          << (req.target_ms ? std::string(" under ") + target_name + " " +
                                  search::shortest(*req.target_ms) + " ms"
                            : std::string(""))
          << ": " << c.workload.name << " on " << slices[c.slice].spec.name << " ("
          << search::mesh_label(c.workload) << "; " << c.workload.description
          << "): " << search::fixed(e.tokens_per_s_per_chip, 2) << " tokens/s per chip, "
          << target_name << " " << search::fixed(e.latency_us / 1000, 3) << " ms";
  if (e.energy_modelled)
    ctx.err << ", " << search::fixed(e.j_per_token * 1e3, 3) << " mJ per token";
  if (e.priced)
    ctx.err << ", $" << search::fixed(e.usd_per_m_tokens, 4) << " per million tokens";
  if (req.options.objective != search::Objective::kThroughput)
    ctx.err << " (objective: " << search::to_string(req.options.objective) << ")";
  ctx.err << '\n';
  if (req.best_file)
    pending.add(*req.best_file, problem.texts()[*best]);
  emit(ctx, pending, req.out_file, frontier);
  if (req.best_file) {
    ctx.err << "podsim search: wrote " << *req.best_file << " (podsim run -w " << *req.best_file
            << " -t " << slices[c.slice].file << ")\n";
  }
  return kExitOk;
}

}  // namespace

int cmd_search(Context& ctx, const std::vector<std::string>& args) {
  // An evaluation past a limit is one rank's alone. The frontier and best
  // files are written after the last round: there is no temporary file to
  // remove before then.
  return run_across_ranks(ctx, {.limits_shared = false}, [&](sweep::Transport& transport) {
    return search_command(ctx, args, transport);
  });
}

}  // namespace podsim::cli

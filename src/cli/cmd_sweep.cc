// podsim sweep SWEEP [--jobs N] [--format csv|jsonl] [--out FILE] [--set PATH=VALUE ...]
#include <spdlog/logger.h>

#include <boost/program_options.hpp>
#include <optional>
#include <thread>

#include "cli/calibration_option.h"
#include "cli/commands.h"
#include "cli/error_report.h"
#include "cli/exit_codes.h"
#include "cli/limit_options.h"
#include "cli/output.h"
#include "cli/positional_files.h"
#include "cli/pricing_option.h"
#include "cli/progress.h"
#include "cli/rank_timeout_option.h"
#include "cli/set_option.h"
#include "config/sweep_loader.h"
#include "fleet/serve_sweep.h"
#include "report/output_file.h"
#include "sweep/held_rows.h"
#include "sweep/point_run.h"
#include "sweep/points.h"
#include "sweep/row_writer.h"
#include "sweep/sweep_budget.h"
#include "sweep/transport.h"

namespace podsim::cli {

namespace po = boost::program_options;

namespace {

struct Tally {
  uint64_t ok = 0;
  uint64_t oom = 0;
  uint64_t invalid = 0;
  std::string first_invalid;  // its reason, for the message when every point is invalid
};

void count(const sweep::RenderedPoint& r, Tally& t) {
  switch (r.status) {
    case podsim::Result::ok:
      ++t.ok;
      break;
    case podsim::Result::oom:
      ++t.oom;
      break;
    default:
      if (t.invalid++ == 0)
        t.first_invalid = r.reason;
      break;
  }
}

unsigned jobs_option(const po::variables_map& vm) {
  const int64_t jobs = vm["jobs"].as<int64_t>();
  if (jobs < 1 || jobs > 1024)
    throw UsageError("--jobs must be between 1 and 1024, got " + std::to_string(jobs));
  return static_cast<unsigned>(jobs);
}

// A row writer's std::invalid_argument (points of mixed kinds) is bad usage
// of this sweep file; every other error stays what it is.
std::exception_ptr as_usage(const std::exception_ptr& error, const std::string& sweep_file) {
  try {
    std::rethrow_exception(error);
  } catch (const std::invalid_argument& e) {
    return std::make_exception_ptr(UsageError(sweep_file + ": " + e.what()));
  } catch (...) {
    return error;
  }
}

}  // namespace

int cmd_sweep(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts("Usage: podsim sweep SWEEP [options]\n\nOptions");
  opts.add_options()("help,h", "show this help")("jobs,j", po::value<int64_t>()->default_value(1),
                                                 "points simulated at once (threads)")(
      "format,f", po::value<std::string>()->default_value("csv"),
      "csv (one header, then every point's rows) or jsonl (one podsim.Result per line)")(
      "out,o", po::value<std::string>(), "write to this file (whole or not at all)")(
      "quiet,q", "no progress on stderr");
  add_set_option(opts);
  add_calibration_option(opts);
  add_pricing_options(opts);
  add_limit_options(opts);
  add_rank_timeout_option(opts);
  po::variables_map vm;
  const std::vector<std::string> files = parse_with_files(args, opts, vm);
  if (vm.count("help") != 0) {
    ctx.out << "Runs every point of a sweep file (docs/sweeps.md): a base topology and\n"
               "workload with parameters varied over values or ranges, as a grid or zipped.\n"
               "One row per point (per operation, for an operation list) in a fixed order\n"
               "whatever --jobs; a point that is invalid or does not fit is a row whose status\n"
               "says so. Under `mpirun -np N podsim sweep ...` the points are dealt across the\n"
               "ranks and rank 0 writes the same bytes as one process would.\n\n"
               "--max-wall-seconds and --max-events bound the whole sweep (its points' events\n"
               "summed) as well as each point: a sweep past one stops with exit 1 and writes\n"
               "no --out file. Under mpirun, a rank that sends nothing (no result, no\n"
               "heartbeat) for --rank-timeout-seconds ends the job with exit 1, naming it.\n"
               "Without --out, nothing reaches stdout until a point is valid: a sweep whose\n"
               "every point is invalid prints nothing and exits 2.\n\n"
            << opts;
    return kExitOk;
  }
  if (files.size() != 1)
    throw UsageError("sweep needs one sweep file; got " + std::to_string(files.size()));
  const auto format = sweep::parse_row_format(vm["format"].as<std::string>());
  if (!format)
    throw UsageError("--format: expected csv or jsonl, got '" + vm["format"].as<std::string>() +
                     "'");
  refuse_clobbering(
      {{"sweep file", files[0]},
       {"--calibration", vm.count("calibration") != 0 ? vm["calibration"].as<std::string>() : ""},
       {"--pricing", vm.count("pricing") != 0 ? vm["pricing"].as<std::string>() : ""}},
      {{"--out", vm.count("out") != 0 ? vm["out"].as<std::string>() : ""}});
  const unsigned jobs = jobs_option(vm);
  const sim::WorkLimits limits = limit_options(vm);
  const double rank_timeout = rank_timeout_option(vm);
  const std::unique_ptr<sweep::Transport> transport = sweep::make_transport();
  // The whole sweep's clock starts here, on every rank alike.
  sweep::SweepBudget budget(limits);
  transport->set_wait_limits({.rank_timeout_seconds = rank_timeout,
                              .max_wall_seconds = limits.max_wall_seconds,
                              .start = budget.start()});

  config::SweepSpec spec;
  sweep::PointOptions point_options;
  std::vector<config::NamedInputFile> named;
  try {
    spec = config::load_sweep_file(files[0]);
    point_options.calibration = calibration_profile(vm);
    point_options.pricing = pricing_spec(vm);
    if (spec.serve_file && point_options.calibration)
      throw UsageError(
          "--calibration applies to run sweeps; a sweep of a serve file takes its "
          "replicas' calibration from their topology files");
    if (spec.serve_file && *format != sweep::RowFormat::kCsv)
      throw UsageError("a sweep of a serve file writes CSV rows (--format csv)");
    named = config::files_named_by(spec);
    for (const config::Override& o : spec.serve_file ? serve_set_overrides(vm) : set_overrides(vm))
      spec.set.push_back(config::to_string(o));
    // Every point's serve file loaded (the rules, no simulation) before any
    // runs: a bad path or value is exit 2 with nothing written.
    if (spec.serve_file) {
      for (config::NamedInputFile& f : fleet::check_serve_points(spec, point_options.pricing.get()))
        named.push_back(std::move(f));
    }
  } catch (const config::InputError&) {
    if (!transport->writes_output())
      return kExitBadInput;  // rank 0 reports it, once
    throw;
  }
  refuse_clobbering(named_inputs(named),
                    {{"--out", vm.count("out") != 0 ? vm["out"].as<std::string>() : ""}});
  point_options.allow_oom = spec.allow_oom;
  point_options.generation.every_step = spec.every_step;
  point_options.generation.tolerance = spec.step_tolerance;
  point_options.limits = limits;

  std::optional<report::AtomicFile> file;
  std::optional<sweep::HeldRows> held;  // stdout's rows, until a point is valid
  const bool writer = transport->writes_output();
  if (writer && vm.count("out") != 0) {
    file.emplace(vm["out"].as<std::string>());
  } else if (writer) {
    held.emplace(ctx.out);
  }
  if (writer)
    ctx.log->info("sweep '{}': {} points on {} rank(s) x {} job(s)", spec.name, spec.points,
                  transport->ranks(), jobs);
  if (writer && point_options.calibration)
    ctx.log->info("calibration profile '{}' ({}) applied to every point's pod",
                  point_options.calibration->name, point_options.calibration->source_file);

  ProgressLine progress(ctx.err, writer && ctx.err_is_terminal && vm.count("quiet") == 0,
                        "sweeping", "points");
  sweep::RowWriter rows(*format);
  Tally tally;
  sweep::BaseInputs bases;
  const sweep::RowFormat row_format = *format;
  auto work = [&spec, &point_options, &bases, &budget, row_format](uint64_t i) {
    const sweep::Point point = sweep::point_at(spec, i);
    if (spec.serve_file) {
      const sweep::RenderedPoint r =
          fleet::run_serve_point(spec, point, budget.for_point(i), point_options.pricing.get());
      budget.spend(i, r.events);
      return sweep::encode(r);
    }
    const podsim::Result result = budget.run(i, [&](const sim::WorkLimits& left) {
      return sweep::run_point(point, point_options, bases, left);
    });
    // Rendered where it ran; deterministic text, so a rank hands rank 0
    // exactly what rank 0 would have written.
    return sweep::encode(sweep::render(row_format, result));
  };
  auto sink = [&](uint64_t i, const std::string& bytes) {
    const sweep::RenderedPoint r = sweep::decode(bytes);
    if (transport->owner(i) != transport->rank())
      budget.spend(i, r.events);  // rank 0 sums every rank's points
    count(r, tally);
    const std::string text = rows.rows(r);
    if (file) {
      file->write(text);
    } else {
      if (r.status != podsim::Result::invalid)
        held->release();  // the sweep is not all invalid: stream from now on
      held->write(text);
      if (!ctx.out)  // a full disk under `> rows.csv`: stop now, not at the end
        check_stdout(ctx.out);
    }
    progress.update(i + 1, spec.points);
  };
  // Under MPI the other ranks are still computing or waiting: an error ends
  // the whole job, not this rank alone, and at once (before this rank's
  // points in flight finish). MPI_Abort does not return or unwind, so the
  // temporary output goes and the reason is told first.
  auto end_job = [&](const std::exception_ptr& e) {
    if (transport->ranks() <= 1)
      return;
    file.reset();
    abort_job(as_usage(e, spec.source_file), *transport, ctx.err);
  };
  // Rank 0, once every point is in: the exit code.
  auto write_out = [&] {
    if (tally.invalid == spec.points) {
      ctx.log->error("{}: every point is invalid; the first: {}", spec.source_file,
                     tally.first_invalid);
      return kExitBadInput;  // nothing written to --out or stdout
    }
    if (held)
      held->release();
    if (file)
      file->commit();
    ctx.out.flush();
    // A point that did not run is worth a look even in a quiet log.
    ctx.log->log(tally.ok == spec.points ? spdlog::level::info : spdlog::level::warn,
                 "sweep '{}': {} ok, {} do not fit, {} invalid", spec.name, tally.ok, tally.oom,
                 tally.invalid);
    return kExitOk;
  };
  try {
    sweep::run_points(spec.points, *transport, jobs, work, sink, end_job);
  } catch (...) {
    std::rethrow_exception(as_usage(std::current_exception(), spec.source_file));
  }
  progress.finish();
  // Rank 0 writes; then every rank ends the job together (finish_job), also
  // when the output could not be written, as the others wait for it.
  int code = kExitOk;
  try {
    if (writer)
      code = write_out();
  } catch (const report::OutputError&) {
    finish_job(*transport, ctx.err);
    throw;
  }
  finish_job(*transport, ctx.err);
  return code;
}

}  // namespace podsim::cli

// podsim sweep SWEEP [--jobs N] [--format csv|jsonl] [--out FILE] [--set PATH=VALUE ...]
#include <boost/program_options.hpp>
#include <optional>
#include <thread>

#include "cli/calibration_option.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/limit_options.h"
#include "cli/output.h"
#include "cli/positional_files.h"
#include "cli/progress.h"
#include "cli/set_option.h"
#include "config/sweep_loader.h"
#include "report/output_file.h"
#include "sweep/point_run.h"
#include "sweep/points.h"
#include "sweep/row_writer.h"
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
  add_limit_options(opts);
  po::variables_map vm;
  const std::vector<std::string> files = parse_with_files(args, opts, vm);
  if (vm.count("help") != 0) {
    ctx.out << "Runs every point of a sweep file (docs/sweeps.md): a base topology and\n"
               "workload with parameters varied over values or ranges, as a grid or zipped.\n"
               "One row per point (per operation, for an operation list) in a fixed order\n"
               "whatever --jobs; a point that is invalid or does not fit is a row whose status\n"
               "says so. Under `mpirun -np N podsim sweep ...` the points are dealt across the\n"
               "ranks and rank 0 writes the same bytes as one process would.\n\n"
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
       {"--calibration", vm.count("calibration") != 0 ? vm["calibration"].as<std::string>() : ""}},
      {{"--out", vm.count("out") != 0 ? vm["out"].as<std::string>() : ""}});
  const unsigned jobs = jobs_option(vm);
  const std::unique_ptr<sweep::Transport> transport = sweep::make_transport();

  config::SweepSpec spec;
  sweep::PointOptions point_options;
  try {
    spec = config::load_sweep_file(files[0]);
    point_options.calibration = calibration_profile(vm);
  } catch (const config::InputError&) {
    if (!transport->writes_output())
      return kExitBadInput;  // rank 0 reports it, once
    throw;
  }
  refuse_clobbering(named_inputs(config::files_named_by(spec)),
                    {{"--out", vm.count("out") != 0 ? vm["out"].as<std::string>() : ""}});
  for (const config::Override& o : set_overrides(vm))
    spec.set.push_back(config::to_string(o));
  point_options.allow_oom = spec.allow_oom;
  point_options.generation.every_step = spec.every_step;
  point_options.generation.tolerance = spec.step_tolerance;
  point_options.limits = limit_options(vm);

  std::optional<report::AtomicFile> file;
  const bool writer = transport->writes_output();
  if (writer && vm.count("out") != 0)
    file.emplace(vm["out"].as<std::string>());
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
  auto work = [&spec, &point_options, &bases, row_format](uint64_t i) {
    // Rendered where it ran; deterministic text, so a rank hands rank 0
    // exactly what rank 0 would have written.
    return sweep::encode(sweep::render(
        row_format, sweep::run_point(sweep::point_at(spec, i), point_options, bases)));
  };
  auto sink = [&](uint64_t i, const std::string& bytes) {
    const sweep::RenderedPoint r = sweep::decode(bytes);
    count(r, tally);
    const std::string text = rows.rows(r);
    if (file) {
      file->write(text);
    } else {
      ctx.out << text;
      if (!ctx.out)  // a full disk under `> rows.csv`: stop now, not at the end
        check_stdout(ctx.out);
    }
    progress.update(i + 1, spec.points);
  };
  try {
    sweep::run_points(spec.points, *transport, jobs, work, sink);
  } catch (const std::invalid_argument& e) {
    // The other ranks are still sending: end the whole job, not rank 0 alone.
    if (transport->ranks() > 1) {
      ctx.log->error("{}: {}", spec.source_file, e.what());
      transport->abort(kExitBadInput);
    }
    throw UsageError(spec.source_file + ": " + e.what());
  } catch (const report::OutputError& e) {
    // The output cannot take the rows (disk full): bad usage, not a bug.
    if (transport->ranks() > 1) {
      ctx.log->error("{}", e.what());
      transport->abort(kExitBadInput);
    }
    throw;
  } catch (...) {
    transport->abort(kExitInternal);
    throw;
  }
  progress.finish();
  if (!writer)
    return kExitOk;
  if (tally.invalid == spec.points) {
    ctx.log->error("{}: every point is invalid; the first: {}", spec.source_file,
                   tally.first_invalid);
    return kExitBadInput;  // nothing written to --out
  }
  if (file)
    file->commit();
  ctx.out.flush();
  // A point that did not run is worth a look even in a quiet log.
  ctx.log->log(tally.ok == spec.points ? spdlog::level::info : spdlog::level::warn,
               "sweep '{}': {} ok, {} do not fit, {} invalid", spec.name, tally.ok, tally.oom,
               tally.invalid);
  return kExitOk;
}

}  // namespace podsim::cli

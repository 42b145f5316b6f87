// podsim calibrate MEASUREMENTS.csv -t TOPOLOGY [--out PROFILE] [--fit KNOBS]
//   [--network M] [--name NAME] [--no-leave-one-out] [--set PATH=VALUE]...
// podsim calibrate --emit-benchmark DIR -t TOPOLOGY
// Fits a calibration profile to microbenchmark measurements by least squares
// on the simulator itself (src/calibrate, docs/calibration.md), or writes the
// JAX script that takes those measurements on a TPU.
#include <boost/program_options.hpp>
#include <filesystem>
#include <sstream>

#include "calibrate/benchmark_plan.h"
#include "calibrate/fit.h"
#include "calibrate/profile_writer.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "cli/set_option.h"
#include "config/topology_loader.h"

namespace podsim::cli {

namespace po = boost::program_options;

namespace {

std::vector<calibrate::Knob> parse_knobs(const std::string& list) {
  std::vector<calibrate::Knob> out;
  std::istringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    const auto k = calibrate::parse_knob(name);
    if (!k) {
      std::string known;
      for (const calibrate::Knob kk : calibrate::kAllKnobs)
        known.append(known.empty() ? "" : ", ").append(calibrate::knob_name(kk));
      throw UsageError("--fit: unknown knob '" + name + "'; the knobs are " + known);
    }
    out.push_back(*k);
  }
  if (out.empty())
    throw UsageError("--fit: name at least one knob");
  return out;
}

// "TPU v5e" -> "tpu-v5e-fit".
std::string default_name(const std::string& chip) {
  std::string s;
  for (const char c : chip)
    s += std::isalnum(static_cast<unsigned char>(c)) != 0
             ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
             : '-';
  return s + "-fit";
}

int emit_benchmark(Context& ctx, const std::string& dir, const config::PodSpec& topology,
                   net::Model network) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw UsageError("--emit-benchmark: " + dir + " exists and is not a directory");
  fs::create_directories(dir, ec);
  if (ec)
    throw UsageError("--emit-benchmark: cannot create " + dir + ": " + ec.message());
  const calibrate::RowSet plan = calibrate::benchmark_plan(topology);
  const calibrate::Predictor predictor(topology, plan, network);
  const std::string script = calibrate::benchmark_script(plan, predictor, topology);
  const std::string path = (fs::path(dir) / "podsim_benchmark.py").string();
  refuse_clobbering({{"--topology", topology.source_file}}, {{"--emit-benchmark", path}});
  PendingOutputs pending;
  pending.add(path, script);
  pending.commit();
  ctx.out << "wrote " << path << ": " << plan.rows.size() << " microbenchmarks for "
          << topology.chip.name << " on " << topology.source_file
          << "\nRun it on the TPU slice: python3 " << path
          << " --out measurements.csv\nthen: podsim calibrate measurements.csv -t "
          << topology.source_file << " --out profile.textproto\n";
  return kExitOk;
}

}  // namespace

int cmd_calibrate(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts(
      "Usage: podsim calibrate MEASUREMENTS.csv -t TOPOLOGY [options]\n"
      "       podsim calibrate --emit-benchmark DIR -t TOPOLOGY\n\nOptions");
  opts.add_options()("help,h", "show this help")(
      "topology,t", po::value<std::string>(),
      "the topology whose chip and links the measurements ran on (required)")(
      "out,o", po::value<std::string>(),
      "write the fitted profile here (calibration.proto text; whole or not at all)")(
      "fit", po::value<std::string>(),
      "fit only these knobs, comma-separated (default: every knob some row moves)")(
      "name", po::value<std::string>(), "the profile's name (default: CHIP-fit)")(
      "network,n", po::value<std::string>()->default_value("flow"),
      "network model collectives are timed on: analytical, flow or packet")(
      "no-leave-one-out", "skip the leave-one-out refits (one per row)")(
      "emit-benchmark", po::value<std::string>(),
      "write DIR/podsim_benchmark.py, a JAX script that times the microbenchmarks a fit "
      "needs on a TPU and writes the measurements CSV")("measurements", po::value<std::string>(),
                                                        "the measurements CSV");
  add_set_option(opts);
  po::positional_options_description pos;
  pos.add("measurements", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    ctx.out << "Fits a calibration profile to microbenchmark measurements (matmuls, HBM copies,\n"
               "collectives; docs/calibration.md gives the CSV) by least squares on podsim\n"
               "itself, and prints every knob with its uncertainty, every row's residual and\n"
               "its leave-one-out error. With --emit-benchmark, writes the JAX script that\n"
               "takes those measurements on a TPU instead.\n\n"
            << opts;
    return kExitOk;
  }
  if (vm.count("topology") == 0)
    throw UsageError(
        "calibrate: --topology is required: the chip and links the measurements "
        "ran on");
  const auto network = net::parse_model(vm["network"].as<std::string>());
  if (!network)
    throw UsageError("--network: expected analytical, flow or packet, got '" +
                     vm["network"].as<std::string>() + "'");
  const config::Overrides overrides = set_overrides(vm);
  for (const config::Override& o : overrides) {
    if (!o.path.starts_with("topology."))
      throw UsageError("--set " + config::to_string(o) + ": calibrate reads no workload");
  }
  const config::PodSpec topology =
      config::load_topology_file(vm["topology"].as<std::string>(), overrides);

  if (vm.count("emit-benchmark") != 0) {
    if (vm.count("measurements") != 0 || vm.count("out") != 0 || vm.count("fit") != 0)
      throw UsageError(
          "--emit-benchmark writes a script; it takes no measurements, --out or --fit");
    return emit_benchmark(ctx, vm["emit-benchmark"].as<std::string>(), topology, *network);
  }
  if (vm.count("measurements") == 0)
    throw UsageError("calibrate: name the measurements CSV (or --emit-benchmark DIR)");
  const std::string file = vm["measurements"].as<std::string>();
  std::optional<std::string> out_file;
  if (vm.count("out") != 0) {
    out_file = vm["out"].as<std::string>();
    refuse_clobbering({{"measurements", file}, {"--topology", topology.source_file}},
                      {{"--out", *out_file}});
  }
  const calibrate::RowSet rows = calibrate::load_rows(file);
  const calibrate::Predictor predictor(topology, rows, *network);
  calibrate::FitOptions fo;
  if (vm.count("fit") != 0)
    fo.knobs = parse_knobs(vm["fit"].as<std::string>());
  fo.leave_one_out = vm.count("no-leave-one-out") == 0;
  calibrate::FitResult result;
  try {
    result = calibrate::fit(predictor, fo);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("calibrate: ") + e.what());
  }
  std::ostringstream report;
  calibrate::print_fit(report, predictor, result);
  if (!out_file) {
    ctx.out << report.str();
    return kExitOk;
  }
  const calibrate::ProfileInfo info{
      vm.count("name") != 0 ? vm["name"].as<std::string>() : default_name(topology.chip.name),
      std::string(net::to_string(*network)), PODSIM_VERSION};
  PendingOutputs pending;
  pending.add(*out_file, calibrate::render_profile(predictor, result, info));
  pending.commit();
  ctx.out << report.str() << "\nwrote " << *out_file << "\n";
  return kExitOk;
}

}  // namespace podsim::cli

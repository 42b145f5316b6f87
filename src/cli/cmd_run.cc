// podsim run --workload W [--topology T] [--network M] [--format F] [--out FILE]
#include <boost/program_options.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "engine/op_list.h"
#include "report/op_list_report.h"
#include "topo/pod.h"

namespace podsim::cli {

namespace po = boost::program_options;

namespace {

net::Switching parse_switching(const std::string& s) {
  if (s == "cut-through") {
    return net::Switching::kCutThrough;
  }
  if (s == "store-and-forward") {
    return net::Switching::kStoreAndForward;
  }
  throw UsageError("--switching: expected cut-through or store-and-forward, got '" + s + "'");
}

}  // namespace

int cmd_run(Context& ctx, const std::vector<std::string>& args) {
  po::options_description opts("Usage: podsim run --workload FILE [options]\n\nOptions");
  opts.add_options()("help,h", "show this help")("workload,w", po::value<std::string>(),
                                                 "workload file (operations on the device mesh)")(
      "topology,t", po::value<std::string>(), "topology file (default: the embedded v5e 16x16)")(
      "network,n", po::value<std::string>()->default_value("flow"),
      "network model: analytical, flow or packet")("packet-bytes",
                                                   po::value<uint64_t>()->default_value(64 * 1024),
                                                   "packet model: bytes per packet")(
      "switching", po::value<std::string>()->default_value("cut-through"),
      "packet model: cut-through or store-and-forward")(
      "format,f", po::value<std::string>()->default_value("table"), "table, json or csv")(
      "out,o", po::value<std::string>(), "write to this file (whole or not at all)");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    ctx.out << "Simulates a workload on a pod and reports, per collective, its time, algorithm\n"
               "and bus bandwidth (NCCL-tests convention) and link utilisation.\n\n"
            << opts;
    return kExitOk;
  }
  if (vm.count("workload") == 0) {
    throw UsageError("run: --workload is required");
  }
  const report::Format format = parse_format_option(vm["format"].as<std::string>());
  const auto model = net::parse_model(vm["network"].as<std::string>());
  if (!model) {
    throw UsageError("--network: expected analytical, flow or packet, got '" +
                     vm["network"].as<std::string>() + "'");
  }
  net::Options net_options;
  net_options.model = *model;
  net_options.packet_bytes = vm["packet-bytes"].as<uint64_t>();
  if (net_options.packet_bytes == 0) {
    throw UsageError("--packet-bytes must be at least 1");
  }
  net_options.switching = parse_switching(vm["switching"].as<std::string>());
  std::optional<std::string> out_file;
  if (vm.count("out") != 0) {
    out_file = vm["out"].as<std::string>();
  }

  config::PodSpec pod_spec = vm.count("topology") != 0
                                 ? config::load_topology_file(vm["topology"].as<std::string>())
                                 : config::default_topology();
  const config::WorkloadSpec workload =
      config::load_workload_file(vm["workload"].as<std::string>(), pod_spec);
  const topo::Pod pod(std::move(pod_spec));

  const net::Options calibrated = engine::network_options(pod, *model);
  net_options.ici_efficiency = calibrated.ici_efficiency;
  net_options.dcn_efficiency = calibrated.dcn_efficiency;
  ctx.log->info("running '{}' on '{}' with the {} network", workload.name, pod.spec().name,
                net::to_string(*model));
  const engine::OpListResult result = engine::run_op_list(pod, workload, net_options);

  report::RunInputs in;
  in.topology = pod.spec().name;
  in.topology_file = pod.spec().source_file;
  in.workload = workload.name;
  in.workload_file = workload.source_file;
  in.network = std::string(net::to_string(*model));
  in.chips = pod.chip_count();
  std::ostringstream text;
  report::render_op_list(in, result, format, text);
  emit(ctx, out_file, text.str());
  return kExitOk;
}

}  // namespace podsim::cli

// The `hlo_import` layer: an XLA HLO module (src/hlo/) run on a pod. It turns
// an hlo::Module and a topo::Pod into a config::WorkloadSpec in operation-list
// form (one mesh axis per torus dimension, compute operations costed through
// config::ComputeOp, collectives as config::CollectiveSpec over those axes,
// `after` from the data flow and the schedule, while loops as
// config::LoopSpec), so engine::run_op_list plays it with everything an
// operation list has: the network models, symmetry, the per-operation table,
// traces and the Result row. docs/hlo.md, "Running a module", gives the rules.
//
// Files by concern: devices.cc (device -> chip), collectives.cc (groups onto
// torus dimensions, V), compute.cc (costing), schedule.cc (order and
// dependencies), loops.cc (while, conditional, call), import.cc (the driver),
// stats.cc (the module's totals for `podsim hlo-stats`).
//
// Errors are config::InputError naming the file, the instruction with its
// line and column, and the problem; warnings (an unknown custom-call target,
// a conditional run on its default branch) are returned, one per cause.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "config/workload_spec.h"
#include "hlo/module.h"
#include "topo/pod.h"

namespace podsim::hlo_import {

struct ImportOptions {
  // Device i runs on chip device_to_chip[i]; empty: device d on chip d.
  std::vector<uint32_t> device_to_chip;
  // --hlo-trip-count NAME=N: the trip count of the while named NAME.
  std::map<std::string, uint32_t, std::less<>> trip_counts;
  // --hlo-branch NAME=I: the branch the conditional named NAME takes.
  std::map<std::string, uint32_t, std::less<>> branches;
};

struct Imported {
  config::WorkloadSpec workload;
  std::vector<std::string> warnings;
};

// The module as an operation list on `pod`. Throws config::InputError.
Imported import_module(const hlo::Module& module, const topo::Pod& pod,
                       const ImportOptions& options);

// Reads `path` (config::read_file_to_string: size limit, errors naming the
// file), parses it (an hlo::ParseError becomes an InputError with the file,
// line and column) and imports it; the workload records the path and the
// SHA-256 of the file's bytes.
Imported load_hlo_workload(const std::filesystem::path& path, const topo::Pod& pod,
                           const ImportOptions& options);

// "3,2,1,0" -> {3, 2, 1, 0} (--hlo-devices; also the text of a file holding
// the list, commas or whitespace between ids). Throws config::InputError
// naming `origin` on anything but a list of ids.
std::vector<uint32_t> parse_device_list(const std::string& text, const std::string& origin);

}  // namespace podsim::hlo_import

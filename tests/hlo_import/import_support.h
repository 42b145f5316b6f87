// Shared by the hlo_import tests: pods, importing module text, playing the
// operation list, and finding operations by name.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engine/op_list.h"
#include "hlo_import/import.h"
#include "specs.h"
#include "topo/pod.h"

namespace podsim::hlo_import::testing {

// A slice of v5e chips (tests/support/specs.h) with dimensions x, y, ...
config::PodSpec pod_spec(const std::vector<podsim::testing::TorusDim>& dims);
// 2x2, both dimensions lines (4 chips, as topologies/v5e-2x2.textproto).
config::PodSpec pod_2x2();

// Parses `text` as file "test.hlo" and imports it.
Imported import_text(const std::string& text, const topo::Pod& pod,
                     const ImportOptions& options = {});
// The error importing `text` gives (what()), or "" when it imports.
std::string import_error(const std::string& text, const topo::Pod& pod,
                         const ImportOptions& options = {});

// Plays the operation list with the roofline compute model.
engine::OpListResult play(const topo::Pod& pod, const config::WorkloadSpec& workload,
                          net::Model model = net::Model::kFlow);

const config::OperationSpec& op(const config::WorkloadSpec& w, std::string_view name);
const config::ComputeOp& compute_of(const config::WorkloadSpec& w, std::string_view name);
const config::CollectiveSpec& collective_of(const config::WorkloadSpec& w, std::string_view name);
size_t index_of(const config::WorkloadSpec& w, std::string_view name);
const engine::OperationResult& result_of(const engine::OpListResult& r, std::string_view name);

// What scripts/hlo_counts.py prints on `file` (stdout and stderr), run with
// /usr/bin/python3.
std::string hlo_counts_script(const std::filesystem::path& file);

// The source tree (PODSIM_SOURCE_DIR) and this folder's modules.
std::filesystem::path source_dir();
std::filesystem::path data(const std::string& file);

}  // namespace podsim::hlo_import::testing

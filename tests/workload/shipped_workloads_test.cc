// Every serving workload shipped in workloads/ loads (src/config) and lowers
// on the topology its "# topology:" header names, and fits the chip's HBM.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "workload/program.h"

namespace podsim::workload {
namespace {

std::filesystem::path source_dir() {
  const char* dir = std::getenv("PODSIM_SOURCE_DIR");
  return dir != nullptr ? std::filesystem::path(dir) : std::filesystem::current_path();
}

std::string topology_header(const std::filesystem::path& file) {
  std::ifstream in(file);
  const std::string key = "# topology: ";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) == 0)
      return line.substr(key.size());
  }
  return {};
}

MeshAxes mesh_of(const config::WorkloadSpec& w, const config::PodSpec& pod) {
  MeshAxes mesh;
  for (const config::MeshAxisDecl& axis : w.mesh) {
    uint32_t size = 1;
    for (const uint32_t d : axis.dims)
      size *= d == config::kSliceDimIndex ? pod.slices : pod.torus.dims.at(d).size;
    mesh.names.push_back(axis.name);
    mesh.sizes.push_back(size);
  }
  return mesh;
}

TEST(ShippedServingWorkloads, LowerAndFitInHbm) {
  size_t lowered = 0;
  for (const auto& entry : std::filesystem::directory_iterator(source_dir() / "workloads")) {
    const std::string topology = topology_header(entry.path());
    if (entry.path().extension() != ".textproto" || topology.empty())
      continue;
    const config::PodSpec pod = config::load_topology_file(source_dir() / topology);
    const config::WorkloadSpec w = config::load_workload_file(entry.path(), pod);
    if (!w.serving)
      continue;
    SCOPED_TRACE(entry.path().filename().string());
    const MeshAxes mesh = mesh_of(w, pod);
    Program p;
    ASSERT_NO_THROW(p = lower(*w.serving, mesh));
    EXPECT_EQ(p.stages.size(), mesh.size(w.serving->sharding.pipeline_axis));
    EXPECT_GT(p.model_flops, 0);
    EXPECT_LE(p.memory_per_chip.total(), pod.chip.hbm_bytes);
    ++lowered;
  }
  EXPECT_GE(lowered, 1u);
}

}  // namespace
}  // namespace podsim::workload

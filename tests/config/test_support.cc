#include "test_support.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "config/topology_loader.h"

namespace podsim::config::testing {

PodSpec load(const podsim::Topology& topology) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(topology, &text);
  return parse_topology_text(text, "test.textproto");
}

podsim::Topology valid_topology() {
  static constexpr const char* kText = R"pb(
    name: "test-pod"
    chip {
      name: "test-chip"
      peak { bf16_tflops: 41 int8_tops: 82 }
      hbm_bytes: 1000
      hbm_bandwidth_gbps: 500
      matrix_units { count: 2 rows: 128 columns: 64 clock_ghz: 1.25 int8_macs_per_cycle: 2 }
      vmem_bytes: 64
      ici_ports: 6
    }
    torus {
      dims { size: 4 wraparound: true link_bandwidth_gbps: 50 hop_latency_ns: 1000 }
      dims { size: 4 wraparound: true link_bandwidth_gbps: 50 hop_latency_ns: 1000 }
      dims { size: 2 link_bandwidth_gbps: 25 hop_latency_ns: 500 }
    }
  )pb";
  podsim::Topology topology;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kText, &topology));
  return topology;
}

std::vector<Diagnostic> text_errors(const std::string& text) {
  try {
    parse_topology_text(text, "test.textproto");
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected an InputError for:\n" << text;
  return {};
}

std::vector<Diagnostic> text_errors(const podsim::Topology& topology) {
  std::string text;
  EXPECT_TRUE(google::protobuf::TextFormat::PrintToString(topology, &text));
  return text_errors(text);
}

TempDir::TempDir() {
  // pid + address keep directories of parallel test processes apart.
  const auto tag =
      std::to_string(::getpid()) + "-" + std::to_string(reinterpret_cast<std::uintptr_t>(this));
  path_ = std::filesystem::temp_directory_path() / ("podsim-config-test-" + tag);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path TempDir::write(const std::string& name, const std::string& contents) const {
  const std::filesystem::path file = path_ / name;
  std::ofstream out(file, std::ios::binary);
  out << contents;
  return file;
}

}  // namespace podsim::config::testing

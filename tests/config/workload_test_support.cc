#include "workload_test_support.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "test_support.h"

namespace podsim::config::testing {

PodSpec test_pod(uint32_t slices) {
  podsim::Topology topology = valid_topology();
  if (slices > 1) {
    topology.set_slices(slices);
    topology.mutable_dcn()->set_bandwidth_gbps_per_chip(6.25);
  }
  std::string text;
  EXPECT_TRUE(google::protobuf::TextFormat::PrintToString(topology, &text));
  return parse_topology_text(text, "pod.textproto");
}

podsim::Workload valid_workload() {
  static constexpr const char* kText = R"pb(
    name: "test-workload"
    mesh {
      axes { name: "data" dims: "x" }
      axes {
        name: "model"
        dims: [ "y", "z" ]
      }
    }
    operations {
      name: "ar"
      collective {
        kind: ALL_REDUCE
        bytes: 1024
        axes: [ "data", "model" ]
      }
    }
    operations {
      name: "ag"
      after: "ar"
      collective { kind: ALL_GATHER bytes: 64 axes: "model" dtype: FP32 }
    }
  )pb";
  podsim::Workload workload;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kText, &workload));
  return workload;
}

podsim::Collective& collective(podsim::Workload& w, int i) {
  return *w.mutable_operations(i)->mutable_collective();
}

std::vector<Diagnostic> workload_errors(const std::string& text, const PodSpec& pod) {
  try {
    parse_workload_text(text, "test.textproto", pod);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected an InputError for:\n" << text;
  return {};
}

std::vector<Diagnostic> workload_errors(const podsim::Workload& workload, const PodSpec& pod) {
  std::string text;
  EXPECT_TRUE(google::protobuf::TextFormat::PrintToString(workload, &text));
  return workload_errors(text, pod);
}

WorkloadSpec load_workload(const podsim::Workload& workload, const PodSpec& pod) {
  std::string text;
  EXPECT_TRUE(google::protobuf::TextFormat::PrintToString(workload, &text));
  return parse_workload_text(text, "test.textproto", pod);
}

}  // namespace podsim::config::testing

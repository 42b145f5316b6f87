#include "workload_test_support.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <fstream>

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

podsim::Workload valid_serving_workload() {
  static constexpr const char* kText = R"pb(
    name: "serving"
    mesh {
      axes { name: "data" dims: "x" }
      axes {
        name: "model"
        dims: [ "y", "z" ]
      }
    }
    model {
      name: "tiny"
      layers: 4
      d_model: 1024
      heads: 16
      kv_heads: 4
      head_dim: 64
      ffn_dim: 4096
      gated_ffn: true
      vocab: 32000
    }
    scenario { phase: DECODE batch: 16 context_len: 1024 }
    sharding { tensor_axes: "model" data_axes: "data" }
  )pb";
  podsim::Workload workload;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kText, &workload));
  return workload;
}

podsim::Workload valid_moe_workload() {
  podsim::Workload w = valid_serving_workload();
  podsim::Moe& moe = *w.mutable_model()->mutable_moe();
  moe.set_experts(8);
  moe.set_experts_per_token(2);
  moe.set_expert_ffn_dim(2048);
  w.mutable_model()->set_ffn_dim(0);
  w.mutable_sharding()->add_expert_axes("data");
  return w;
}

podsim::Workload valid_pipeline_workload() {
  podsim::Workload w = valid_serving_workload();
  w.mutable_mesh()->mutable_axes(0)->set_name("stage");
  w.mutable_sharding()->clear_data_axes();
  w.mutable_sharding()->set_pipeline_axis("stage");
  podsim::Scenario& s = *w.mutable_scenario();
  s.set_phase(podsim::PREFILL);
  s.set_batch(8);
  s.set_prompt_len(512);
  s.set_context_len(0);
  s.set_micro_batches(2);
  return w;
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

ShippedWorkload load_shipped_workload(const std::string& name) {
  const std::filesystem::path file = source_dir() / "workloads" / name;
  const auto topology = topology_header(file);
  EXPECT_TRUE(topology.has_value()) << name << " has no \"# topology:\" header";
  PodSpec pod = load_topology_file(source_dir() / topology.value_or(""));
  WorkloadSpec workload = load_workload_file(file, pod);
  return {std::move(pod), std::move(workload)};
}

}  // namespace podsim::config::testing

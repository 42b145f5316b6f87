// Small pods and hand-built stage programs for the trace tests, whose
// timelines are simple enough to reason about: a 2 x 4 pod with a pipeline
// of two stages along x and tensor parallelism along y.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "chip/compute_model.h"
#include "engine/step.h"
#include "report/trace.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::report::testing {

struct DimSpec {
  std::string name;
  uint32_t size = 1;
  bool wraparound = false;
};

config::PodSpec pod_spec(const std::vector<DimSpec>& dims);

workload::Instruction compute(std::string name, int32_t layer, workload::OpClass c, chip::Op op,
                              std::vector<uint32_t> deps = {});
workload::Instruction all_reduce(std::string name, int32_t layer, std::string axis, uint64_t bytes,
                                 std::vector<uint32_t> deps);
workload::Instruction stage_send(std::string name, uint64_t bytes, std::vector<uint32_t> deps);

chip::Op big_matmul();       // compute-bound on the test chip
chip::Op memory_bound_op();  // memory-bound on the test chip

// Two stages along x ("stage"), tensor parallel along y ("model"): stage 0
// computes, all-reduces over y while a memory-bound op runs beside it,
// computes again and sends to stage 1, which computes and all-reduces.
workload::Program two_stage_program();

struct StepFixture {
  topo::Pod pod;
  topo::DeviceMesh mesh;
  std::unique_ptr<chip::ComputeModel> model;

  StepFixture(const std::vector<DimSpec>& dims, std::vector<topo::MeshAxisSpec> axes);
  // The 2 x 4 pod: x = "stage" (a line of 2), y = "model" (a ring of 4).
  static StepFixture pipeline_pod();

  engine::StepResult run(const workload::Program& p, bool fold = true) const;
  // With `unit_layer`, the critical chip's unit tracks for that layer.
  std::string trace(const workload::Program& p, const engine::StepResult& r,
                    const TraceChipChoice& chips, const std::string& unit_layer = "") const;
};

}  // namespace podsim::report::testing

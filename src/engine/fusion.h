// Epilogue fusion (docs/tensorcore.md, "Fusion"): an elementwise operation
// whose input is a matmul's whole output runs inside that matmul, as XLA
// fuses an activation, a gate or a residual add into the matmul producing
// it: the matmul's result stays in VMEM for the vector unit instead of being
// written to HBM and read back, and the elementwise kernel's own fetch,
// write-back and launch disappear.
//
// An elementwise instruction E is fused into a matmul instruction P when P
// is one of E's dependencies, E is P's only dependent, E reads at least P's
// output bytes and writes an output of its own (an operation whose output
// another kernel writes, such as the collective matmul's accumulation,
// workload/collective_matmul.cc, is fused by the lowering already), E waits
// on no stage transfer, and every other dependency of
// E is a compute instruction before P (done before P starts: a chip's
// compute runs in program order) or a dependency of P: so the fused kernel
// starts when P would and needs nothing P does not have. P's timing is then
// the compute model's fused kernel (ComputeModel::fused_time) and E takes no
// time (it stays in the program, so instruction indices, spans and traces
// keep their meaning). A model that does not play fusion (every model but
// tensorcore) fuses nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "chip/compute_model.h"
#include "workload/program.h"

namespace podsim::engine {

struct StageFusion {
  // Per instruction: the matmul it is fused into, or -1.
  std::vector<int32_t> fused_into;
  // Per instruction: the epilogue fused into this matmul, if any.
  std::vector<std::optional<chip::Epilogue>> epilogue;
  uint32_t fused = 0;  // elementwise instructions fused
};

// The fusions of one stage program on `compute`. O(instructions x deps).
StageFusion plan_fusion(const std::vector<workload::Instruction>& program,
                        const chip::ComputeModel& compute);

// Each instruction's timing on `compute` with `fusion` applied: a fused
// matmul's is its fused kernel's, a fused elementwise op's is zero (no
// time, FLOPs or bytes: the matmul's timing holds them), other compute
// instructions' compute.time(op); non-compute instructions get a default
// OpTiming. Each distinct (operation, epilogue) is timed once: a model's
// timing depends on nothing else.
std::vector<chip::OpTiming> stage_timings(const std::vector<workload::Instruction>& program,
                                          const chip::ComputeModel& compute,
                                          const StageFusion& fusion);

}  // namespace podsim::engine

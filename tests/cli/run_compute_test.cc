// `podsim run` on the shipped workloads with compute operations: the JSON
// `operations` array, checked against roofline times worked out by hand from
// the TPU v5e figures (1.97e14 bf16 FLOP/s, 819 GB/s of HBM).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "result_json.h"

namespace podsim::cli {
namespace {

using testing::Result;
using testing::root;
using testing::run;

// The `operations` entries of `podsim run` on `workload` (v5e 4x4), by name.
std::map<std::string, podsim::OperationResult> operations(const std::string& workload) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = run_cli({"run", "-t", (root() / "topologies/v5e-4x4.textproto").string(), "-w",
                            (root() / "workloads" / workload).string(), "-f", "json"},
                           out, err);
  EXPECT_EQ(code, kExitOk) << err.str();
  std::map<std::string, podsim::OperationResult> by_name;
  const podsim::Result result = testing::parse_result(out.str());
  for (const auto& op : result.op_list().operations()) {
    by_name[op.name()] = op;
  }
  return by_name;
}

TEST(RunCompute, DecodeMatmulIsMemoryBoundPrefillComputeBound) {
  const auto ops = operations("matmuls-v5e-4x4.textproto");
  ASSERT_EQ(ops.size(), 2u);
  const podsim::OperationResult& decode = ops.at("decode");
  EXPECT_EQ(decode.kind(), "matmul");
  EXPECT_EQ(decode.bound(), "memory");
  // 8192 x 8192 x 2 B of weights plus 2 x 8 x 8192 x 2 B of activations,
  // read and written once, at 819 GB/s: 164.2 us.
  EXPECT_EQ(decode.bytes(), 8192.0 * 8192 * 2 + 2 * 8 * 8192 * 2);
  EXPECT_NEAR(decode.time_us(), 164.2, 164.2 * 0.01);
  EXPECT_EQ(decode.compute().flops(), 2.0 * 8 * 8192 * 8192);

  const podsim::OperationResult& prefill = ops.at("prefill");
  EXPECT_EQ(prefill.kind(), "matmul");
  EXPECT_EQ(prefill.bound(), "compute");
  // 2 x 8192^3 FLOP / 1.97e14 FLOP/s = 5.58 ms.
  EXPECT_NEAR(prefill.time_us(), 5581.0, 5581.0 * 0.01);
  EXPECT_NEAR(prefill.compute().achieved_flops_per_s(), 1.97e14, 1.97e14 * 0.01);
  // It waits for the decode matmul: one compute unit per chip.
  EXPECT_NEAR(prefill.start_us(), decode.end_us(), 1e-6);
}

TEST(RunCompute, IndependentMatmulOverlapsTheAllReduce) {
  const auto ops = operations("matmul-allreduce-v5e-4x4.textproto");
  ASSERT_EQ(ops.size(), 3u);
  const podsim::OperationResult& proj = ops.at("proj");
  const podsim::OperationResult& sum = ops.at("sum");
  const podsim::OperationResult& next = ops.at("next");
  EXPECT_EQ(sum.kind(), "all-reduce");
  EXPECT_EQ(sum.bound(), "network");
  EXPECT_EQ(sum.compute().flops(), 0);
  // 2 x 2048 x 1024 x 8192 FLOP / 1.97e14 FLOP/s = 174.4 us each.
  for (const podsim::OperationResult* mm : {&proj, &next}) {
    EXPECT_EQ(mm->bound(), "compute");
    EXPECT_NEAR(mm->time_us(), 174.4, 174.4 * 0.01);
  }
  EXPECT_NEAR(sum.start_us(), proj.end_us(), 1e-6);
  EXPECT_NEAR(next.start_us(), proj.end_us(), 1e-6);
  EXPECT_LT(next.end_us(), sum.end_us());  // hidden under it
}

TEST(RunCompute, CsvHasTheComputeFiguresLast) {
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(run_cli({"run", "-t", (root() / "topologies/v5e-4x4.textproto").string(), "-w",
                     (root() / "workloads/matmuls-v5e-4x4.textproto").string(), "-f", "csv"},
                    out, err),
            kExitOk)
      << err.str();
  const std::string csv = out.str();
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_TRUE(
      header.ends_with(",op_list.operations.compute.flops,op_list.operations.compute."
                       "hbm_bytes,op_list.operations.compute.achieved_flops_per_s"))
      << header;
  EXPECT_NE(csv.find(",decode,matmul,memory,"), std::string::npos);
}

// --compute tensorcore's own input checks, exit 2 naming the field: a VMEM
// under 1 MiB a core, and a forced attention mapping on a model that has
// one fixed mapping. With tensorcore the forced mapping is what runs.
TEST(RunCompute, TensorCoreInputsAreCheckedAndAForcedMappingRuns) {
  const std::string workload = (root() / "workloads/llama3-8b-decode-v5e.textproto").string();
  const std::string topology = (root() / "topologies/v5e-4x4.textproto").string();
  const Result tiny = run({"run", "-w", workload, "-t", topology, "--compute", "tensorcore",
                           "--set", "topology.chip.vmem_bytes=524288"});
  EXPECT_EQ(tiny.code, kExitBadInput);
  EXPECT_NE(tiny.err.find("chip.vmem_bytes"), std::string::npos) << tiny.err;
  const std::string forced = "workload.sharding.attention_mapping=ATTENTION_MAPPING_VECTOR_UNIT";
  const Result roofline = run({"run", "-w", workload, "-t", topology, "--set", forced});
  EXPECT_EQ(roofline.code, kExitBadInput);
  EXPECT_NE(roofline.err.find("sharding.attention_mapping"), std::string::npos) << roofline.err;
  EXPECT_TRUE(roofline.out.empty());
  const Result ran = run({"run", "-w", workload, "-t", topology, "--compute", "tensorcore", "--set",
                          forced, "-f", "json"});
  ASSERT_EQ(ran.code, kExitOk) << ran.err;
  const podsim::Result r = testing::parse_result(ran.out);
  EXPECT_EQ(r.serving().attention_mapping(), "vector-unit");
  EXPECT_EQ(r.inputs().serving().sharding().attention_mapping(), "vector-unit");
}

}  // namespace
}  // namespace podsim::cli

// OpenXLA's LLaMA-3-8B training step (data/real/, Apache-2.0, README.md
// there): a real SPMD-partitioned module, unmodified. It parses; podsim's
// totals equal scripts/hlo_counts.py's; it runs on a 4-chip v5e slice on the
// three network models with a step time inside bounds derived from the chip.
#include <gtest/gtest.h>

#include <sstream>
#include <variant>

#include "cli/context.h"
#include "config/topology_loader.h"
#include "import_support.h"

namespace podsim::hlo_import::testing {
namespace {

std::filesystem::path real_module() {
  return data("real/hlo_llama3_8b_cp_bf16_1x4.hlo");
}

TEST(HloRealModuleTest, PodsimCountsWhatTheScriptCounts) {
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(cli::run_cli({"hlo-stats", real_module().string()}, out, err), 0) << err.str();
  // Each instruction once, the while bodies once (docs/hlo.md, Checks).
  EXPECT_EQ(out.str(),
            "module jit_train_step\n"
            "dots 35\n"
            "dot_flops 28183676059648\n"
            "collective all-gather count 18 bytes 2973843456\n"
            "collective all-reduce count 50 bytes 2537578648\n"
            "collective collective-permute count 11 bytes 251658240\n");
  if (!std::filesystem::exists("/usr/bin/python3")) {
    GTEST_SKIP() << "no /usr/bin/python3";
  }
  EXPECT_EQ(out.str(), hlo_counts_script(real_module()));
}

TEST(HloRealModuleTest, RunsOnFourChipsOnEveryNetworkModel) {
  const config::PodSpec spec =
      config::load_topology_file(source_dir() / "topologies" / "v5e-2x2.textproto", {});
  const topo::Pod pod(spec);
  const Imported imported = load_hlo_workload(real_module(), pod, {});
  // The two while loops scan the 32 layers (forward, then backward); the
  // nine ring-attention conditionals run their default branch, each with a
  // warning.
  ASSERT_EQ(imported.workload.loops.size(), 2u);
  for (const auto& loop : imported.workload.loops) {
    EXPECT_EQ(loop.iterations, 32u);
  }
  EXPECT_EQ(imported.warnings.size(), 9u);
  for (const std::string& w : imported.warnings) {
    EXPECT_NE(w.find("runs its branch 0"), std::string::npos) << w;
  }
  for (const net::Model model : {net::Model::kAnalytical, net::Model::kFlow, net::Model::kPacket}) {
    const engine::OpListResult r = play(pod, imported.workload, model);
    double dot_flops = 0;
    double hbm_bytes = 0;
    double serial_us = 0;
    for (const engine::OperationResult& o : r.operations) {
      serial_us += o.per_run.to_us() * o.repeat;
      if (!o.is_compute()) {
        continue;
      }
      hbm_bytes += static_cast<double>(o.compute->timing.bytes) * o.repeat;
      if (std::holds_alternative<config::Matmul>(o.compute->op)) {
        dot_flops += o.compute->timing.flops * o.repeat;
      }
    }
    // Every dot of a while body runs 32 times: 234.8 TFLOP per chip.
    EXPECT_NEAR(dot_flops, 2.34825e14, 1e10) << net::to_string(model);
    // Bounds from the chip (v5e: 197 TFLOP/s bf16, 819 GB/s HBM): the step
    // takes at least its dot FLOPs at peak (1.19 s) and its HBM bytes at
    // full bandwidth, and at most every operation played one after another.
    const double makespan = r.makespan.to_us();
    EXPECT_GE(makespan, dot_flops / 197e12 * 1e6) << net::to_string(model);
    EXPECT_GE(makespan, hbm_bytes / 819e9 * 1e6) << net::to_string(model);
    EXPECT_LE(makespan, serial_us * (1 + 1e-9)) << net::to_string(model);
    // Measured: 3.99 s on each model (docs/hlo.md, Real input).
    EXPECT_NEAR(makespan, 3.99e6, 0.01e6) << net::to_string(model);
  }
}

}  // namespace
}  // namespace podsim::hlo_import::testing

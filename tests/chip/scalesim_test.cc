// The systolic model against SCALE-Sim, a cycle-accurate simulator of
// systolic arrays no one here wrote (scalesim-project/scale-sim-v2, commit
// 22f88b1, GEMM mode), on single-tile products: one 128 x 128
// weight-stationary array, SRAMs large enough to hold everything and a
// 1000-word/cycle interface, so no cycle is a stall. The reference cycles
// are SCALE-Sim's COMPUTE_REPORT.csv "Total Cycles" for that run (config:
// ArrayHeight/ArrayWidth 128, Dataflow ws, Ifmap/Filter/OfmapSramSzkB 65536,
// Bandwidth 1000; topology rows "name, M, N, K"), run by podsim's
// developers on 2026-12-06. SCALE-Sim counts 2 R + C + T - 3 cycles for a
// fold (weights into all R rows, T rows streamed, skew out); podsim's
// schedule, load R + stream T + fill and drain R + C - 2, one more. The
// issue's bound is 0.5%.
#include <gtest/gtest.h>

#include <cmath>

#include "chip/systolic.h"
#include "chip_fixture.h"

namespace podsim::chip {
namespace {

struct ScaleSimRow {
  uint64_t m, n, k;  // SCALE-Sim's GEMM: M streamed rows, K x N stationary
  uint64_t cycles;
};

constexpr ScaleSimRow kScaleSim[] = {
    {128, 128, 128, 509}, {8, 128, 128, 389}, {1024, 128, 128, 1405},
    {1, 128, 128, 382},   {256, 96, 64, 637}, {64, 32, 128, 445},
};

TEST(ScaleSim, SingleTileCyclesAgreeWithinHalfAPercent) {
  const SystolicModel model(testing::one_array(128, 128, 128), {});
  for (const ScaleSimRow& r : kScaleSim) {
    MxuPass p;
    p.m = r.m;
    p.k = r.k;
    p.n = r.n;
    p.hbm_bytes = 0;  // SCALE-Sim's run had no stalls: compare compute alone
    const SystolicPassCycles c = model.pass_cycles(p);
    EXPECT_EQ(c.tiles, 1u);
    const double error = static_cast<double>(c.compute_cycles) / static_cast<double>(r.cycles) - 1;
    EXPECT_LT(std::abs(error), 0.005) << r.m << " x " << r.k << " x " << r.n << ": podsim "
                                      << c.compute_cycles << " cycles, SCALE-Sim " << r.cycles;
  }
}

}  // namespace
}  // namespace podsim::chip

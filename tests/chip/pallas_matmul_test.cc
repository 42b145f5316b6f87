// The TensorCore model against published kernel timings no one here wrote:
// the JAX Pallas TPU matrix-multiplication guide's table on one TPU v5e
// (docs/pallas/tpu/matmul.ipynb, "Matrix multiplication performance",
// github.com/jax-ml/jax commit cec06d11), bf16 m = k = n in {1024, 4096,
// 8192}, the Pallas kernel with blocks (128, 128, 128) and (512, 1024, 1024),
// and XLA's jnp.matmul. Run with the shipped v5e calibration profile, whose
// matrix-unit efficiency is fitted to the guide's XLA 8192^3 row; the
// shipped v5e's dma_latency_ns is solved from the 8192^3 Pallas row with
// (128, 128, 128) blocks (topologies/v5e-4x4.textproto says how); the other
// five Pallas rows are the check. The guide times with timeit around a
// jitted call, which adds Python dispatch to every row: taken as one offset,
// the XLA 1024^3 row less podsim's time for it.
#include <gtest/gtest.h>

#include <cmath>

#include "chip/tensorcore/tensorcore_model.h"
#include "config/calibration_loader.h"
#include "config/topology_loader.h"
#include "shipped.h"

namespace podsim::chip::tensorcore {
namespace {

struct Row {
  uint64_t size;
  uint64_t bm, bk, bn;  // 0: XLA's own
  double measured_s;
};

// The guide's "Matmul time" outputs, in seconds.
constexpr Row kRows[] = {
    {1024, 128, 128, 128, 0.00029766598949208854}, {4096, 128, 128, 128, 0.011771515250438824},
    {8192, 128, 128, 128, 0.09183577066054567},    {1024, 512, 1024, 1024, 0.00012708659982308746},
    {4096, 512, 1024, 1024, 0.00088908776990138},  {8192, 512, 1024, 1024, 0.006099433819763363},
};
constexpr double kXla1024 = 0.00011943008983507753;

TEST(PallasMatmulGuide, V5eReproducesTheBlockShapeTableWithinTenPercent) {
  const config::PodSpec pod =
      config::load_topology_file(podsim::testing::source_dir() / "topologies/v5e-4x4.textproto");
  const config::CalibrationProfileSpec profile = config::load_calibration_file(
      podsim::testing::source_dir() / "topologies/calibration/v5e.textproto");
  const TensorCoreModel model(pod.chip, efficiency_of(profile.calibration));
  const auto seconds = [&](const Tiling& t) { return t.cycles.total / model.rates().clock_hz; };
  const double dispatch = kXla1024 - seconds(model.tiling(Matmul{1, 1024, 1024, 1024}));
  EXPECT_GT(dispatch, 0);
  for (const Row& r : kRows) {
    const Matmul mm{1, r.size, r.size, r.size};
    const double predicted =
        seconds(model.tiler().matmul_with_blocks(mm, r.bm, r.bk, r.bn)) + dispatch;
    const double error = predicted / r.measured_s - 1;
    std::printf("%lu^3 blocks (%lu, %lu, %lu): measured %.1f us, podsim %.1f us, %+.1f%%\n", r.size,
                r.bm, r.bk, r.bn, r.measured_s * 1e6, predicted * 1e6, error * 100);
    EXPECT_LT(std::abs(error), 0.10)
        << r.size << " with (" << r.bm << ", " << r.bk << ", " << r.bn << ")";
  }
}

}  // namespace
}  // namespace podsim::chip::tensorcore

// The limits of docs/inputs.md ("Limits", the rate bounds): sizes whose
// products would wrap 64 bits, and rates so low that any step outlasts the
// simulator's clock, are refused at load with the field named. Before these
// rules a matmul of 2^64 - 1 cubed reported "time 0.00 us, HBM bytes 6 B",
// and a link of 1e-300 GB/s ended in "internal error" (issue 12).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::Contains;
using testing::IsDiagnostic;
using testing::load_workload;
using testing::valid_workload;
using testing::workload_errors;

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

podsim::Workload with_matmul(uint64_t m, uint64_t k, uint64_t n) {
  auto w = valid_workload();
  podsim::Operation& op = *w.add_operations();
  op.set_name("c");
  op.mutable_compute()->mutable_matmul()->set_m(m);
  op.mutable_compute()->mutable_matmul()->set_k(k);
  op.mutable_compute()->mutable_matmul()->set_n(n);
  return w;
}

TEST(SizeLimitsTest, OperandsPastTwoToTheFortyEightAreRefused) {
  EXPECT_THAT(workload_errors(with_matmul(kMax64, kMax64, kMax64)),
              Contains(IsDiagnostic("operations[2].compute.matmul.m",
                                    "batch x m x k = 2^64 or more elements, more than the limit "
                                    "of 2^48")));
  const uint64_t two32 = uint64_t{1} << 32;
  EXPECT_THAT(workload_errors(with_matmul(two32, two32, two32)),
              Contains(IsDiagnostic("operations[2].compute.matmul.n", "batch x k x n")));
  // 2^24 x 2^24 = 2^48: at the limit, loads (and fails later only if its
  // time outlasts the clock).
  const uint64_t two24 = uint64_t{1} << 24;
  EXPECT_NO_THROW(load_workload(with_matmul(two24, two24, 1)));
  EXPECT_THAT(workload_errors(with_matmul(two24, two24 + 1, 1)),
              Contains(IsDiagnostic("operations[2].compute.matmul.m",
                                    "batch x m x k = 281474993487872 elements")));
}

TEST(SizeLimitsTest, NormEmbeddingReductionAndBytes) {
  auto w = valid_workload();
  auto add = [&w](const char* name) {
    podsim::Operation& op = *w.add_operations();
    op.set_name(name);
    return op.mutable_compute();
  };
  add("norm")->mutable_norm()->set_rows(uint64_t{1} << 32);
  w.mutable_operations(2)->mutable_compute()->mutable_norm()->set_width(uint64_t{1} << 32);
  podsim::Embedding& e = *add("embed")->mutable_embedding();
  e.set_tokens(uint64_t{1} << 32);
  e.set_width(uint64_t{1} << 32);
  add("sum")->mutable_reduction()->set_elements(kMax64);
  add("copy")->mutable_copy()->set_bytes(kMax64);
  const auto errors = workload_errors(w);
  EXPECT_THAT(errors, Contains(IsDiagnostic("operations[2].compute.norm.rows", "rows x width")));
  EXPECT_THAT(errors,
              Contains(IsDiagnostic("operations[3].compute.embedding.tokens", "tokens x width")));
  EXPECT_THAT(errors,
              Contains(IsDiagnostic("operations[4].compute.reduction.elements", "elements")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("operations[5].compute.copy.bytes",
                                            "more than the limit of 2^56")));
}

TEST(SizeLimitsTest, CollectiveBytesPastTwoToTheFiftySix) {
  auto w = valid_workload();
  w.mutable_operations(0)->mutable_collective()->set_bytes(uint64_t{1} << 60);
  EXPECT_THAT(workload_errors(w), Contains(IsDiagnostic("operations[0].collective.bytes",
                                                        "more than the limit of 2^56")));
}

TEST(RateLimitsTest, RatesBelowTheFloorAreRefused) {
  podsim::Topology t = testing::valid_topology();
  t.mutable_torus()->mutable_dims(0)->set_link_bandwidth_gbps(1e-300);
  t.mutable_chip()->set_hbm_bandwidth_gbps(1e-9);
  t.mutable_chip()->mutable_matrix_units()->set_clock_ghz(1e-300);
  t.mutable_calibration()->set_ici_link_efficiency(1e-300);
  const auto errors = testing::text_errors(t);
  EXPECT_THAT(errors, Contains(IsDiagnostic("torus.dims[0].link_bandwidth_gbps",
                                            "must be >= 0.001 GB/s (1 MB/s)")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("chip.hbm_bandwidth_gbps", "must be >= 0.001 GB/s")));
  EXPECT_THAT(errors,
              Contains(IsDiagnostic("chip.matrix_units.clock_ghz", "must be >= 0.001 GHz")));
  EXPECT_THAT(errors,
              Contains(IsDiagnostic("calibration.ici_link_efficiency", "must be in [0.001, 1]")));
  // At the floor it loads.
  t = testing::valid_topology();
  t.mutable_torus()->mutable_dims(0)->set_link_bandwidth_gbps(0.001);
  EXPECT_NO_THROW(testing::load(t));
}

}  // namespace
}  // namespace podsim::config

// One test per validation rule of docs/inputs.md ("Rules"): chip, torus,
// dimensions, twists, slices and DCN, the pod size limit, numbers. Failed links
// and calibration are in topology_rules_links_test.cc.
#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "config/topology_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using testing::IsDiagnostic;
using ::testing::IsEmpty;
using testing::load;
using testing::text_errors;
using testing::valid_topology;

podsim::Dimension& dim(podsim::Topology& t, int i) {
  return *t.mutable_torus()->mutable_dims(i);
}

TEST(TopologyRulesTest, ValidTopologyConvertsUnits) {
  const PodSpec pod = load(valid_topology());
  EXPECT_EQ(pod.name, "test-pod");
  EXPECT_EQ(pod.source_file, "test.textproto");
  EXPECT_EQ(pod.chip.name, "test-chip");
  EXPECT_DOUBLE_EQ(pod.chip.peak_bf16_flops, 4.1e13);  // 41 TFLOP/s, as given
  EXPECT_DOUBLE_EQ(pod.chip.peak_int8_ops, 8.2e13);
  EXPECT_DOUBLE_EQ(pod.chip.peak_fp8_flops, 0);
  EXPECT_EQ(pod.chip.hbm_bytes, 1000u);
  EXPECT_EQ(pod.chip.hbm_bandwidth.bytes_per_s(), 500'000'000'000u);
  EXPECT_EQ(pod.chip.mxu_count, 2u);
  EXPECT_EQ(pod.chip.mxu_rows, 128u);
  EXPECT_EQ(pod.chip.mxu_columns, 64u);
  EXPECT_DOUBLE_EQ(pod.chip.mxu_clock_hz, 1.25e9);
  EXPECT_EQ(pod.chip.vmem_bytes, 64u);
  EXPECT_EQ(pod.chip.ici_ports, 6u);
  ASSERT_EQ(pod.torus.dims.size(), 3u);
  EXPECT_EQ(pod.torus.dims[0].size, 4u);
  EXPECT_TRUE(pod.torus.dims[0].wraparound);
  EXPECT_FALSE(pod.torus.dims[2].wraparound);
  EXPECT_EQ(pod.torus.dims[0].link_bandwidth.bytes_per_s(), 50'000'000'000u);
  EXPECT_EQ(pod.torus.dims[0].hop_latency, sim::Time::us(1));
  EXPECT_EQ(pod.torus.dims[2].link_bandwidth.bytes_per_s(), 25'000'000'000u);
  EXPECT_EQ(pod.torus.dims[2].hop_latency, sim::Time::ns(500));
  EXPECT_THAT(pod.torus.twists, IsEmpty());
  EXPECT_EQ(pod.slices, 1u);  // unset slices means one
  EXPECT_FALSE(pod.dcn.has_value());
  EXPECT_EQ(pod.chip_count(), 32u);  // 4 x 4 x 2
  EXPECT_DOUBLE_EQ(pod.calibration.ici_link_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(pod.calibration.dcn_efficiency, 1.0);
  EXPECT_EQ(pod.calibration.collective_overhead, sim::Time::zero());
}

TEST(TopologyRulesTest, FractionalNanosecondsRoundToPicoseconds) {
  auto t = valid_topology();
  dim(t, 0).set_hop_latency_ns(0.0126);  // 12.6 ps rounds to 13 ps
  dim(t, 1).set_link_bandwidth_gbps(0.5);
  const PodSpec pod = load(t);
  EXPECT_EQ(pod.torus.dims[0].hop_latency, sim::Time::ps(13));
  EXPECT_EQ(pod.torus.dims[1].link_bandwidth.bytes_per_s(), 500'000'000u);
}

TEST(TopologyRulesTest, NameMustNotBeEmpty) {
  auto t = valid_topology();
  t.clear_name();
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("name", "must not be empty")));
}

TEST(TopologyRulesTest, MissingChipSpec) {
  auto t = valid_topology();
  t.clear_chip();
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("chip", "missing chip spec")));
}

TEST(TopologyRulesTest, ChipNameMustNotBeEmpty) {
  auto t = valid_topology();
  t.mutable_chip()->clear_name();
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("chip.name", "must not be empty")));
}

TEST(TopologyRulesTest, PeakBf16MustNotBeNegative) {
  auto t = valid_topology();
  t.mutable_chip()->mutable_peak()->set_bf16_tflops(-1);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("chip.peak.bf16_tflops", "must be >= 0, got -1")));
}

TEST(TopologyRulesTest, OtherDtypePeaksMustNotBeNegative) {
  auto t = valid_topology();
  t.mutable_chip()->mutable_peak()->set_int8_tops(-1);
  t.mutable_chip()->mutable_peak()->set_fp8_tflops(-2.5);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("chip.peak.int8_tops", "must be >= 0, got -1"),
                          IsDiagnostic("chip.peak.fp8_tflops", "must be >= 0, got -2.5")));
}

TEST(TopologyRulesTest, HbmBytesMustBePositive) {
  auto t = valid_topology();
  t.mutable_chip()->set_hbm_bytes(0);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("chip.hbm_bytes", "must be >= 1, got 0")));
}

TEST(TopologyRulesTest, HbmBandwidthMustBePositive) {
  auto t = valid_topology();
  t.mutable_chip()->set_hbm_bandwidth_gbps(-819);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("chip.hbm_bandwidth_gbps", "must be > 0, got -819")));
}

TEST(TopologyRulesTest, MatrixUnitsMustBePositive) {
  auto t = valid_topology();
  t.mutable_chip()->clear_matrix_units();
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("chip.matrix_units.count", "must be >= 1, got 0"),
                          IsDiagnostic("chip.matrix_units.rows", "must be >= 1, got 0"),
                          IsDiagnostic("chip.matrix_units.columns", "must be >= 1, got 0"),
                          IsDiagnostic("chip.matrix_units.clock_ghz", "must be > 0, got 0")));
}

TEST(TopologyRulesTest, IciPortsMustBePositive) {
  auto t = valid_topology();
  t.mutable_chip()->set_ici_ports(0);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("chip.ici_ports", "must be >= 1, got 0")));
}

TEST(TopologyRulesTest, IciPortsMustCoverTheTorus) {
  // 4 (wrapped) + 4 (wrapped) + 2 (line): 2 + 2 + 1 = 5 ports per chip.
  auto t = valid_topology();
  t.mutable_chip()->set_ici_ports(4);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("chip.ici_ports", "needs 5 ICI ports per chip")));
  t.mutable_chip()->set_ici_ports(5);
  EXPECT_EQ(load(t).chip.ici_ports, 5u);
}

TEST(TopologyRulesTest, NumbersMustBeFinite) {
  auto t = valid_topology();
  t.mutable_chip()->set_hbm_bandwidth_gbps(std::numeric_limits<double>::quiet_NaN());
  dim(t, 1).set_hop_latency_ns(std::numeric_limits<double>::infinity());
  t.mutable_chip()->mutable_peak()->set_fp8_tflops(-std::numeric_limits<double>::infinity());
  EXPECT_THAT(
      text_errors(t),
      ElementsAre(
          IsDiagnostic("chip.peak.fp8_tflops", "must be a finite number, got -inf"),
          IsDiagnostic("chip.hbm_bandwidth_gbps", "must be a finite number, got nan"),
          IsDiagnostic("torus.dims[1].hop_latency_ns", "must be a finite number, got inf")));
}

TEST(TopologyRulesTest, TorusNeedsAtLeastOneDimension) {
  auto t = valid_topology();
  t.clear_torus();
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("torus.dims", "must list at least one dimension")));
}

TEST(TopologyRulesTest, DimensionSizeMustBePositive) {
  auto t = valid_topology();
  dim(t, 1).set_size(0);
  dim(t, 1).set_wraparound(false);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("torus.dims[1].size", "must be >= 1, got 0")));
}

TEST(TopologyRulesTest, LinkBandwidthMustBePositiveWhenDimensionHasLinks) {
  auto t = valid_topology();
  dim(t, 2).set_link_bandwidth_gbps(0);
  dim(t, 0).set_link_bandwidth_gbps(-5);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("torus.dims[0].link_bandwidth_gbps", "must be > 0, got -5"),
                          IsDiagnostic("torus.dims[2].link_bandwidth_gbps", "must be > 0, got 0")));
}

TEST(TopologyRulesTest, NegativeHopLatencyIsRejectedZeroIsAllowed) {
  auto t = valid_topology();
  dim(t, 0).set_hop_latency_ns(0);
  EXPECT_EQ(load(t).torus.dims[0].hop_latency, sim::Time::zero());
  dim(t, 0).set_hop_latency_ns(-1);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("torus.dims[0].hop_latency_ns", "must be >= 0, got -1")));
}

TEST(TopologyRulesTest, SizeOneDimensionNeedsNoLinkFiguresButRejectsNegatives) {
  auto t = valid_topology();
  auto* d = t.mutable_torus()->add_dims();
  d->set_size(1);
  EXPECT_EQ(load(t).chip_count(), 32u);
  d->set_link_bandwidth_gbps(-1);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("torus.dims[3].link_bandwidth_gbps",
                                                       "must be >= 0, got -1")));
}

TEST(TopologyRulesTest, WraparoundNeedsSizeThree) {
  auto t = valid_topology();
  dim(t, 2).set_wraparound(true);  // size 2
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("torus.dims[2].wraparound", "needs size >= 3, got size 2")));
  dim(t, 2).set_size(3);
  t.mutable_chip()->set_ici_ports(6);
  EXPECT_TRUE(load(t).torus.dims[2].wraparound);
}

TEST(TopologyRulesTest, BandwidthAndLatencyHaveUpperBounds) {
  auto t = valid_topology();
  dim(t, 0).set_link_bandwidth_gbps(2e9);  // 2 EB/s: a typo
  dim(t, 1).set_hop_latency_ns(2e12);      // 2000 s
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("torus.dims[0].link_bandwidth_gbps",
                                       "must be <= 1000000000 GB/s, got 2000000000"),
                          IsDiagnostic("torus.dims[1].hop_latency_ns",
                                       "must be <= 1000000000000 ns, got 2000000000000")));
}

TEST(TopologyRulesTest, DimensionNamesDefaultByPosition) {
  auto t = valid_topology();
  for (int i = 0; i < 3; ++i)
    t.mutable_torus()->add_dims()->set_size(1);
  const PodSpec pod = load(t);
  ASSERT_EQ(pod.torus.dims.size(), 6u);
  EXPECT_EQ(pod.torus.dims[0].name, "x");
  EXPECT_EQ(pod.torus.dims[1].name, "y");
  EXPECT_EQ(pod.torus.dims[2].name, "z");
  EXPECT_EQ(pod.torus.dims[3].name, "w");
  EXPECT_EQ(pod.torus.dims[4].name, "d4");
  EXPECT_EQ(pod.torus.dims[5].name, "d5");
}

TEST(TopologyRulesTest, DimensionNamesMustBeUnique) {
  auto t = valid_topology();
  dim(t, 2).set_name("x");  // dims[0] is x by default
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("torus.dims[2].name",
                                       "duplicate dimension name \"x\" (also dims[0])")));
}

TEST(TopologyRulesTest, SliceIsAReservedDimensionName) {
  // Workload meshes name the slices "slice"; a torus dimension of that name
  // would make the mesh ambiguous.
  auto t = valid_topology();
  dim(t, 1).set_name("slice");
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("torus.dims[1].name", "\"slice\" is reserved")));
}

// Twists. valid_topology(): x (4, wraps), y (4, wraps), z (2, line).
podsim::Topology with_twist(uint32_t dim_index, uint32_t shift_dim, uint32_t offset) {
  auto t = valid_topology();
  auto* twist = t.mutable_torus()->add_twists();
  twist->set_dim(dim_index);
  twist->set_shift_dim(shift_dim);
  twist->set_offset(offset);
  return t;
}

TEST(TwistRulesTest, ValidTwistConverts) {
  const PodSpec pod = load(with_twist(0, 1, 2));
  ASSERT_EQ(pod.torus.twists.size(), 1u);
  EXPECT_EQ(pod.torus.twists[0], (TwistSpec{0, 1, 2}));
}

TEST(TwistRulesTest, DimensionsMustBeInRange) {
  EXPECT_THAT(text_errors(with_twist(3, 7, 1)),
              ElementsAre(IsDiagnostic("torus.twists[0].dim",
                                       "must be < 3 (the number of dimensions), got 3"),
                          IsDiagnostic("torus.twists[0].shift_dim",
                                       "must be < 3 (the number of dimensions), got 7")));
}

TEST(TwistRulesTest, DimensionMustDifferFromShiftDimension) {
  EXPECT_THAT(text_errors(with_twist(1, 1, 1)),
              ElementsAre(IsDiagnostic("torus.twists[0].shift_dim", "must differ from dim")));
}

TEST(TwistRulesTest, TwistedDimensionNeedsWraparound) {
  EXPECT_THAT(text_errors(with_twist(2, 0, 1)),
              ElementsAre(IsDiagnostic("torus.twists[0].dim", "dimension z has no wraparound")));
}

TEST(TwistRulesTest, OffsetMustBeWithinShiftDimension) {
  EXPECT_THAT(text_errors(with_twist(0, 1, 0)),
              ElementsAre(IsDiagnostic("torus.twists[0].offset", "must be in [1, ")));
  EXPECT_THAT(text_errors(with_twist(0, 1, 4)),
              ElementsAre(IsDiagnostic("torus.twists[0].offset",
                                       "size of shift dimension y - 1 = 3], got 4")));
  EXPECT_EQ(load(with_twist(0, 1, 3)).torus.twists[0].offset, 3u);
}

void add_twist(podsim::Topology& t, uint32_t dim_index, uint32_t shift_dim, uint32_t offset) {
  auto* twist = t.mutable_torus()->add_twists();
  twist->set_dim(dim_index);
  twist->set_shift_dim(shift_dim);
  twist->set_offset(offset);
}

// The k x 2k x 2k form: one wrap shifting two dimensions, one twist each.
TEST(TwistRulesTest, OneWrapMayShiftSeveralDimensions) {
  auto t = with_twist(0, 1, 2);
  add_twist(t, 0, 2, 1);
  const PodSpec pod = load(t);
  ASSERT_EQ(pod.torus.twists.size(), 2u);
  EXPECT_EQ(pod.torus.twists[0], (TwistSpec{0, 1, 2}));
  EXPECT_EQ(pod.torus.twists[1], (TwistSpec{0, 2, 1}));
}

// The k x k x 2k form: two wraps shifting the same untwisted dimension.
TEST(TwistRulesTest, SeveralWrapsMayShiftOneDimension) {
  auto t = with_twist(0, 2, 1);
  add_twist(t, 1, 2, 1);
  EXPECT_EQ(load(t).torus.twists.size(), 2u);
}

TEST(TwistRulesTest, EachDimensionAndShiftPairAtMostOnce) {
  auto t = with_twist(0, 1, 1);
  add_twist(t, 0, 2, 1);
  add_twist(t, 0, 1, 3);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic(
                                  "torus.twists[2].shift_dim",
                                  "twists[0] already shifts the wrap of x along y; give each")));
}

TEST(TwistRulesTest, ShiftMustNotBeAlongATwistedDimension) {
  // x shifts y while y's own wrap is twisted (by a later entry): a chain.
  auto t = with_twist(0, 1, 1);
  add_twist(t, 1, 2, 1);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic(
                                  "torus.twists[0].shift_dim",
                                  "dimension y is itself twisted (twists[1]); a twist may only "
                                  "shift along an untwisted dimension")));
  // Each of two wraps shifting the other: both are chains.
  auto cycle = with_twist(0, 1, 1);
  add_twist(cycle, 1, 0, 1);
  EXPECT_THAT(text_errors(cycle),
              ElementsAre(IsDiagnostic("torus.twists[0].shift_dim", "y is itself twisted"),
                          IsDiagnostic("torus.twists[1].shift_dim", "x is itself twisted")));
}

TEST(SliceRulesTest, SeveralSlicesNeedDcn) {
  auto t = valid_topology();
  t.set_slices(2);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("dcn", "missing")));
}

TEST(SliceRulesTest, DcnBandwidthMustBePositiveAndLatencyNotNegative) {
  auto t = valid_topology();
  t.set_slices(2);
  t.mutable_dcn()->set_latency_ns(-3);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("dcn.bandwidth_gbps_per_chip", "must be > 0, got 0"),
                          IsDiagnostic("dcn.latency_ns", "must be >= 0, got -3")));
}

TEST(SliceRulesTest, MultiSlicePodConverts) {
  auto t = valid_topology();
  t.set_slices(3);
  t.mutable_dcn()->set_bandwidth_gbps_per_chip(3.125);
  t.mutable_dcn()->set_latency_ns(0);  // zero latency is allowed
  const PodSpec pod = load(t);
  EXPECT_EQ(pod.slices, 3u);
  EXPECT_EQ(pod.chip_count(), 96u);  // 3 x 32
  ASSERT_TRUE(pod.dcn.has_value());
  EXPECT_EQ(pod.dcn->bandwidth_per_chip.bytes_per_s(), 3'125'000'000u);
  EXPECT_EQ(pod.dcn->latency, sim::Time::zero());
}

TEST(SliceRulesTest, DcnWithOneSliceIsUnused) {
  for (uint32_t slices : {0u, 1u}) {
    auto t = valid_topology();
    t.set_slices(slices);
    t.mutable_dcn()->set_bandwidth_gbps_per_chip(3.125);
    EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("dcn", "unused"))) << slices;
  }
}

// Two dimensions whose product is `a` x `b` chips, on a chip with ports enough.
podsim::Topology two_dimensional(uint32_t a, uint32_t b) {
  auto t = valid_topology();
  t.mutable_torus()->mutable_dims()->RemoveLast();
  dim(t, 0).set_size(a);
  dim(t, 1).set_size(b);
  return t;
}

TEST(PodSizeRulesTest, AMillionChipsIsTheLimit) {
  EXPECT_EQ(load(two_dimensional(1024, 1024)).chip_count(), 1'048'576u);
  EXPECT_THAT(text_errors(two_dimensional(1024, 1025)),
              ElementsAre(IsDiagnostic("torus", "(1024 x 1025) has more than 1048576 chips")));
}

TEST(PodSizeRulesTest, SlicesCountTowardTheLimit) {
  auto t = two_dimensional(1024, 1024);
  t.set_slices(2);
  t.mutable_dcn()->set_bandwidth_gbps_per_chip(1);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("torus", "1024 x 1024 x 2 slices")));
}

TEST(PodSizeRulesTest, HugeSizesDoNotOverflow) {
  // (2^32 - 1)^4 overflows 64 bits: the count must saturate, not wrap around.
  auto t = two_dimensional(4294967295u, 4294967295u);
  for (int i = 0; i < 2; ++i) {
    auto* d = t.mutable_torus()->add_dims();
    *d = t.torus().dims(0);
  }
  t.mutable_chip()->set_ici_ports(8);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("torus", "has more than 1048576 chips")));
}

}  // namespace
}  // namespace podsim::config

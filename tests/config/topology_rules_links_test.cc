// Validation rules for failed links and calibration, and the promise that an
// error lists every problem at once.
#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "config/topology_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsDiagnostic;
using testing::load;
using testing::text_errors;
using testing::valid_topology;

// valid_topology() with one failed link: x (4, wraps), y (4, wraps), z (2, line).
podsim::Topology with_failed_link(std::vector<uint32_t> coords, uint32_t dim, int32_t direction,
                                  uint32_t slice = 0) {
  auto t = valid_topology();
  auto* link = t.add_failed_links();
  for (uint32_t c : coords)
    link->add_coords(c);
  link->set_dim(dim);
  link->set_direction(direction);
  link->set_slice(slice);
  return t;
}

TEST(FailedLinkRulesTest, ValidLinksConvert) {
  auto t = with_failed_link({3, 0, 1}, 0, +1);  // x wraps: 3 -> 0 exists
  *t.add_failed_links() = with_failed_link({1, 2, 1}, 2, -1).failed_links(0);  // z: 1 -> 0
  const PodSpec pod = load(t);
  ASSERT_EQ(pod.failed_links.size(), 2u);
  EXPECT_EQ(pod.failed_links[0], (FailedLinkSpec{0, {3, 0, 1}, 0, +1}));
  EXPECT_EQ(pod.failed_links[1], (FailedLinkSpec{0, {1, 2, 1}, 2, -1}));
}

TEST(FailedLinkRulesTest, CoordinateCountMustMatchDimensions) {
  EXPECT_THAT(text_errors(with_failed_link({1, 1}, 0, 1)),
              ElementsAre(IsDiagnostic("failed_links[0].coords",
                                       "has 2 coordinates, the torus has 3 dimensions")));
}

TEST(FailedLinkRulesTest, CoordinatesMustBeInRange) {
  EXPECT_THAT(
      text_errors(with_failed_link({0, 4, 2}, 0, 1)),
      ElementsAre(
          IsDiagnostic("failed_links[0].coords[1]", "must be < 4 (size of dimension y), got 4"),
          IsDiagnostic("failed_links[0].coords[2]", "must be < 2 (size of dimension z), got 2")));
}

TEST(FailedLinkRulesTest, SliceMustBeInRange) {
  EXPECT_THAT(text_errors(with_failed_link({0, 0, 0}, 0, 1, 1)),
              ElementsAre(IsDiagnostic("failed_links[0].slice",
                                       "must be < 1 (the number of slices), got 1")));
}

TEST(FailedLinkRulesTest, DimensionMustBeInRange) {
  EXPECT_THAT(text_errors(with_failed_link({0, 0, 0}, 3, 1)),
              ElementsAre(IsDiagnostic("failed_links[0].dim",
                                       "must be < 3 (the number of dimensions), got 3")));
}

TEST(FailedLinkRulesTest, DirectionMustBePlusOrMinusOne) {
  EXPECT_THAT(text_errors(with_failed_link({0, 0, 0}, 0, 0)),
              ElementsAre(IsDiagnostic("failed_links[0].direction", "must be +1 or -1, got 0")));
  EXPECT_THAT(text_errors(with_failed_link({0, 0, 0}, 0, 2)),
              ElementsAre(IsDiagnostic("failed_links[0].direction", "must be +1 or -1, got 2")));
}

TEST(FailedLinkRulesTest, LinkMustNotLeaveALine) {
  // z has size 2 and no wraparound: chip z=1 has no +1 link, chip z=0 no -1 link.
  EXPECT_THAT(text_errors(with_failed_link({0, 0, 1}, 2, +1)),
              ElementsAre(IsDiagnostic("failed_links[0]",
                                       "no such link: coordinate 1 is at the "
                                       "end of dimension z")));
  EXPECT_THAT(text_errors(with_failed_link({0, 0, 0}, 2, -1)),
              ElementsAre(IsDiagnostic("failed_links[0]", "no -1 neighbour")));
}

TEST(FailedLinkRulesTest, SizeOneDimensionHasNoLinks) {
  auto t = with_failed_link({0, 0, 0, 0}, 3, +1);
  t.mutable_torus()->add_dims()->set_size(1);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("failed_links[0]", "has size 1")));
}

TEST(CalibrationRulesTest, EfficienciesMustBeFractions) {
  auto t = valid_topology();
  t.mutable_calibration()->set_ici_link_efficiency(1.5);
  t.mutable_calibration()->set_dcn_efficiency(-0.5);
  t.mutable_calibration()->set_source("a measurement");
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("calibration.ici_link_efficiency",
                                       "must be in [0.001, 1] (0 means unset), got 1.5"),
                          IsDiagnostic("calibration.dcn_efficiency",
                                       "must be in [0.001, 1] (0 means unset), got -0.5")));
}

TEST(CalibrationRulesTest, OverheadMustNotBeNegative) {
  auto t = valid_topology();
  t.mutable_calibration()->set_collective_overhead_ns(-10);
  t.mutable_calibration()->set_source("a measurement");
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("calibration.collective_overhead_ns",
                                                       "must be >= 0, got -10")));
}

TEST(CalibrationRulesTest, SourceIsRequiredWhenAKnobIsSet) {
  auto t = valid_topology();
  t.mutable_calibration()->set_ici_link_efficiency(0.9);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("calibration.source", "required")));
  t.mutable_calibration()->set_ici_link_efficiency(0);
  t.mutable_calibration()->set_collective_overhead_ns(5);
  EXPECT_THAT(text_errors(t), ElementsAre(IsDiagnostic("calibration.source", "required")));
}

TEST(CalibrationRulesTest, UnsetEfficienciesAreIdeal) {
  auto t = valid_topology();
  t.mutable_calibration()->set_ici_link_efficiency(0.9);
  t.mutable_calibration()->set_collective_overhead_ns(2500);
  t.mutable_calibration()->set_source("[SB] achieved 45 of 50 GB/s");
  const PodSpec pod = load(t);
  EXPECT_DOUBLE_EQ(pod.calibration.ici_link_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(pod.calibration.dcn_efficiency, 1.0);  // left at 0: unset
  EXPECT_EQ(pod.calibration.collective_overhead, sim::Time::ns(2500));
  EXPECT_EQ(pod.calibration.source, "[SB] achieved 45 of 50 GB/s");
}

TEST(AllProblemsTest, EveryProblemIsListedAtOnce) {
  auto t = valid_topology();
  t.clear_name();
  t.mutable_chip()->set_hbm_bytes(0);
  t.mutable_torus()->mutable_dims(1)->set_size(0);
  t.mutable_torus()->mutable_dims(1)->set_wraparound(false);
  t.mutable_torus()->mutable_dims(2)->set_hop_latency_ns(-1);
  t.set_slices(2);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("name", "must not be empty"),
                          IsDiagnostic("chip.hbm_bytes", "must be >= 1, got 0"),
                          IsDiagnostic("torus.dims[1].size", "must be >= 1, got 0"),
                          IsDiagnostic("torus.dims[2].hop_latency_ns", "must be >= 0, got -1"),
                          IsDiagnostic("dcn", "missing")));
}

TEST(AllProblemsTest, WhatListsEveryProblemOnItsOwnLine) {
  auto t = valid_topology();
  t.clear_name();
  t.mutable_chip()->set_hbm_bytes(0);
  std::string text;
  google::protobuf::TextFormat::PrintToString(t, &text);
  try {
    parse_topology_text(text, "pod.textproto");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_THAT(what, HasSubstr("pod.textproto: name: must not be empty\n"));
    EXPECT_THAT(what, HasSubstr("\npod.textproto:"));
    EXPECT_THAT(what, HasSubstr(": chip.hbm_bytes: must be >= 1, got 0"));
  }
}

}  // namespace
}  // namespace podsim::config

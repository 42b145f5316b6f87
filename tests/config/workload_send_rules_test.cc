// The rules of docs/inputs.md for SEND collectives and the SNAKE_RING
// algorithm: a send names chip pairs, not axes; each chip is one coordinate
// per torus dimension inside the pod; no pair sends to itself or is listed
// twice; fields other kinds own are rejected. test_pod() is 4 x 4 x 2 (x, y,
// z) in one slice.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using testing::IsDiagnostic;
using testing::load_workload;
using testing::test_pod;
using testing::valid_workload;
using testing::workload_errors;

void set_chip(podsim::ChipCoords* c, std::initializer_list<uint32_t> coords, uint32_t slice = 0) {
  for (const uint32_t v : coords) {
    c->add_coords(v);
  }
  c->set_slice(slice);
}

// valid_workload() with operations[1] a send of 64 bytes from (0,0,0) to (3,1,1).
podsim::Workload with_send() {
  auto w = valid_workload();
  podsim::Collective& c = testing::collective(w, 1);
  c.Clear();
  c.set_kind(podsim::SEND);
  c.set_bytes(64);
  podsim::ChipPair* p = c.add_pairs();
  set_chip(p->mutable_src(), {0, 0, 0});
  set_chip(p->mutable_dst(), {3, 1, 1});
  return w;
}

podsim::Collective& second(podsim::Workload& w) {
  return testing::collective(w, 1);
}

constexpr const char* kPath = "operations[1].collective";

std::string at(const std::string& tail) {
  return std::string(kPath) + "." + tail;
}

TEST(SendRulesTest, ValidSendLoadsWithItsPairs) {
  const WorkloadSpec spec = load_workload(with_send());
  const auto& c = std::get<CollectiveSpec>(spec.operations.at(1).op);
  EXPECT_EQ(c.kind, CollectiveKind::kSend);
  ASSERT_EQ(c.pairs.size(), 1U);
  EXPECT_EQ(c.pairs[0].src.coords, (std::vector<uint32_t>{0, 0, 0}));
  EXPECT_EQ(c.pairs[0].dst.coords, (std::vector<uint32_t>{3, 1, 1}));
  EXPECT_TRUE(c.axes.empty());
}

TEST(SendRulesTest, NeedsAPairAndNoAxes) {
  auto w = with_send();
  second(w).clear_pairs();
  second(w).add_axes("data");
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(at("axes"), "SEND names its chips in pairs, not mesh axes"),
                          IsDiagnostic(at("pairs"), "SEND needs at least one pair")));
}

TEST(SendRulesTest, ChipsMustBeInThePod) {
  auto w = with_send();
  podsim::ChipPair* p = second(w).add_pairs();
  set_chip(p->mutable_src(), {0, 0});        // two coordinates for three dimensions
  set_chip(p->mutable_dst(), {4, 0, 2}, 1);  // x and z out of range, one slice only
  EXPECT_THAT(
      workload_errors(w),
      ElementsAre(
          IsDiagnostic(at("pairs[1].src.coords"), "must give 3 coordinates (x, y, z), got 2"),
          IsDiagnostic(at("pairs[1].dst.coords[0]"), "dimension x has 4 chips (0 to 3), got 4"),
          IsDiagnostic(at("pairs[1].dst.coords[2]"), "dimension z has 2 chips (0 to 1), got 2"),
          IsDiagnostic(at("pairs[1].dst.slice"), "the pod has 1 slice, got slice 1")));
}

TEST(SendRulesTest, NoSendToItselfAndNoPairTwice) {
  auto w = with_send();
  podsim::ChipPair* self = second(w).add_pairs();
  set_chip(self->mutable_src(), {1, 1, 1});
  set_chip(self->mutable_dst(), {1, 1, 1});
  *second(w).add_pairs() = second(w).pairs(0);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(at("pairs[1]"), "source and destination are the same chip"),
                          IsDiagnostic(at("pairs[2]"), "is already listed as pairs[0]")));
}

TEST(SendRulesTest, OtherKindsFieldsAndAlgorithmsAreRejected) {
  auto w = with_send();
  second(w).set_root(1);
  second(w).set_algorithm(podsim::BIDIRECTIONAL_RING);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(at("algorithm"), "SEND has no algorithm to choose"),
                          IsDiagnostic(at("root"), "only BROADCAST has a root")));
}

TEST(SendRulesTest, BytesAreWholeElements) {
  auto w = with_send();
  second(w).set_bytes(3);  // bf16: 2 bytes per element
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(at("bytes"), "3 bytes is not a whole number of bf16")));
}

TEST(SendRulesTest, PairsBelongToSendOnly) {
  auto w = valid_workload();
  podsim::ChipPair* p = second(w).add_pairs();
  set_chip(p->mutable_src(), {0, 0, 0});
  set_chip(p->mutable_dst(), {1, 0, 0});
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic(at("pairs"), "only SEND has pairs")));
}

TEST(SnakeRingRulesTest, AppliesToRingsAndBroadcastOnly) {
  auto w = valid_workload();
  second(w).set_algorithm(podsim::SNAKE_RING);
  EXPECT_NO_THROW(load_workload(w));
  second(w).set_kind(podsim::ALL_TO_ALL);
  second(w).set_bytes(1024);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(at("algorithm"), "SNAKE_RING applies to ALL_GATHER")));
}

}  // namespace
}  // namespace podsim::config

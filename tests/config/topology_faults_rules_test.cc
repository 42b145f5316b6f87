// The rules of faulty hardware beside failed links (issue 12 point 5): dead
// chips, degraded links and stragglers load into the spec, and every bad one
// is refused naming its field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using testing::IsDiagnostic;
using testing::load;
using testing::text_errors;
using testing::valid_topology;

// valid_topology(): x (4, wraps), y (4, wraps), z (2, line), one slice.
void set_coords(google::protobuf::RepeatedField<uint32_t>* out, std::vector<uint32_t> coords) {
  for (uint32_t c : coords)
    out->Add(c);
}

podsim::DegradedLink* degrade(podsim::Topology& t, std::vector<uint32_t> coords, uint32_t dim,
                              int32_t direction) {
  auto* d = t.add_degraded_links();
  set_coords(d->mutable_coords(), coords);
  d->set_dim(dim);
  d->set_direction(direction);
  return d;
}

podsim::Straggler* straggle(podsim::Topology& t, std::vector<uint32_t> coords) {
  auto* s = t.add_stragglers();
  set_coords(s->mutable_coords(), coords);
  return s;
}

void kill(podsim::Topology& t, std::vector<uint32_t> coords) {
  set_coords(t.add_dead_chips()->mutable_coords(), coords);
}

TEST(FaultRules, ValidFaultsConvert) {
  auto t = valid_topology();
  kill(t, {0, 0, 0});
  degrade(t, {1, 1, 1}, 0, +1)->set_bandwidth_factor(0.25);
  degrade(t, {2, 2, 0}, 1, -1)->set_extra_latency_ns(500);
  straggle(t, {3, 3, 1})->set_compute_factor(0.5);
  straggle(t, {2, 3, 1})->set_hbm_factor(0.75);
  const PodSpec pod = load(t);
  EXPECT_TRUE(pod.has_faults());
  EXPECT_EQ(pod.dead_chips, (std::vector<DeadChipSpec>{{0, {0, 0, 0}}}));
  ASSERT_EQ(pod.degraded_links.size(), 2U);
  EXPECT_EQ(pod.degraded_links[0].bandwidth_factor, 0.25);
  EXPECT_EQ(pod.degraded_links[0].extra_latency, sim::Time::zero());
  EXPECT_EQ(pod.degraded_links[1].bandwidth_factor, 1.0);  // unset: 1
  EXPECT_EQ(pod.degraded_links[1].extra_latency, sim::Time::ns(500));
  ASSERT_EQ(pod.stragglers.size(), 2U);
  EXPECT_EQ(pod.stragglers[0].compute_factor, 0.5);
  EXPECT_EQ(pod.stragglers[0].hbm_factor, 1.0);
  EXPECT_EQ(pod.stragglers[1].hbm_factor, 0.75);
  EXPECT_FALSE(pod.without_faults().has_faults());
}

TEST(FaultRules, FactorsAreFractionsThatSlowSomething) {
  for (const double bad : {0.0, 1e-4, 1.5, -0.5, std::nan(""), double{INFINITY}}) {
    SCOPED_TRACE(bad);
    auto t = valid_topology();
    degrade(t, {0, 0, 0}, 0, +1)->set_bandwidth_factor(bad);
    straggle(t, {1, 0, 0})->set_hbm_factor(bad);
    const auto errors = text_errors(t);
    EXPECT_THAT(errors, Contains(IsDiagnostic("degraded_links[0].bandwidth_factor",
                                              "must be a fraction in [0.001, 1]")));
    EXPECT_THAT(errors, Contains(IsDiagnostic("stragglers[0].hbm_factor",
                                              "must be a fraction in [0.001, 1]")));
  }
  auto t = valid_topology();
  degrade(t, {0, 0, 0}, 0, +1)->set_bandwidth_factor(1.0);
  straggle(t, {1, 0, 0})->set_compute_factor(1.0);
  const auto errors = text_errors(t);
  EXPECT_THAT(errors, Contains(IsDiagnostic("degraded_links[0]", "degrades nothing")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("stragglers[0]", "slows nothing")));
  auto n = valid_topology();
  degrade(n, {0, 0, 0}, 0, +1)->set_extra_latency_ns(-1);
  EXPECT_THAT(text_errors(n), Contains(IsDiagnostic("degraded_links[0].extra_latency_ns", "")));
}

TEST(FaultRules, LocationsMustExist) {
  auto t = valid_topology();
  kill(t, {4, 0, 0});
  degrade(t, {0, 0, 1}, 2, +1)->set_bandwidth_factor(0.5);  // z is a 2-chip line: off its end
  straggle(t, {0, 0})->set_compute_factor(0.5);
  auto* far = t.add_dead_chips();
  set_coords(far->mutable_coords(), {0, 0, 0});
  far->set_slice(1);
  const auto errors = text_errors(t);
  EXPECT_THAT(errors, Contains(IsDiagnostic("dead_chips[0].coords[0]", "must be < 4")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("degraded_links[0]", "no such link")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("stragglers[0].coords", "has 2 coordinates")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("dead_chips[1].slice", "must be < 1")));
}

TEST(FaultRules, OneFaultOfAKindPerChipOrPhysicalLink) {
  auto t = valid_topology();
  kill(t, {1, 1, 0});
  kill(t, {1, 1, 0});
  degrade(t, {0, 2, 0}, 0, +1)->set_bandwidth_factor(0.5);
  degrade(t, {1, 2, 0}, 0, -1)->set_bandwidth_factor(0.5);  // the same link, the other way
  // A wrap link and its reverse: x 3 -> 0 and 0 -> 3.
  degrade(t, {3, 3, 1}, 0, +1)->set_bandwidth_factor(0.5);
  degrade(t, {0, 3, 1}, 0, -1)->set_bandwidth_factor(0.5);
  straggle(t, {2, 2, 1})->set_compute_factor(0.5);
  straggle(t, {2, 2, 1})->set_hbm_factor(0.5);
  const auto errors = text_errors(t);
  EXPECT_THAT(errors, Contains(IsDiagnostic("dead_chips[1]", "the same chip as dead_chips[0]")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("degraded_links[1]",
                                            "the same physical link as degraded_links[0]")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("degraded_links[3]",
                                            "the same physical link as degraded_links[2]")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("stragglers[1]", "the same chip as stragglers[0]")));
}

TEST(FaultRules, NoFaultOnADeadChipOrAFailedLink) {
  auto t = valid_topology();
  kill(t, {1, 1, 0});
  degrade(t, {1, 1, 0}, 1, +1)->set_bandwidth_factor(0.5);  // leaves the dead chip
  degrade(t, {0, 1, 0}, 0, +1)->set_bandwidth_factor(0.5);  // reaches it
  straggle(t, {1, 1, 0})->set_compute_factor(0.5);
  auto* f = t.add_failed_links();
  set_coords(f->mutable_coords(), {2, 3, 1});
  f->set_dim(1);
  f->set_direction(+1);
  degrade(t, {2, 0, 1}, 1, -1)->set_bandwidth_factor(0.5);  // y wraps: the same link back
  const auto errors = text_errors(t);
  EXPECT_THAT(errors,
              Contains(IsDiagnostic("degraded_links[0]", "the chip the link leaves is dead")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("degraded_links[1]", "reaches a dead chip")));
  EXPECT_THAT(errors, Contains(IsDiagnostic("stragglers[0]", "the chip is dead (dead_chips[0])")));
  EXPECT_THAT(errors,
              Contains(IsDiagnostic("degraded_links[2]", "the link has failed (failed_links[0])")));
}

TEST(FaultRules, AWorkloadThatNeedsADeadChipIsRefusedNamingIt) {
  auto t = valid_topology();
  kill(t, {1, 2, 0});
  const PodSpec pod = load(t);
  const std::string mesh = "mesh { axes { name: \"x\" dims: \"x\" } }\n";
  try {
    parse_workload_text("name: \"w\"\n" + mesh +
                            "operations { name: \"mm\" compute { matmul { m: 8 k: 8 n: 8 } } }\n",
                        "w.textproto", pod);
    ADD_FAILURE() << "loaded";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("w.textproto:2:1: mesh: needs every chip of the pod, and "
                                    "chip (x=1, y=2, z=0) of slice 0 is dead"));
  }
  // SEND pairs between live chips run; one naming the dead chip does not.
  const std::string send = "name: \"s\"\n" + mesh +
                           "operations { name: \"p\" collective { kind: SEND bytes: 1024 "
                           "pairs { src { coords: [0, 0, 0] } dst { coords: [SRC] } } } }\n";
  const auto with = [&](const std::string& dst) {
    std::string text = send;
    text.replace(text.find("SRC"), 3, dst);
    return text;
  };
  EXPECT_NO_THROW(parse_workload_text(with("3, 3, 1"), "s.textproto", pod));
  try {
    parse_workload_text(with("1, 2, 0"), "s.textproto", pod);
    ADD_FAILURE() << "loaded";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("chip (1, 2, 0) in slice 0 is dead"));
  }
}

}  // namespace
}  // namespace podsim::config

// Per-link utilisation and the unfolding of folded replicas, on pods built in
// code, against figures worked out by hand from the coordinates.
#include "engine/link_usage.h"

#include <gtest/gtest.h>

#include <vector>

namespace podsim::engine {
namespace {

struct Dim {
  uint32_t size;
  bool wrap;
};

config::PodSpec torus(const std::vector<Dim>& dims, double link_gbps = 100.0) {
  config::PodSpec s;
  s.name = "test";
  s.chip.name = "test-chip";
  const char* names[] = {"x", "y", "z"};
  for (size_t i = 0; i < dims.size(); ++i) {
    config::DimensionSpec d;
    d.name = names[i];
    d.size = dims[i].size;
    d.wraparound = dims[i].wrap;
    d.link_bandwidth = sim::Bandwidth::from_gbps(link_gbps);
    d.hop_latency = sim::Time::us(1);
    s.torus.dims.push_back(d);
  }
  return s;
}

net::LinkStats empty_stats(const topo::Pod& pod) {
  net::LinkStats s;
  s.bytes.assign(pod.links().size(), 0);
  s.busy.assign(pod.links().size(), sim::Time::zero());
  return s;
}

// Chip id of (x, y) with x fastest, as topo/shape.h documents.
topo::ChipId chip(uint32_t x, uint32_t y, uint32_t size_x) {
  return y * size_x + x;
}

TEST(LinkUsage, UtilisationIsBytesOverEffectiveCapacityOfTheWindow) {
  const topo::Pod pod(torus({{4, true}}));
  net::LinkStats stats = empty_stats(pod);
  const topo::LinkId l = *pod.link_from(1, 0, +1);
  // 100 GB/s x 0.8 x 10 us = 800,000 bytes of capacity.
  stats.bytes[l] = 400'000;
  stats.busy[l] = sim::Time::us(5);
  net::Options options;
  options.ici_efficiency = 0.8;
  const auto usage = link_usage(pod, stats, options, sim::Time::us(10));
  ASSERT_EQ(usage.size(), 8u);  // a ring of 4: 8 directed links
  EXPECT_EQ(usage[l].link, l);
  EXPECT_EQ(usage[l].bytes, 400'000u);
  EXPECT_DOUBLE_EQ(usage[l].utilisation, 0.5);
  EXPECT_DOUBLE_EQ(usage[l].busy_fraction, 0.5);
  for (topo::LinkId other = 0; other < usage.size(); ++other) {
    if (other != l) {
      EXPECT_EQ(usage[other].utilisation, 0.0) << other;
    }
  }
}

TEST(LinkUsage, AnEmptyWindowGivesZeroNotInfinity) {
  const topo::Pod pod(torus({{4, true}}));
  net::LinkStats stats = empty_stats(pod);
  stats.bytes[0] = 1000;
  const auto usage = link_usage(pod, stats, net::Options{}, sim::Time::zero());
  EXPECT_EQ(usage[0].bytes, 1000u);
  EXPECT_EQ(usage[0].utilisation, 0.0);
  EXPECT_EQ(usage[0].busy_fraction, 0.0);
}

TEST(LinkUsage, DcnLinksUseTheDcnEfficiency) {
  config::PodSpec spec = torus({{2, false}});
  spec.slices = 2;
  spec.dcn = config::DcnSpec{sim::Bandwidth::from_gbps(25), sim::Time::us(10)};
  const topo::Pod pod(std::move(spec));
  net::LinkStats stats = empty_stats(pod);
  stats.bytes[pod.dcn_up(3)] = 125'000;  // 25 GB/s x 0.5 x 20 us = 250,000 bytes
  net::Options options;
  options.ici_efficiency = 0.1;
  options.dcn_efficiency = 0.5;
  const auto usage = link_usage(pod, stats, options, sim::Time::us(20));
  EXPECT_DOUBLE_EQ(usage[pod.dcn_up(3)].utilisation, 0.5);
}

TEST(LinkUsage, MismatchedStatisticsAreRejected) {
  const topo::Pod pod(torus({{4, true}}));
  net::LinkStats stats;
  stats.bytes.assign(3, 0);
  stats.busy.assign(3, sim::Time::zero());
  EXPECT_THROW(link_usage(pod, stats, net::Options{}, sim::Time::us(1)), std::invalid_argument);
}

TEST(UnfoldReplicas, EveryChipTakesItsRepresentativesFigures) {
  // 4x4 torus; a collective spans x only, so the engine simulates row y = 0.
  const topo::Pod pod(torus({{4, true}, {4, true}}));
  std::vector<topo::ChipId> simulated;
  for (uint32_t x = 0; x < 4; ++x) {
    simulated.push_back(chip(x, 0, 4));
  }
  net::LinkStats stats = empty_stats(pod);
  for (uint32_t x = 0; x < 4; ++x) {
    for (const int dir : {+1, -1}) {
      const topo::LinkId l = *pod.link_from(chip(x, 0, 4), 0, dir);
      stats.bytes[l] = 1000 * (x + 1) + (dir > 0 ? 1 : 2);
      stats.busy[l] = sim::Time::ns(10 * (x + 1));
    }
  }
  const net::LinkStats out = unfold_replicas(pod, simulated, stats);
  for (uint32_t y = 0; y < 4; ++y) {
    for (uint32_t x = 0; x < 4; ++x) {
      for (const int dir : {+1, -1}) {
        const topo::LinkId l = *pod.link_from(chip(x, y, 4), 0, dir);
        EXPECT_EQ(out.bytes[l], 1000u * (x + 1) + (dir > 0 ? 1u : 2u)) << x << "," << y;
        EXPECT_EQ(out.busy[l], sim::Time::ns(10 * (x + 1)));
        // Nothing crosses y in the simulated row, so nothing does anywhere.
        EXPECT_EQ(out.bytes[*pod.link_from(chip(x, y, 4), 1, dir)], 0u);
      }
    }
  }
}

TEST(UnfoldReplicas, ALinkTheRepresentativeLacksCarriedNothing) {
  // y is a line of 3: chip (x, 2) has a -y link, its representative (x, 0) none.
  const topo::Pod pod(torus({{3, true}, {3, false}}));
  const std::vector<topo::ChipId> simulated = {chip(0, 0, 3), chip(1, 0, 3), chip(2, 0, 3)};
  net::LinkStats stats = empty_stats(pod);
  for (topo::LinkId l = 0; l < pod.links().size(); ++l) {
    if (pod.coord(pod.link(l).src, 1) == 0) {
      stats.bytes[l] = 7;
    }
  }
  const net::LinkStats out = unfold_replicas(pod, simulated, stats);
  EXPECT_EQ(out.bytes[*pod.link_from(chip(1, 2, 3), 1, -1)], 0u);
  EXPECT_EQ(out.bytes[*pod.link_from(chip(1, 1, 3), 1, -1)], 0u);
  EXPECT_EQ(out.bytes[*pod.link_from(chip(1, 1, 3), 1, +1)], 7u);
  EXPECT_EQ(out.bytes[*pod.link_from(chip(1, 2, 3), 0, +1)], 7u);
}

TEST(UnfoldReplicas, SlicesNotSpannedCopyDcnLinksToo) {
  config::PodSpec spec = torus({{3, true}});
  spec.slices = 3;
  spec.dcn = config::DcnSpec{sim::Bandwidth::from_gbps(25), sim::Time::us(10)};
  const topo::Pod pod(std::move(spec));
  const std::vector<topo::ChipId> simulated = {0, 1, 2};  // slice 0
  net::LinkStats stats = empty_stats(pod);
  stats.bytes[pod.dcn_up(1)] = 11;
  stats.bytes[pod.dcn_down(1)] = 13;
  const net::LinkStats out = unfold_replicas(pod, simulated, stats);
  for (const topo::ChipId c : {1u, 4u, 7u}) {  // x = 1 in slices 0, 1 and 2
    EXPECT_EQ(out.bytes[pod.dcn_up(c)], 11u) << c;
    EXPECT_EQ(out.bytes[pod.dcn_down(c)], 13u) << c;
  }
  EXPECT_EQ(out.bytes[pod.dcn_up(2)], 0u);
}

TEST(UnfoldReplicas, AllOrNoChipsSimulatedLeavesTheFiguresAlone) {
  const topo::Pod pod(torus({{3, true}, {3, true}}));
  net::LinkStats stats = empty_stats(pod);
  for (topo::LinkId l = 0; l < stats.bytes.size(); ++l) {
    stats.bytes[l] = l;
  }
  const std::vector<topo::ChipId> all = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(unfold_replicas(pod, all, stats).bytes, stats.bytes);
  EXPECT_EQ(unfold_replicas(pod, {}, stats).bytes, stats.bytes);
}

}  // namespace
}  // namespace podsim::engine

// The analytical model's link booking, against hand-computed times.
//
// Sizes are chosen so that every stream is a whole number of microseconds:
// kBlock = 4.5 MB crosses a 45 GB/s link in exactly 100 us, so every booked
// interval, and so every expected delivery, is exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "net/analytical_network.h"
#include "net_fixture.h"
#include "topo/routing.h"

namespace podsim::net::testing {
namespace {

constexpr uint64_t kBlock = 4'500'000;  // 100 us at 45 GB/s
constexpr sim::Time kBlockTime = sim::Time::us(100);

Options analytical() {
  Options o;
  o.model = Model::kAnalytical;
  return o;
}

RunResult run(const topo::Pod& pod, const std::vector<Transfer>& transfers,
              const std::vector<sim::Time>& starts = {}) {
  return run_all(pod, analytical(), transfers, starts);
}

topo::LinkId link(const topo::Pod& pod, topo::ChipId from, uint32_t dim, int direction) {
  return *pod.link_from(from, dim, direction);
}

TEST(AnalyticalContention, TransfersStartedTogetherShareTheirLink) {
  const topo::Pod line4 = line(4);
  const std::vector<Transfer> transfers(5, transfer(1, 2, kBlock));
  const auto r = run(line4, transfers);
  // Equal and started together: they share the link and all end at 500 us.
  for (size_t i = 0; i < transfers.size(); ++i) {
    EXPECT_EQ(r.times[i], 5 * kBlockTime + kHop) << "transfer " << i;
  }
  const topo::LinkId used = link(line4, 1, 0, +1);
  for (topo::LinkId id = 0; id < r.stats.bytes.size(); ++id) {
    EXPECT_EQ(r.stats.bytes[id], id == used ? 5 * kBlock : 0) << "link " << id;
    EXPECT_EQ(r.stats.busy[id], id == used ? 5 * kBlockTime : sim::Time::zero()) << "link " << id;
  }
}

TEST(AnalyticalContention, TransfersSharingOneOfSeveralLinks) {
  const topo::Pod line5 = line(5);
  // A: 0 -> 4 over four links, alone on the first two ([0, 100)). B: 2 -> 3
  // and C: 3 -> 4 each share one of A's links with it: both end at 200 us
  // there, and A's latest end decides it. The order of the calls does not
  // matter among transfers that start together.
  for (const bool a_first : {true, false}) {
    const auto r =
        a_first
            ? run(line5, {transfer(0, 4, kBlock), transfer(2, 3, kBlock), transfer(3, 4, kBlock)})
            : run(line5, {transfer(2, 3, kBlock), transfer(3, 4, kBlock), transfer(0, 4, kBlock)});
    const size_t a = a_first ? 0 : 2;
    EXPECT_EQ(r.times[a], 2 * kBlockTime + 4 * kHop);
    EXPECT_EQ(r.times[a_first ? 1 : 0], 2 * kBlockTime + kHop);
    EXPECT_EQ(r.times[a_first ? 2 : 1], 2 * kBlockTime + kHop);
  }
  const auto r =
      run(line5, {transfer(2, 3, kBlock), transfer(3, 4, kBlock), transfer(0, 4, kBlock)});
  // The links A has to itself are busy only for its own stream.
  EXPECT_EQ(r.stats.busy[link(line5, 0, 0, +1)], kBlockTime);
  EXPECT_EQ(r.stats.busy[link(line5, 2, 0, +1)], 2 * kBlockTime);
}

TEST(AnalyticalContention, UnequalBandwidths) {
  // A 2x2 mesh: x links 10 GB/s, y links 20 GB/s. 1 MB takes 100 us on x,
  // 50 us on y. Chip 0 -> 3 crosses x link 0->1, then y link 1->3.
  const topo::Pod mesh(pod_spec({{2, false, 10 * kGB}, {2, false, 20 * kGB}}));
  const uint64_t mb = 1'000'000;
  const auto route = topo::route(mesh, 0, 3);
  // Alone: the slowest link + latencies, the closed form analytical_time().
  auto r = run(mesh, {transfer(0, 3, mb)});
  EXPECT_EQ(r.times[0], sim::Time::us(100) + 2 * kHop);
  EXPECT_EQ(r.times[0], analytical_time(mesh, route, mb, analytical()));
  // A: x alone [0, 100); on the y link with two 1 -> 3, three equal
  // transfers share it to 150 us. The y link carries 3 MB and ends the
  // pattern, though it is the fast one: the most loaded link decides.
  r = run(mesh, {transfer(0, 3, mb), transfer(1, 3, mb), transfer(1, 3, mb)});
  EXPECT_EQ(r.times[0], sim::Time::us(150) + 2 * kHop);
  EXPECT_EQ(r.times[1], sim::Time::us(150) + kHop);
  EXPECT_EQ(r.times[2], sim::Time::us(150) + kHop);
  EXPECT_EQ(r.stats.busy[link(mesh, 0, 0, +1)], sim::Time::us(100));
  EXPECT_EQ(r.stats.busy[link(mesh, 1, 1, +1)], sim::Time::us(150));
}

TEST(AnalyticalContention, DcnDownLinkIsShared) {
  // Two slices of a 4-ring; chips 0 and 1 (slice 0) both send to chip 4
  // (slice 1). Their up links are their own, the down link to chip 4 is
  // shared. 2.5 MB takes 100 us at 25 GB/s; the DCN latency sits on the up
  // link.
  const topo::Pod pod(with_slices(pod_spec({{4, true}}), 2));
  const uint64_t bytes = 2'500'000;
  const auto r = run(pod, {transfer(0, 4, bytes), transfer(1, 4, bytes)});
  EXPECT_EQ(r.times[0], sim::Time::us(200) + kDcnLatency);
  EXPECT_EQ(r.times[1], sim::Time::us(200) + kDcnLatency);
}

TEST(AnalyticalContention, LaterTransferQueuesBehindEarlierOne) {
  const topo::Pod line4 = line(4);
  const topo::LinkId l01 = link(line4, 0, 0, +1);
  sim::Simulation sim;
  AnalyticalNetwork network(line4, analytical());
  RecordingSink sink;
  auto start_at = [&](sim::Time at, uint64_t tag) {
    sim.schedule_at(at, [&network, &sink, tag](sim::Simulation& s) {
      network.start(s, transfer(0, 1, kBlock), sink, tag);
    });
  };
  start_at(sim::Time::zero(), 0);   // [0, 100)
  start_at(sim::Time::us(30), 1);   // link busy until 100: [100, 200)
  start_at(sim::Time::us(250), 2);  // link free again: [250, 350), no wait
  const auto busy_at = [&](sim::Time t) {
    sim.run_until(t);
    return network.link_stats(sim).busy[l01];
  };
  EXPECT_EQ(busy_at(sim::Time::us(40)), sim::Time::us(40));
  EXPECT_EQ(busy_at(sim::Time::us(220)), sim::Time::us(200));
  EXPECT_EQ(busy_at(sim::Time::us(240)), sim::Time::us(200));  // idle since 200
  EXPECT_EQ(busy_at(sim::Time::us(300)), sim::Time::us(250));
  sim.run();
  EXPECT_EQ(sink.time_of(0), sim::Time::us(100) + kHop);
  EXPECT_EQ(sink.time_of(1), sim::Time::us(200) + kHop);
  EXPECT_EQ(sink.time_of(2), sim::Time::us(350) + kHop);
  EXPECT_EQ(network.link_stats(sim).busy[l01], sim::Time::us(300));
  EXPECT_EQ(network.link_stats(sim).bytes[l01], 3 * kBlock);
}

TEST(AnalyticalContention, ZeroBytesAndSameChipDoNotWaitForBusyLinks) {
  const auto r = run(line(4), {transfer(0, 1, kBlock), transfer(0, 1, 0), transfer(0, 0, kBlock),
                               transfer(0, 1, kBlock)});
  EXPECT_EQ(r.times[1], kHop);                   // the latency only, while 0->1 is booked
  EXPECT_EQ(r.times[2], sim::Time::zero());      // at once (through an event)
  EXPECT_EQ(r.times[3], 2 * kBlockTime + kHop);  // and they booked nothing
}

// A pattern started at once: no link has gaps, so every link ends at its own
// load / bandwidth and the busiest at the bandwidth bound; the last delivery
// is that end plus the latency of the transfer booked last on it.
void expect_bound_plus_latency(const topo::Pod& pod, const RoutedPattern& p, const RunResult& r) {
  const sim::Time bound = bandwidth_bound(pod, p.transfers);
  const std::vector<uint64_t> loads = link_loads(pod, p.transfers);
  for (topo::LinkId id = 0; id < loads.size(); ++id) {
    EXPECT_EQ(r.stats.bytes[id], loads[id]);
    EXPECT_EQ(r.stats.busy[id], sim::transfer_time(loads[id], pod.link(id).bandwidth))
        << "link " << id;
  }
  const sim::Time last = completion(r);
  bool ends_at_bound = false;
  for (size_t i = 0; i < p.transfers.size(); ++i) {
    const sim::Time latency = static_cast<int64_t>(p.routes[i].size()) * kHop;
    EXPECT_LE(r.times[i] - latency, bound) << "transfer " << i;
    ends_at_bound |= r.times[i] == last && last - latency == bound;
  }
  EXPECT_TRUE(ends_at_bound) << "no transfer delivered last ends at the bound";
}

TEST(AnalyticalContention, AllToAllOnARingEndsAtTheMostLoadedLink) {
  // Ring of 8: every + link carries, from the chips 1, 2 and 3 behind it,
  // 1 + 2 + 3 whole blocks and, from the 4 whose destination is opposite, a
  // half block each: 8 blocks, 800 us; likewise every - link. All start
  // together, so each link takes its half blocks first (smallest first) and
  // ends with whole blocks, started by source, then destination: the last
  // on a link ends at 800 us and has at most 3 hops to go.
  const topo::Pod ring8 = ring(8);
  const RoutedPattern p = all_to_all(ring8, kBlock);
  ASSERT_EQ(p.transfers.size(), 8u * 7 + 8);  // 8 ties split in two
  const auto r = run(ring8, p.transfers);
  EXPECT_EQ(bandwidth_bound(ring8, p.transfers), 8 * kBlockTime);
  EXPECT_EQ(completion(r), 8 * kBlockTime + 3 * kHop);
  expect_bound_plus_latency(ring8, p, r);
}

TEST(AnalyticalContention, AllToAllOnA4x4MeshEndsAtTheMostLoadedLink) {
  // 4x4 line mesh, x routed first: the middle + x link of a row carries the
  // blocks from the row's 2 left chips to the 8 chips of the 2 right columns
  // (16 blocks, 1600 us); the middle + y link of a column the blocks from
  // the 8 chips of the 2 lower rows to its 2 upper chips: 16 too.
  const topo::Pod mesh = mesh2(4);
  const RoutedPattern p = all_to_all(mesh, kBlock);
  const auto r = run(mesh, p.transfers);
  EXPECT_EQ(bandwidth_bound(mesh, p.transfers), 16 * kBlockTime);
  expect_bound_plus_latency(mesh, p, r);
}

TEST(AnalyticalContention, AllToAllOnA4x4TorusEndsAtTheMostLoadedLink) {
  // 4x4 torus: along a ring of 4 every + link carries 1 block from the chip
  // behind it and a half block from each of the 2 chips that cross it to
  // reach the opposite one: 2 blocks per (source, destination) row pair.
  // x first: a + x link of row y carries, for each of the 4 destination rows,
  // 2 blocks: 8 blocks; a + y link of column x the same for each of the 4
  // source columns: 8 blocks, 800 us.
  const topo::Pod torus = torus2(4);
  const RoutedPattern p = all_to_all(torus, kBlock);
  const auto r = run(torus, p.transfers);
  EXPECT_EQ(bandwidth_bound(torus, p.transfers), 8 * kBlockTime);
  expect_bound_plus_latency(torus, p, r);
}

// A fixed-seed random mix: chips, sizes and distinct start times.
struct RandomMix {
  std::vector<Transfer> transfers;
  std::vector<sim::Time> starts;  // increasing, so call order is tag order
};
RandomMix random_mix(uint32_t chips, int count) {
  RandomMix m;
  uint64_t x = 2024;
  auto next = [&x](uint64_t mod) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    return (x >> 33) % mod;
  };
  sim::Time at;
  for (int i = 0; i < count; ++i) {
    const auto src = static_cast<topo::ChipId>(next(chips));
    const auto dst = static_cast<topo::ChipId>(next(chips));
    m.transfers.push_back(transfer(src, dst, next(4 * kMiB)));
    at += sim::Time::ps(1 + static_cast<int64_t>(next(20'000'000)));  // up to 20 us apart
    m.starts.push_back(at);
  }
  return m;
}

TEST(AnalyticalContention, RandomMixMatchesTheRuleAndNoLinkIsOverbooked) {
  const topo::Pod torus = torus3(4);
  const RandomMix m = random_mix(torus.chip_count(), 300);
  // The rule, restated from the description in analytical_network.h: each
  // link's free time, booked in call order.
  std::vector<sim::Time> free(torus.links().size());
  std::vector<sim::Time> expected;
  for (size_t i = 0; i < m.transfers.size(); ++i) {
    const Transfer& t = m.transfers[i];
    const sim::Time now = m.starts[i];
    sim::Time end = now;
    sim::Time latency;
    for (const topo::LinkId id : topo::route(torus, t.src, t.dst)) {
      latency += torus.link(id).latency;
      if (t.bytes == 0)
        continue;
      free[id] = std::max(now, free[id]) + sim::transfer_time(t.bytes, torus.link(id).bandwidth);
      end = std::max(end, free[id]);
    }
    expected.push_back(end + latency);
  }

  sim::Simulation sim;
  AnalyticalNetwork network(torus, analytical());
  RecordingSink sink;
  for (uint64_t tag = 0; tag < m.transfers.size(); ++tag) {
    sim.schedule_at(m.starts[tag], [&, tag](sim::Simulation& s) {
      network.start(s, m.transfers[tag], sink, tag);
    });
  }
  // Utilisation <= 1 on every link at every sampled instant.
  for (sim::Time t = sim::Time::us(3); sim.pending() > 0; t += sim::Time::us(3)) {
    sim.run_until(t);
    const LinkStats stats = network.link_stats(sim);
    for (topo::LinkId id = 0; id < stats.busy.size(); ++id)
      ASSERT_LE(stats.busy[id], sim.now()) << "link " << id << " at " << sim.now().to_string();
  }
  for (uint64_t tag = 0; tag < m.transfers.size(); ++tag)
    EXPECT_EQ(sink.time_of(tag), expected[tag]) << "transfer " << tag;
  const LinkStats stats = network.link_stats(sim);
  EXPECT_EQ(stats.bytes, link_loads(torus, m.transfers));
  for (topo::LinkId id = 0; id < stats.busy.size(); ++id)
    EXPECT_LE(stats.busy[id], sim.now());
}

TEST(AnalyticalContention, DeterministicAndIndependentOfCallOrderWithinAnInstant) {
  const topo::Pod torus = torus3(4);
  const RoutedPattern p = all_to_all(torus, 256 * 1024);
  const auto first = run(torus, p.transfers);
  const auto second = run(torus, p.transfers);
  EXPECT_EQ(first.order, second.order);
  EXPECT_EQ(first.fingerprint, second.fingerprint);
  EXPECT_EQ(first.stats.bytes, second.stats.bytes);
  EXPECT_EQ(first.stats.busy, second.stats.busy);
  // Two transfers on one link started together share it, whatever the order
  // of the calls; one started later queues behind.
  const auto ab = run(line(3), {transfer(0, 1, kBlock), transfer(0, 2, kBlock)});
  const auto ba = run(line(3), {transfer(0, 2, kBlock), transfer(0, 1, kBlock)});
  EXPECT_EQ(ab.times[0], 2 * kBlockTime + kHop);
  EXPECT_EQ(ab.times[1], 2 * kBlockTime + 2 * kHop);
  EXPECT_EQ(ba.times[0], 2 * kBlockTime + 2 * kHop);
  EXPECT_EQ(ba.times[1], 2 * kBlockTime + kHop);
  const auto later = run(line(3), {transfer(0, 1, kBlock), transfer(0, 2, kBlock)},
                         {sim::Time::zero(), sim::Time::us(1)});
  EXPECT_EQ(later.times[0], kBlockTime + kHop);
  EXPECT_EQ(later.times[1], 2 * kBlockTime + 2 * kHop);
}

}  // namespace
}  // namespace podsim::net::testing

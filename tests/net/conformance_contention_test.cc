// Conformance, part 2: transfers that share links, contention-free patterns on
// which every model matches the closed form, link utilisation, determinism.
//
// Every model contends, differently: flow and packet share a link fairly
// (max-min, round-robin), so transfers that start together on it finish
// together; the analytical model books it first come, first served, so they
// finish one after another. Both agree on when the link has carried all the
// bytes, which is when the last of them finishes. Each test states the
// analytical model's booked times exactly next to what flow and packet give.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "conformance.h"
#include "topo/routing.h"

namespace podsim::net::testing {
namespace {

constexpr uint64_t kSize = 16 * kMiB;  // 4096 packets of kPacketBytes

sim::Time stream(uint64_t bytes, uint64_t bytes_per_s = kLinkBps) {
  return sim::transfer_time(bytes, sim::Bandwidth::bytes_per_s(bytes_per_s));
}

TEST_P(NetworkConformance, TwoTransfersOnOneLinkShareIt) {
  const auto r = run_all(line(9), options(), {transfer(0, 1, kSize), transfer(0, 1, kSize)});
  if (books_links()) {
    // Started together: the link is shared, both end when 2 x kSize crossed.
    EXPECT_EQ(r.times[0], stream(2 * kSize) + kHop);
    EXPECT_EQ(r.times[1], stream(2 * kSize) + kHop);
  } else {
    // Half each: both finish when 2 x kSize have crossed.
    expect_near(r.times[0], closed_form(2 * kSize, kLinkBps, 1), single_tolerance(), "first");
    expect_near(r.times[1], closed_form(2 * kSize, kLinkBps, 1), single_tolerance(), "second");
  }
}

TEST_P(NetworkConformance, ManyTransfersOnOneLinkEndWhenItHasCarriedThemAll) {
  const std::vector<uint64_t> sizes = {kSize, 4 * kMiB, 8 * kMiB + 1000, 2 * kMiB};
  std::vector<Transfer> transfers;
  uint64_t total = 0;
  for (const uint64_t b : sizes) {
    transfers.push_back(transfer(3, 4, b));
    total += b;
  }
  const auto r = run_all(line(9), options(), transfers);
  if (books_links()) {
    // Started together, so the link is shared as processor sharing would:
    // smallest first, 2 MiB (3), 4 MiB (1), 8 MiB + 1000 (2), 16 MiB (0);
    // each ends when every transfer still on the link has moved its size.
    uint64_t done = 0;
    const std::vector<size_t> order = {3, 1, 2, 0};
    for (size_t j = 0; j < order.size(); ++j) {
      const uint64_t b = sizes[order[j]];
      EXPECT_EQ(r.times[order[j]], stream(done + (order.size() - j) * b) + kHop)
          << "transfer " << order[j];
      done += b;
    }
    EXPECT_EQ(completion(r), closed_form(total, kLinkBps, 1));
  } else {
    // Fair sharing: the last finishes when the link has carried all the bytes.
    expect_near(completion(r), closed_form(total, kLinkBps, 1), single_tolerance(), "last");
  }
  EXPECT_EQ(r.stats.bytes[*line(9).link_from(3, 0, +1)], total);
}

TEST_P(NetworkConformance, TransfersSharingOneLinkOfTheirRoutes) {
  // 0 -> 2 and 0 -> 1 share link 0 -> 1.
  const auto r = run_all(line(9), options(), {transfer(0, 2, kSize), transfer(0, 1, kSize)});
  if (books_links()) {
    // Both share link 0 -> 1 to 2T; 0 -> 2 has its second link to itself
    // (booked independently, [0, T)), so the shared one decides for both.
    EXPECT_EQ(r.times[0], stream(2 * kSize) + 2 * kHop);
    EXPECT_EQ(r.times[1], stream(2 * kSize) + kHop);
  } else {
    // Half a link each; 0 -> 2 is held to half on its second hop too.
    expect_near(r.times[0], closed_form(2 * kSize, kLinkBps, 2), single_tolerance(), "two hops");
    expect_near(r.times[1], closed_form(2 * kSize, kLinkBps, 1), single_tolerance(), "one hop");
  }
}

TEST_P(NetworkConformance, FinishingTransferFreesItsShareForTheOther) {
  const uint64_t small = 4 * kMiB;
  const auto r = run_all(line(9), options(), {transfer(0, 1, small), transfer(0, 1, kSize)});
  if (books_links()) {
    // Shared: the small one ends when both have moved `small`, the large one
    // when the link has carried both.
    EXPECT_EQ(r.times[0], stream(2 * small) + kHop);
    EXPECT_EQ(r.times[1], stream(small + kSize) + kHop);
  } else {
    // Half each until the small one is done (2 x small crossed), then the
    // large one has the link to itself: small + kSize crossed in all.
    expect_near(r.times[0], closed_form(2 * small, kLinkBps, 1), single_tolerance(), "small");
    expect_near(r.times[1], closed_form(small + kSize, kLinkBps, 1), single_tolerance(), "large");
  }
}

TEST_P(NetworkConformance, LaterTransferQueuesBehindEarlierOne) {
  // The second starts half way through the first, on the same link.
  const sim::Time half = sim::Time::ps(stream(kSize).count_ps() / 2);
  const auto r = run_all(line(9), options(), {transfer(0, 1, kSize), transfer(0, 1, kSize)},
                         {sim::Time::zero(), half});
  if (books_links()) {
    // The first keeps [0, T); the second is booked [T, 2T).
    EXPECT_EQ(r.times[0], stream(kSize) + kHop);
    EXPECT_EQ(r.times[1], 2 * stream(kSize) + kHop);
  } else {
    // The first is alone for T/2, then both share: it finishes at 1.5 T, and
    // the second, half done by then, at 2 T.
    expect_near(r.times[0], half + stream(kSize) + kHop, single_tolerance(), "first");
    expect_near(r.times[1], closed_form(2 * kSize, kLinkBps, 1), single_tolerance(), "second");
  }
}

TEST_P(NetworkConformance, MaxMinOverLinksOfUnequalBandwidth) {
  // A 2x2 mesh with 10 GB/s x links and 20 GB/s y links. A: 0 -> 3 crosses
  // x link 0->1 then y link 1->3; B: 0 -> 1 shares the x link; C: 1 -> 3 shares
  // the y link.
  const topo::Pod mesh(pod_spec({{2, false, 10 * kGB}, {2, false, 20 * kGB}}));
  const auto r = run_all(mesh, options(),
                         {transfer(0, 3, kSize), transfer(0, 1, kSize), transfer(1, 3, kSize)});
  if (books_links()) {
    // Each link shared by its two, independently: x carries A and B to
    // 2 T10, y carries A and C to 2 T20. C ends when A's bytes on y are done
    // too, which max-min spreads over 2 T10 at 5 GB/s instead: sharing each
    // link on its own, C comes 1.5x max-min's C; A is not held to its x share
    // on y (the optimism).
    EXPECT_EQ(r.times[0], stream(2 * kSize, 10 * kGB) + 2 * kHop);
    EXPECT_EQ(r.times[1], stream(2 * kSize, 10 * kGB) + kHop);
    EXPECT_EQ(r.times[2], stream(2 * kSize, 20 * kGB) + kHop);
  } else {
    // Max-min: A = B = 5 GB/s (x link full), C = 20 - 5 = 15 GB/s, and A
    // stays at 5 after C is done (the x link still binds it). The packet
    // model reaches C's share by round-robin, not by solving: 1%.
    const double tolerance = model() == Model::kFlow ? 1e-3 : 1e-2;
    expect_near(r.times[0], closed_form(kSize, 5 * kGB, 2), tolerance, "A");
    expect_near(r.times[1], closed_form(kSize, 5 * kGB, 1), tolerance, "B");
    expect_near(r.times[2], closed_form(kSize, 15 * kGB, 1), tolerance, "C");
  }
  // Both agree on the last: the x link carries 2 x kSize at 10 GB/s.
  expect_near(r.times[1], closed_form(2 * kSize, 10 * kGB, 1), 1e-3, "x link drained");
}

// Checks the premise of the contention-free tests: no link is used twice.
void expect_disjoint(const topo::Pod& pod, const std::vector<Transfer>& transfers) {
  std::set<topo::LinkId> used;
  for (const Transfer& t : transfers) {
    for (const topo::LinkId id : topo::route(pod, t.src, t.dst)) {
      EXPECT_TRUE(used.insert(id).second) << "link " << id << " used twice";
    }
  }
}

// Contention-free patterns: flow and packet within 0.5% of the closed form, so
// any two models within 1% of each other; the analytical model exactly.
constexpr double kAgreement = 5e-3;

TEST_P(NetworkConformance, RingNeighbourExchangeMatchesClosedForm) {
  const topo::Pod ring8 = ring(8);
  std::vector<Transfer> transfers;
  for (topo::ChipId c = 0; c < 8; ++c) {
    transfers.push_back(transfer(c, (c + 1) % 8, kSize));  // every + link
    transfers.push_back(transfer(c, (c + 7) % 8, kSize));  // every - link
  }
  expect_disjoint(ring8, transfers);
  const auto r = run_all(ring8, options(), transfers);
  for (size_t i = 0; i < transfers.size(); ++i) {
    expect_near(r.times[i], closed_form(kSize, kLinkBps, 1), books_links() ? 0.0 : kAgreement,
                "transfer " + std::to_string(i));
  }
}

TEST_P(NetworkConformance, DisjointMultiHopTransfersMatchClosedForm) {
  // On a 4x4x4 torus, along x in every (y, z) row: 0 -> 2 over the + links
  // 0->1->2, and 2 -> 0 over 2->3->0 (a tie at distance 2 goes +).
  const topo::Pod torus = torus3(4);
  std::vector<Transfer> transfers;
  for (uint32_t row = 0; row < 16; ++row) {
    const topo::ChipId base = row * 4;
    transfers.push_back(transfer(base, base + 2, kSize));
    transfers.push_back(transfer(base + 2, base, kSize));
  }
  expect_disjoint(torus, transfers);
  const auto r = run_all(torus, options(), transfers);
  for (size_t i = 0; i < transfers.size(); ++i) {
    expect_near(r.times[i], closed_form(kSize, kLinkBps, 2), books_links() ? 0.0 : kAgreement,
                "transfer " + std::to_string(i));
  }
}

// A fixed, irregular mix: LCG-chosen chips, sizes and start times.
std::vector<Transfer> mixed_pattern(std::vector<sim::Time>& starts) {
  std::vector<Transfer> transfers;
  uint64_t x = 12345;
  auto next = [&x](uint64_t mod) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    return (x >> 33) % mod;
  };
  for (int i = 0; i < 40; ++i) {
    const auto src = static_cast<topo::ChipId>(next(64));
    const auto dst = static_cast<topo::ChipId>(next(64));
    transfers.push_back(transfer(src, dst, (1 + next(8)) * 256 * 1024 + next(1000)));
    starts.push_back(sim::Time::ns(static_cast<int64_t>(next(50'000))));
  }
  return transfers;
}

TEST_P(NetworkConformance, SameInputsGiveSameDeliveries) {
  const topo::Pod torus = torus3(4);
  std::vector<sim::Time> starts;
  const auto transfers = mixed_pattern(starts);
  const auto first = run_all(torus, options(), transfers, starts);
  const auto second = run_all(torus, options(), transfers, starts);
  EXPECT_EQ(first.order, second.order);
  EXPECT_EQ(first.fingerprint, second.fingerprint);
  EXPECT_EQ(first.stats.bytes, second.stats.bytes);
  EXPECT_EQ(first.stats.busy, second.stats.busy);
  // And nothing arrives faster than it could alone.
  for (size_t i = 0; i < transfers.size(); ++i) {
    const auto hops =
        static_cast<int64_t>(topo::route(torus, transfers[i].src, transfers[i].dst).size());
    const sim::Time alone =
        hops == 0 ? sim::Time::zero() : closed_form(transfers[i].bytes, kLinkBps, hops);
    EXPECT_GE(first.times[i] - starts[i], alone - sim::Time::ps(1)) << "transfer " << i;
  }
}

TEST_P(NetworkConformance, NoLinkIsBusierThanElapsedTime) {
  // The irregular mix on top of an all-to-all of 256 KiB blocks over the
  // x-y planes (z = 0) of a 4x4x4 torus: heavy sharing. Every model keeps
  // each link's busy time within the elapsed time (utilisation <= 1) at every
  // sampled instant, and at the end a link's bytes fit in its busy time at
  // its bandwidth.
  const topo::Pod torus = torus3(4);
  std::vector<sim::Time> starts;
  std::vector<Transfer> transfers = mixed_pattern(starts);
  for (topo::ChipId a = 0; a < 16; ++a) {
    for (topo::ChipId b = 0; b < 16; ++b) {
      if (a != b)
        transfers.push_back(transfer(a, b, 256 * 1024));
    }
  }
  sim::Simulation sim;
  auto network = make_network(torus, options());
  RecordingSink sink;
  for (uint64_t tag = 0; tag < transfers.size(); ++tag) {
    const sim::Time at = tag < starts.size() ? starts[tag] : sim::Time::zero();
    sim.schedule_at(at,
                    [&, tag](sim::Simulation& s) { network->start(s, transfers[tag], sink, tag); });
  }
  int samples = 0;
  for (sim::Time t = sim::Time::us(7); sim.pending() > 0; t += sim::Time::us(7)) {
    sim.run_until(t);
    const LinkStats stats = network->link_stats(sim);
    for (topo::LinkId id = 0; id < stats.busy.size(); ++id) {
      ASSERT_LE(stats.busy[id], sim.now()) << "link " << id << " at " << sim.now().to_string();
    }
    ++samples;
  }
  EXPECT_GT(samples, 10);
  ASSERT_EQ(sink.deliveries().size(), transfers.size());
  const LinkStats stats = network->link_stats(sim);
  EXPECT_EQ(stats.bytes, link_loads(torus, transfers));
  for (topo::LinkId id = 0; id < stats.busy.size(); ++id) {
    EXPECT_LE(stats.busy[id], sim.now()) << "link " << id;
    EXPECT_GE(stats.busy[id] + sim::Time::ns(1),
              sim::transfer_time(stats.bytes[id], torus.link(id).bandwidth))
        << "link " << id;
  }
}

// The three models side by side on one contention-free pattern: pairwise
// within 1%.
TEST(NetworkAgreement, ModelsAgreeOnContentionFreePattern) {
  const topo::Pod torus = torus3(4);
  std::vector<Transfer> transfers;
  for (topo::ChipId c = 0; c < 64; ++c) {
    // Every chip sends to its + neighbour along z: all + z links, one each.
    transfers.push_back(transfer(c, *torus.neighbour(c, 2, +1), 8 * kMiB));
  }
  expect_disjoint(torus, transfers);
  std::vector<std::vector<sim::Time>> times;
  for (const Model m : {Model::kAnalytical, Model::kFlow, Model::kPacket}) {
    Options o;
    o.model = m;
    times.push_back(run_all(torus, o, transfers).times);
  }
  for (size_t a = 0; a < times.size(); ++a) {
    for (size_t b = a + 1; b < times.size(); ++b) {
      for (size_t i = 0; i < transfers.size(); ++i) {
        EXPECT_LE(relative_error(times[b][i], times[a][i]), 1e-2)
            << "models " << a << " and " << b << ", transfer " << i;
      }
    }
  }
}

}  // namespace
}  // namespace podsim::net::testing

// Conformance, part 2: transfers that share links (fair sharing in the flow
// and packet models, none in the analytical one), contention-free patterns on
// which every model matches the closed form, and determinism.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "conformance.h"
#include "topo/routing.h"

namespace podsim::net::testing {
namespace {

constexpr uint64_t kSize = 16 * kMiB;  // 4096 packets of kPacketBytes

TEST_P(NetworkConformance, TwoTransfersOnOneLinkGetHalfEach) {
  const auto r = run_all(line(9), options(), {transfer(0, 1, kSize), transfer(0, 1, kSize)});
  // Sharing: both finish when 2 x kSize have crossed. Analytical: as if alone.
  const sim::Time expected =
      contends() ? closed_form(2 * kSize, kLinkBps, 1) : closed_form(kSize, kLinkBps, 1);
  expect_near(r.times[0], expected, single_tolerance(), "first");
  expect_near(r.times[1], expected, single_tolerance(), "second");
}

TEST_P(NetworkConformance, TransfersSharingOneLinkOfTheirRoutes) {
  // 0 -> 2 and 0 -> 1 share link 0 -> 1; the first is held to half a link on
  // its second hop too.
  const auto r = run_all(line(9), options(), {transfer(0, 2, kSize), transfer(0, 1, kSize)});
  const uint64_t drained = contends() ? 2 * kSize : kSize;
  expect_near(r.times[0], closed_form(drained, kLinkBps, 2), single_tolerance(), "two hops");
  expect_near(r.times[1], closed_form(drained, kLinkBps, 1), single_tolerance(), "one hop");
}

TEST_P(NetworkConformance, FinishingTransferFreesItsShareForTheOther) {
  const uint64_t small = 4 * kMiB;
  const auto r = run_all(line(9), options(), {transfer(0, 1, small), transfer(0, 1, kSize)});
  if (contends()) {
    // Half each until the small one is done (2 x small crossed), then the
    // large one has the link to itself: small + kSize crossed in all.
    expect_near(r.times[0], closed_form(2 * small, kLinkBps, 1), single_tolerance(), "small");
    expect_near(r.times[1], closed_form(small + kSize, kLinkBps, 1), single_tolerance(), "large");
  } else {
    EXPECT_EQ(r.times[0], closed_form(small, kLinkBps, 1));
    EXPECT_EQ(r.times[1], closed_form(kSize, kLinkBps, 1));
  }
}

TEST_P(NetworkConformance, MaxMinOverLinksOfUnequalBandwidth) {
  // A 2x2 mesh with 10 GB/s x links and 20 GB/s y links. A: 0 -> 3 crosses
  // x link 0->1 then y link 1->3; B: 0 -> 1 shares the x link; C: 1 -> 3 shares
  // the y link. Max-min: A = B = 5 GB/s (x link full), C = 20 - 5 = 15 GB/s,
  // and A stays at 5 after C is done (the x link still binds it).
  const topo::Pod mesh(pod_spec({{2, false, 10 * kGB}, {2, false, 20 * kGB}}));
  const auto r = run_all(mesh, options(),
                         {transfer(0, 3, kSize), transfer(0, 1, kSize), transfer(1, 3, kSize)});
  if (contends()) {
    // The packet model reaches C's share by round-robin, not by solving: 1%.
    const double tolerance = model() == Model::kFlow ? 1e-3 : 1e-2;
    expect_near(r.times[0], closed_form(kSize, 5 * kGB, 2), tolerance, "A");
    expect_near(r.times[1], closed_form(kSize, 5 * kGB, 1), tolerance, "B");
    expect_near(r.times[2], closed_form(kSize, 15 * kGB, 1), tolerance, "C");
  } else {
    EXPECT_EQ(r.times[0], closed_form(kSize, 10 * kGB, 2));
    EXPECT_EQ(r.times[1], closed_form(kSize, 10 * kGB, 1));
    EXPECT_EQ(r.times[2], closed_form(kSize, 20 * kGB, 1));
  }
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

// Contention-free patterns: every model within 0.5% of the closed form, so any
// two models within 1% of each other.
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
    expect_near(r.times[i], closed_form(kSize, kLinkBps, 1), kAgreement,
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
    expect_near(r.times[i], closed_form(kSize, kLinkBps, 2), kAgreement,
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

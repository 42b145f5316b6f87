// The packet model's pipeline and arbitration, against timelines worked out
// by hand packet by packet.
#include "net/packet_network.h"

#include <gtest/gtest.h>

#include "net_fixture.h"

namespace podsim::net::testing {
namespace {

constexpr uint64_t kPacket = 4096;

Options packet_options(Switching switching) {
  Options o;
  o.model = Model::kPacket;
  o.packet_bytes = kPacket;
  o.switching = switching;
  return o;
}

sim::Time ser(uint64_t bytes, uint64_t bytes_per_s) {
  return sim::transfer_time(bytes, sim::Bandwidth::bytes_per_s(bytes_per_s));
}

TEST(PacketNetwork, StoreAndForwardPipelinePaysOneExtraPacketPerExtraHop) {
  // n packets over H equal hops: the last leaves the source at n x ser, then
  // each further hop adds a full packet time before it may go on.
  const uint64_t n = 100;
  const auto r =
      run_all(line(9), packet_options(Switching::kStoreAndForward), {transfer(0, 3, n * kPacket)});
  EXPECT_EQ(r.times[0], (n + 2) * ser(kPacket, kLinkBps) + 3 * kHop);
}

TEST(PacketNetwork, CutThroughPipelineHasNoPerHopPacketDelay) {
  const uint64_t n = 100;
  const auto r =
      run_all(line(9), packet_options(Switching::kCutThrough), {transfer(0, 3, n * kPacket)});
  EXPECT_EQ(r.times[0], n * ser(kPacket, kLinkBps) + 3 * kHop);
}

TEST(PacketNetwork, ShortLastPacket) {
  const uint64_t n = 100;
  const uint64_t bytes = n * kPacket + 1000;  // 100 full packets and one of 1000 bytes
  const sim::Time full = ser(kPacket, kLinkBps);
  const sim::Time last = ser(1000, kLinkBps);
  auto r = run_all(line(9), packet_options(Switching::kCutThrough), {transfer(0, 3, bytes)});
  EXPECT_EQ(r.times[0], n * full + last + 3 * kHop);
  // Store-and-forward: the short packet waits behind full ones on hops 2 and 3.
  r = run_all(line(9), packet_options(Switching::kStoreAndForward), {transfer(0, 3, bytes)});
  EXPECT_EQ(r.times[0], (n + 2) * full + last + 3 * kHop);
}

// A 2x2 mesh whose x links run at x_gbps and y links at y_gbps; 0 -> 3 crosses
// the x link 0->1, then the y link 1->3.
topo::Pod two_speed_mesh(uint64_t x_gbps, uint64_t y_gbps) {
  return topo::Pod(pod_spec({{2, false, x_gbps * kGB}, {2, false, y_gbps * kGB}}));
}

TEST(PacketNetwork, SlowingRoute) {
  // Fast then slow: the slow link is busy back to back from the first packet on.
  const uint64_t n = 50;
  const topo::Pod mesh = two_speed_mesh(20, 10);
  const sim::Time fast = ser(kPacket, 20 * kGB), slow = ser(kPacket, 10 * kGB);
  auto r = run_all(mesh, packet_options(Switching::kCutThrough), {transfer(0, 3, n * kPacket)});
  EXPECT_EQ(r.times[0], n * slow + 2 * kHop);
  r = run_all(mesh, packet_options(Switching::kStoreAndForward), {transfer(0, 3, n * kPacket)});
  EXPECT_EQ(r.times[0], fast + n * slow + 2 * kHop);
}

TEST(PacketNetwork, SpeedingRoute) {
  // Slow then fast. Cut-through may not finish a packet on the fast link before
  // its tail has come over the slow one, so it starts it late enough.
  const uint64_t n = 50;
  const topo::Pod mesh = two_speed_mesh(10, 20);
  const sim::Time slow = ser(kPacket, 10 * kGB), fast = ser(kPacket, 20 * kGB);
  auto r = run_all(mesh, packet_options(Switching::kCutThrough), {transfer(0, 3, n * kPacket)});
  EXPECT_EQ(r.times[0], n * slow + 2 * kHop);
  r = run_all(mesh, packet_options(Switching::kStoreAndForward), {transfer(0, 3, n * kPacket)});
  EXPECT_EQ(r.times[0], n * slow + fast + 2 * kHop);
}

TEST(PacketNetwork, RoundRobinTakesOnePacketFromEachInTurn) {
  // Three transfers of n packets on one link, started in order at time 0. A
  // finds the link idle and sends its first packet at once, then waits its turn
  // behind B and C: A0 A1 B0 C0 A2 B1 C1 A3 ... So A_k (k >= 1) ends slot
  // 3k - 1, A's last (k = n - 1) slot 3n - 4; after that B and C alternate and
  // end at slots 3n - 1 and 3n.
  const uint64_t n = 20;
  const auto r = run_all(
      line(9), packet_options(Switching::kCutThrough),
      {transfer(0, 1, n * kPacket), transfer(0, 1, n * kPacket), transfer(0, 1, n * kPacket)});
  const sim::Time s = ser(kPacket, kLinkBps);
  EXPECT_EQ(r.times[0], (3 * n - 4) * s + kHop);
  EXPECT_EQ(r.times[1], (3 * n - 1) * s + kHop);
  EXPECT_EQ(r.times[2], 3 * n * s + kHop);
}

TEST(PacketNetwork, BusyTimeIsSerializationTime) {
  const uint64_t n = 10;
  const topo::Pod line9 = line(9);
  const auto r =
      run_all(line9, packet_options(Switching::kStoreAndForward), {transfer(0, 2, n * kPacket)});
  const topo::LinkId first = *line9.link_from(0, 0, +1);
  const topo::LinkId second = *line9.link_from(1, 0, +1);
  EXPECT_EQ(r.stats.busy[first], n * ser(kPacket, kLinkBps));
  EXPECT_EQ(r.stats.busy[second], n * ser(kPacket, kLinkBps));
  EXPECT_EQ(r.stats.bytes[first], n * kPacket);
  EXPECT_EQ(r.stats.bytes[second], n * kPacket);
}

}  // namespace
}  // namespace podsim::net::testing

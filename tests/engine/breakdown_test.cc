// The breakdown sweep on hand-drawn timelines: every instant lands in exactly
// one of compute, memory, exposed collective or idle, and overlap is counted
// on top.
#include "engine/breakdown.h"

#include <gtest/gtest.h>

namespace podsim::engine {
namespace {

using Kind = TimedInstruction::Kind;

sim::Time us(int64_t v) {
  return sim::Time::us(v);
}

TimedInstruction ins(int64_t start_us, int64_t end_us, Kind kind, uint32_t layer = 0,
                     uint32_t cls = 0) {
  TimedInstruction t;
  t.span = {us(start_us), us(end_us)};
  t.kind = kind;
  t.layer_group = layer;
  t.class_group = cls;
  return t;
}

GroupTime named(const char* key) {
  GroupTime g;
  g.key = key;
  return g;
}

struct Groups {
  std::vector<GroupTime> layers{named("L0"), named("L1")};
  std::vector<GroupTime> classes{named("matmul"), named("collective")};
};

TEST(Breakdown, PartsAddUpToTheEnd) {
  // 0-10 compute, 10-14 exposed collective, 14-20 memory with a collective
  // under it until 16, 20-25 idle.
  const std::vector<TimedInstruction> t = {ins(0, 10, Kind::kComputeBound),
                                           ins(10, 16, Kind::kCommunication, 0, 1),
                                           ins(14, 20, Kind::kMemoryBound)};
  Groups g;
  const ChipBreakdown b = sweep_breakdown(t, us(25), g.layers, g.classes);
  EXPECT_EQ(b.compute, us(10));
  EXPECT_EQ(b.memory, us(6));
  EXPECT_EQ(b.collective_exposed, us(4));
  EXPECT_EQ(b.collective_overlapped, us(2));
  EXPECT_EQ(b.idle, us(5));
  EXPECT_EQ(b.compute + b.memory + b.collective_exposed + b.idle, b.end);
}

TEST(Breakdown, ExposedTimeIsChargedToTheCollectiveWaitedFor) {
  // Two collectives in flight with no compute: the one ending last is charged.
  const std::vector<TimedInstruction> t = {ins(0, 4, Kind::kCommunication, 0, 1),
                                           ins(1, 9, Kind::kCommunication, 1, 1)};
  Groups g;
  const ChipBreakdown b = sweep_breakdown(t, us(9), g.layers, g.classes);
  EXPECT_EQ(b.collective_exposed, us(9));
  EXPECT_EQ(g.layers[0].collective_exposed, us(1));  // 0-1, before the second began
  EXPECT_EQ(g.layers[1].collective_exposed, us(8));
  EXPECT_EQ(g.classes[1].collective_exposed, us(9));
}

TEST(Breakdown, BackToBackAndZeroLengthSpans) {
  const std::vector<TimedInstruction> t = {
      ins(0, 3, Kind::kComputeBound), ins(3, 3, Kind::kMemoryBound),
      ins(3, 7, Kind::kMemoryBound, 1), ins(7, 7, Kind::kCommunication)};
  Groups g;
  const ChipBreakdown b = sweep_breakdown(t, us(7), g.layers, g.classes);
  EXPECT_EQ(b.compute, us(3));
  EXPECT_EQ(b.memory, us(4));
  EXPECT_EQ(b.idle, sim::Time::zero());
  EXPECT_EQ(b.collective_exposed, sim::Time::zero());
  EXPECT_EQ(g.layers[1].memory, us(4));
}

TEST(Breakdown, UnitsAddUpToComputeAndMemoryPerGroup) {
  // 0-10 compute (layer 0, class 0), 10-16 memory (layer 1, class 0), a
  // collective 4-12 (class 1) and a zero-length op that carries nothing.
  std::vector<TimedInstruction> t = {
      ins(0, 10, Kind::kComputeBound), ins(10, 16, Kind::kMemoryBound, 1),
      ins(4, 12, Kind::kCommunication, 0, 1), ins(16, 16, Kind::kComputeBound)};
  t[0].units.mxu = us(8);
  t[0].units.issue = us(1);
  t[0].units.overhead = us(1);
  t[1].units.vector = us(2);
  t[1].units.dma_wait = us(4);
  Groups g;
  const ChipBreakdown b = sweep_breakdown(t, us(16), g.layers, g.classes);
  EXPECT_EQ(b.units.total(), b.compute + b.memory);
  EXPECT_EQ(b.units.mxu, us(8));
  EXPECT_EQ(b.units.dma_wait, us(4));
  EXPECT_EQ(g.layers[0].units.total(), g.layers[0].compute + g.layers[0].memory);
  EXPECT_EQ(g.layers[1].units.total(), us(6));
  EXPECT_EQ(g.classes[0].units.total(), us(16));
  EXPECT_EQ(g.classes[1].units.total(), sim::Time::zero());  // the collective's class
}

TEST(Breakdown, FullyHiddenCollectiveIsNotExposed) {
  const std::vector<TimedInstruction> t = {ins(0, 10, Kind::kComputeBound),
                                           ins(2, 8, Kind::kCommunication, 0, 1)};
  Groups g;
  const ChipBreakdown b = sweep_breakdown(t, us(10), g.layers, g.classes);
  EXPECT_EQ(b.collective_exposed, sim::Time::zero());
  EXPECT_EQ(b.collective_overlapped, us(6));
  EXPECT_EQ(b.compute, us(10));
}

}  // namespace
}  // namespace podsim::engine

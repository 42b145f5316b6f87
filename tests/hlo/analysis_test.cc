// FLOPs, element counts, while trip counts and async pairs, by hand.
#include "hlo/analysis.h"

#include <gtest/gtest.h>

#include "hlo_test_support.h"

namespace podsim::hlo {
namespace {

using test::comp;
using test::data_module;
using test::instr;

TEST(HloAnalysis, DotFlops) {
  const Module m = data_module("contractions.hlo");
  const Computation& e = m.entry_computation();
  // bf16[8,32,64] x bf16[8,64,16] -> f32[8,32,16], contracting 64:
  // 2 x (8*32*16) x 64 = 524288.
  EXPECT_EQ(dot_flops(e, instr(e, "dot")), 2 * (8 * 32 * 16) * 64);
  EXPECT_EQ(dot_flops(e, instr(e, "sum")), std::nullopt);  // not a dot
}

TEST(HloAnalysis, ConvolutionFlops) {
  const Module m = data_module("contractions.hlo");
  const Computation& e = m.entry_computation();
  // Output 2x10x10x16, kernel 3x3 spatial x 3 input features:
  // 2 x 3200 x (3*3*3) = 172800.
  EXPECT_EQ(convolution_flops(e, instr(e, "conv")), 2 * (2 * 10 * 10 * 16) * (3 * 3 * 3));
  // Grouped: 32 input features in 4 groups, the kernel holds 8 per group.
  // Output 1x6x6x32, 3x3 window: 2 x 1152 x (3*3*8) = 165888.
  EXPECT_EQ(convolution_flops(e, instr(e, "gconv")), 2 * (6 * 6 * 32) * (3 * 3 * 8));
}

TEST(HloAnalysis, ElementwiseAndReduceElements) {
  const Module m = data_module("contractions.hlo");
  const Computation& e = m.entry_computation();
  EXPECT_EQ(elementwise_elements(instr(e, "sum")), 8 * 32 * 16);
  EXPECT_EQ(elementwise_elements(instr(e, "dot")), std::nullopt);
  // reduce f32[8,32,16] -> f32[8]: reads 4096 elements.
  EXPECT_EQ(reduce_input_elements(e, instr(e, "red")), 8 * 32 * 16);
}

TEST(HloAnalysis, WhileTripCounts) {
  const Module m = data_module("while_loops.hlo");
  const Computation& e = m.entry_computation();
  // for (i = 0; i < 12; ++i): 12.
  EXPECT_EQ(while_trip_count(m, e, instr(e, "w_lt")), 12);
  // 3 < i, i = 10, i -= 2: 10, 8, 6, 4 run; 2 stops: 4.
  EXPECT_EQ(while_trip_count(m, e, instr(e, "w_gt")), 4);
  // i <= 9 from 1 by 4: 1, 5, 9: 3.
  EXPECT_EQ(while_trip_count(m, e, instr(e, "w_le")), 3);
  // i != 7 from 0 by 2 never stops: unknown, not guessed.
  EXPECT_EQ(while_trip_count(m, e, instr(e, "w_ne")), std::nullopt);
  // A data-dependent bound: unknown.
  EXPECT_EQ(while_trip_count(m, e, instr(e, "w_data")), std::nullopt);
  // XLA's known_trip_count, as JSON and as a quoted string.
  EXPECT_EQ(while_trip_count(m, e, instr(e, "w_known")), 32);
  EXPECT_EQ(while_trip_count(m, e, instr(e, "w_known_str")), 5);
  EXPECT_EQ(while_trip_count(m, e, instr(e, "x")), std::nullopt);  // not a while
}

TEST(HloAnalysis, AsyncPairs) {
  const Module m = data_module("scheduled_async.hlo");
  const Computation& e = m.entry_computation();
  const AsyncPairs found = match_async_pairs(m, e);
  ASSERT_EQ(found.pairs.size(), 8u);
  auto pair_of = [&](std::string_view done) -> const AsyncPair& {
    for (const AsyncPair& p : found.pairs) {
      if (e.instructions[static_cast<size_t>(p.done)].name == done) {
        return p;
      }
    }
    throw std::runtime_error("no pair");
  };
  EXPECT_EQ(pair_of("ard").start, e.find("ars"));
  EXPECT_EQ(pair_of("agd").start, e.find("ags"));
  EXPECT_EQ(pair_of("cpd").start, e.find("cps"));
  EXPECT_EQ(pair_of("sd").start, e.find("snd"));
  EXPECT_EQ(pair_of("rd").start, e.find("rcv"));
  EXPECT_EQ(pair_of("cd").start, e.find("cs"));
  const AsyncPair& rs = pair_of("rsd");
  EXPECT_EQ(rs.start, e.find("rss"));
  EXPECT_EQ(rs.updates, std::vector<InstructionId>{e.find("rsu")});
  EXPECT_EQ(rs.wrapped, m.find("wrapped_reduce_scatter"));
  EXPECT_EQ(rs.wrapped_opcode, Opcode::kReduceScatter);
  EXPECT_EQ(pair_of("a2d").wrapped_opcode, Opcode::kAllToAll);
  // all-reduce-done of a parameter: no start.
  EXPECT_EQ(found.unmatched_dones, std::vector<InstructionId>{e.find("orphan")});
  EXPECT_TRUE(found.unmatched_starts.empty());
  EXPECT_EQ(start_opcode_for(Opcode::kRecvDone), Opcode::kRecv);
}

TEST(HloAnalysis, CollectiveGroupsOfARealModule) {
  const Module m = data_module("scheduled_async.hlo");
  const Instruction& ars = instr(m.entry_computation(), "ars");
  const std::optional<GroupMode> mode =
      group_mode(ars.channel_id.has_value(), ars.use_global_device_ids.value_or(false));
  ASSERT_EQ(mode, GroupMode::kFlattenedId);
  // [2,4]<=[4,2]T(1,0) on 1 replica x 8 partitions.
  EXPECT_EQ(device_groups(*ars.extra->replica_groups, *mode, m.replica_count, m.num_partitions),
            (std::vector<std::vector<int64_t>>{{0, 2, 4, 6}, {1, 3, 5, 7}}));
}

}  // namespace
}  // namespace podsim::hlo

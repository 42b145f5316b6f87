// Dependencies and the schedule (src/hlo_import/schedule.cc, loops.cc,
// import.cc): async collectives overlap the compute between start and done,
// everything else runs one at a time; while bodies are loops; conditionals
// run one branch; calls are inlined.
#include <gtest/gtest.h>

#include "import_support.h"

namespace podsim::hlo_import::testing {
namespace {

const char* const kScheduleAdd = R"(%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
)";

class HloScheduleTest : public ::testing::Test {
 protected:
  const topo::Pod pod{pod_2x2()};
};

TEST_F(HloScheduleTest, ComputeBetweenStartAndDoneOverlapsTheCollective) {
  const std::string text = std::string("HloModule m, is_scheduled=true, num_partitions=4\n") +
                           kScheduleAdd +
                           R"(
ENTRY %main {
  %x = bf16[1024,1024]{1,0} parameter(0)
  %w = bf16[1024,1024]{1,0} parameter(1)
  %ars = bf16[1024,1024]{1,0} all-reduce-start(%x), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=%add
  %mm = bf16[1024,1024]{1,0} dot(%w, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %ard = bf16[1024,1024]{1,0} all-reduce-done(%ars)
  %after_done = bf16[1024,1024]{1,0} negate(%mm)
  ROOT %sync = bf16[1024,1024]{1,0} all-reduce(%after_done), channel_id=2, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=%add
}
)";
  const auto w = import_text(text, pod).workload;
  const auto r = play(pod, w);
  const auto& ar = result_of(r, "ars");
  const auto& mm = result_of(r, "mm");
  const auto& neg = result_of(r, "after_done");
  // The matmul runs while the all-reduce is in flight.
  EXPECT_EQ(ar.start, sim::Time());
  EXPECT_EQ(mm.start, sim::Time());
  EXPECT_LT(mm.end, ar.end);
  // The op after the done waits for the collective, though it does not read it.
  EXPECT_EQ(neg.start, ar.end);
  // The synchronous all-reduce blocks: nothing overlaps it, and it follows.
  EXPECT_EQ(result_of(r, "sync").start, neg.end);
  EXPECT_EQ(r.makespan, result_of(r, "sync").end);
}

TEST_F(HloScheduleTest, ComputeRunsOneAtATimeInScheduleOrder) {
  // Two independent dots: the second waits for the first (one TensorCore),
  // and an unscheduled module's operand written later is run first.
  const auto w = import_text(R"(HloModule m, num_partitions=4
ENTRY %main {
  %x = bf16[512,512]{1,0} parameter(0)
  %b = bf16[512,512]{1,0} dot(%a, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %a = bf16[512,512]{1,0} dot(%x, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %c = bf16[512,512]{1,0} dot(%x, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                             pod)
                     .workload;
  ASSERT_EQ(w.operations.size(), 3u);
  EXPECT_EQ(w.operations[0].name, "a");
  EXPECT_EQ(w.operations[1].name, "b");
  EXPECT_EQ(w.operations[2].name, "c");
  EXPECT_EQ(w.operations[2].after, std::vector<size_t>{1});
}

// A loop whose body is a dot and an all-reduce; `header` and `config` set
// how its trip count is known.
std::string loop_module(const std::string& init, const std::string& bound,
                        const std::string& while_attributes) {
  return std::string("HloModule m, num_partitions=4\n") + kScheduleAdd + R"(
%body (p: (s32[], f32[256,256])) -> (s32[], f32[256,256]) {
  %p = (s32[], f32[256,256]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %h = f32[256,256]{1,0} get-tuple-element(%p), index=1
  %mm = f32[256,256]{1,0} dot(%h, %h), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %ar = f32[256,256]{1,0} all-reduce(%mm), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=%add
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  ROOT %t = (s32[], f32[256,256]{1,0}) tuple(%next, %ar)
}

%cond (c: (s32[], f32[256,256])) -> pred[] {
  %c = (s32[], f32[256,256]{1,0}) parameter(0)
  %k = s32[] get-tuple-element(%c), index=0
  %n = s32[] )" +
         bound + R"(
  ROOT %lt = pred[] compare(%k, %n), direction=LT
}

ENTRY %main {
  %x = f32[256,256]{1,0} parameter(0)
  %bound = s32[] parameter(1)
  %start = s32[] )" +
         init + R"(
  %init = (s32[], f32[256,256]{1,0}) tuple(%start, %x)
  %loop = (s32[], f32[256,256]{1,0}) while(%init), condition=%cond, body=%body)" +
         while_attributes + R"(
  %out = f32[256,256]{1,0} get-tuple-element(%loop), index=1
  ROOT %last = f32[256,256]{1,0} negate(%out)
}
)";
}

TEST_F(HloScheduleTest, WhileBodiesAreLoopsOfTheirTripCount) {
  // From the condition: for (i = 0; i < 5; ++i).
  const auto counted = import_text(loop_module("constant(0)", "constant(5)", ""), pod).workload;
  ASSERT_EQ(counted.loops.size(), 1u);
  EXPECT_EQ(counted.loops[0], (config::LoopSpec{"loop", 0, 3, 5}));
  // From XLA's backend_config.
  const auto known = import_text(loop_module("constant(0)", "parameter(1)",
                                             R"(, backend_config={"known_trip_count":{"n":"7"}})"),
                                 pod)
                         .workload;
  EXPECT_EQ(known.loops[0].iterations, 7u);
  // Unknown: refused, naming the option; given with --hlo-trip-count.
  const std::string unknown = loop_module("constant(0)", "parameter(1)", "");
  const std::string error = import_error(unknown, pod);
  EXPECT_NE(error.find("%loop"), std::string::npos) << error;
  EXPECT_NE(error.find("--hlo-trip-count loop=N"), std::string::npos) << error;
  ImportOptions given;
  given.trip_counts["loop"] = 3;
  const auto w = import_text(unknown, pod, given).workload;
  EXPECT_EQ(w.loops[0].iterations, 3u);
  // No iteration: the body is not played.
  const auto none = import_text(loop_module("constant(5)", "constant(5)", ""), pod).workload;
  EXPECT_TRUE(none.loops.empty());
  EXPECT_EQ(none.operations.size(), 1u);
}

TEST_F(HloScheduleTest, ALoopTakesItsTripCountTimesOneIteration) {
  ImportOptions once;
  once.trip_counts["loop"] = 1;
  ImportOptions many;
  many.trip_counts["loop"] = 6;
  const std::string text = loop_module("constant(0)", "parameter(1)", "");
  const auto one = play(pod, import_text(text, pod, once).workload);
  const auto six = play(pod, import_text(text, pod, many).workload);
  const sim::Time last = result_of(one, "last").per_run;
  EXPECT_EQ((six.makespan - last).count_ps(), 6 * (one.makespan - last).count_ps());
  EXPECT_EQ(result_of(six, "mm").repeat, 6u);
  EXPECT_EQ(result_of(six, "ar").runs.size(), 6u);
  EXPECT_EQ(result_of(six, "last").runs.size(), 1u);
  EXPECT_EQ(result_of(six, "last").start, result_of(six, "next").end);  // the counter add
}

const char* const kConditional = R"(HloModule m, num_partitions=4

%small (a: f32[64,64]) -> f32[64,64] {
  %a = f32[64,64]{1,0} parameter(0)
  ROOT %small_neg = f32[64,64]{1,0} negate(%a)
}

%big (b: f32[64,64]) -> f32[64,64] {
  %b = f32[64,64]{1,0} parameter(0)
  ROOT %big_dot = f32[64,64]{1,0} dot(%b, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

%helper (h: f32[64,64]) -> f32[64,64] {
  %h = f32[64,64]{1,0} parameter(0)
  ROOT %helper_exp = f32[64,64]{1,0} exponential(%h)
}

ENTRY %main {
  %x = f32[64,64]{1,0} parameter(0)
  %p = pred[] parameter(1)
  %called = f32[64,64]{1,0} call(%x), to_apply=%helper
  ROOT %c = f32[64,64]{1,0} conditional(%p, %called, %called), true_computation=%small, false_computation=%big
}
)";

TEST_F(HloScheduleTest, ConditionalsRunTheStatedBranchAndCallsAreInlined) {
  const auto first = import_text(kConditional, pod);
  ASSERT_EQ(first.warnings.size(), 1u);
  EXPECT_NE(first.warnings[0].find("%c"), std::string::npos);
  EXPECT_NE(first.warnings[0].find("--hlo-branch c=I"), std::string::npos);
  ASSERT_EQ(first.workload.operations.size(), 2u);
  EXPECT_EQ(first.workload.operations[0].name, "helper_exp");
  EXPECT_EQ(first.workload.operations[1].name, "small_neg");
  EXPECT_EQ(first.workload.operations[1].after, std::vector<size_t>{0});
  ImportOptions other;
  other.branches["c"] = 1;
  const auto second = import_text(kConditional, pod, other);
  EXPECT_TRUE(second.warnings.empty());
  EXPECT_EQ(second.workload.operations[1].name, "big_dot");
  other.branches["c"] = 2;
  EXPECT_NE(import_error(kConditional, pod, other).find("branches 0 to 1"), std::string::npos);
}

TEST_F(HloScheduleTest, OperandsOutOfOrderAreRefusedWhereTheyCannotRun) {
  // Scheduled: an operand written after its user cannot have run first.
  EXPECT_NE(import_error(R"(HloModule m, is_scheduled=true, num_partitions=4
ENTRY %main {
  %x = f32[8]{0} parameter(0)
  %b = f32[8]{0} negate(%a)
  %a = f32[8]{0} negate(%x)
  ROOT %c = f32[8]{0} add(%a, %b)
}
)",
                         pod)
                .find("test.hlo:4:"),
            std::string::npos);
  // Not scheduled: operands that form a cycle.
  const std::string cycle = import_error(R"(HloModule m, num_partitions=4
ENTRY %main {
  %a = f32[8]{0} negate(%b)
  ROOT %b = f32[8]{0} negate(%a)
}
)",
                                         pod);
  EXPECT_NE(cycle.find("cycle"), std::string::npos) << cycle;
}

TEST_F(HloScheduleTest, SendAndRecvAreRefused) {
  const std::string error = import_error(R"(HloModule m, num_partitions=4
ENTRY %main {
  %x = f32[8]{0} parameter(0)
  %tok = token[] after-all()
  %snd = (f32[8]{0}, u32[], token[]) send(%x, %tok), channel_id=1
  ROOT %sd = token[] send-done(%snd), channel_id=1
}
)",
                                         pod);
  EXPECT_NE(error.find("test.hlo:5:"), std::string::npos) << error;
  EXPECT_NE(error.find("not supported"), std::string::npos) << error;
}

}  // namespace
}  // namespace podsim::hlo_import::testing

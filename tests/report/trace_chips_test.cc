// --trace-chips: parsing LISTs, and choosing the chips of a simulated step
// (defaults, limits, replica folding).
#include "report/trace_chips.h"

#include <gtest/gtest.h>

#include "trace_fixture.h"

namespace podsim::report {
namespace {

using testing::StepFixture;

TEST(TraceChipsParse, IdsRangesAndCritical) {
  const TraceChipRequest r = parse_trace_chips("17, 0-3,2,critical", 64);
  EXPECT_EQ(r.chips, (std::vector<topo::ChipId>{0, 1, 2, 3, 17}));
  EXPECT_TRUE(r.critical);
  EXPECT_TRUE(r.given());
  const TraceChipRequest only = parse_trace_chips("critical", 4);
  EXPECT_TRUE(only.chips.empty());
  EXPECT_TRUE(only.given());
  EXPECT_EQ(parse_trace_chips("0-63", 64).chips.size(), 64u);
}

TEST(TraceChipsParse, RejectsBadLists) {
  for (const char* bad : {"", " ", "a", "1,,2", "1,", "3-1", "-1", "1-", "0x1", "1.5", "64", "0-64",
                          "99999999999999999999", "Critical", "1 2"}) {
    EXPECT_THROW(parse_trace_chips(bad, 64), TraceChipsError) << "'" << bad << "'";
  }
}

TEST(TraceChipsParse, OutOfRangeSaysHowManyChipsThereAre) {
  try {
    parse_trace_chips("0,16", 16);
    FAIL() << "no error";
  } catch (const TraceChipsError& e) {
    EXPECT_NE(std::string(e.what()).find("16 chips (0-15)"), std::string::npos) << e.what();
  }
}

TEST(TraceChipsChoose, AllSimulatedChipsUpToTheLimit) {
  const StepFixture f = StepFixture::pipeline_pod();
  const auto step = f.run(testing::two_stage_program());
  const TraceChipChoice c = choose_trace_chips({}, f.pod, step);
  EXPECT_EQ(c.indices.size(), 8u);
  EXPECT_FALSE(c.limited);
  EXPECT_TRUE(c.notes.empty());
}

TEST(TraceChipsChoose, PastTheLimitTheCriticalChipAndTheFirstOfEachStage) {
  const StepFixture f = StepFixture::pipeline_pod();
  const auto step = f.run(testing::two_stage_program());
  const TraceChipChoice c = choose_trace_chips({}, f.pod, step, 2);
  ASSERT_TRUE(c.limited);
  std::vector<topo::ChipId> chips;
  for (const uint32_t i : c.indices) {
    chips.push_back(step.chips[i]);
  }
  // Stage 0 starts with chip 0 (x = 0), stage 1 with chip 1 (x = 1).
  std::vector<topo::ChipId> expected{0, 1, step.critical_chip};
  std::sort(expected.begin(), expected.end());
  expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
  EXPECT_EQ(chips, expected);
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes.back().find("trace limited"), std::string::npos);
}

TEST(TraceChipsChoose, CriticalAlone) {
  const StepFixture f = StepFixture::pipeline_pod();
  const auto step = f.run(testing::two_stage_program());
  TraceChipRequest r;
  r.critical = true;
  const TraceChipChoice c = choose_trace_chips(r, f.pod, step);
  ASSERT_EQ(c.indices.size(), 1u);
  EXPECT_EQ(step.chips[c.indices[0]], step.critical_chip);
}

// A 4 x 4 pod whose program only spans x: the engine folds y and simulates
// chips 0-3; chip 13 (x = 1, y = 3) is traced as chip 1 (x = 1, y = 0).
TEST(TraceChipsChoose, FoldedChipsAreTracedAsTheirRepresentatives) {
  const StepFixture f({{"x", 4, true}, {"y", 4, true}}, {{"x", {0}}, {"y", {1}}});
  workload::Program p;
  p.stages.resize(1);
  p.stages[0].instructions.push_back(
      testing::compute("L0.up", 0, workload::OpClass::kFfn, testing::big_matmul()));
  p.stages[0].instructions.push_back(testing::all_reduce("L0.ar", 0, "x", 1 << 20, {0}));
  const auto step = f.run(p);
  ASSERT_EQ(step.chips, (std::vector<topo::ChipId>{0, 1, 2, 3}));
  const TraceChipChoice c = choose_trace_chips(parse_trace_chips("13,2", 16), f.pod, step);
  std::vector<topo::ChipId> chips;
  for (const uint32_t i : c.indices) {
    chips.push_back(step.chips[i]);
  }
  const std::vector<uint32_t> x1_y0{1, 0};
  EXPECT_EQ(chips, (std::vector<topo::ChipId>{f.pod.chip_at(0, x1_y0), 2}));
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_NE(c.notes[0].find("simulated 4 of 16"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[1].find("13->1"), std::string::npos) << c.notes[1];
}

}  // namespace
}  // namespace podsim::report

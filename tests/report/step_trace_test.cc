// The serving-step trace, read back as a viewer would (trace_check.h), on a
// hand-built two-stage program whose timeline the engine tests pin down.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "trace_check.h"
#include "trace_fixture.h"

namespace podsim::report {
namespace {

using podsim::testing::parse_and_check_trace;
using podsim::testing::ParsedTrace;
using podsim::testing::TraceSlice;
using podsim::testing::TrackKey;
using testing::StepFixture;

TraceChipChoice all_chips(const engine::StepResult& r) {
  TraceChipChoice c;
  for (uint32_t i = 0; i < r.chips.size(); ++i) {
    c.indices.push_back(i);
  }
  return c;
}

struct Traced {
  StepFixture f = StepFixture::pipeline_pod();
  workload::Program program = testing::two_stage_program();
  engine::StepResult step = f.run(program);
  std::string text = f.trace(program, step, all_chips(step));
  ParsedTrace trace = parse_and_check_trace(text);

  size_t index_of(topo::ChipId chip) const {
    return static_cast<size_t>(std::find(step.chips.begin(), step.chips.end(), chip) -
                               step.chips.begin());
  }
  // The compute track of `chip`, found by the name the trace gives it.
  TrackKey compute_track(topo::ChipId chip) const {
    const std::string prefix = "chip " + std::to_string(chip) + " (";
    const auto found = trace.tracks_starting(prefix);
    EXPECT_EQ(found.size(), 1u) << prefix;
    return found.empty() ? TrackKey{} : found.front();
  }
  std::vector<TraceSlice> collective_slices(topo::ChipId chip) const {
    std::vector<TraceSlice> out;
    for (const TrackKey& k :
         trace.tracks_starting("chip " + std::to_string(chip) + " collectives")) {
      const auto& s = trace.slices.at(k);
      out.insert(out.end(), s.begin(), s.end());
    }
    return out;
  }
};

TEST(StepTrace, EveryInstructionOfEveryChipIsASliceOnItsChipsTracks) {
  const Traced t;
  ASSERT_EQ(t.step.chips.size(), 8u);
  EXPECT_EQ(t.trace.processes.at(1), "stage 0");
  EXPECT_EQ(t.trace.processes.at(2), "stage 1");
  EXPECT_EQ(t.trace.processes.at(3), "network");
  // Chip 5 is x = 1, y = 2 (x varies fastest): stage 1.
  ASSERT_TRUE(t.trace.track("chip 5 (1,2)") || t.trace.track("chip 5 (1,2) critical"));
  for (uint32_t i = 0; i < t.step.chips.size(); ++i) {
    const topo::ChipId chip = t.step.chips[i];
    const auto& prog = t.program.stages[t.step.chip_stage[i]].instructions;
    size_t computes = 0;
    for (const auto& ins : prog) {
      computes += std::holds_alternative<chip::Op>(ins.body) ? 1 : 0;
    }
    const TrackKey track = t.compute_track(chip);
    EXPECT_EQ(track.first, static_cast<int64_t>(t.step.chip_stage[i]) + 1);
    EXPECT_EQ(t.trace.slices.at(track).size(), computes) << "chip " << chip;
    EXPECT_EQ(t.collective_slices(chip).size(), prog.size() - computes) << "chip " << chip;
  }
}

TEST(StepTrace, ComputeSpansOfTheCriticalChipAddUpToItsComputeAndMemoryTime) {
  const Traced t;
  const auto& slices = t.trace.slices.at(t.compute_track(t.step.critical_chip));
  int64_t memory_ps = 0;
  int64_t other_ps = 0;
  for (const TraceSlice& s : slices) {
    const auto ps = static_cast<int64_t>(s.args.dur_ps());
    (s.args.bound() == "memory" ? memory_ps : other_ps) += ps;
  }
  EXPECT_EQ(memory_ps + other_ps, (t.step.critical.compute + t.step.critical.memory).count_ps());
  EXPECT_EQ(memory_ps, t.step.critical.memory.count_ps());
  EXPECT_EQ(other_ps, t.step.critical.compute.count_ps());
}

TEST(StepTrace, ComputeSpansOfOneChipNeverOverlap) {
  const Traced t;
  for (const topo::ChipId chip : t.step.chips) {
    auto slices = t.trace.slices.at(t.compute_track(chip));
    std::sort(slices.begin(), slices.end(),
              [](const TraceSlice& a, const TraceSlice& b) { return a.ts_ns < b.ts_ns; });
    for (size_t k = 1; k < slices.size(); ++k) {
      EXPECT_LE(slices[k - 1].ts_ns + slices[k - 1].dur_ns, slices[k].ts_ns) << "chip " << chip;
    }
  }
}

TEST(StepTrace, CategoriesAndLayersAreTheBreakdownsKeys) {
  const Traced t;
  std::set<std::string> classes;
  std::set<std::string> layers;
  std::vector<TraceSlice> slices = t.trace.slices.at(t.compute_track(t.step.critical_chip));
  const auto comms = t.collective_slices(t.step.critical_chip);
  slices.insert(slices.end(), comms.begin(), comms.end());
  for (const TraceSlice& s : slices) {
    classes.insert(s.cat);
    EXPECT_EQ(s.args.op_class(), s.cat);
    layers.insert(s.args.layer());
  }
  std::set<std::string> by_class;
  std::set<std::string> by_layer;
  for (const auto& g : t.step.by_op_class) {
    by_class.insert(g.key);
  }
  for (const auto& g : t.step.by_layer) {
    by_layer.insert(g.key);
  }
  EXPECT_EQ(classes, by_class);
  EXPECT_EQ(layers, by_layer);
}

TEST(StepTrace, ACollectiveOverlappingComputeIsOnTheCollectivesTrack) {
  const Traced t;
  const topo::ChipId chip = 0;  // stage 0
  const auto comms = t.collective_slices(chip);
  const auto ar = std::find_if(comms.begin(), comms.end(),
                               [](const TraceSlice& s) { return s.name == "L0.allreduce"; });
  ASSERT_NE(ar, comms.end());
  EXPECT_EQ(ar->cat, "collective");
  EXPECT_EQ(ar->args.kind(), "all-reduce");
  EXPECT_EQ(ar->args.axes(), "model");
  const auto& compute = t.trace.slices.at(t.compute_track(chip));
  const auto scale = std::find_if(compute.begin(), compute.end(),
                                  [](const TraceSlice& s) { return s.name == "L0.scale"; });
  ASSERT_NE(scale, compute.end());
  EXPECT_EQ(scale->args.bound(), "memory");
  // They overlap in time: that is why they are on different tracks.
  EXPECT_LT(ar->ts_ns, scale->ts_ns + scale->dur_ns);
  EXPECT_LT(scale->ts_ns, ar->ts_ns + ar->dur_ns);
}

TEST(StepTrace, StageTransfersAreArrowsToTheInstructionTheyFeed) {
  const Traced t;
  int transfers = 0;
  for (const auto& [id, start] : t.trace.flow_starts) {
    if (t.trace.flow_cats.at(id) != "stage_transfer") {
      continue;
    }
    ++transfers;
    const auto& end = t.trace.flow_ends.at(id);
    const std::string& from = t.trace.threads.at(start.track);
    const std::string& to = t.trace.threads.at(end.track);
    // From chip c's collectives track in stage 0 to chip c + 1 (x = 1, same y) in stage 1.
    const topo::ChipId c = static_cast<topo::ChipId>(std::stoul(from.substr(5)));
    EXPECT_EQ(from, "chip " + std::to_string(c) + " collectives");
    EXPECT_EQ(start.track.first, 1);
    EXPECT_EQ(end.track, t.compute_track(c + 1)) << to;
    const auto& target = t.trace.slices.at(end.track);
    EXPECT_TRUE(std::any_of(target.begin(), target.end(), [&](const TraceSlice& s) {
      return s.name == "L1.mlp.up" && s.ts_ns <= end.ts_ns && end.ts_ns <= s.ts_ns + s.dur_ns;
    }));
  }
  EXPECT_EQ(transfers, 4);  // one per chip of stage 0
}

TEST(StepTrace, TheCriticalChipShowsWhatEachCollectiveUnblocks) {
  const Traced t;
  int arrows = 0;
  for (const auto& [id, start] : t.trace.flow_starts) {
    if (t.trace.flow_cats.at(id) == "dependency") {
      ++arrows;
      EXPECT_EQ(t.trace.flow_ends.at(id).track, t.compute_track(t.step.critical_chip));
    }
  }
  EXPECT_EQ(arrows, 1);  // stage 1's one all-reduce unblocks L1.mlp.down
  EXPECT_EQ(t.step.critical_stage, 1u);
}

// The union of intervals, computed here independently of the trace code.
int64_t union_ps(std::vector<engine::Span> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const engine::Span& a, const engine::Span& b) { return a.start < b.start; });
  int64_t total = 0;
  sim::Time start;
  sim::Time end;
  bool open = false;
  for (const auto& s : spans) {
    if (open && s.start <= end) {
      end = std::max(end, s.end);
      continue;
    }
    total += open ? (end - start).count_ps() : 0;
    start = s.start;
    end = s.end;
    open = true;
  }
  return total + (open ? (end - start).count_ps() : 0);
}

TEST(StepTrace, AxisTracksAreBusyWhileACollectiveOverThemIsInFlight) {
  const Traced t;
  std::vector<engine::Span> model_spans;
  std::vector<engine::Span> stage_spans;
  for (uint32_t i = 0; i < t.step.chips.size(); ++i) {
    const auto& prog = t.program.stages[t.step.chip_stage[i]].instructions;
    for (size_t k = 0; k < prog.size(); ++k) {
      if (std::holds_alternative<config::CollectiveSpec>(prog[k].body)) {
        model_spans.push_back(t.step.spans[i][k]);
      } else if (std::holds_alternative<workload::StageTransfer>(prog[k].body)) {
        stage_spans.push_back(t.step.spans[i][k]);
      }
    }
  }
  for (const auto& [axis, spans] :
       {std::pair{"model", model_spans}, std::pair{"stage", stage_spans}}) {
    const auto track = t.trace.track(std::string("axis ") + axis);
    ASSERT_TRUE(track) << axis;
    EXPECT_EQ(track->first, 3);
    int64_t busy_ps = 0;
    int64_t prev_end = -1;
    for (const TraceSlice& s : t.trace.slices.at(*track)) {
      busy_ps += static_cast<int64_t>(s.args.dur_ps());
      EXPECT_GT(s.ts_ns, prev_end) << "busy periods of one axis are disjoint";
      prev_end = s.ts_ns + s.dur_ns;
    }
    EXPECT_EQ(busy_ps, union_ps(spans)) << axis;
  }
}

TEST(StepTrace, TheSameRunGivesTheSameBytes) {
  const Traced a;
  const Traced b;
  EXPECT_EQ(a.text, b.text);
}

TEST(StepTrace, OnlyTheChosenChipsGetTracks) {
  const Traced t;
  TraceChipRequest req;
  req.chips = {1, 6};
  const TraceChipChoice choice = choose_trace_chips(req, t.f.pod, t.step);
  const ParsedTrace p = parse_and_check_trace(t.f.trace(t.program, t.step, choice));
  std::set<std::string> chips;
  for (const auto& [key, name] : p.threads) {
    if (name.rfind("chip ", 0) == 0) {
      chips.insert(name.substr(0, name.find(' ', 5)));
    }
  }
  EXPECT_EQ(chips, (std::set<std::string>{"chip 1", "chip 6"}));
  // Chip 1 (x = 1) is in stage 1, chip 6 (x = 0) in stage 0; 6 sends to 7, not traced.
  for (const auto& [id, cat] : p.flow_cats) {
    EXPECT_NE(cat, "stage_transfer");
  }
}

// --trace-units: a process of four unit tracks for the critical chip, with
// the chosen layer's compute drawn inside each instruction's span, on the
// roofline (overlapped compute and HBM) and on the TensorCore model (its
// pipeline's steps); no such process without a layer.
TEST(StepTrace, UnitTracksShowTheCriticalChipsChosenLayer) {
  for (const auto kind : {chip::ComputeModelKind::kRoofline, chip::ComputeModelKind::kTensorCore}) {
    SCOPED_TRACE(std::string(chip::to_string(kind)));
    StepFixture f = StepFixture::pipeline_pod();
    f.model = chip::make_compute_model(kind, f.pod.spec().chip, {});
    const workload::Program program = testing::two_stage_program();
    const engine::StepResult step = f.run(program);
    const std::string layer = "L" + std::to_string(step.critical_stage);  // one layer a stage
    EXPECT_EQ(parse_and_check_trace(f.trace(program, step, all_chips(step))).processes.size(), 3u);
    const ParsedTrace p = parse_and_check_trace(f.trace(program, step, all_chips(step), layer));
    ASSERT_EQ(p.processes.size(), 4u);
    const std::string name =
        "chip " + std::to_string(step.critical_chip) + " units, layer " + layer;
    ASSERT_EQ(p.processes.at(4), name);
    size_t critical = 0;
    while (step.chips[critical] != step.critical_chip) {
      ++critical;
    }
    const auto& prog = program.stages[step.critical_stage].instructions;
    size_t drawn = 0;
    bool steps = false;
    for (const char* unit : {"MXU", "vector unit", "issue", "DMA"}) {
      const auto track = p.track(unit);
      ASSERT_TRUE(track) << unit;
      EXPECT_EQ(track->first, 4);
      int64_t end = 0;
      const auto drawn_on = p.slices.find(*track);  // a unit may do nothing in the layer
      for (const TraceSlice& s :
           drawn_on == p.slices.end() ? std::vector<TraceSlice>{} : drawn_on->second) {
        EXPECT_EQ(s.args.layer(), layer);
        size_t k = 0;
        while (k < prog.size() && prog[k].name != s.args.op()) {
          ++k;
        }
        ASSERT_LT(k, prog.size()) << s.args.op();
        const engine::Span& span = step.spans[critical][k];
        EXPECT_GE(s.ts_ns, span.start.count_ps() / 1000);
        EXPECT_LE(s.ts_ns + s.dur_ns, span.end.count_ps() / 1000);
        EXPECT_GE(s.ts_ns, end) << unit;  // a unit does one thing at a time
        end = s.ts_ns + s.dur_ns;
        steps = steps || s.name.rfind("step ", 0) == 0;
        ++drawn;
      }
    }
    EXPECT_GT(drawn, 0u);
    EXPECT_EQ(steps, kind == chip::ComputeModelKind::kTensorCore);
  }
}

}  // namespace
}  // namespace podsim::report

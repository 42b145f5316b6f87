// Field-by-field comparisons of two serving steps' or operation lists'
// results, for the tests that hold a shortcut (symmetric runs, replica
// folding) to the full run's results bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/energy.h"
#include "engine/link_usage.h"
#include "engine/op_list.h"
#include "engine/step.h"
#include "topo/pod.h"

namespace podsim::engine::testing {

inline void expect_same(const ChipBreakdown& a, const ChipBreakdown& b, const std::string& what) {
  EXPECT_EQ(a.end, b.end) << what;
  EXPECT_EQ(a.compute, b.compute) << what;
  EXPECT_EQ(a.memory, b.memory) << what;
  EXPECT_EQ(a.collective_exposed, b.collective_exposed) << what;
  EXPECT_EQ(a.idle, b.idle) << what;
  EXPECT_EQ(a.collective_overlapped, b.collective_overlapped) << what;
}

inline void expect_same(const std::vector<GroupTime>& a, const std::vector<GroupTime>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].key, b[i].key);
    EXPECT_EQ(a[i].compute, b[i].compute) << a[i].key;
    EXPECT_EQ(a[i].memory, b[i].memory) << a[i].key;
    EXPECT_EQ(a[i].collective_exposed, b[i].collective_exposed) << a[i].key;
    EXPECT_EQ(a[i].collective_overlapped, b[i].collective_overlapped) << a[i].key;
  }
}

// The step's figures that do not name chips one by one: its time, its
// critical chip's breakdowns, the spread over chips, the critical chip's
// HBM bytes and FLOPs.
inline void expect_same_figures(const StepResult& a, const StepResult& b) {
  EXPECT_EQ(a.step_time, b.step_time);
  EXPECT_EQ(a.critical_chip, b.critical_chip);
  expect_same(a.critical, b.critical, "critical chip");
  expect_same(a.by_layer, b.by_layer);
  expect_same(a.by_op_class, b.by_op_class);
  EXPECT_EQ(a.min_chip_end, b.min_chip_end);
  EXPECT_EQ(a.mean_chip_end, b.mean_chip_end);
  EXPECT_EQ(a.hbm_bytes, b.hbm_bytes);
  EXPECT_EQ(a.flops, b.flops);
}

// Every result of a serving step but how it was played (events, played
// chips).
inline void expect_same(const StepResult& a, const StepResult& b) {
  expect_same_figures(a, b);
  EXPECT_EQ(a.simulated_chips, b.simulated_chips);
  EXPECT_EQ(a.chips, b.chips);
  EXPECT_EQ(a.spans, b.spans);
  ASSERT_EQ(a.chip_breakdowns.size(), b.chip_breakdowns.size());
  for (size_t i = 0; i < a.chip_breakdowns.size(); ++i) {
    expect_same(a.chip_breakdowns[i], b.chip_breakdowns[i], "chip " + std::to_string(a.chips[i]));
  }
  EXPECT_EQ(a.link_stats.bytes, b.link_stats.bytes);
  EXPECT_EQ(a.link_stats.busy, b.link_stats.busy);
}

// A folded step (engine/fold.h) against the full run of the same pod:
// every result, each chip's through the chip that stands for it, link
// statistics unfolded, energy. A step that simulated every chip (nothing
// to fold) is compared as it is.
inline void expect_same_unfolded(const topo::Pod& pod, const StepResult& a, const StepResult& b) {
  if (a.represented_by.empty()) {
    expect_same(a, b);
    return;
  }
  ASSERT_EQ(a.represented_by.size(), pod.chip_count());
  expect_same_figures(a, b);
  EXPECT_EQ(a.critical_stage, b.critical_stage);
  // Every chip of the pod has, through its stand-in, the full run's timeline.
  std::vector<int32_t> index(pod.chip_count(), -1);
  for (uint32_t i = 0; i < a.chips.size(); ++i) {
    index[a.chips[i]] = static_cast<int32_t>(i);
  }
  for (topo::ChipId chip = 0; chip < pod.chip_count(); ++chip) {
    const int32_t i = index[a.represented_by[chip]];
    ASSERT_GE(i, 0) << "chip " << chip;
    EXPECT_EQ(a.spans[static_cast<size_t>(i)], b.spans[chip]) << "chip " << chip;
    expect_same(a.chip_breakdowns[static_cast<size_t>(i)], b.chip_breakdowns[chip],
                "chip " + std::to_string(chip));
  }
  const net::LinkStats unfolded = unfold_by(pod, a.represented_by, a.link_stats);
  EXPECT_EQ(unfolded.bytes, b.link_stats.bytes);
  EXPECT_EQ(unfolded.busy, b.link_stats.busy);
  const StepEnergy ef = step_energy(pod, pod.spec().chip.power, a);
  const StepEnergy eu = step_energy(pod, pod.spec().chip.power, b);
  EXPECT_EQ(ef.parts.total(), eu.parts.total());
  EXPECT_EQ(ef.critical.parts.total(), eu.critical.parts.total());
}

// Every result of an operation list but how it was played (events, played
// chips, the event stream's fingerprint).
inline void expect_same(const OpListResult& a, const OpListResult& b) {
  EXPECT_EQ(a.makespan, b.makespan);
  ASSERT_EQ(a.operations.size(), b.operations.size());
  for (size_t i = 0; i < a.operations.size(); ++i) {
    const OperationResult& x = a.operations[i];
    const OperationResult& y = b.operations[i];
    EXPECT_EQ(x.start, y.start) << x.name;
    EXPECT_EQ(x.end, y.end) << x.name;
    EXPECT_EQ(x.per_run, y.per_run) << x.name;
    ASSERT_EQ(x.runs.size(), y.runs.size()) << x.name;
    for (size_t r = 0; r < x.runs.size(); ++r) {
      EXPECT_EQ(x.runs[r].start, y.runs[r].start) << x.name << " run " << r;
      EXPECT_EQ(x.runs[r].end, y.runs[r].end) << x.name << " run " << r;
    }
    EXPECT_EQ(x.transfers, y.transfers) << x.name;
    EXPECT_EQ(x.links_used, y.links_used) << x.name;
    EXPECT_EQ(x.link_util_mean, y.link_util_mean) << x.name;
    EXPECT_EQ(x.link_util_max, y.link_util_max) << x.name;
    EXPECT_EQ(x.algbw_gbps, y.algbw_gbps) << x.name;
    EXPECT_EQ(x.schedule, y.schedule) << x.name;
  }
  EXPECT_EQ(a.link_stats.bytes, b.link_stats.bytes);
  EXPECT_EQ(a.link_stats.busy, b.link_stats.busy);
}

}  // namespace podsim::engine::testing

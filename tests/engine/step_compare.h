// Field-by-field comparisons of two serving steps' or operation lists'
// results, for the tests that hold a shortcut (symmetric runs, replica
// folding) to the full run's results bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/op_list.h"
#include "engine/step.h"

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

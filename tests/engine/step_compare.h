// Field-by-field comparisons of two serving steps' results, for the tests
// that hold a shortcut (symmetric runs, replica folding) to the full run's
// results bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace podsim::engine::testing

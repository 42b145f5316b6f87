// HeldRows (sweep/held_rows.h): rows wait until release(), in order, through
// memory and then a temporary file, and are dropped if release() never comes
// (issue 27: an all-invalid sweep without --out had printed rows before its
// exit 2).
#include "sweep/held_rows.h"

#include <gtest/gtest.h>

#include <sstream>

namespace podsim::sweep {
namespace {

TEST(HeldRows, NothingReachesTheStreamUntilReleased) {
  std::ostringstream out;
  {
    HeldRows held(out);
    held.write("header\n");
    held.write("invalid row\n");
    EXPECT_TRUE(held.holding());
    EXPECT_EQ(held.held_bytes(), 19U);
  }
  EXPECT_EQ(out.str(), "") << "dropped: never released";
}

TEST(HeldRows, ReleasedRowsComeFirstThenTheRestStreams) {
  std::ostringstream out;
  HeldRows held(out);
  held.write("a\n");
  held.release();
  EXPECT_EQ(out.str(), "a\n");
  held.write("b\n");
  EXPECT_EQ(out.str(), "a\nb\n") << "streamed once released";
  held.release();  // twice is harmless
  EXPECT_EQ(out.str(), "a\nb\n");
}

TEST(HeldRows, PastTheMemoryBoundRowsWaitInAFileInOrder) {
  std::ostringstream out;
  HeldRows held(out, 10);  // 10 bytes of memory
  std::string expected;
  for (int i = 0; i < 1000; ++i) {
    const std::string row = "row " + std::to_string(i) + "\n";
    held.write(row);
    expected += row;
  }
  EXPECT_EQ(out.str(), "");
  held.release();
  EXPECT_EQ(out.str(), expected);
}

}  // namespace
}  // namespace podsim::sweep

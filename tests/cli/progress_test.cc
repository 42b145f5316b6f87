// The progress line on a fake clock: silent at first, throttled, erased at
// the end, and never drawn when disabled (not a terminal, or --quiet).
#include "cli/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "cli/context.h"
#include "cli/exit_codes.h"

namespace podsim::cli {
namespace {

using ::testing::HasSubstr;

constexpr const char* kErase = "\r\x1b[K";

struct FakeClock {
  double now = 100;
  ProgressLine::Clock clock() {
    return [this] { return now; };
  }
};

TEST(ProgressLine, SilentForTheFirstHalfSecond) {
  std::ostringstream out;
  FakeClock t;
  {
    ProgressLine p(out, true, "simulating", "instructions", t.clock());
    t.now += 0.4;
    p.update(10, 100);
  }
  EXPECT_EQ(out.str(), "");  // nothing drawn, nothing to erase
}

TEST(ProgressLine, DrawsThrottledAndErases) {
  std::ostringstream out;
  FakeClock t;
  ProgressLine p(out, true, "simulating", "instructions", t.clock());
  t.now += 0.6;
  p.update(45, 100);
  EXPECT_EQ(out.str(), std::string(kErase) + "simulating: 45% (45 of 100 instructions), 0.6 s");
  out.str("");
  t.now += 0.1;  // 0.1 s after the last draw: skipped
  p.update(50, 100);
  EXPECT_EQ(out.str(), "");
  t.now += 0.15;  // 0.25 s after it: drawn
  p.update(60, 100);
  EXPECT_EQ(out.str(), std::string(kErase) + "simulating: 60% (60 of 100 instructions), 0.8 s");
  out.str("");
  p.finish();
  EXPECT_EQ(out.str(), kErase);
  out.str("");
  p.finish();  // already erased
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressLine, DestructorErasesADrawnLine) {
  std::ostringstream out;
  FakeClock t;
  {
    ProgressLine p(out, true, "x", "steps", t.clock());
    t.now += 1;
    p.update(0, 0);
  }
  EXPECT_EQ(out.str(), std::string(kErase) + "x: 100% (0 of 0 steps), 1.0 s" + kErase);
}

TEST(ProgressLine, DisabledDrawsNothing) {
  std::ostringstream out;
  FakeClock t;
  ProgressLine p(out, false, "simulating", "instructions", t.clock());
  t.now += 10;
  p.update(1, 2);
  p.finish();
  EXPECT_EQ(out.str(), "");
}

TEST(RunProgress, QuietAndQuickRunsKeepStderrClean) {
  // Even on a terminal a run under half a second draws nothing; --quiet
  // is accepted; results are the same either way.
  std::ostringstream out1, err1, out2, err2;
  EXPECT_EQ(run_cli({"run", "-f", "csv"}, out1, err1, true), kExitOk) << err1.str();
  EXPECT_EQ(run_cli({"run", "-f", "csv", "--quiet"}, out2, err2, true), kExitOk) << err2.str();
  EXPECT_EQ(err1.str(), "");
  EXPECT_EQ(err2.str(), "");
  EXPECT_EQ(out1.str(), out2.str());
  EXPECT_THAT(out1.str(), HasSubstr("step_time_us"));
}

TEST(ProgressLine, EveryWritesALogLineAtEachIntervalAndErasesNothing) {
  std::ostringstream out;
  FakeClock t;
  {
    ProgressLine p(out, true, "serving", "events", t.clock());
    p.every(10);
    t.now += 9;
    p.count(100);
    EXPECT_EQ(out.str(), "") << "nothing before the first interval";
    t.now += 1;
    p.count(200);
    t.now += 5;
    p.count(300);  // within the interval since the last line
    t.now += 5;
    p.update(4, 8);
  }
  EXPECT_EQ(out.str(), "serving: 200 events, 10.0 s\nserving: 50% (4 of 8 events), 20.0 s\n");
}

TEST(ProgressLine, CountRedrawsInPlaceOnATerminal) {
  std::ostringstream out;
  FakeClock t;
  {
    ProgressLine p(out, true, "capacity", "serve runs", t.clock());
    t.now += 1;
    p.count(3);
  }
  EXPECT_EQ(out.str(), std::string(kErase) + "capacity: 3 serve runs, 1.0 s" + kErase);
}

}  // namespace
}  // namespace podsim::cli

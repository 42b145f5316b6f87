// `podsim search`'s progress on a fake clock: redrawn on a terminal; under
// --quiet or on a stderr that is not a terminal, a whole line every 30 s of
// a long search and nothing for a short one; nothing on ranks other than
// 0. And end to end: --quiet never changes stdout, and a short quiet search
// writes only its summary lines.
#include "cli/search_progress.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/exit_codes.h"
#include "cli_runner.h"

namespace podsim::cli {
namespace {

constexpr const char* kErase = "\r\x1b[K";

struct FakeClock {
  double now = 100;
  ProgressLine::Clock clock() {
    return [this] { return now; };
  }
};

search::Progress checking(size_t checked) {
  search::Progress p;
  p.candidates = 44096;
  p.checked = checked;
  return p;
}

search::Progress deciding() {
  search::Progress p = checking(44096);
  p.fit = 474;
  p.estimated = 120;
  p.simulated = 32;
  p.pruned = 88;
  return p;
}

TEST(SearchProgress, SaysWhatIsCheckedThenWhatIsDecided) {
  EXPECT_EQ(SearchProgress::describe(checking(1234)), "1234 of 44096 checked");
  EXPECT_EQ(SearchProgress::describe(deciding()),
            "44096 of 44096 checked, 474 fit, 120 decided (120 estimated, 32 simulated on flow, "
            "88 dropped)");
}

TEST(SearchProgress, QuietWritesALineEveryThirtySecondsOfALongSearch) {
  std::ostringstream err;
  FakeClock t;
  {
    SearchProgress p(err, true, /*terminal=*/true, /*quiet=*/true, t.clock());
    t.now += 29.9;
    p.update(checking(1234));
    EXPECT_EQ(err.str(), "");  // a short search: nothing
    t.now += 0.2;
    p.update(checking(2000));
    EXPECT_EQ(err.str(), "podsim search: searching: 2000 of 44096 checked, 30.1 s\n");
    t.now += 10;
    p.update(deciding());
    EXPECT_EQ(err.str(), "podsim search: searching: 2000 of 44096 checked, 30.1 s\n");
    t.now += 20;
    p.update(deciding());
    p.finish();
  }
  // A log keeps its lines; nothing is erased.
  EXPECT_EQ(err.str(),
            "podsim search: searching: 2000 of 44096 checked, 30.1 s\n"
            "podsim search: searching: 44096 of 44096 checked, 474 fit, 120 decided (120 "
            "estimated, 32 simulated on flow, 88 dropped), 60.1 s\n");
}

TEST(SearchProgress, NotATerminalLogsAsQuietDoes) {
  std::ostringstream err;
  FakeClock t;
  SearchProgress p(err, true, /*terminal=*/false, /*quiet=*/false, t.clock());
  t.now += 31;
  p.update(checking(7));
  EXPECT_EQ(err.str(), "podsim search: searching: 7 of 44096 checked, 31.0 s\n");
}

TEST(SearchProgress, TerminalRedrawsOneLineAndErasesIt) {
  std::ostringstream err;
  FakeClock t;
  SearchProgress p(err, true, /*terminal=*/true, /*quiet=*/false, t.clock());
  t.now += 0.6;
  p.update(checking(10));
  EXPECT_EQ(err.str(), std::string(kErase) + "searching: 10 of 44096 checked, 0.6 s");
  err.str("");
  p.finish();
  EXPECT_EQ(err.str(), kErase);
}

TEST(SearchProgress, DisabledOnOtherRanksEvenForALongSearch) {
  std::ostringstream err;
  FakeClock t;
  SearchProgress p(err, false, /*terminal=*/false, /*quiet=*/true, t.clock());
  t.now += 1000;
  p.update(deciding());
  p.finish();
  EXPECT_EQ(err.str(), "");
}

TEST(SearchProgress, QuietChangesNeitherStdoutNorAShortSearchsStderr) {
  const std::string model_file =
      (testing::root() / "workloads/llama3-8b-decode-v5e.textproto").string();
  const std::string slice_file = (testing::root() / "topologies/v5e-2x2.textproto").string();
  const std::vector<std::string> args = {"search",   "--model",   model_file, "--topology",
                                         slice_file, "--phase",   "decode",   "--context",
                                         "1024",     "--batches", "8,16,32"};
  std::vector<std::string> quiet = args;
  quiet.push_back("-q");
  const testing::Result a = testing::run(args);
  const testing::Result b = testing::run(quiet);
  ASSERT_EQ(a.code, kExitOk) << a.err;
  ASSERT_EQ(b.code, kExitOk) << b.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.err, b.err);
  EXPECT_EQ(b.err.find("searching:"), std::string::npos) << b.err;
}

}  // namespace
}  // namespace podsim::cli

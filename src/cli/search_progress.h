// How far `podsim search` has got, on stderr (docs/search.md, "Progress"):
//
//  - on a terminal, without --quiet: one line redrawn in place, as `podsim
//    run` draws its own (cli/progress.h: nothing in the first half second,
//    at most five redraws a second, erased when the search ends):
//      searching: 1234 of 44096 checked, 474 fit, 120 decided (80 estimated,
//      32 simulated on flow, 88 dropped), 12.3 s
//  - otherwise (--quiet, or stderr a pipe, a file, a CI log): a search
//    still running after kSearchLogSeconds writes that line whole, prefixed
//    like the summary lines ("podsim search: searching: ..."), and another
//    every kSearchLogSeconds; a shorter search writes nothing, so stderr
//    is as before. Even -q shows a long search is alive (issue 33).
//
// Never on stdout: the frontier's bytes do not depend on it.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "cli/progress.h"
#include "search/search.h"

namespace podsim::cli {

// --quiet or not a terminal: a line this often.
inline constexpr double kSearchLogSeconds = 30;

class SearchProgress {
 public:
  // `enabled` false (an MPI rank other than 0): nothing, ever.
  SearchProgress(std::ostream& err, bool enabled, bool terminal, bool quiet,
                 ProgressLine::Clock clock = ProgressLine::steady_seconds);

  void update(const search::Progress& p);
  // Erases a redrawn line (a log keeps its lines).
  void finish();

  // The line's text: "1234 of 44096 checked, 474 fit, 120 decided (...)".
  static std::string describe(const search::Progress& p);

 private:
  std::unique_ptr<ProgressLine> line_;
};

}  // namespace podsim::cli

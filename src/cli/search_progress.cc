#include "cli/search_progress.h"

namespace podsim::cli {

SearchProgress::SearchProgress(std::ostream& err, bool enabled, bool terminal, bool quiet,
                               ProgressLine::Clock clock) {
  const bool redrawn = terminal && !quiet;
  line_ = std::make_unique<ProgressLine>(err, enabled,
                                         redrawn ? "searching" : "podsim search: searching",
                                         "configurations", std::move(clock));
  if (!redrawn)
    line_->every(kSearchLogSeconds);
}

void SearchProgress::update(const search::Progress& p) {
  line_->show([&p] { return describe(p); });
}

void SearchProgress::finish() {
  line_->finish();
}

std::string SearchProgress::describe(const search::Progress& p) {
  std::string out = std::to_string(p.checked);
  out += " of ";
  out += std::to_string(p.candidates);
  out += " checked";
  if (p.checked < p.candidates)
    return out;
  out += ", ";
  out += std::to_string(p.fit);
  out += " fit, ";
  out += std::to_string(p.decided());
  out += " decided (";
  out += std::to_string(p.estimated);
  out += " estimated, ";
  out += std::to_string(p.simulated);
  out += " simulated on flow, ";
  out += std::to_string(p.pruned);
  out += " dropped)";
  return out;
}

}  // namespace podsim::cli

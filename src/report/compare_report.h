// `podsim compare`: what moved between two result files, as a terminal
// table, CSV (one row per change) or JSON. docs/outputs.md documents every
// column and key.
#pragma once

#include <ostream>
#include <string>

#include "report/compare.h"
#include "report/format.h"

namespace podsim::report {

struct CompareInputs {
  std::string baseline_file;
  std::string current_file;
  CompareOptions options;
};

void render_comparison(const CompareInputs& in, const Comparison& c, Format format,
                       std::ostream& out);

}  // namespace podsim::report

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

// How many rows the table lists of each kind of change; the rest are
// counted ("... and N more"). The CSV and JSON list every one.
struct TableLimits {
  size_t moved = 0;       // moved values; 0: all
  size_t unmatched = 20;  // appeared rows, and disappeared rows; 0: all
};

void render_comparison(const CompareInputs& in, const Comparison& c, Format format,
                       std::ostream& out, const TableLimits& limits = {});

}  // namespace podsim::report

// Comparing two result files (`podsim compare BASELINE CURRENT`): what moved.
//
// Both files are CSV as `podsim run --format csv` writes it (serving rows or
// operation-list rows; a suite is many runs' rows under one header). Rows are
// matched by their scenario key: every column under "inputs." (the hardware,
// the workload, its files' hashes, the overrides and the run options; see
// docs/outputs.md) and, for an operation row, op_list.operations.name. Names
// alone do not identify a row: an edited copy of a topology that keeps its
// name is a different row. Files of schema 1 and 2 (before podsim.Result)
// are keyed by their input columns (topology, workload, ..., name). Every
// other column, except schema_version and podsim_version, is an output and is
// compared, status and reason as text. Two files of different schema
// versions are refused, naming both versions.
//
// Key cells match by value when they are numbers (`1.97e+14` is
// `197000000000000`, as a spreadsheet rewrites it) and by text otherwise;
// report/compare_key.h gives the rule and its boundary cases. With
// `match_by`, rows are paired by just those columns (across an intended
// change of their other inputs): every other key column is then compared as
// a value, so a pair reports the inputs that changed as well as the outputs
// that moved with them.
//
// A numeric output moves when |current - baseline| > max(rel_tol x
// |baseline|, abs_tol), where abs_tol is abs_tol_us for columns whose name
// ends in "_us" (microseconds) and 0 for every other column. Per-column
// tolerances replace both for the columns they name: an exact column name,
// or a prefix ending in '*' ("serving.link_stats.*"); the most specific
// applies (an exact name, else the longest prefix), and a pattern that names
// no output column of the files is refused, so a typo cannot loosen nothing. A cell that is
// not a number (true/false, a name, "null") moves when its text changes.
// A row present in one file only counts as appeared or disappeared; the
// comparison names the key columns that tell those rows apart (shown_key),
// so that a report need not print whole keys. A line that repeats the
// header (as `cat` of several runs' CSV gives) is skipped.
// Cost: O(rows x columns) with a hash of each key.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/csv_reader.h"

namespace podsim::report {

// The two files cannot be compared: different headers, different schema
// versions, no key column, a key repeated within a file. what() names the
// file and line ("current.csv:1: ...").
class CompareError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The tolerance of the columns `pattern` names (see above).
struct ColumnTolerance {
  std::string pattern;  // a column name, or a prefix ending in '*'
  double rel_tol = 0;   // >= 0
  double abs_tol = 0;   // in the column's own unit, >= 0
};

struct CompareOptions {
  double rel_tol = 1e-6;                 // relative tolerance, >= 0
  double abs_tol_us = 0;                 // absolute tolerance for *_us columns, microseconds, >= 0
  std::vector<ColumnTolerance> columns;  // per-column tolerances, any order
  std::vector<std::string> match_by;     // pair rows by these columns; empty: the whole key
};

// "COL1,COL2,..." as --match-by gives it. Throws std::invalid_argument on an
// empty or repeated name.
std::vector<std::string> parse_match_by(std::string_view text);

// "PATTERN=REL" or "PATTERN=REL,ABS", as --column-tol and the regression
// suite's `tolerance` lines give it. Throws std::invalid_argument naming the
// problem.
ColumnTolerance parse_column_tolerance(std::string_view text);

// The per-column tolerance that applies to `column`, or null.
const ColumnTolerance* tolerance_for(const std::string& column, const CompareOptions& options);

// The largest |current - baseline| allowed in `column` at this baseline.
double allowed_delta(const std::string& column, double baseline, const CompareOptions& options);

// A row's identity.
struct Scenario {
  std::vector<std::pair<std::string, std::string>> key;  // (column, cell), header order
  std::string label;  // workload / topology / network / compute / name, as present

  // "column=cell; column=cell; ..." over the whole key.
  std::string key_text() const;
  // The same over just `columns` (in key order), or the whole key when no
  // key column is among them.
  std::string key_text(const std::vector<std::string>& columns) const;
};

struct MovedValue {
  Scenario scenario;
  std::string column;
  std::string baseline;  // the cells as written in the files
  std::string current;
  std::optional<double> delta;      // current - baseline; none unless both are numbers
  std::optional<double> rel_delta;  // delta / |baseline|; none when baseline is 0
  std::optional<double> allowed;    // the largest |delta| allowed; none unless numbers
};

struct Comparison {
  size_t scenarios_matched = 0;       // rows present in both files
  size_t values_compared = 0;         // output cells compared
  std::vector<Scenario> matched;      // rows present in both, in baseline order
  std::vector<MovedValue> moved;      // baseline row order, then header order
  std::vector<Scenario> appeared;     // in current only, in its order
  std::vector<Scenario> disappeared;  // in baseline only, in its order
  // The key columns a report shows beside each appeared or disappeared
  // row's label: those whose values (by value, as keys match) differ between
  // the disappeared and the appeared rows (what changed), or vary among rows
  // of one list that share a label (what the label does not tell apart);
  // when there are none (a single row), those that vary across both files.
  // Key order. Empty when nothing appeared or disappeared.
  std::vector<std::string> shown_key;

  bool clean() const { return moved.empty() && appeared.empty() && disappeared.empty(); }
};

// True when a row carries this column as part of its scenario key.
bool is_key_column(const std::string& column);

// Whether `current` moved from `baseline` in `column` under `options`.
bool value_moved(const std::string& column, double baseline, double current,
                 const CompareOptions& options);

// Throws CompareError when the files cannot be compared (see above).
Comparison compare_results(const CsvDocument& baseline, const CsvDocument& current,
                           const CompareOptions& options);

}  // namespace podsim::report

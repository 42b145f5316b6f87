// What varies between a table's result rows: the `--set` overrides
// (inputs.topology.overrides, inputs.workload.overrides: "path=value;...")
// whose values differ, grouped when they vary together (a ZIP sweep's
// parameters, a parameter's `also` paths), so a sweep's swept parameter can
// be the x axis of a plot and the others its series. O(rows x overrides).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "report/csv_reader.h"

namespace podsim::html {

struct SweptParameter {
  std::vector<std::string> paths;   // override paths that vary together, first-seen order
  std::vector<std::string> values;  // per row: the first path's value ("-" when unset)
  size_t distinct = 0;
  std::string short_name;  // the first path's last component, or the path when ambiguous
};

// The row's overrides, topology's then workload's, as {path: value}.
std::map<std::string, std::string> overrides_of(const report::CsvDocument& doc,
                                                const report::CsvRecord& row);

// The parameters that vary between `rows`, in the order their first path
// was first seen.
std::vector<SweptParameter> swept_parameters(const report::CsvDocument& doc,
                                             const std::vector<const report::CsvRecord*>& rows);

// A row's label: "name=value" of each swept parameter joined by ", ";
// without any, the inputs that name a run (workload, topology, phase,
// batch, models) where they differ; "row LINE" when nothing differs.
std::vector<std::string> row_labels(const report::CsvDocument& doc,
                                    const std::vector<const report::CsvRecord*>& rows);

}  // namespace podsim::html

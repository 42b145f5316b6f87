#include "html/swept.h"

#include <algorithm>
#include <set>

#include "html/table_view.h"

namespace podsim::html {

namespace {

constexpr const char* kOverrideColumns[] = {"inputs.topology.overrides",
                                            "inputs.workload.overrides"};
// Columns that name a run, for labels when no override varies.
constexpr const char* kNamingColumns[] = {
    "inputs.workload.name",          "inputs.topology.name", "inputs.serving.scenario.phase",
    "inputs.serving.scenario.batch", "inputs.run.compute",   "inputs.run.network"};

std::string trimmed(std::string_view s) {
  const size_t a = s.find_first_not_of(' ');
  if (a == std::string_view::npos) {
    return {};
  }
  const size_t b = s.find_last_not_of(' ');
  return std::string(s.substr(a, b - a + 1));
}

// A value sequence as the index of each value's first appearance, so two
// paths that vary together have equal patterns.
std::vector<size_t> pattern(const std::vector<std::string>& values) {
  std::vector<std::string> seen;
  std::vector<size_t> out;
  for (const std::string& v : values) {
    auto it = std::find(seen.begin(), seen.end(), v);
    if (it == seen.end()) {
      seen.push_back(v);
      it = seen.end() - 1;
    }
    out.push_back(static_cast<size_t>(it - seen.begin()));
  }
  return out;
}

std::string last_component(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

}  // namespace

std::map<std::string, std::string> overrides_of(const report::CsvDocument& doc,
                                                const report::CsvRecord& row) {
  std::map<std::string, std::string> out;
  for (const char* column : kOverrideColumns) {
    const std::string& text = cell(doc, row, column);
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find(';', start);
      if (end == std::string::npos) {
        end = text.size();
      }
      const std::string_view item(text.data() + start, end - start);
      const size_t eq = item.find('=');
      if (eq != std::string_view::npos) {
        out[trimmed(item.substr(0, eq))] = trimmed(item.substr(eq + 1));
      }
      start = end + 1;
    }
  }
  return out;
}

std::vector<SweptParameter> swept_parameters(const report::CsvDocument& doc,
                                             const std::vector<const report::CsvRecord*>& rows) {
  std::vector<std::map<std::string, std::string>> per_row;
  std::vector<std::string> paths;  // first-seen order
  for (const report::CsvRecord* row : rows) {
    per_row.push_back(overrides_of(doc, *row));
    // std::map iterates in name order; keep the override column's order.
    for (const char* column : kOverrideColumns) {
      const std::string& text = cell(doc, *row, column);
      size_t start = 0;
      while (start < text.size()) {
        size_t end = text.find(';', start);
        if (end == std::string::npos) {
          end = text.size();
        }
        const std::string_view item(text.data() + start, end - start);
        const size_t eq = item.find('=');
        if (eq != std::string_view::npos) {
          std::string path = trimmed(item.substr(0, eq));
          if (std::find(paths.begin(), paths.end(), path) == paths.end()) {
            paths.push_back(std::move(path));
          }
        }
        start = end + 1;
      }
    }
  }
  std::vector<SweptParameter> out;
  std::vector<std::vector<size_t>> patterns;
  for (const std::string& path : paths) {
    std::vector<std::string> values;
    for (const auto& o : per_row) {
      const auto it = o.find(path);
      values.push_back(it == o.end() ? "-" : it->second);
    }
    const std::set<std::string> distinct(values.begin(), values.end());
    if (distinct.size() < 2) {
      continue;
    }
    const std::vector<size_t> p = pattern(values);
    const auto same = std::find(patterns.begin(), patterns.end(), p);
    if (same != patterns.end()) {
      out[static_cast<size_t>(same - patterns.begin())].paths.push_back(path);
      continue;
    }
    patterns.push_back(p);
    out.push_back({{path}, std::move(values), distinct.size(), last_component(path)});
  }
  for (SweptParameter& a : out) {
    const auto clashes = std::count_if(out.begin(), out.end(), [&](const SweptParameter& b) {
      return last_component(b.paths.front()) == last_component(a.paths.front());
    });
    if (clashes > 1) {
      a.short_name = a.paths.front();
    }
  }
  return out;
}

std::vector<std::string> row_labels(const report::CsvDocument& doc,
                                    const std::vector<const report::CsvRecord*>& rows) {
  std::vector<std::string> labels(rows.size());
  const std::vector<SweptParameter> swept = swept_parameters(doc, rows);
  for (const SweptParameter& p : swept) {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!labels[i].empty()) {
        labels[i] += ", ";
      }
      labels[i] += p.short_name;
      labels[i] += '=';
      labels[i] += p.values[i];
    }
  }
  if (swept.empty()) {
    for (const char* column : kNamingColumns) {
      std::set<std::string> values;
      for (const report::CsvRecord* row : rows) {
        values.insert(cell(doc, *row, column));
      }
      if (values.size() < 2) {
        continue;
      }
      for (size_t i = 0; i < rows.size(); ++i) {
        if (!labels[i].empty()) {
          labels[i] += ", ";
        }
        labels[i] += cell(doc, *rows[i], column);
      }
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (labels[i].empty()) {
      labels[i] = "row " + std::to_string(rows[i]->line);
    }
  }
  return labels;
}

}  // namespace podsim::html

#include <algorithm>
#include <set>

#include "html/escape.h"
#include "html/line_chart.h"
#include "html/sections.h"
#include "html/stacked_bars.h"
#include "html/swept.h"
#include "html/table_view.h"
#include "html/ticks.h"

namespace podsim::html {

namespace {

constexpr const char* kStep = "serving.step_time_us";
constexpr const char* kThroughput = "serving.tokens_per_s_per_chip";

struct Part {
  const char* column;
  const char* name;
};
// The unit breakdown (docs/outputs.md, "Unit breakdown"): adds up to the step.
constexpr Part kUnitParts[] = {{"serving.units.mxu_us", "matrix units"},
                               {"serving.units.vector_us", "vector unit"},
                               {"serving.units.issue_us", "issue"},
                               {"serving.units.dma_wait_us", "DMA wait"},
                               {"serving.units.overhead_us", "op overhead"},
                               {"serving.collective_exposed_us", "exposed collectives"},
                               {"serving.idle_us", "idle"}};
// Before the unit breakdown (result schema < 13): by op class.
constexpr Part kClassParts[] = {{"serving.compute_us", "compute-bound"},
                                {"serving.memory_us", "memory-bound (HBM)"},
                                {"serving.collective_exposed_us", "exposed collectives"},
                                {"serving.idle_us", "idle"}};

// The rows that ran and have a step time.
std::vector<const report::CsvRecord*> ok_rows(const report::CsvDocument& doc) {
  std::vector<const report::CsvRecord*> rows;
  if (doc.column(kStep) < 0) {
    return rows;
  }
  for (const report::CsvRecord& r : doc.rows) {
    if (cell(doc, r, "status") == "ok") {
      rows.push_back(&r);
    }
  }
  return rows;
}

// Microseconds or milliseconds, whichever reads better for `longest_us`.
struct TimeUnit {
  double per_us;
  const char* name;
};
TimeUnit time_unit(double longest_us) {
  return longest_us >= 10000 ? TimeUnit{1e-3, "ms"} : TimeUnit{1.0, "us"};
}

std::string not_ok_note(const report::CsvDocument& doc, size_t ok) {
  const size_t left_out = doc.rows.size() - ok;
  if (left_out == 0) {
    return {};
  }
  std::string s = "<p class=\"note\">";
  s += std::to_string(left_out);
  s += " of ";
  s += std::to_string(doc.rows.size());
  s += " rows are not drawn: their status is not ok (see the inputs table).</p>\n";
  return s;
}

}  // namespace

std::string breakdown_section(const report::CsvDocument& doc) {
  const std::vector<const report::CsvRecord*> rows = ok_rows(doc);
  if (rows.empty()) {
    return {};
  }
  const bool units = doc.column(kUnitParts[0].column) >= 0;
  const auto* parts = units ? kUnitParts : kClassParts;
  const size_t count = units ? std::size(kUnitParts) : std::size(kClassParts);
  double longest = 0;
  for (const report::CsvRecord* r : rows) {
    longest = std::max(longest, number(doc, *r, kStep));
  }
  const TimeUnit unit = time_unit(longest);
  StackedBarChart chart;
  chart.title = "Where the step time goes (critical chip)";
  chart.x_label = std::string("time per step (") + unit.name + ")";
  for (size_t p = 0; p < count; ++p) {
    chart.part_names.emplace_back(parts[p].name);
  }
  const std::vector<std::string> labels = row_labels(doc, rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    StackedBar bar;
    bar.label = labels[i];
    bar.total = number(doc, *rows[i], kStep) * unit.per_us;
    for (size_t p = 0; p < count; ++p) {
      const double v = number(doc, *rows[i], parts[p].column);
      if (v < 0) {
        throw ReportInputError(where(doc, *rows[i]) + ": column '" + parts[p].column +
                               "' is negative");
      }
      bar.parts.push_back(v * unit.per_us);
    }
    bar.total_label = figure(bar.total);
    bar.total_label += ' ';
    bar.total_label += unit.name;
    chart.bars.push_back(std::move(bar));
  }
  std::string out = "<section>\n<h2>Step-time breakdown</h2>\n<p class=\"src\">";
  out += escape(doc.source);
  out += "</p>\n";
  out += render_stacked_bars(chart);
  out += not_ok_note(doc, rows.size());
  out += "</section>\n";
  return out;
}

std::string sweep_section(const report::CsvDocument& doc) {
  const std::vector<const report::CsvRecord*> rows = ok_rows(doc);
  if (rows.size() < 2) {
    return {};
  }
  const std::vector<SweptParameter> swept = swept_parameters(doc, rows);
  if (swept.empty()) {
    return {};
  }
  // The x axis: the parameter with the most values (the first of equals).
  size_t xi = 0;
  for (size_t i = 1; i < swept.size(); ++i) {
    if (swept[i].distinct > swept[xi].distinct) {
      xi = i;
    }
  }
  const SweptParameter& x = swept[xi];
  const bool numeric_x = all_numeric(x.values);
  std::vector<std::string> categories;
  if (!numeric_x) {
    for (const std::string& v : x.values) {
      if (std::find(categories.begin(), categories.end(), v) == categories.end()) {
        categories.push_back(v);
      }
    }
  }
  // A series per combination of the other parameters' values.
  std::vector<std::string> series_of(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t k = 0; k < swept.size(); ++k) {
      if (k == xi) {
        continue;
      }
      if (!series_of[i].empty()) {
        series_of[i] += ", ";
      }
      series_of[i] += swept[k].short_name;
      series_of[i] += '=';
      series_of[i] += swept[k].values[i];
    }
  }
  double longest = 0;
  for (const report::CsvRecord* r : rows) {
    longest = std::max(longest, number(doc, *r, kStep));
  }
  const TimeUnit unit = time_unit(longest);
  std::string x_label;
  for (const std::string& p : x.paths) {
    x_label += x_label.empty() ? "" : " / ";
    x_label += p;
  }
  const auto chart_of = [&](const std::string& title, const std::string& y_label, auto value) {
    LineChart c;
    c.title = title;
    c.x_label = x_label;
    c.y_label = y_label;
    c.x_categories = categories;
    std::vector<std::string> names;
    for (size_t i = 0; i < rows.size(); ++i) {
      auto it = std::find(names.begin(), names.end(), series_of[i]);
      if (it == names.end()) {
        names.push_back(series_of[i]);
        Series s;
        s.name = series_of[i].empty() ? title : series_of[i];
        s.markers = true;
        c.series.push_back(std::move(s));
        it = names.end() - 1;
      }
      Series& s = c.series[static_cast<size_t>(it - names.begin())];
      double xv = 0;
      if (numeric_x) {
        parse_number(x.values[i], xv);
      } else {
        xv = static_cast<double>(std::find(categories.begin(), categories.end(), x.values[i]) -
                                 categories.begin());
      }
      const double yv = value(*rows[i]);
      s.points.emplace_back(xv, yv);
      std::string tip = x.short_name;
      tip += '=';
      tip += x.values[i];
      tip += ": ";
      tip += figure(yv);
      s.point_labels.push_back(std::move(tip));
    }
    for (Series& s : c.series) {
      sort_by_x(s);
    }
    return render_line_chart(c);
  };
  std::string out = "<section>\n<h2>Sweep</h2>\n<p class=\"src\">";
  out += escape(doc.source);
  out += "</p>\n<div class=\"row\">\n";
  out += chart_of(std::string("Step time (") + unit.name + ")",
                  std::string("step time (") + unit.name + ")",
                  [&](const report::CsvRecord& r) { return number(doc, r, kStep) * unit.per_us; });
  if (doc.column(kThroughput) >= 0) {
    out += chart_of("Throughput", "tokens/s per chip",
                    [&](const report::CsvRecord& r) { return number(doc, r, kThroughput); });
  }
  out += "</div>\n";
  out += not_ok_note(doc, rows.size());
  out += "</section>\n";
  return out;
}

std::string inputs_section(const report::CsvDocument& doc) {
  std::vector<std::vector<std::string>> common;
  std::vector<size_t> differing;
  for (size_t c = 0; c < doc.header.size(); ++c) {
    const std::string& name = doc.header[c];
    if (!name.starts_with("inputs.") && name != "status" && name != "reason") {
      continue;
    }
    std::set<std::string> values;
    for (const report::CsvRecord& r : doc.rows) {
      values.insert(r.cells[c]);
    }
    if (values.size() <= 1) {
      if (name.starts_with("inputs.") && !doc.rows.empty()) {
        common.push_back({name, doc.rows.front().cells[c]});
      }
    } else {
      differing.push_back(c);
    }
  }
  std::string out = "<section>\n<h2>Inputs</h2>\n<p class=\"src\">";
  out += escape(doc.source);
  out += " (";
  out += std::to_string(doc.rows.size());
  out += doc.rows.size() == 1 ? " row)" : " rows)";
  out += "</p>\n";
  if (!differing.empty()) {
    out += "<h3>Differing between rows</h3>\n";
    std::vector<std::string> header = {"line"};
    for (const size_t c : differing) {
      header.push_back(doc.header[c]);
    }
    std::vector<std::vector<std::string>> rows;
    for (const report::CsvRecord& r : doc.rows) {
      std::vector<std::string> row = {std::to_string(r.line)};
      for (const size_t c : differing) {
        row.push_back(r.cells[c]);
      }
      rows.push_back(std::move(row));
    }
    out += html_table(header, rows);
  }
  out += "<details><summary>Common to every row (";
  out += std::to_string(common.size());
  out += " columns)</summary>\n";
  out += html_table({"column", "value"}, common);
  out += "</details>\n</section>\n";
  return out;
}

}  // namespace podsim::html
